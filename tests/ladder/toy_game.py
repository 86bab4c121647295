"""A tiny game for the sandbox tests, registered in-process by the tests only (never in engine/registry.py).

``toy-count``: 1 or 2 players take turns adding 1, 2 or 3 to a running total
until it reaches the target (21); each player's score is what they added.
Every match ends within ``target`` actions. The sandboxed bot never needs the
game's code: the ladder's process runs the rules and sends observations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import engine.registry as registry
from engine.core import Action, Game, GameFacts, GameResult, OptionSpec, ScoreOrder, State, WinRule, ranks_from_scores

GAME_ID = "toy-count"


class CountState(State):
    def __init__(self, game: Game, num_players: int, options: dict[str, Any]) -> None:
        self.game = game
        self.num_players = num_players
        self.options = options
        self.total = 0
        self.added = [0] * num_players
        self.turn = 0

    @property
    def current_player(self) -> int | None:
        return None if self.is_over() else self.turn % self.num_players

    def is_over(self) -> bool:
        return self.total >= self.options["target"]

    def _legal_actions(self) -> list[Action]:
        return [{"type": "add", "n": n} for n in (1, 2, 3)]

    def _apply(self, action: Action) -> None:
        self.total += action["n"]
        self.added[self.turn % self.num_players] += action["n"]
        self.turn += 1

    def _observation(self, seat: int) -> dict[str, Any]:
        return {"total": self.total, "target": self.options["target"], "added": list(self.added)}

    def resample_hidden(self, seat: int, rng: Any) -> State:
        return self.clone()

    def result(self) -> GameResult:
        return GameResult(tuple(float(a) for a in self.added), ranks_from_scores(self.added))

    def clone(self) -> State:
        twin = CountState(self.game, self.num_players, self.options)
        twin.total, twin.added, twin.turn = self.total, list(self.added), self.turn
        return twin


class CountGame(Game):
    id = GAME_ID
    name = "Toy count"
    facts = GameFacts(
        min_players=1,
        max_players=2,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.FIRST_RANK,
        win_condition="the most added",
    )
    option_specs = (OptionSpec("target", "int", 21, "the total that ends the match", minimum=3, maximum=1000),)

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> State:
        return CountState(self, num_players, options)

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> State:
        return CountState(self, deal["players"], self.validate_options(options))

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        return options["target"]


GAME = CountGame()


@contextmanager
def toy_game_registered() -> Iterator[Game]:
    """Register ``toy-count`` in this process's game registry for the duration of the block."""
    registry.register_game(GAME)
    try:
        yield GAME
    finally:
        registry.unregister_game(GAME_ID)
