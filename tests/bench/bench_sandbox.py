"""The sandbox's cost, runnable as a script: ``python tests/bench/bench_sandbox.py [GAME...] [--matches N]``.

Prints the round trip of a trivial request, the overhead per decision of a
random bot in each game, and random-bot matches sandboxed against the same
matches in-process (see ``ladder bench-sandbox``, which prints the same
figures as a table). Not collected by pytest (no test functions).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cli.commands.bench_sandbox import run_benchmark  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="game ids (default: every registered game)")
    parser.add_argument("--matches", type=int, default=200, help="random-bot matches per game")
    parser.add_argument("--requests", type=int, default=3000, help="trivial requests for the round trip")
    args = parser.parse_args()
    data = run_benchmark(args.games or None, args.matches, args.requests)
    print(json.dumps(data, indent=2))
    for trip in data["round_trips"]:
        print(
            f"round trip ({trip['layers']}): median {trip['median_us']:.0f} µs, p90 {trip['p90_us']:.0f} µs, "
            f"start {trip['start_ms']:.0f} ms",
            file=sys.stderr,
        )
    for game in data["games"]:
        print(
            f"{game['game']} ({game['players']}p, {'pinned' if game['pinned'] else 'not pinned'}): sandboxed {game['slowdown']:.2f}x slower "
            f"(median of blocks {game['median_slowdown']:.2f}x, CPU {game['cpu_slowdown']:.2f}x), "
            f"overhead {game['overhead_us']:.0f} µs per decision",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
