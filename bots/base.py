"""The public Bot API: the same for built-in bots and submitted ones.

A bot is a plain class. For each match it is told the game, its seat and a
seed (:meth:`Bot.start`), then asked for one action at a time with what its
seat may see and the legal actions (:meth:`Bot.act`), and told the result
(:meth:`Bot.end`). It must answer with one of the offered actions.

This module has no dependencies beyond the standard library so that it can be
made visible, alone, to a sandboxed bot process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class MatchStart:
    """What a bot is told when a match begins.

    ``seed`` is for the bot's own randomness. In a tournament and in the
    submission check it is a keyed hash of a secret the bot never sees,
    unrelated to the deal's seed (:mod:`ladder.matches.deals`): it tells nothing
    about the cards.
    """

    game: str
    seat: int
    num_players: int
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


@dataclass(frozen=True)
class Clock:
    """The bot's clock for the request it is answering (``Bot.clock``), in CPU seconds.

    ``move_seconds`` is the CPU time one answer may use (all the bot's
    threads together); ``bank_seconds`` is what is left of the match's bank:
    extra CPU time an answer that runs over ``move_seconds`` draws on. An
    answer may use ``move_seconds + bank_seconds`` in all; a wall-clock cap
    (several times that) stops a bot that sleeps or blocks.
    """

    move_seconds: float
    bank_seconds: float = 0.0


class Bot:
    """Subclass this, set ``name`` and ``games``, and implement :meth:`act`.

    ``games`` is a tuple of game ids, or ``("*",)`` for a bot that can play
    every game (it then relies only on the legal actions it is offered).
    ``clock`` is set before each call when the match is played under clocks
    (always for a submitted bot; ``None`` otherwise): see :class:`Clock`.
    """

    name: ClassVar[str] = "unnamed"
    author: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    games: ClassVar[tuple[str, ...]] = ("*",)
    # A sandboxed bot is not asked when it has a single legal action (the ladder plays it; the bot sees the
    # events of that turn in its next observation): True asks it every time. See docs/writing-a-bot.md.
    every_decision: ClassVar[bool] = False
    clock: Clock | None = None  # set by the ladder before each call when there are clocks

    def __init__(self) -> None:
        self.match: MatchStart | None = None
        self.rng = random.Random(0)
        self.clock: Clock | None = None

    @classmethod
    def plays(cls, game_id: str) -> bool:
        return "*" in cls.games or game_id in cls.games

    def start(self, match: MatchStart) -> None:
        """A match begins. The default keeps ``match`` and seeds ``self.rng`` from it."""
        self.match = match
        self.rng = random.Random(match.seed * 1009 + match.seat)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Return one of ``legal_actions``."""
        raise NotImplementedError

    def end(self, result: dict[str, Any]) -> None:
        """The match is over: ``result`` has ``scores``, ``ranks`` and ``details`` (one entry per seat)."""
