"""The queries of the bots and their versions (the roster and the bot store of ``ladder.seats`` read through them)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from ladder.store.tables import BotRow, BotVersionRow


def bot_named(session: Session, name: str) -> BotRow | None:
    """The bot of this name, if there is one."""
    return session.exec(select(BotRow).where(BotRow.name == name)).first()


def bots_by_name(session: Session) -> list[BotRow]:
    """Every bot, in name order."""
    return list(session.exec(select(BotRow).order_by(BotRow.name)).all())


def version_of_bot(session: Session, bot_id: int | None, content_hash: str) -> BotVersionRow | None:
    """The version of bot ``bot_id`` with exactly this content hash, if there is one."""
    return session.exec(
        select(BotVersionRow).where(BotVersionRow.bot_id == bot_id, BotVersionRow.content_hash == content_hash)
    ).first()


def latest_registered_version(session: Session, bot_id: int | None) -> BotVersionRow | None:
    """The newest version of bot ``bot_id`` that is not a built-in one."""
    return session.exec(
        select(BotVersionRow)
        .where(BotVersionRow.bot_id == bot_id, BotVersionRow.source != "builtin")
        .order_by(col(BotVersionRow.id).desc())
    ).first()


def version_with_hash(session: Session, content_hash: str) -> BotVersionRow | None:
    """The bot version (of any bot) with this content hash, if there is one."""
    return session.exec(select(BotVersionRow).where(BotVersionRow.content_hash == content_hash)).first()


def version_count(session: Session, bot_id: int) -> int:
    """How many versions bot ``bot_id`` has."""
    return len(session.exec(select(BotVersionRow.id).where(BotVersionRow.bot_id == bot_id)).all())
