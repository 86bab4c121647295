"""Built-in bots. They use the same public API as submitted bots (:mod:`bots.base`)."""

from bots.base import Bot, MatchStart
from bots.registry import UnknownBotError, bot_names, bots_for_game, get_bot_class

__all__ = ["Bot", "MatchStart", "UnknownBotError", "bot_names", "bots_for_game", "get_bot_class"]
