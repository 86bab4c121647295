"""Benchmark of `ladder analyse`'s core: one Elfer raus 3-player seat, thumb and search references.

    PYTHONPATH=. python tests/bench/bench_analysis.py [--workers 2] [--matches 3]

Plays ``--matches`` matches of thumb, random and search (3 rounds, the default options) in-process and times
the analysis of the search bot's seat with each reference at its default samples; also the rollouts' own
rate (actions per second of the resample + rollout loop), to compare with `ladder bench elfer-raus`.
"""

from __future__ import annotations

import argparse
import os
import time

from ladder.analysis.core import analyse_seat
from ladder.analysis.model import Reference
from tests.analysis.helpers import played


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--matches", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}, {os.cpu_count()} CPUs, {args.workers} workers")
    for number in range(args.matches):
        match = played("elfer-raus", ["thumb", "random", "search"], 40 + number)
        for reference in Reference:
            started = time.perf_counter()
            analysis = analyse_seat(match, 2, reference, workers=args.workers)
            seconds = time.perf_counter() - started
            print(
                f"match {number}: {len(match.actions)} actions, seat 2: {len(analysis.decisions)} decisions, "
                f"reference {reference.value} ({analysis.key.samples} samples): {seconds:.1f} s"
            )


if __name__ == "__main__":
    main()
