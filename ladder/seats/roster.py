"""Rated bot versions (entrants) from bot references: the database's side of which bot a reference means.

Ratings belong to a bot *version* (a content hash of its code), so a changed
bot starts a new rating instead of dragging its old one along (TrueSkill's
tau is 0 for that reason). A built-in bot's version is the hash of the
source files of its classes; a registered bot's version is the hash the bot
store gave its files.

What a worker is given for a seat is a *reference*: the built-in name, or
``store:<sha256>`` for a registered version (so a worker needs no database).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlmodel import Session

from bots.registry import bot_classes, bot_names, games_of, is_handicapped
from ladder.errors import UserError
from ladder.seats.botref import BotRef, RefKind
from ladder.seats.versions import builtin_hash
from ladder.store import bot_queries
from ladder.store.tables import BotRow, BotVersionRow


@dataclass(frozen=True)
class Entrant:
    """One bot version as it enters a tournament."""

    name: str
    version: str
    content_hash: str
    version_id: int
    ref: str  # what a worker is given for this seat
    games: tuple[str, ...]  # game ids, or ("*",) for every game

    def plays(self, game_id: str) -> bool:
        return "*" in self.games or game_id in self.games

    @property
    def label(self) -> str:
        """Name and short hash: unique per version, stable, readable (``thumb@3f9a1c2e``)."""
        return f"{self.name}@{self.content_hash[:8]}"


def _entrant(bot: BotRow, version: BotVersionRow) -> Entrant:
    if version.source == "builtin":
        ref = bot.name
    elif version.source == "entrypoint":
        ref = str(BotRef.entry_point(bot.name))
    else:
        ref = str(BotRef.store(version.content_hash))
    assert version.id is not None
    return Entrant(bot.name, version.version, version.content_hash, version.id, ref, tuple(version.games))


def builtin_entrant(session: Session, name: str) -> Entrant:
    """The built-in bot ``name`` at its current code, recorded as a bot version if new."""
    classes = bot_classes()[name]
    content_hash = builtin_hash(name)
    bot = bot_queries.bot_named(session, name)
    if bot is None:
        bot = BotRow(name=name, author=classes[0].author)
        session.add(bot)
        session.flush()
    version = bot_queries.version_of_bot(session, bot.id, content_hash)
    if version is None:
        assert bot.id is not None  # flushed above
        labels = sorted({cls.version for cls in classes})
        version = BotVersionRow(
            bot_id=bot.id,
            version="/".join(labels),
            content_hash=content_hash,
            games_json=json.dumps(games_of(name)),
            source="builtin",
        )
        session.add(version)
        session.flush()
    return _entrant(bot, version)


def registered_entrants(session: Session) -> list[Entrant]:
    """The latest version of every registered (not built-in) bot."""
    builtin = set(bot_names())
    found = []
    for bot in bot_queries.bots_by_name(session):
        if bot.name in builtin:
            continue
        version = bot_queries.latest_registered_version(session, bot.id)
        if version is not None:
            found.append(_entrant(bot, version))
    return found


def resolve(session: Session, ref: str) -> Entrant:
    """The bot version a reference names: a built-in name, a registered name, or ``store:<sha256>``."""
    if ref in bot_names():
        return builtin_entrant(session, ref)
    parsed = BotRef.parse(ref)
    if parsed.kind is RefKind.STORE:
        version = bot_queries.version_with_hash(session, parsed.target)
        if version is None:
            raise UserError(f"no registered bot version {ref}; `ladder submit` it first")
        bot = session.get(BotRow, version.bot_id)
        assert bot is not None
        return _entrant(bot, version)
    if parsed.kind is RefKind.PATH:
        raise UserError(f"bot {ref!r} is a file: `ladder submit {ref}` registers it, then name it in the tournament")
    for entrant in registered_entrants(session):
        if entrant.name == ref:
            return entrant
    registered = ", ".join(e.name for e in registered_entrants(session)) or "none"
    raise UserError(f"no bot {ref!r}; built-in bots: {', '.join(bot_names())}; registered bots: {registered}")


def entrants_for_game(session: Session, game_id: str) -> list[Entrant]:
    """Every built-in bot that plays ``game_id`` (but the handicapped ones of the known-order field, which
    are entered by name) and every registered bot that claims it."""
    builtins = [builtin_entrant(session, name) for name in bot_names() if not is_handicapped(name)]
    return [e for e in builtins + registered_entrants(session) if e.plays(game_id)]
