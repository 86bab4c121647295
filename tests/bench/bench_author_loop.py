"""The author's loop in seconds (issue 24): validate, submit right after it, and the quick tournament, as a user runs them.

    python tests/bench/bench_author_loop.py [--bot docs/examples/random_bot.py] [--skip-quick] [--json]

Each step is the real CLI (``python -m cli ...``) in a fresh temporary folder, timed by wall clock, with the
CPU time of the processes it waited for (bot processes and tournament workers that are not reaped by the
command itself are not in it: the wall time is the figure that matters) and the load average before it,
since other processes on the same cores make every wall figure rough. The steps:

- ``validate BOT``: the whole submission check (every seat of every table size of every claimed game);
- ``submit BOT`` right after it: the same files, ladder and limits, so the check is not played again;
- ``submit BOT`` of a changed copy: the check is played (what a fix-and-submit round costs);
- ``run quick --workers 2``: every game and every built-in bot (``--skip-quick`` leaves it out).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Step:
    """One timed command."""

    name: str
    command: str
    wall_seconds: float
    cpu_seconds: float
    load_before: float
    ok: bool


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(name: str, args: list[str], where: Path) -> Step:
    """Run ``python -m cli ARGS`` in ``where`` and time it."""
    load = os.getloadavg()[0]
    cpu, start = _children_cpu(), time.perf_counter()
    env = {**os.environ, "LADDER_RESULTS": str(where / "results"), "COLUMNS": "100"}
    run = subprocess.run([sys.executable, "-m", "cli", *args], cwd=where, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if run.returncode != 0:
        print(f"{name} failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}", file=sys.stderr)
    return Step(
        name, "ladder " + " ".join(args), round(wall, 2), round(_children_cpu() - cpu, 2), load, run.returncode == 0
    )


def bench(bot: Path, quick: bool) -> list[Step]:
    where = Path(tempfile.mkdtemp(prefix="bench-author-loop-"))
    try:
        shutil.copy(bot, where / "bot.py")
        steps = [
            timed("validate", ["validate", "bot.py"], where),
            timed("submit after validate", ["submit", "bot.py", "--name", "bench-bot"], where),
        ]
        (where / "bot.py").write_text((where / "bot.py").read_text() + "\n# changed\n")
        steps.append(timed("submit of changed files", ["submit", "bot.py", "--name", "bench-bot"], where))
        if quick:
            steps.append(timed("run quick", ["run", "quick", "--workers", "2", "--no-progress"], where))
        return steps
    finally:
        shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", type=Path, default=ROOT / "docs" / "examples" / "random_bot.py")
    parser.add_argument("--skip-quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    steps = bench(options.bot, not options.skip_quick)
    if options.json:
        print(json.dumps([asdict(step) for step in steps], indent=2))
        return
    print(f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    print(f"{'step':<26} {'wall s':>8} {'cpu s':>8} {'load':>6}  command")
    for step in steps:
        flag = "" if step.ok else "  (FAILED)"
        print(
            f"{step.name:<26} {step.wall_seconds:>8.2f} {step.cpu_seconds:>8.2f} {step.load_before:>6.1f}  "
            f"{step.command}{flag}"
        )


if __name__ == "__main__":
    main()
