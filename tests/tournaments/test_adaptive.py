"""The adaptive format: it stops each pool when its order is settled or its budget is spent, plays the same
matches whatever the workers, and a run killed with -9 resumes to exactly what an uninterrupted run plays."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.ratings import certainty, verdict
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.store.database import open_database
from ladder.store.tables import MatchRow
from tests.tournaments.stored import stored_results
from tests.tournaments.test_runner import ROOT, SETUP, wait_for_rows
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import run_tournament
from tournaments.formats.config import AdaptiveSettings, Seatings, parse_tournament

TOY = {
    "seed": 21,
    "format": "adaptive",
    "games": ["toy-coins", "toy-solo"],
    "bots": ["random", "greedy", "slow"],
    "games_per_pairing": 2,
    "game": {"toy-coins": {"players": [2, 3]}},
    "adaptive": {"max_matches": 150},
}


def adaptive_config(**overrides):
    return parse_tournament(TOY | overrides, "adaptive.toml", "adaptive")


def test_adaptive_settings_are_read_and_checked(toy) -> None:
    assert adaptive_config().adaptive == AdaptiveSettings(0.95, 1.0, 150, Seatings.ROTATIONS)
    assert adaptive_config(adaptive={"seatings": "all"}).adaptive == AdaptiveSettings(0.95, 1.0, 5000, Seatings.ALL)
    assert parse_tournament({"seed": 1, "format": "adaptive"}).adaptive == AdaptiveSettings()
    assert parse_tournament({"seed": 1}).adaptive is None
    for data, message in (
        ({"adaptive": {"confidence": 1.2}}, "adaptive.confidence: must be at least 0.5 and below 1"),
        ({"adaptive": {"max_matches": 0}}, "adaptive.max_matches: must be at least 1"),
        ({"adaptive": {"margin": 1}}, "adaptive.margin: unknown key"),
        ({"adaptive": {"seatings": "some"}}, 'adaptive.seatings: must be one of rotations, all, not "some"'),
        ({"cycles": 2}, 'cycles: does not apply to format = "adaptive"'),
        ({"format": "round-robin"}, 'adaptive: applies to format = "adaptive" only'),
    ):
        with pytest.raises(UserError, match=message):
            adaptive_config(**data)


def stored_rows(db_url: str) -> list[MatchRow]:
    engine = open_database(db_url)
    with Session(engine) as session:
        rows = list(session.exec(select(MatchRow)).all())
    engine.dispose()
    return rows


@pytest.mark.parametrize("seatings", ["rotations", "all"])
def test_each_pool_stops_when_settled_or_at_its_budget_with_each_deal_in_its_seatings(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch, seatings: str
) -> None:
    monkeypatch.setenv("TOY_SLOW_SECONDS", "0")
    # in the solitaire, greedy and random only: an order that settles; at the tables random and slow are the
    # same bot: that pair can only be settled as equal or "not worse by the margin", which takes long at this budget, so those pools spend it
    config = adaptive_config(
        game={"toy-coins": {"players": [2, 3]}, "toy-solo": {"bots": ["greedy", "random"]}},
        adaptive={"max_matches": 150, "seatings": seatings},
    )
    report = run_tournament(
        config, RunOptions(db_url=db_url, workers=2, progress=False, worker_setup=SETUP, deal_secret=SECRET)
    )
    assert report.state == "complete" and report.recorded == report.scheduled
    rows = stored_rows(db_url)
    per_pool = Counter(f"{row.game}/{row.num_players}p" for row in rows)
    engine = open_database(db_url)
    with Session(engine) as session:
        rated = ratings_persistence.rate_database(session)
        facts = ratings_persistence.load_match_facts(session)
    engine.dispose()
    notes = "\n".join(report.notes)
    # the format stops on the paired sequential verdict: read from the stored matches, it says what the run said
    paired = verdict.ledger(facts, ratings_trueskill_model.game_facts(), verdict.indifference_in_outcomes(1.0))
    for pool in ("toy-coins/2p", "toy-coins/3p", "toy-solo/1p"):
        evidence = paired.pool(pool)
        sure = certainty.assess_paired(evidence.order(sorted(evidence.bots)), pool, evidence)
        assert f"{pool}: " in notes
        # the 3-player pool's deals cost 3 matches in rotations (6 with every seating): there it settles in budget
        settles = pool == "toy-solo/1p" or (pool == "toy-coins/3p" and seatings == "rotations")
        if settles:
            assert sure.settled and f"{pool}: settled after {per_pool[pool]} matches" in notes
        else:
            assert (
                not sure.settled and per_pool[pool] >= 150 and f"{pool}: budget spent after {per_pool[pool]}" in notes
            )
        if pool != "toy-solo/1p":  # more than the warm-up round-robin (2 deals of every table)
            assert per_pool[pool] > {"2": 12, "3": 12 if seatings == "all" else 6}[pool[-2]]
    # greedy is first in every pool
    for pool in rated.pools():
        assert rated.table(pool)[0].bot_version_id == _version(db_url, "greedy")
    # every deal (the warm-up's d0 and d1 too) in the rotations of one order drawn for it (each bot in each seat
    # once), or with seatings = "all" in every seating
    groups: dict[tuple[str, frozenset[str]], list[tuple[str, ...]]] = {}
    for row in rows:
        if row.num_players > 1:
            groups.setdefault((row.deal, frozenset(row.seats)), []).append(tuple(row.seats))
    chosen_orders: set[tuple[str, ...]] = set()
    for (deal, table), played in groups.items():
        every = set(itertools.permutations(sorted(table)))
        if seatings == "all":
            assert sorted(played) == sorted(every), deal
            continue
        assert len(played) == len(table) and all(seating in every for seating in played), deal
        assert all(len({seating[seat] for seating in played}) == len(table) for seat in range(len(table)))
        first = played[0]
        rotations = {first[shift:] + first[:shift] for shift in range(len(first))}
        assert set(played) == rotations, deal  # the rotations of one order
        if len(table) == 3:
            chosen_orders.add(min(rotations))
    if seatings == "rotations":  # the orders are drawn per deal: both round-the-table orders of a 3-bot table occur
        assert len(chosen_orders) == 2
    # a second run finds every pool stopped and plays nothing
    again = run_tournament(
        config, RunOptions(db_url=db_url, workers=2, progress=False, worker_setup=SETUP, deal_secret=SECRET)
    )
    assert again.played_now == 0 and again.state == "complete"


def _version(db_url: str, name: str) -> int:
    from ladder.store.tables import BotRow, BotVersionRow

    engine = open_database(db_url)
    with Session(engine) as session:
        bot = session.exec(select(BotRow).where(BotRow.name == name)).one()
        version = session.exec(select(BotVersionRow).where(BotVersionRow.bot_id == bot.id)).one()
    engine.dispose()
    assert version.id is not None
    return version.id


SECRET = "5e" * 32  # the same deals in every database compared below (a fresh secret each would differ)

SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from tests.tournaments import toygames
    toygames.install()
    from tournaments.formats.config import parse_tournament
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament
    if __name__ == "__main__":  # workers start from a fork server and import this file
        cfg = parse_tournament({config!r}, "adaptive.toml", "adaptive")
        report = run_tournament(cfg, RunOptions(db_url={db!r}, workers={workers}, progress=False, worker_setup={setup!r},
                                               deal_secret={secret!r}))
        print("STATE", report.state, report.played_now, report.scheduled)
""")


