"""What the exact action check costs: ``find_legal`` against Python's ``action in legal``.

    python tests/bench/bench_action_check.py [--json]

``State.apply`` and the match runner accept an action only if it is one of the legal actions
with the same JSON types (``engine.core.find_legal``). Two cases, per game, over the legal
actions of positions from random playouts: the very object ``legal_actions()`` returned (what
searches, random playouts and ``ladder bench`` play) and an equal copy (what a bot's answer is
after a JSON round trip, or when a bot builds its own dict). Timings are the best of five
repeats, in microseconds per check, so they hold up fairly well on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import all_games, find_legal  # noqa: E402
from engine.core import Action  # noqa: E402
from cli.commands.bench import machine  # noqa: E402


def positions(game_id: str, num_players: int, count: int) -> list[tuple[list[Action], Action, Action]]:
    """(legal actions, one of them, an equal JSON copy of it) at ``count`` random positions."""
    from engine import get_game

    game = get_game(game_id)
    rng = random.Random(0)
    found: list[tuple[list[Action], Action, Action]] = []
    seed = 0
    while len(found) < count:
        state = game.new_state(num_players, seed)
        seed += 1
        while not state.is_over() and len(found) < count:
            legal = state.legal_actions()
            action = rng.choice(legal)
            found.append((legal, action, json.loads(json.dumps(action))))
            state.apply(action)
    return found


def per_check(check, cases: list[tuple[list[Action], Action, Action]], which: int) -> float:
    def run() -> None:
        for case in cases:
            check(case[which], case[0])

    return min(timeit.repeat(run, number=5, repeat=5)) / 5 / len(cases) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for game in all_games():
        cases = positions(game.id, game.min_players, 2000)
        rows.append(
            {
                "game": game.id,
                "players": game.min_players,
                "mean legal actions": round(sum(len(c[0]) for c in cases) / len(cases), 1),
                "same object: in (us)": round(per_check(lambda a, legal: a in legal, cases, 1), 2),
                "same object: find_legal (us)": round(per_check(find_legal, cases, 1), 2),
                "equal copy: in (us)": round(per_check(lambda a, legal: a in legal, cases, 2), 2),
                "equal copy: find_legal (us)": round(per_check(find_legal, cases, 2), 2),
            }
        )
    if args.json:
        print(json.dumps({"machine": machine(), "rows": rows}, indent=2))
        return
    print(machine())
    for row in rows:
        print(", ".join(f"{key}: {value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
