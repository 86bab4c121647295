"""`ladder analyse` and `ladder blunders` on a real database: the second call reads the cache, same numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", f"sqlite:///{where / 'l.db'}"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env={**os.environ, "COLUMNS": "200", "LADDER_RESULTS": str(where / "results")},
    )


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("analyse")
    (where / "tiny.toml").write_text(
        'name = "tiny"\nseed = 3\ngames = ["elevenses-for-one"]\nbots = ["random", "thumb"]\n'
        "games_per_pairing = 1\nworkers = 0\n"
    )
    run = ladder(where, "run", "tiny.toml", "--no-progress")
    assert run.returncode == 0, run.stderr
    return where


def test_analyse_twice_reads_the_cache_and_gives_the_same_numbers(database: Path) -> None:
    first = ladder(database, "analyse", "1", "--samples", "3", "--workers", "1", "--json")
    assert first.returncode == 0, first.stderr
    analysed = json.loads(first.stdout)
    assert len(analysed) == 1 and analysed[0]["decisions"], analysed
    assert all(d["loss"][0] >= 0 for d in analysed[0]["decisions"])
    again = ladder(database, "analyse", "1", "--samples", "3", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == analysed
    text = ladder(database, "analyse", "1", "--samples", "3", "--seat", "0")
    assert text.returncode == 0, text.stderr
    flowing = " ".join(text.stdout.split())  # rich wraps long lines
    assert "(from the cache)" in flowing and "total loss" in flowing


def test_blunders_and_mistakes(database: Path) -> None:
    report = ladder(database, "blunders", "random", "--samples", "3", "--workers", "1", "--json")
    assert report.returncode == 0, report.stderr
    figures = json.loads(report.stdout)
    assert figures["bot"] == "random" and figures["decisions"] > 0
    missing = ladder(database, "blunders", "nobody")
    assert missing.returncode != 0 and "no bot 'nobody'" in missing.stderr + missing.stdout
    bad = ladder(database, "analyse", "1", "--reference", "deep")
    assert bad.returncode != 0 and "thumb or search" in bad.stderr + bad.stdout
