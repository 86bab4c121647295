"""Ratings are a function of the set of matches: the quick tournament with 1 worker, with 2 workers and on
a Dask local cluster stores the same matches and shows exactly the same ratings tables; `ladder rerate`
gives the same numbers again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tournaments.stored import differences, stored_results
from tests.tournaments.test_cli import ladder

QUICK = Path(__file__).resolve().parents[2] / "tournaments" / "quick.toml"


def fewer_deals(text: str) -> str:
    """The quick tournament's file with fewer deals per table (the same games, bots, seed and tables)."""
    return re.sub(r"^games_per_pairing = \d+", "games_per_pairing = 2", text, flags=re.M)


@pytest.mark.slow
def test_one_worker_two_workers_and_dask_store_the_same_matches_and_show_the_same_table(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    (tmp_path / "quick.toml").write_text(fewer_deals(QUICK.read_text()))
    secret = ("--deal-secret", "a7" * 32)  # the same deals in every database (each would get a fresh secret otherwise)
    runs = {
        "one": ("--workers", "1", *secret),
        "two": ("--workers", "2", *secret),
        "dask": ("--backend", "dask", "--workers", "2", *secret),
    }
    tables: dict[str, str] = {}
    stored: dict[str, dict] = {}
    for name, flags in runs.items():
        url = f"sqlite:///{tmp_path / name}.db"
        run = ladder("run", "quick.toml", "--no-progress", "--db", url, *flags, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert "complete" in run.stdout
        shown = ladder("rankings", "--db", url, cwd=tmp_path)
        as_json = ladder("rankings", "--json", "--db", url, cwd=tmp_path)
        assert shown.returncode == 0 and as_json.returncode == 0
        tables[name] = shown.stdout + as_json.stdout
        stored[name] = stored_results(url)
    assert stored["one"] and differences(stored["one"], stored["two"]) == []
    assert differences(stored["one"], stored["dask"]) == []
    assert "settled" in tables["one"] or "not yet" in tables["one"]
    assert tables["one"] == tables["two"] == tables["dask"]
    url = f"sqlite:///{tmp_path / 'two'}.db"
    assert ladder("rerate", "--db", url, cwd=tmp_path).returncode == 0
    again = (
        ladder("rankings", "--db", url, cwd=tmp_path).stdout
        + ladder("rankings", "--json", "--db", url, cwd=tmp_path).stdout
    )
    assert again == tables["one"]
