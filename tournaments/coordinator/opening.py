"""Which tournament a run continues, dealt from which secret (sealed deals, :mod:`ladder.matches.deals`).

A tournament is identified by its name, seed, format and games, not by its
bots, so a run continues the latest tournament of the same name and
fingerprint. A new tournament gets a fresh secret (or the operator's,
``--deal-secret``); a resumed one deals from its own. A revealed secret never
deals again: a finished tournament that has more to play (a new bot version,
more cycles) goes on dealt from a new secret, the revealed one kept in
``previous_deals``. A tournament made before sealed deals is not continued.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session

from ladder.errors import UserError
from ladder.matches.deals import DealSecret
from ladder.matches.statuses import TournamentState
from ladder.store import tournament_queries
from ladder.store.tables import TournamentRow, utcnow
from tournaments.coordinator.recorder import to_json
from tournaments.formats.config import TournamentConfig


def latest_tournament(session: Session, config: TournamentConfig, print_hash: str) -> TournamentRow | None:
    """The latest tournament of this name and schedule, if any."""
    return tournament_queries.latest_tournament(session, config.name, print_hash)


@dataclass
class Choice:
    """The tournament a run continues (None: a new one), the secret it deals from, and what to tell."""

    row: TournamentRow | None
    secret: DealSecret
    notes: list[str] = field(default_factory=list)


def choose_tournament(
    session: Session,
    config: TournamentConfig,
    print_hash: str,
    given: DealSecret | None,
    more_to_play: Callable[[TournamentRow], bool],
) -> Choice:
    """The tournament this run continues and its secret (``given``: the operator's ``--deal-secret``)."""
    found = latest_tournament(session, config, print_hash)
    fresh = given or DealSecret.fresh()
    if found is None:
        return Choice(None, fresh)
    if not found.deals_public:
        assert found.deal_secret is not None
        secret = DealSecret.from_hex(found.deal_secret)
        if given is not None and given != secret:
            raise UserError(
                f"tournament {found.name} #{found.id} is unfinished and dealt from another secret than "
                "--deal-secret: finish it first (run it without --deal-secret), or give this run another name"
            )
        return Choice(found, secret)
    if not more_to_play(found):  # nothing to play: the run reports it as it is
        return Choice(found, DealSecret.from_hex(found.deal_secret) if found.deal_secret else fresh)
    if found.deal_secret is None:
        return Choice(
            None,
            fresh,
            [
                f"tournament {found.name} #{found.id} was made before sealed deals (its deals are "
                "public): this run starts a new tournament with a secret"
            ],
        )
    return reseal(session, found, given)


def reseal(session: Session, row: TournamentRow, given: DealSecret | None) -> Choice:
    """Give ``row``, whose secret is revealed and which has more to play, a new secret: a revealed secret never
    deals again. The revealed one stays published in ``previous_deals``, so every stored deal can still be
    checked; the matches already played stay as they are."""
    assert row.deal_secret is not None and row.secret_revealed_at is not None
    if given is not None and given.hex == row.deal_secret:
        raise UserError(
            f"--deal-secret: that secret was revealed when tournament {row.name} #{row.id} ended; "
            "a public secret never deals again: give another one, or none"
        )
    previous = json.loads(row.previous_deals)
    previous.append(
        {
            "secret": row.deal_secret,
            "commitment": row.deal_commitment,
            "revealed_at": row.secret_revealed_at.isoformat(),
        }
    )
    secret = given or DealSecret.fresh()
    row.previous_deals = json.dumps(previous)
    row.deal_secret, row.deal_commitment, row.secret_revealed_at = secret.hex, secret.commitment, None
    session.add(row)
    session.commit()
    note = (
        f"tournament {row.name} #{row.id}: its deal secret was revealed when it ended, so the matches it "
        f"plays now are dealt from a new secret (commitment {secret.commitment[:16]}...)"
    )
    return Choice(row, secret, [note])


def _process_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            return b"python" in cmdline.read_bytes() or b"ladder" in cmdline.read_bytes()
        except OSError:
            return True
    return True


def open_tournament(
    session: Session,
    config: TournamentConfig,
    print_hash: str,
    scheduled: int,
    found: TournamentRow | None,
    secret: DealSecret,
) -> tuple[TournamentRow, bool]:
    """Resume ``found``, or create the tournament (dealt from ``secret``); mark it running. Whether it resumed."""
    row = found
    resumed = row is not None
    if row is None:
        row = TournamentRow(
            name=config.name,
            file=config.path,
            seed=config.seed,
            fingerprint=print_hash,
            config_json=to_json(config.to_json()),
            scheduled=scheduled,
            cycles=config.cycles,
            deal_secret=secret.hex,
            deal_commitment=secret.commitment,
        )
    elif row.state == TournamentState.RUNNING and row.host == socket.gethostname() and _process_alive(row.pid):
        raise UserError(
            f"tournament {config.name!r} (#{row.id}) is being run by process {row.pid}; wait for it, "
            f"or stop it (Ctrl-C) before running it again"
        )
    row.state = TournamentState.RUNNING.value
    row.pid = os.getpid()
    row.host = socket.gethostname()
    row.file = config.path
    row.updated_at = utcnow()
    row.finished_at = None
    session.add(row)
    session.commit()
    return row, resumed
