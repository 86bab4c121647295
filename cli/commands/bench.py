"""`ladder bench`: random-playout speed of every game, in one process."""

from __future__ import annotations

import json
import platform
import random
import time
from dataclasses import asdict, dataclass
from typing import Annotated

import typer
from rich.console import Console

from cli.commands.tables import fitted_table, number_column, print_table
from engine import Game, all_games, get_game


@dataclass(frozen=True)
class PlayoutSpeed:
    """Random playouts of one game configuration for about ``seconds``."""

    game: str
    players: int
    games: int
    actions: int
    seconds: float

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def measure(game: Game, num_players: int, seconds: float, seed: int = 0) -> PlayoutSpeed:
    """Play random games (legal_actions, a uniform choice, apply) for ``seconds`` of wall time."""
    rng = random.Random(seed)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_state(num_players, seed + games)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            actions += 1
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return PlayoutSpeed(game.id, num_players, games, actions, now - start)


def bench(
    game_ids: Annotated[
        list[str] | None, typer.Argument(metavar="[GAME]...", help="Games to measure (default: all).")
    ] = None,
    seconds: Annotated[float, typer.Option("--seconds", min=0.1, help="Time per configuration.")] = 3.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure random-playout actions per second and games per second, per game and player count, on one core."""
    games = [get_game(g) for g in game_ids] if game_ids else all_games()
    figures = [measure(game, n, seconds) for game in games for n in game.player_counts()]
    if as_json:
        print(
            json.dumps(
                {
                    "machine": machine(),
                    "figures": [
                        asdict(f) | {"actions_per_second": f.actions_per_second, "games_per_second": f.games_per_second}
                        for f in figures
                    ],
                },
                indent=2,
            )
        )
        return
    table = fitted_table(f"Random playouts, one process ({machine()})")
    for column in ("game", "players", "games", "actions", "actions/s", "games/s"):
        number_column(table, column, left=column == "game")
    for f in figures:
        table.add_row(
            f.game,
            str(f.players),
            str(f.games),
            str(f.actions),
            f"{f.actions_per_second:,.0f}",
            f"{f.games_per_second:,.1f}",
        )
    print_table(Console(), table)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, Python {platform.python_version()}"
