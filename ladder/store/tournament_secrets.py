"""Ending a tournament on purpose to reveal its deal secret (``ladder tournaments --reveal``): a write of the
tournament's row, refused while it can still play (its secret stays sealed while matches can be dealt)."""

from __future__ import annotations

from sqlmodel import Session

from ladder.errors import Conflict, NotFound
from ladder.store.tables import TournamentRow, live_state, utcnow


def reveal_secret(session: Session, tournament_id: int) -> TournamentRow:
    """End tournament ``tournament_id`` on purpose and reveal its secret (refused while it is running)."""
    row = session.get(TournamentRow, tournament_id)
    if row is None:
        raise NotFound(f"no tournament #{tournament_id}; `ladder tournaments` lists them")
    if row.deal_secret is None:
        raise Conflict(f"tournament #{tournament_id} was made before sealed deals: it has no secret to reveal")
    if live_state(row) in ("running", "running?"):
        raise Conflict(
            f"tournament #{tournament_id} is running (process {row.pid} on {row.host}): stop it first; "
            "its secret stays sealed while matches can still be played"
        )
    if row.secret_revealed_at is None:
        row.secret_revealed_at = utcnow()
        session.add(row)
        session.commit()
    return row
