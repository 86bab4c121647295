"""Handicapped rule-of-thumb bots: a field whose true order is known by construction.

``thumb-25`` is the game's ``thumb`` bot that, before each decision, throws a
biased coin and with probability 25% plays a uniformly random legal action
instead of its own choice; likewise ``thumb-50`` and ``thumb-75``. With
``thumb`` (0%) and ``random`` (100%) at the ends, every game has a five-bot
field whose order is known: thumb > thumb-25 > thumb-50 > thumb-75 > random
(the more of its moves are random, the weaker a bot that beats random is).
The ladder's tests and the ranking benchmark check their verdicts against it.

They are not part of ``bots = "all"`` (they would bloat every tournament);
name them in a tournament file (``tournaments/known-order.toml``).

The wrapped thumb bot sees every observation (it is asked for its choice even
when the coin overrides it), so a thumb that remembers what it saw keeps its
memory whole.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from bots.base import Bot, MatchStart
from bots.bowling_solitaire import BowlingThumbBot
from bots.elevenses import ElevensesThumbBot
from bots.elevenses_for_one import ElevensesForOneThumbBot
from bots.elfer_raus import ElferRausThumbBot

RANDOM_SHARES = (25, 50, 75)  # percent of decisions played at random, one bot each


class HandicappedBot(Bot):
    """A rule-of-thumb bot that plays a uniformly random legal action with probability ``random_share``."""

    wrapped: ClassVar[type[Bot]] = Bot
    random_share: ClassVar[float] = 0.0
    handicapped: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self.inner = self.wrapped()
        self.coin = random.Random(0)

    def start(self, match: MatchStart) -> None:
        super().start(match)
        self.inner.start(match)
        self.coin = random.Random(f"handicap/{match.seed}/{match.seat}")

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        choice = self.inner.act(observation, legal_actions)
        if self.coin.random() < self.random_share:
            return self.coin.choice(legal_actions)
        return choice

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)


def _handicapped(thumb: type[Bot], share: int) -> type[HandicappedBot]:
    game = thumb.games[0]
    name = f"{thumb.__name__.removesuffix('ThumbBot')}Thumb{share}Bot"
    return type(
        name,
        (HandicappedBot,),
        {
            "__module__": __name__,
            "__doc__": f"The {game} thumb bot playing a random legal action {share}% of the time.",
            "name": f"thumb-{share}",
            "author": "the ladder",
            "version": "1",
            "games": thumb.games,
            "wrapped": thumb,
            "random_share": share / 100,
        },
    )


_THUMBS: tuple[type[Bot], ...] = (ElevensesThumbBot, ElferRausThumbBot, ElevensesForOneThumbBot, BowlingThumbBot)
for _thumb in _THUMBS:
    for _share in RANDOM_SHARES:
        _cls = _handicapped(_thumb, _share)
        globals()[_cls.__name__] = _cls
del _thumb, _share, _cls
