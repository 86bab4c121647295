"""Which submitted bots the database knows: the read-only half of the bot store.

Both :mod:`ladder.seats.players` (to resolve a bot's name to its stored files) and :mod:`ladder.seats.botstore` (which
checks and registers bots, and needs the players to run the check) use these lookups; keeping them here,
below both, is what lets ``players`` and ``botstore`` import without a cycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import select

from bots.registry import bot_names
from ladder.paths import as_db_url, default_db_url
from ladder.store.database import session_for
from ladder.store.tables import BotRow, BotVersionRow


def _database_exists(db_url: str | None) -> bool:
    url = as_db_url(db_url) if db_url else default_db_url()
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///")).exists()
    return True


def latest_hash(name: str, db_url: str | None = None) -> str | None:
    """The content hash of the latest submitted version of bot ``name``, or ``None``."""
    if not _database_exists(db_url):
        return None
    with session_for(db_url) as session:
        bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
        if bot is None:
            return None
        version = session.exec(
            select(BotVersionRow)
            .where(BotVersionRow.bot_id == bot.id, BotVersionRow.source != "builtin")
            .order_by(BotVersionRow.id.desc())  # type: ignore[union-attr]
        ).first()
        return version.content_hash if version else None


def registered_names(db_url: str | None = None) -> list[str]:
    """Names of the submitted bots (not the built-ins)."""
    return [row["name"] for row in registered_bots(db_url)]


def registered_bots(db_url: str | None = None) -> list[dict[str, Any]]:
    """Every submitted bot with its versions, newest last (built-in rows are left out)."""
    if not _database_exists(db_url):
        return []
    builtin = set(bot_names())
    found = []
    with session_for(db_url) as session:
        for bot in session.exec(select(BotRow).order_by(BotRow.name)).all():
            if bot.name in builtin:
                continue
            versions = session.exec(
                select(BotVersionRow)
                .where(BotVersionRow.bot_id == bot.id, BotVersionRow.source != "builtin")
                .order_by(BotVersionRow.id)  # type: ignore[arg-type]
            ).all()
            if not versions:
                continue
            found.append(
                {
                    "name": bot.name,
                    "author": bot.author,
                    "versions": [
                        {
                            "version": v.version,
                            "hash": v.content_hash,
                            "games": v.games,
                            "source": v.source,
                            "store_path": v.store_path,
                            "created_at": v.created_at.isoformat() if v.created_at else "",
                        }
                        for v in versions
                    ],
                }
            )
    return found
