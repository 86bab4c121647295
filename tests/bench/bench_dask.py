"""Tournament throughput on Dask: matches per second at 1, 2 and all local workers, against the local pool.

    python tests/bench/bench_dask.py [--workers N ...] [--backends local dask] [--cycles N] [--ceiling] [--json]

Each configuration plays the same schedule (the quick tournament's games,
bots and deals, ``--cycles`` times over) into a fresh database and results
folder, progress bar off. For Dask, a ``distributed.LocalCluster`` of N
worker processes (one thread each, with nannies) is started first and the
run joins it by its address, as it would join a cluster started by hand:
``start s`` is how long the cluster took to start (not counted in the
run's seconds). ``busy`` is the share of the workers' wall time spent
inside matches, ``cpu ms`` the worker's CPU per match (sandboxed bot
processes not included). After each worker count, the stored results of
the backends are compared match by match (scores, ranks, action logs):
``same`` says whether they are identical (``bots changed`` when a built-in
bot's code changed between the two runs, e.g. edited meanwhile: the two runs
then played different bot versions and cannot be compared).

``--ceiling`` plays trivial toy matches (about a millisecond) instead: what
each backend's per-match overhead allows at most.

The machine's load is printed: other processes on the same cores make the
figures rough.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.tournaments.stored import differences, stored_results  # noqa: E402
from tournaments.coordinator.run_options import RunOptions, default_workers  # noqa: E402
from tournaments.coordinator.runner import run_tournament  # noqa: E402
from tournaments.formats.config import load_tournament, parse_tournament  # noqa: E402

SETUP = "tests.tournaments.toygames:install"


def ceiling_config() -> Any:
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


def measure(backend: str, workers: int, cycles: int, quick: Path, ceiling: bool) -> dict[str, Any]:
    config = ceiling_config() if ceiling else load_tournament(quick)
    config = replace(config, cycles=cycles, name=f"bench-{workers}")
    folder = tempfile.mkdtemp(prefix=f"bench-dask-{backend}-{workers}-")
    os.environ["LADDER_RESULTS"] = folder
    db_url = f"sqlite:///{folder}/bench.db"
    setup = SETUP if ceiling else None
    cluster = None
    start_seconds = 0.0
    options: dict[str, Any] = {
        "db_url": db_url,
        "workers": workers,
        "progress": False,
        "worker_setup": setup,
        "backend": backend,
        "deal_secret": "b3" * 32,
    }  # the same deals for every backend
    if backend == "dask":
        import distributed

        tick = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
        start_seconds = time.perf_counter() - tick
        options["scheduler"] = cluster.scheduler_address
    load_before = os.getloadavg()[0]
    try:
        report = run_tournament(config, RunOptions(**options))
    finally:
        if cluster is not None:
            cluster.close()
    return {
        "backend": backend,
        "workers": workers,
        "matches": report.played_now,
        "start_seconds": start_seconds,
        "run_seconds": report.seconds,
        "matches_per_second": report.played_now / report.seconds,
        "utilisation": report.busy_seconds / (workers * report.seconds),
        "cpu_ms_per_match": 1000 * report.cpu_seconds / max(1, report.played_now),
        "wall_ms_per_match": 1000 * report.busy_seconds / max(1, report.played_now),
        "load_before": load_before,
        "db_url": db_url,
        "folder": folder,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="*", help="worker counts (default: 1, 2 and all cores)")
    parser.add_argument("--backends", nargs="*", default=["local", "dask"], choices=["local", "dask"])
    parser.add_argument(
        "--cycles", type=int, default=1, help="play the quick schedule this many times (new deals each)"
    )
    parser.add_argument("--tournament", default=str(ROOT / "tournaments" / "quick.toml"))
    parser.add_argument("--ceiling", action="store_true", help="trivial toy matches: each backend's per-match overhead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = args.workers or sorted({1, 2, default_workers()})
    results = []
    for workers in counts:
        row = [measure(backend, workers, args.cycles, Path(args.tournament), args.ceiling) for backend in args.backends]
        if len(row) == 2:
            found = [stored_results(r["db_url"]) for r in row]
            versions = [{seat[1] for match in f.values() for seat in match["seats"]} for f in found]
            same: bool | str = not differences(found[0], found[1]) if versions[0] == versions[1] else "bots changed"
            for r in row:
                r["same_results_as_other_backend"] = same
        results.extend(row)
    for r in results:
        shutil.rmtree(r.pop("folder"), ignore_errors=True)
        r.pop("db_url")
        base = next(b for b in results if b["backend"] == r["backend"])
        r["efficiency"] = r["matches_per_second"] / (base["matches_per_second"] / base["workers"] * r["workers"])
    machine = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_1m": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps({"machine": machine, "results": results}, indent=2))
        return
    print(f"machine: {machine}")
    print(
        f"{'backend':>7} {'workers':>7} {'matches':>7} {'start s':>7} {'seconds':>8} {'matches/s':>9} {'efficiency':>10} "
        f"{'busy':>5} {'match ms':>8} {'cpu ms':>7} {'load':>5} {'same':>5}"
    )
    for r in results:
        same = {True: "yes", False: "NO"}.get(
            r.get("same_results_as_other_backend"), r.get("same_results_as_other_backend", "-")
        )
        print(
            f"{r['backend']:>7} {r['workers']:>7} {r['matches']:>7} {r['start_seconds']:>7.1f} {r['run_seconds']:>8.1f} "
            f"{r['matches_per_second']:>9.2f} {r['efficiency']:>10.0%} {r['utilisation']:>5.0%} "
            f"{r['wall_ms_per_match']:>8.0f} {r['cpu_ms_per_match']:>7.0f} {r['load_before']:>5.2f} {same!s:>5}"
        )


if __name__ == "__main__":
    main()
