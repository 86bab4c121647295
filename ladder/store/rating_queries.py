"""The queries of the ratings' database side (``ladder.ratings.persistence`` reads through them).

The ratings sit above the store, so these hand back rows; the ratings make their facts and standings of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from ladder.matches.statuses import MatchStatus
from ladder.store.tables import MatchRow, RatingHistoryRow, RatingRow, RatingStateRow, SeatResultRow


def played_seat_rows(session: Session, tournament_id: int | None = None) -> Sequence[Row[Any]]:
    """One row per seat of every played match (of one tournament, if given), without the action log, in match id
    then seat order: (match id, tournament id, game, players, deal, details JSON, seat, bot version id, score, rank,
    failure reason)."""
    # SQLAlchemy's own select: SQLModel's is typed for at most four columns
    query = (
        sa_select(
            col(MatchRow.id),
            col(MatchRow.tournament_id),
            col(MatchRow.game),
            col(MatchRow.num_players),
            col(MatchRow.deal),
            col(MatchRow.details_json),
            col(SeatResultRow.seat),
            col(SeatResultRow.bot_version_id),
            col(SeatResultRow.score),
            col(SeatResultRow.rank),
            col(SeatResultRow.failure_reason),
        )
        .join(SeatResultRow, col(SeatResultRow.match_id) == col(MatchRow.id))
        .where(col(MatchRow.status) == MatchStatus.PLAYED)
        .order_by(col(MatchRow.id), col(SeatResultRow.seat))
    )
    if tournament_id is not None:
        query = query.where(col(MatchRow.tournament_id) == tournament_id)
    return session.execute(query).all()


def played_matches_marker(session: Session) -> tuple[int, int]:
    """(number of played matches, highest played match id): what the stored ratings are checked against."""
    count, last = session.exec(
        select(func.count(col(MatchRow.id)), func.max(col(MatchRow.id))).where(
            col(MatchRow.status) == MatchStatus.PLAYED
        )
    ).one()
    return int(count or 0), int(last or 0)


def rating_state(session: Session) -> RatingStateRow | None:
    """The stored ratings' state row (when and from which matches they were computed), if any."""
    return session.exec(select(RatingStateRow)).first()


def rating_history_rows(session: Session) -> list[RatingHistoryRow]:
    """The stored rating history, in the order it was written."""
    return list(session.exec(select(RatingHistoryRow).order_by(col(RatingHistoryRow.id))).all())


def rating_rows(session: Session) -> list[RatingRow]:
    """Every stored rating."""
    return list(session.exec(select(RatingRow)).all())
