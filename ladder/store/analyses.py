"""The queries of the analysis cache (``ladder.analysis.cache`` reads and writes through them).

The analysis sits above the store, so these take the key's parts as plain values, not its ``AnalysisKey``.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from ladder.store.analysis_tables import AnalysisRow
from ladder.store.tables import BotRow, BotVersionRow, SeatResultRow


def seat_bot_versions(session: Session, match_id: int) -> dict[int, tuple[int, str]]:
    """Each seat of a match: its bot version id and bot name."""
    rows = session.exec(
        select(SeatResultRow, BotRow)
        .join(BotVersionRow, col(BotVersionRow.id) == col(SeatResultRow.bot_version_id))
        .join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
        .where(SeatResultRow.match_id == match_id)
    ).all()
    return {seat.seat: (seat.bot_version_id, bot.name) for seat, bot in rows}


def analysis_row(
    session: Session, match_id: int, seat: int, reference: str, samples: int, seed: int, version: int
) -> AnalysisRow | None:
    """The cached row of exactly this key, if there is one."""
    return session.exec(
        select(AnalysisRow).where(
            AnalysisRow.match_id == match_id,
            AnalysisRow.seat == seat,
            AnalysisRow.reference == reference,
            AnalysisRow.samples == samples,
            AnalysisRow.seed == seed,
            AnalysisRow.version == version,
        )
    ).first()


def analysis_rows_for_match(session: Session, match_id: int, version: int) -> list[AnalysisRow]:
    """Every cached row of a match made by the method's ``version``."""
    return list(
        session.exec(select(AnalysisRow).where(AnalysisRow.match_id == match_id, AnalysisRow.version == version)).all()
    )


def analysed_match_ids(session: Session, version: int) -> set[int]:
    """The matches with at least one cached row of the method's ``version``."""
    return set(session.exec(select(AnalysisRow.match_id).where(AnalysisRow.version == version)).all())
