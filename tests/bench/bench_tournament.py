"""Tournament throughput and scaling: the quick tournament's mix at N workers, against the hardware baseline.

    python tests/bench/bench_tournament.py [--workers 1,2,4,8,16] [--cycles N] [--json]
    python tests/bench/bench_tournament.py --ceiling [--workers 1,2]

For each worker count it first measures the **hardware baseline** (N
independent copies of a CPU-bound engine loop, started together: what the
machine lets N processes do), then plays the quick tournament's schedule
(``--cycles`` times over, so that the tail does not dominate) into a fresh
database. Printed side by side: matches per second, the efficiency against
one worker, the workers' CPU milliseconds per match, the baseline's
efficiency at the same count, and their ratio (``vs baseline``; the target is
90% at 8 and 16 workers). ``busy`` is the share of the workers' wall time
spent inside matches (the rest is waiting for the coordinator); ``db share``
the share of the run's wall time the coordinator spent writing the database;
the machine's load average is printed too: other processes on the same cores
make the figures rough.

``--sandboxed`` plays a tournament of two sandboxed random bots (every game,
two seats) instead of the quick mix: nearly all sandbox round trips, which
shows what the channel and the placement of bot processes cost at each count.
``--ceiling`` plays trivial toy matches instead: the most the coordinator and
the database can take (no baseline).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tournaments.coordinator.run_options import default_workers  # noqa: E402
from tournaments.coordinator.scaling import measure_mix, measure_scaling, parse_counts, scaling_lines  # noqa: E402
from tournaments.formats.config import TournamentConfig, parse_tournament  # noqa: E402


def ceiling_config() -> TournamentConfig:
    """Toy matches of about a millisecond: what the coordinator and the database can take at most."""
    from tests.tournaments import toygames

    toygames.install()
    return parse_tournament(
        {
            "seed": 1,
            "games": ["toy-coins", "toy-solo"],
            "bots": ["random", "greedy"],
            "games_per_pairing": 300,
            "game": {"toy-coins": {"players": [2]}},
        },
        "ceiling.toml",
        "ceiling",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cycles", type=int, default=3, help="play the quick schedule this many times (new deals each)"
    )
    parser.add_argument("--workers", default=None, help="worker counts, comma-separated (default: 1 and all cores)")
    parser.add_argument("--baseline-games", type=int, default=40, help="random games per copy of the hardware baseline")
    parser.add_argument("--tournament", default=str(ROOT / "tournaments" / "quick.toml"))
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="play trivial toy matches instead: the most the coordinator and the database can take",
    )
    parser.add_argument(
        "--sandboxed",
        action="store_true",
        help="a tournament of sandboxed random bots (every game) instead of the quick mix",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        counts = parse_counts(args.workers) if args.workers else sorted({1, default_workers()})
    except ValueError as error:
        parser.error(str(error))
    machine = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
    }
    if args.ceiling:
        mixes = [
            measure_mix(n, args.cycles, ceiling_config(), setup="tests.tournaments.toygames:install") for n in counts
        ]
        data: dict = {"machine": machine, "ceiling": [asdict(m) for m in mixes]}
        lines = [
            f"{m.workers:>3} workers: {m.matches_per_second:.0f} matches/s, db share {m.db_share:.0%}, "
            f"busy {m.busy:.0%}, load {m.load_before:.2f}"
            for m in mixes
        ]
    else:
        rows = measure_scaling(
            counts, args.cycles, Path(args.tournament), args.baseline_games, sandboxed=args.sandboxed
        )
        data = {
            "machine": machine,
            "cycles": args.cycles,
            "rows": [
                asdict(r.mix)
                | {
                    "efficiency": r.efficiency,
                    "baseline_efficiency": r.baseline_efficiency,
                    "versus_baseline": r.versus_baseline,
                    "baseline": asdict(r.baseline),
                }
                for r in rows
            ],
        }
        lines = scaling_lines(rows)
    if args.json:
        print(json.dumps(data, indent=2))
        return
    print(f"machine: {machine}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
