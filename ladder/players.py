"""Turning a bot reference from the command line or a tournament into a seat player.

A reference is the name of a built-in bot (``random``, ``thumb``, ...). Built-in
bots run in this process; a bot raising an exception is turned into a
:class:`~ladder.match.BotFailure` so the failure rule applies to it as to any bot.
"""

from __future__ import annotations

import traceback
from typing import Any

from bots.base import Bot, MatchStart
from bots.registry import UnknownBotError, get_bot_class
from ladder.errors import UserError
from ladder.match import BotFailure, Player


class InProcessPlayer:
    """A built-in bot object, with its exceptions turned into :class:`BotFailure`."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.bot, method)(*args)
        except Exception as error:  # the failure rule covers any exception a bot raises
            tail = "".join(traceback.format_exception(error)[-6:])
            raise BotFailure("exception", f"{type(error).__name__} in {method}(): {error}", tail) from None

    def start(self, match: MatchStart) -> None:
        self._call("start", match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self._call("act", observation, legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        self._call("end", result)


def builtin_player(name: str, game_id: str) -> Player:
    """A fresh in-process player for the built-in bot ``name`` in ``game_id``."""
    try:
        cls = get_bot_class(name, game_id)
    except UnknownBotError as error:
        raise UserError(str(error)) from None
    return InProcessPlayer(cls())


def check_bot_reference(ref: str, game_id: str) -> None:
    """Raise :class:`UserError` if ``ref`` names no bot that plays ``game_id``."""
    builtin_player(ref, game_id)
