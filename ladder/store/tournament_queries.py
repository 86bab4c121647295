"""The queries of a tournament's run (the coordinator, its match sources and the time estimate read through them):
its stored row, the keys and states of its recorded matches, its benches, and the played matches' wall times."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func
from sqlmodel import Session, col, select

from ladder.matches.statuses import REPLAYED_STATUSES, MatchStatus
from ladder.store.tables import BenchRow, MatchRow, SeatResultRow, TournamentRow


def latest_tournament(session: Session, name: str, fingerprint: str) -> TournamentRow | None:
    """The latest tournament of this name and schedule fingerprint, if any."""
    return session.exec(
        select(TournamentRow)
        .where(TournamentRow.name == name, TournamentRow.fingerprint == fingerprint)
        .order_by(col(TournamentRow.id).desc())
    ).first()


def benches(session: Session, tournament_id: int) -> list[BenchRow]:
    """The benches a tournament has stored."""
    return list(session.exec(select(BenchRow).where(BenchRow.tournament_id == tournament_id)).all())


def recorded_states(session: Session, tournament_id: int) -> list[tuple[str, str, str]]:
    """Each recorded match of a tournament: (key, status, host JSON)."""
    return list(
        session.exec(
            select(MatchRow.key, MatchRow.status, MatchRow.host_json).where(MatchRow.tournament_id == tournament_id)
        ).all()
    )


def recorded_keys(session: Session, tournament_id: int) -> set[str]:
    """The keys a tournament has recorded as played or skipped (an error or a voided match is played again)."""
    return set(
        session.exec(
            select(MatchRow.key).where(
                MatchRow.tournament_id == tournament_id, col(MatchRow.status).not_in(REPLAYED_STATUSES)
            )
        ).all()
    )


def match_ids_and_keys(session: Session, tournament_id: int) -> list[tuple[int | None, str]]:
    """Each recorded match of a tournament: (id, key)."""
    return list(session.exec(select(MatchRow.id, MatchRow.key).where(MatchRow.tournament_id == tournament_id)).all())


def match_ids_of_keys(session: Session, tournament_id: int, keys: Iterable[str]) -> list[int | None]:
    """The ids of a tournament's recorded matches of these keys."""
    return list(
        session.exec(
            select(MatchRow.id).where(MatchRow.tournament_id == tournament_id, col(MatchRow.key).in_(list(keys)))
        ).all()
    )


def matches_missing_seats(session: Session, tournament_id: int) -> list[int | None]:
    """The ids of a tournament's matches stored without all their seat rows (by a ladder before atomic storing)."""
    seat_count = (
        select(func.count(col(SeatResultRow.id)))
        .where(SeatResultRow.match_id == MatchRow.id)
        .correlate(MatchRow)
        .scalar_subquery()
    )
    return list(
        session.exec(
            select(MatchRow.id).where(MatchRow.tournament_id == tournament_id, seat_count != MatchRow.num_players)
        ).all()
    )


def played_seconds(session: Session, games: Iterable[str]) -> list[tuple[str, str, str, float]]:
    """Every stored played match of these games: (game, options JSON, seats JSON, wall seconds)."""
    return list(
        session.exec(
            select(MatchRow.game, MatchRow.options_json, MatchRow.seats_json, MatchRow.seconds).where(
                MatchRow.status == MatchStatus.PLAYED, col(MatchRow.game).in_(sorted(games))
            )
        ).all()
    )
