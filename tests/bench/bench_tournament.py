"""Tournament throughput: matches per second of the quick tournament's mix, at 1 worker and at all cores.

    python tests/bench/bench_tournament.py [--cycles N] [--workers N ...] [--json]

Each configuration plays the same schedule (the quick tournament's games,
bots and deals, ``--cycles`` times over) into a fresh database, with the
progress bar off, and reports matches per second, the parallel efficiency
against one worker, and the time the coordinator spent writing the database
(its share of the wall time says whether the database could ever be the
bottleneck). ``busy`` is the share of the workers' wall time spent inside
matches (the rest is waiting for the coordinator): unlike the efficiency, it
hardly depends on what else runs on the machine; nor does ``cpu ms``, the
worker's CPU time per match, while ``match ms`` (wall time per match) grows
when other processes take the cores. The machine's load is
printed too: other processes on the same cores make the figures rough.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tournaments.config import load_tournament  # noqa: E402
from tournaments.runner import RunOptions, default_workers, run_tournament  # noqa: E402


def ceiling_config():
    """Toy matches of about a millisecond: what the coordinator and the database can take at most."""
    from tests.tournaments import toygames
    from tournaments.config import parse_tournament

    toygames.install()
    return parse_tournament({"seed": 1, "games": ["toy-coins", "toy-solo"], "bots": ["random", "greedy"],
                             "games_per_pairing": 300, "game": {"toy-coins": {"players": [2]}}}, "ceiling.toml", "ceiling")


def measure(workers: int, cycles: int, quick: Path, ceiling: bool = False) -> dict:
    config = ceiling_config() if ceiling else load_tournament(quick)
    config = replace(config, cycles=cycles, name=f"bench-{workers}")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["LADDER_RESULTS"] = folder
        load_before = os.getloadavg()[0]
        tick = time.perf_counter()
        report = run_tournament(config, RunOptions(db_url=f"sqlite:///{folder}/bench.db", workers=workers, progress=False))
        wall = time.perf_counter() - tick
    return {
        "workers": workers,
        "matches": report.played_now,
        "seconds": wall,
        "run_seconds": report.seconds,
        "matches_per_second": report.played_now / report.seconds,
        "db_seconds": report.db_seconds,
        "db_share": report.db_seconds / report.seconds,
        "db_ms_per_match": 1000 * report.db_seconds / max(1, report.played_now),
        "db_batches": report.db_batches,
        "utilisation": report.busy_seconds / (workers * report.seconds),
        "cpu_ms_per_match": 1000 * report.cpu_seconds / max(1, report.played_now),
        "wall_ms_per_match": 1000 * report.busy_seconds / max(1, report.played_now),
        "load_before": load_before,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=1, help="play the quick schedule this many times (new deals each)")
    parser.add_argument("--workers", type=int, nargs="*", help="worker counts to measure (default: 1 and all cores)")
    parser.add_argument("--tournament", default=str(ROOT / "tournaments" / "quick.toml"))
    parser.add_argument("--ceiling", action="store_true",
                        help="play trivial toy matches instead: the most the coordinator and the database can take")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = args.workers or sorted({1, default_workers()})
    results = [measure(n, args.cycles, Path(args.tournament), args.ceiling) for n in counts]
    base = results[0]["matches_per_second"] / results[0]["workers"]
    for r in results:
        r["efficiency"] = r["matches_per_second"] / (base * r["workers"])
    machine = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
               "load_average_1m": os.getloadavg()[0]}
    if args.json:
        print(json.dumps({"machine": machine, "results": results}, indent=2))
        return
    print(f"machine: {machine}")
    print(f"{'workers':>7} {'matches':>7} {'seconds':>8} {'matches/s':>9} {'efficiency':>10} {'db s':>6} {'db share':>8} "
          f"{'db ms/match':>11} {'batches':>7} {'busy':>5} {'match ms':>8} {'cpu ms':>7} {'load':>5}")
    for r in results:
        print(f"{r['workers']:>7} {r['matches']:>7} {r['run_seconds']:>8.1f} {r['matches_per_second']:>9.2f} "
              f"{r['efficiency']:>10.0%} {r['db_seconds']:>6.2f} {r['db_share']:>8.1%} {r['db_ms_per_match']:>11.2f} "
              f"{r['db_batches']:>7} {r['utilisation']:>5.0%} {r['wall_ms_per_match']:>8.0f} {r['cpu_ms_per_match']:>7.0f} "
              f"{r['load_before']:>5.2f}")


if __name__ == "__main__":
    main()
