"""The installed wheel runs `ladder run quick` from an empty folder: the tournament files ship in the package.

Slow (it builds the wheel, makes a fresh virtual environment and installs the wheel with its dependencies
from the package index pip is configured with), so marked ``slow``. The tournament is the shipped
``quick`` one under a small time budget: enough to find the file, plan it and play sandboxed matches into
a database in that folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, cwd=cwd)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


@pytest.mark.slow
def test_the_installed_wheel_runs_the_quick_tournament_by_name_from_an_empty_folder(tmp_path: Path) -> None:
    wheels, venv, empty = tmp_path / "wheels", tmp_path / "venv", tmp_path / "empty"
    empty.mkdir()
    run(sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-q", "-w", wheels, cwd=tmp_path)
    (wheel,) = wheels.glob("card_ladder-*.whl")
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python, ladder = venv / "bin" / "python", venv / "bin" / "ladder"
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path)

    where = run(python, "-c", "import tournaments, cli; print(tournaments.__file__); print(cli.__file__)", cwd=empty)
    assert all(line.startswith(str(venv)) for line in where.stdout.split()), where.stdout  # the wheel, not this tree
    shipped = run(
        python, "-c", "from tournaments.formats.config import shipped_tournaments as s; print(sorted(s()))", cwd=empty
    )
    assert shipped.stdout.strip() == "['known-order', 'overnight', 'quick', 'showcase']"

    plan = run(ladder, "run", "quick", "--dry-run", cwd=empty)
    assert "elevenses" in plan.stdout and "bowling-solitaire" in plan.stdout
    played = run(ladder, "run", "quick", "--hours", "0.005", "--workers", "2", "--no-progress", "--json", cwd=empty)
    report = json.loads(played.stdout)
    assert report["name"] == "quick" and report["played_now"] > 0 and report["errors_now"] == 0
    assert (empty / "results" / "ladder.db").is_file()
    listed = run(ladder, "tournaments", cwd=empty)
    assert "quick" in listed.stdout
