"""What the live pages poll: one short marker of what a page shows, so a page can tell, cheaply, that it is out
of date and fetch itself again (``service/web/static/live.js``).

The marker is a hash of the played matches (count and last id), the served bots' and versions' states, and the
viewer's own submissions' states (an author's only: the marker tells nobody anything about another author's
submissions). A page embeds the marker of the data it was rendered from (ratings kept a few seconds by the read
model's caches carry the matches they were computed on); ``/api/live`` answers the marker of the database now.
The two differ until the page has been fetched from fresh data.
"""

from __future__ import annotations

import hashlib

from sqlmodel import Session, col, select

from ladder.ratings import persistence as ratings_persistence
from ladder.store.served_tables import AuthorRow, ServedBotRow, ServedVersionRow, SubmissionRow


def matches_now(session: Session) -> tuple[int, int]:
    """(played matches, highest played match id) in the database now."""
    return ratings_persistence.played_matches_marker(session)


def marker(session: Session, viewer: AuthorRow | None, matches: tuple[int, int] | None = None) -> str:
    """The marker of the served ladder as ``viewer`` sees it (None: anyone; the operator sees every author's
    submissions), its matches as of ``matches`` (default: now)."""
    digest = hashlib.sha256()
    digest.update(repr(matches if matches is not None else matches_now(session)).encode())
    bots = session.exec(select(ServedBotRow.bot_id, ServedBotRow.state).order_by(col(ServedBotRow.bot_id))).all()
    versions = session.exec(
        select(ServedVersionRow.bot_version_id, ServedVersionRow.state).order_by(col(ServedVersionRow.bot_version_id))
    ).all()
    digest.update(repr((list(bots), list(versions))).encode())
    if viewer is not None:
        query = select(SubmissionRow.id, SubmissionRow.state).order_by(col(SubmissionRow.id))
        if not viewer.is_operator:
            query = query.where(SubmissionRow.author_id == viewer.id)
        digest.update(repr(list(session.exec(query).all())).encode())
    return digest.hexdigest()[:16]


def oldest(*markers: tuple[int, int] | None) -> tuple[int, int] | None:
    """The oldest of the match markers a page's parts were computed on (None: a part not computed yet)."""
    known = [m for m in markers if m is not None]
    return min(known) if known else None