def coordinator(tmp_path: Path, name: str, workers: int, slow: str) -> tuple[subprocess.Popen, str, Path]:
    where = tmp_path / name
    where.mkdir(exist_ok=True)
    db_url = f"sqlite:///{where / 'ladder.db'}"
    script = where / "coordinator.py"
    script.write_text(SCRIPT.format(root=str(ROOT), config=TOY, db=db_url, workers=workers, setup=SETUP, secret=SECRET))
    env = dict(os.environ, TOY_SLOW_SECONDS=slow, LADDER_RESULTS=str(where / "results"))
    process = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return process, db_url, where / "ladder.db"


@pytest.mark.slow
def test_one_worker_two_workers_and_a_kill_minus_9_resume_end_with_the_same_matches(tmp_path: Path) -> None:
    results = {}
    for name, workers in (("one", 1), ("two", 2)):
        process, db_url, _ = coordinator(tmp_path, name, workers, slow="0")
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        assert "STATE complete" in out
        results[name] = stored_results(db_url)
    assert results["one"] == results["two"]
    # killed (SIGKILL: no clean-up at all) in the middle of the adaptive rounds, then resumed
    process, db_url, db_path = coordinator(tmp_path, "killed", 2, slow="0.005")
    wait_for_rows(db_path, 60, process, limit=120)
    process.kill()
    process.wait(timeout=30)
    process, _, _ = coordinator(tmp_path, "killed", 2, slow="0")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "STATE complete" in out
    assert stored_results(db_url) == results["one"]


@pytest.mark.slow
def test_the_adaptive_format_on_dask_plays_what_the_local_pool_plays(tmp_path: Path) -> None:
    """Through the CLI, on a real game with the known-order field: local pool and Dask local cluster."""
    pytest.importorskip("distributed")
    from tests.tournaments.test_cli import ladder

    (tmp_path / "field.toml").write_text(
        'seed = 3\nformat = "adaptive"\ngames = ["elfer-raus"]\nbots = ["thumb", "thumb-50", "random"]\n'
        "players = [2]\ngames_per_pairing = 1\n[adaptive]\nmax_matches = 60\n"
    )
    found = {}
    for name, flags in (("local", ("--workers", "2")), ("dask", ("--backend", "dask", "--workers", "2"))):
        url = f"sqlite:///{tmp_path / name}.db"
        run = ladder("run", "field.toml", "--no-progress", "--db", url, *flags, "--deal-secret", SECRET, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert "elfer-raus/2p: " in run.stdout and "complete" in run.stdout
        found[name] = stored_results(url)
    assert len(found["local"]) > 6 and found["local"] == found["dask"]  # more than the warm-up, the same matches
