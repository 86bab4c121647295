"""Matches as the CLI lists them: the newest that pass a filter, the seats of some, a pair of bots' shared
matches, a tournament's counts by status, and every match for ``ladder export``.

These read only columns (a match's action log is the bulk of the database and is read only where asked for), so
they return small frozen values, or the seat rows themselves where a command prints each field of a seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from ladder.errors import NotFound
from ladder.store.tables import BenchRow, BotRow, BotVersionRow, MatchRow, SeatResultRow
from ladder.views.catalog import latest_version_ids


@dataclass(frozen=True)
class MatchLine:
    """A match as ``ladder matches`` lists it (no seats, no action log)."""

    id: int
    tournament_id: int
    game: str
    players: int
    seed: int
    status: str
    error: str
    seconds: float
    finished_at: datetime
    key: str


def newest_matches(
    session: Session,
    versions: Sequence[int] | None,
    game: str | None,
    tournament: int | None,
    status: str | None,
    limit: int,
) -> list[MatchLine]:
    """The ``limit`` newest matches that pass the filters (``versions``: with a seat of one of them), newest first."""
    # SQLAlchemy's own select: SQLModel's is typed for at most four columns
    query = sa_select(
        col(MatchRow.id),
        col(MatchRow.tournament_id),
        col(MatchRow.game),
        col(MatchRow.num_players),
        col(MatchRow.seed),
        col(MatchRow.status),
        col(MatchRow.error),
        col(MatchRow.seconds),
        col(MatchRow.finished_at),
        col(MatchRow.key),
    )
    if game:
        query = query.where(col(MatchRow.game) == game)
    if tournament is not None:
        query = query.where(col(MatchRow.tournament_id) == tournament)
    if status:
        query = query.where(col(MatchRow.status) == status)
    if versions is not None:
        query = query.where(
            col(MatchRow.id).in_(select(SeatResultRow.match_id).where(col(SeatResultRow.bot_version_id).in_(versions)))
        )
    return [MatchLine(*row) for row in session.execute(query.order_by(col(MatchRow.id).desc()).limit(limit)).all()]


def seats_by_match(session: Session, ids: Iterable[int] | None = None) -> dict[int, list[SeatResultRow]]:
    """The seats of the matches ``ids`` (every match's when None), in seat order, by match id."""
    query = select(SeatResultRow)
    if ids is not None:
        query = query.where(col(SeatResultRow.match_id).in_(list(ids)))
    seats: dict[int, list[SeatResultRow]] = {}
    for seat in session.exec(query.order_by(col(SeatResultRow.match_id), col(SeatResultRow.seat))).all():
        seats.setdefault(seat.match_id, []).append(seat)
    return seats


def match_seats(session: Session, match_id: int) -> list[SeatResultRow]:
    """One match's seats, in seat order."""
    return seats_by_match(session, [match_id]).get(match_id, [])


@dataclass(frozen=True)
class SharedSeat:
    """A seat of one of two bots in a played match (``ladder h2h`` pairs them by table or deal)."""

    match_id: int
    tournament_id: int
    game: str
    players: int
    deal: str
    version_id: int
    score: float | None
    rank: int | None
    failure: str | None


def played_seats(session: Session, versions: Iterable[int], game: str | None = None) -> list[SharedSeat]:
    """Every seat of ``versions`` in a played match (of ``game`` when given)."""
    query = (
        sa_select(
            col(MatchRow.id),
            col(MatchRow.tournament_id),
            col(MatchRow.game),
            col(MatchRow.num_players),
            col(MatchRow.deal),
            col(SeatResultRow.bot_version_id),
            col(SeatResultRow.score),
            col(SeatResultRow.rank),
            col(SeatResultRow.failure_reason),
        )
        .join(SeatResultRow, col(SeatResultRow.match_id) == col(MatchRow.id))
        .where(col(MatchRow.status) == "played", col(SeatResultRow.bot_version_id).in_(list(versions)))
    )
    if game:
        query = query.where(col(MatchRow.game) == game)
    return [SharedSeat(*row) for row in session.execute(query).all()]


def tournament_match_counts(session: Session) -> dict[int, Counter[str]]:
    """Each tournament's matches counted by status, except that a match with an older version of one of its
    bots counts as "older versions" whatever its status."""
    latest = latest_version_ids(session)
    outdated = {
        match_id
        for match_id, version in session.exec(select(SeatResultRow.match_id, SeatResultRow.bot_version_id)).all()
        if version not in latest
    }
    counts: dict[int, Counter[str]] = {}
    for match_id, tid, status in session.exec(select(MatchRow.id, MatchRow.tournament_id, MatchRow.status)).all():
        # the matches of a bot's older versions stay recorded, but a new version has its own matches to play
        counts.setdefault(tid, Counter())["older versions" if match_id in outdated else status] += 1
    return counts


def benched_counts(session: Session) -> Counter[int]:
    """Each tournament's number of benchings."""
    return Counter(b.tournament_id for b in session.exec(select(BenchRow)).all())


EXPORT_COLUMNS = (
    MatchRow.id,
    MatchRow.tournament_id,
    MatchRow.key,
    MatchRow.game,
    MatchRow.num_players,
    MatchRow.options_json,
    MatchRow.seed,
    MatchRow.status,
    MatchRow.finished_at,
    MatchRow.seconds,
    MatchRow.details_json,
)


def exported_matches(session: Session, actions: bool) -> Sequence[Any]:
    """Every match as rows of :data:`EXPORT_COLUMNS` (and its packed action log last, with ``actions``)."""
    columns: list[Any] = [*EXPORT_COLUMNS, MatchRow.actions_z] if actions else list(EXPORT_COLUMNS)
    return session.execute(sa_select(*(col(c) for c in columns)).order_by(col(MatchRow.id))).all()


def latest_clean_seats(
    session: Session, bot: str, game: str | None = None, players: int | None = None, limit: int = 10
) -> list[tuple[MatchRow, SeatResultRow]]:
    """A bot's seats in its latest played matches where it did not fail (what ``ladder blunders`` analyses), newest
    first; ``NotFound`` for a bot the database does not know."""
    if session.exec(select(BotRow).where(BotRow.name == bot)).first() is None:
        raise NotFound(f"no bot {bot!r} in the database (see `ladder bots`)")
    query = (
        select(MatchRow, SeatResultRow)
        .join(SeatResultRow, col(SeatResultRow.match_id) == col(MatchRow.id))
        .join(BotVersionRow, col(BotVersionRow.id) == col(SeatResultRow.bot_version_id))
        .join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
        .where(BotRow.name == bot, MatchRow.status == "played", col(SeatResultRow.failure_reason).is_(None))
    )
    if game:
        query = query.where(MatchRow.game == game)
    if players:
        query = query.where(MatchRow.num_players == players)
    return [(match, seat) for match, seat in session.exec(query.order_by(col(MatchRow.id).desc()).limit(limit)).all()]
