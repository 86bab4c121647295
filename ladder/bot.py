"""The public API for bot authors: ``from ladder.bot import Bot, MatchStart``.

A bot is a subclass of :class:`Bot` that sets ``name``, ``author``,
``version`` and ``games`` and implements :meth:`Bot.act`; see
``docs/writing-a-bot.md``. This module only re-exports :mod:`bots.base`,
which depends on nothing but the standard library, so that a sandboxed bot
process imports it in a few milliseconds and sees nothing else of the ladder.
"""

from bots.base import Bot, Clock, MatchStart

__all__ = ["Bot", "Clock", "MatchStart"]
