"""Two tiny games and a greedy bot, so the tournament machinery can be tested fast and alone.

``toy-coins``: 2-3 players take turns taking a coin from either end of a row of
seeded coins; the largest total wins (equal totals tie). A greedy bot (take
the larger end) beats random clearly.

``toy-solo``: a solitaire. Eight seeded numbers 0-9 are shown one at a time;
keep at most three; the score is the sum kept. Greedy keeps anything of 7 or
more (and fills up at the end).

:func:`install` registers them (and the bots) in the engine and bot
registries of the calling process; the runner's ``worker_setup`` calls it in
each worker too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from bots.base import Bot
from engine.core import Action, Game, GameFacts, GameResult, OptionSpec, ScoreOrder, State, WinRule, ranks_from_scores
from engine.rng import stream


class CoinsState(State):
    def __init__(self, game: Game, num_players: int, options: dict[str, Any], row: list[int]) -> None:
        self.game = game
        self.num_players = num_players
        self.options = options
        self.row = row
        self.totals = [0] * num_players
        self.turn = 0

    @property
    def current_player(self) -> int | None:
        return None if self.is_over() else self.turn % self.num_players

    def is_over(self) -> bool:
        return not self.row

    def _legal_actions(self) -> list[Action]:
        if len(self.row) == 1:
            return [{"type": "take", "end": "left"}]
        return [{"type": "take", "end": "left"}, {"type": "take", "end": "right"}]

    def _apply(self, action: Action) -> None:
        coin = self.row.pop(0 if action["end"] == "left" else -1)
        self.totals[self.turn % self.num_players] += coin
        self.turn += 1

    def _observation(self, seat: int) -> dict[str, Any]:
        return {"row": list(self.row), "totals": list(self.totals)}

    def resample_hidden(self, seat: int, rng: Any) -> State:
        return self.clone()

    def result(self) -> GameResult:
        return GameResult(tuple(self.totals), ranks_from_scores(self.totals))

    def clone(self) -> State:
        twin = CoinsState(self.game, self.num_players, self.options, list(self.row))
        twin.totals = list(self.totals)
        twin.turn = self.turn
        return twin

    def render(self) -> str:
        return f"row {self.row} totals {self.totals}"


class CoinsGame(Game):
    id = "toy-coins"
    name = "Toy coins"
    facts = GameFacts(
        min_players=2,
        max_players=3,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.FIRST_RANK,
        win_condition="the largest total; equal totals share the first rank",
    )
    option_specs = (OptionSpec("coins", "int", 12, "coins per player", minimum=2, maximum=40),)

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> State:
        rng = stream(seed, "row")
        return CoinsState(
            self, num_players, options, [rng.randint(0, 9) for _ in range(options["coins"] * num_players)]
        )

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> State:
        return CoinsState(self, deal["players"], self.validate_options(options), list(deal["row"]))

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        return options["coins"] * num_players


class SoloState(State):
    def __init__(self, game: Game, options: dict[str, Any], numbers: list[int]) -> None:
        self.game = game
        self.num_players = 1
        self.options = options
        self.numbers = numbers
        self.position = 0
        self.kept: list[int] = []

    @property
    def current_player(self) -> int | None:
        return None if self.is_over() else 0

    def is_over(self) -> bool:
        return self.position >= len(self.numbers) or len(self.kept) >= 3

    def _legal_actions(self) -> list[Action]:
        return [{"type": "keep"}, {"type": "skip"}]

    def _apply(self, action: Action) -> None:
        if action["type"] == "keep":
            self.kept.append(self.numbers[self.position])
        self.position += 1

    def _observation(self, seat: int) -> dict[str, Any]:
        return {
            "shown": self.numbers[self.position] if not self.is_over() else None,
            "left": len(self.numbers) - self.position,
            "kept": list(self.kept),
        }

    def resample_hidden(self, seat: int, rng: Any) -> State:
        return self.clone()

    def result(self) -> GameResult:
        return GameResult((float(sum(self.kept)),), (1,), {"won": [sum(self.kept) >= 20]})

    def clone(self) -> State:
        twin = SoloState(self.game, self.options, self.numbers)
        twin.position = self.position
        twin.kept = list(self.kept)
        return twin

    def render(self) -> str:
        return f"numbers {self.numbers} at {self.position} kept {self.kept}"


class SoloGame(Game):
    id = "toy-solo"
    name = "Toy solo"
    facts = GameFacts(
        min_players=1,
        max_players=1,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.GOAL_MET,
        win_condition="keep 20 or more",
    )

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> State:
        rng = stream(seed, "numbers")
        return SoloState(self, options, [rng.randint(0, 9) for _ in range(8)])

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> State:
        return SoloState(self, self.validate_options(options), list(deal["numbers"]))

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        return 8


class GreedyToyBot(Bot):
    """Takes the larger end; keeps 7 or more (and anything once the numbers run short)."""

    name = "greedy"
    author = "tests"
    games = ("toy-coins", "toy-solo")

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        if "row" in observation:
            row = observation["row"]
            end = "left" if row[0] >= row[-1] else "right"
            return next(a for a in legal_actions if a["end"] == end) if len(legal_actions) > 1 else legal_actions[0]
        need = 3 - len(observation["kept"])
        keep = observation["shown"] >= 7 or observation["left"] <= need
        return {"type": "keep"} if keep else {"type": "skip"}


class CrashBot(Bot):
    """Raises on its first move: benched after a few matches."""

    name = "crashy"
    author = "tests"
    games = ("toy-coins", "toy-solo")

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        raise RuntimeError("crashy always crashes")


class SuicideBot(Bot):
    """Kills its worker process the first time it plays in a process that has a marker file.

    Used to check that a dead worker costs only its match, which is retried: the marker
    is removed before dying, so the retry plays normally.
    """

    name = "suicidal"
    author = "tests"
    games = ("toy-coins",)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        marker = os.environ.get("TOY_SUICIDE_MARKER")
        if marker and os.path.exists(marker):
            os.remove(marker)
            os.kill(os.getpid(), 9)
        return legal_actions[0]


class SlowBot(Bot):
    """Random, but sleeps a little each move: matches stay in flight long enough to be interrupted."""

    name = "slow"
    author = "tests"
    games = ("toy-coins", "toy-solo")

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        import time

        time.sleep(float(os.environ.get("TOY_SLOW_SECONDS", "0.01")))
        return self.rng.choice(legal_actions)


GAMES = (CoinsGame(), SoloGame())
BOTS = (GreedyToyBot, CrashBot, SuicideBot, SlowBot)


def install() -> None:
    """Register the toy games and bots in this process's registries (idempotent)."""
    import bots.registry as bot_registry
    import engine.registry as game_registry

    for game in GAMES:
        game_registry.register_game(game)
    for cls in BOTS:
        bot_registry.register_bot(cls)


def uninstall() -> None:
    import bots.registry as bot_registry
    import engine.registry as game_registry

    for game in GAMES:
        game_registry.unregister_game(game.id)
    for cls in BOTS:
        bot_registry.unregister_bot(cls.name)
