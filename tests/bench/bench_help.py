"""How long `ladder --help` takes, and a command's own help: the wall budget of docs/benchmarks.md.

    python tests/bench/bench_help.py [--repeats 15] [--json]

Each figure is a fresh interpreter started as a user's shell starts the console script (``python -m cli``),
timed from start to exit: the median and the best of ``--repeats`` runs, wall clock and CPU (user + system
of the child). The CPU time is the steadier figure on a busy machine, where the wall time includes waiting
for a core. ``python -c pass`` is timed the same way, as the floor no CLI can go under, and so is the help as it was
before the lazy group (a Typer app importing every command module to list them).
The budget (tests/test_cli_speed.py checks the module side of it in every test run): ``ladder --help``
imports no command module and no database, rating, plotting or cluster library.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cli.commands.bench import machine  # noqa: E402

# The help as it was before the lazy group: a Typer app that imports every command module to list them.
EAGER = """
import typer
from cli.app import COMMANDS, HELP
app = typer.Typer(name="ladder", help=HELP, add_completion=False, pretty_exceptions_enable=False)
for entry in COMMANDS:
    app.command(name=entry.name)(entry.load())
app(["--help"], prog_name="ladder")
"""

CASES: dict[str, list[str]] = {
    "python -c pass (the floor)": [sys.executable, "-c", "pass"],
    "ladder --help": [sys.executable, "-m", "cli", "--help"],
    "ladder games --help": [sys.executable, "-m", "cli", "games", "--help"],
    "ladder run --help": [sys.executable, "-m", "cli", "run", "--help"],
    "ladder rankings --help": [sys.executable, "-m", "cli", "rankings", "--help"],
    "every command imported (before)": [sys.executable, "-c", EAGER],
}


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (CPU: the child's user + system time)."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, cwd=ROOT)
    assert done.returncode in (0, 2), f"{command} failed"  # Typer's help exits 0 (or 2 where no_args_is_help)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    results = []
    for name, command in CASES.items():
        timed(command)  # warm the file cache
        runs = [timed(command) for _ in range(options.repeats)]
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        results.append(
            {
                "case": name,
                "wall_median_s": statistics.median(walls),
                "wall_best_s": min(walls),
                "cpu_median_s": statistics.median(cpus),
                "cpu_best_s": min(cpus),
            }
        )
    if options.json:
        print(json.dumps({"machine": machine(), "repeats": options.repeats, "results": results}, indent=2))
        return
    print(f"{options.repeats} runs each; machine: {machine()}")
    print(f"{'case':30} {'wall median':>12} {'wall best':>10} {'cpu median':>11} {'cpu best':>9}")
    for row in results:
        print(
            f"{row['case']:30} {row['wall_median_s']:12.3f} {row['wall_best_s']:10.3f} "
            f"{row['cpu_median_s']:11.3f} {row['cpu_best_s']:9.3f}"
        )


if __name__ == "__main__":
    main()
