"""Built-in bots by name.

A name may stand for several classes, one per game (``thumb`` is a different
rule-of-thumb bot in each game): :func:`get_bot_class` picks the one for the
game at hand. Bot modules are listed here explicitly, one per bot family and game.
"""

from __future__ import annotations

import importlib

from bots.base import Bot

_BOT_MODULES: tuple[str, ...] = (
    "bots.elevenses.thumb",
    "bots.elevenses.search",
    "bots.bowling_solitaire.thumb",
    "bots.bowling_solitaire.search",
    "bots.elevenses_for_one.thumb",
    "bots.elevenses_for_one.search",
    "bots.elfer_raus.thumb",
    "bots.elfer_raus.search",
    "bots.random_bot",
    "bots.handicapped",
)


class UnknownBotError(ValueError):
    """No built-in bot of that name plays that game."""


_bots: dict[str, list[type[Bot]]] | None = None


def _load() -> dict[str, list[type[Bot]]]:
    global _bots
    if _bots is None:
        found: dict[str, list[type[Bot]]] = {}
        for module_name in _BOT_MODULES:
            module = importlib.import_module(module_name)
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, Bot)
                    and value.__module__ == module.__name__
                    and "name" in vars(value)
                ):  # a class of its own name: not a base class
                    found.setdefault(value.name, []).append(value)
        _bots = found
    return _bots


def register_bot(cls: type[Bot]) -> None:
    """Add the bot class ``cls`` under its ``name`` in this process (a test's or tool's own bot); idempotent."""
    classes = _load().setdefault(cls.name, [])
    if cls not in classes:
        classes.append(cls)


def unregister_bot(name: str) -> None:
    """Take every class of the bot ``name`` out of this process's registry (nothing happens if none)."""
    _load().pop(name, None)


def bot_names() -> list[str]:
    return sorted(_load())


def bot_classes() -> dict[str, list[type[Bot]]]:
    """Every built-in bot name with its classes."""
    return {name: list(classes) for name, classes in sorted(_load().items())}


def games_of(name: str) -> list[str]:
    return sorted({game for cls in _load().get(name, []) for game in cls.games})


def get_bot_class(name: str, game_id: str) -> type[Bot]:
    """The built-in bot ``name`` for ``game_id``; raises :class:`UnknownBotError` saying what exists."""
    classes = _load().get(name)
    if not classes:
        raise UnknownBotError(f"no built-in bot {name!r}; built-in bots: {', '.join(bot_names())}")
    for cls in classes:
        if game_id in cls.games:
            return cls
    for cls in classes:
        if "*" in cls.games:
            return cls
    raise UnknownBotError(f"bot {name!r} does not play {game_id}; it plays: {', '.join(games_of(name))}")


def is_handicapped(name: str) -> bool:
    """A handicapped bot of the known-order field (``thumb-25``...): built in, but not in ``bots = "all"``."""
    return any(getattr(cls, "handicapped", False) for cls in _load().get(name, []))


def bots_for_game(game_id: str, handicapped: bool = False) -> list[str]:
    """Names of the built-in bots that play ``game_id`` (with the handicapped ones only if asked)."""
    return [
        name
        for name in bot_names()
        if any(cls.plays(game_id) for cls in _load()[name]) and (handicapped or not is_handicapped(name))
    ]
