"""The queries of the served ladder's check of a submission (``service.background.check_job`` reads through them):
who owns which bot, the bots whose names a new one must not pass for, and an author's versions on the schedule."""

from __future__ import annotations

from sqlmodel import Session, col, select

from ladder.store.served_tables import BotState, ServedBotRow, ServedVersionRow, VersionState
from ladder.store.tables import BotRow, BotVersionRow


def served_owners(session: Session) -> dict[int, int]:
    """Each served bot's id: its author's id."""
    return {served.bot_id: served.author_id for served in session.exec(select(ServedBotRow)).all()}


def all_bots(session: Session) -> list[BotRow]:
    """Every bot on the ladder, served or the operator's."""
    return list(session.exec(select(BotRow)).all())


def placed_versions(session: Session, author_id: int, only_bot_id: int | None = None) -> list[ServedVersionRow]:
    """The author's versions on the schedule, the newest first: of every bot of hers that plays, or (with
    ``only_bot_id``) of that one bot alone, whatever its state."""
    placed = (
        select(ServedVersionRow)
        .join(ServedBotRow, col(ServedBotRow.bot_id) == col(ServedVersionRow.bot_id))
        .where(ServedVersionRow.author_id == author_id, ServedVersionRow.state == VersionState.ACTIVE.value)
        .order_by(col(ServedVersionRow.activated_at).desc(), col(ServedVersionRow.bot_version_id).desc())
    )
    return list(
        session.exec(
            placed.where(ServedVersionRow.bot_id == only_bot_id)
            if only_bot_id is not None
            else placed.where(ServedBotRow.state == BotState.ACTIVE.value)
        ).all()
    )


def registered_version(session: Session, content_hash: str) -> BotVersionRow:
    """The one bot version with this content hash (``NoResultFound`` unless it is registered)."""
    return session.exec(select(BotVersionRow).where(BotVersionRow.content_hash == content_hash)).one()
