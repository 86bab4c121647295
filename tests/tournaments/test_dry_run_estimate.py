"""`ladder run --dry-run` against the run it predicts, through the real CLI (issue 24, point 7).

The count is exact; the time is within 2x: from the built-in bots' measured CPU costs on a fresh database
(compared with the CPU the workers spent, and with the wall time scaled by the machine's load), and from the
database's own history once the same bots have played at the same table (compared with the wall time of that run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import game_ids

pytestmark = pytest.mark.skipif(not {"elfer-raus", "elevenses"} <= set(game_ids()), reason="games not registered")

TOURNAMENT = """name = "estimate"
seed = {seed}
games = ["elfer-raus", "elevenses"]
bots = ["random", "thumb", "search"]
players = [2]
games_per_pairing = 1
workers = 1
"""
MATCHES = 12  # 3 pairings x 2 seatings x 2 games
FLOOR = 15.0  # seconds: below this a run is mostly the start of Python and its workers, whatever the estimate says


def ladder(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "LADDER_RESULTS": str(cwd / "results")}
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )


def dry_run(where: Path, seed: int) -> dict:
    (where / f"t{seed}.toml").write_text(TOURNAMENT.format(seed=seed))
    dry = ladder("run", f"t{seed}.toml", "--dry-run", "--json", "--db", "ladder.db", cwd=where)
    assert dry.returncode == 0, dry.stderr
    return json.loads(dry.stdout)


def timed_run(where: Path, seed: int) -> tuple[dict, float, float]:
    """The run's summary, its wall seconds (from outside: start-up included) and the load per core meanwhile."""
    started = time.monotonic()
    run = ladder("run", f"t{seed}.toml", "--no-progress", "--json", "--db", "ladder.db", cwd=where)
    wall = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout), wall, os.getloadavg()[0] / (os.cpu_count() or 1)


def within_2x(estimate: float, measured: float) -> bool:
    estimate, measured = max(estimate, FLOOR), max(measured, FLOOR)
    return measured / 2 <= estimate <= measured * 2


@pytest.mark.slow
def test_the_dry_run_counts_every_match_and_estimates_the_time_within_2x(tmp_path: Path) -> None:
    fresh = dry_run(tmp_path, 7)
    estimate = fresh["estimate"]
    assert fresh["to_play"] == MATCHES and estimate["by_built_in_costs"] == MATCHES and estimate["by_history"] == 0
    assert estimate["seconds"] > estimate["match_seconds"] > 5, estimate  # the search bots think: seconds, not zero
    summary, wall, load = timed_run(tmp_path, 7)
    assert summary["played_now"] == fresh["to_play"] and summary["recorded"] == MATCHES, summary
    # the built-in costs are CPU: the matches' part against the CPU the workers spent in them (built-in bots only,
    # so every bit of it is counted), whatever the load; then the whole against the wall time once the machine's
    # load is taken out (a run sharing its cores with others takes longer, not more CPU)
    ratio = estimate["match_seconds"] / summary["cpu_seconds"]
    assert 0.5 <= ratio <= 2, (estimate, summary)
    assert within_2x(estimate["seconds"], wall / max(1.0, load)), (estimate, wall, load)

    again = dry_run(tmp_path, 8)  # a new seed, the same bots at the same tables: the history prices it
    estimate = again["estimate"]
    assert again["to_play"] == MATCHES and estimate["by_history"] == MATCHES and estimate["from_matches"] == MATCHES
    summary, wall, load = timed_run(tmp_path, 8)
    assert summary["played_now"] == again["to_play"], summary
    assert within_2x(estimate["seconds"], wall), (estimate, wall, load)  # the history is wall time here already

    human = ladder("run", "t8.toml", "--dry-run", "--db", "ladder.db", cwd=tmp_path).stdout
    assert "nothing left to play" in human
