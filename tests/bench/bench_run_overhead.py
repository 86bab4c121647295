"""The fixed costs of `ladder run`: the user's wall time against the time spent playing, phase by phase.

    python tests/bench/bench_run_overhead.py [--tournament quick] [--workers 2,16] [--profile FILE] [--json]

For each worker count it runs ``python -m cli run TOURNAMENT --workers N
--json`` as a user would (a fresh results folder and database each time),
timing the command from the outside, and prints the run's phases
(``RunReport.phases``, :mod:`tournaments.coordinator.phases`): before ``run()`` (the
interpreter, the imports, the tournament file), opening the tournament,
asking for the workers, the workers starting (until the first match to come
back had started), that first match, the time every worker is busy
(``playing``), the tail, the last writes, recording the end, rating, and
waiting for the workers to stop; then the **fixed overhead**: the wall time
less the matches being played (``first match``, ``playing`` and ``tail``),
which is what the throughput benchmark (``bench_tournament.py``) does not see. The issue's target: at most 2 s at any
worker count. ``--profile FILE`` also writes a cProfile of the coordinator (of
the last worker count) to FILE (``python -m pstats FILE``). The machine's load
average is printed beside each row: other programs make the figures rough.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_once(tournament: str, workers: int, profile: str | None = None) -> dict[str, Any]:
    """One ``ladder run`` into a fresh results folder: the command's wall time, its report and the load before."""
    with tempfile.TemporaryDirectory(prefix="ladder-overhead-") as folder:
        env = dict(os.environ, LADDER_RESULTS=folder)
        python = [sys.executable, "-m", "cProfile", "-o", profile] if profile else [sys.executable]
        command = [
            *python,
            "-m",
            "cli",
            "run",
            tournament,
            "--workers",
            str(workers),
            "--db",
            f"sqlite:///{folder}/ladder.db",
            "--json",
            "--no-progress",
        ]
        load = os.getloadavg()[0]
        tick = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - tick
    if done.returncode != 0:
        raise SystemExit(f"ladder run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    report = json.loads(done.stdout)
    phases: dict[str, float] = report["phases"]
    outside = wall - sum(phases.values())
    matches = phases.get("first match", 0.0) + phases.get("playing", 0.0) + phases.get("tail", 0.0)
    return {
        "workers": workers,
        "wall_seconds": wall,
        "played": report["played_now"],
        "load_before": load,
        "phases": {"outside run": outside, **phases},
        "fixed_overhead_seconds": wall - matches,
        "run_seconds": report["seconds"],
    }


def lines(rows: list[dict[str, Any]]) -> list[str]:
    names = list(rows[0]["phases"])
    out = [
        f"{'workers':>7} {'matches':>7} {'wall s':>7} {'fixed s':>7} "
        + " ".join(f"{n:>10}" for n in names)
        + f" {'load':>5}"
    ]
    for row in rows:
        out.append(
            f"{row['workers']:>7} {row['played']:>7} {row['wall_seconds']:>7.2f} {row['fixed_overhead_seconds']:>7.2f} "
            + " ".join(f"{row['phases'].get(n, 0.0):>10.2f}" for n in names)
            + f" {row['load_before']:>5.2f}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournament", default="quick", help="a tournament file, or a ready-made one's name")
    parser.add_argument("--workers", default=str(len(os.sched_getaffinity(0))), help="worker counts, comma-separated")
    parser.add_argument("--profile", default=None, help="write a cProfile of the coordinator (last worker count) here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = [int(part) for part in args.workers.split(",") if part.strip()]
    rows = [run_once(args.tournament, n, args.profile if n == counts[-1] else None) for n in counts]
    if args.json:
        print(json.dumps({"cores": os.cpu_count(), "rows": rows}, indent=2))
        return
    print(f"ladder run {args.tournament}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("\n".join(lines(rows)))


if __name__ == "__main__":
    main()
