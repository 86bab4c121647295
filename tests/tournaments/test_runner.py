"""Running tournaments of toy games: complete, resumed, interrupted, benched, budgeted, rated."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlmodel import Session, select

from cli.commands.dbview import version_names
from ladder.errors import UserError
from ladder.ratings import persistence as ratings
from ladder.store.database import open_database
from ladder.store.tables import BenchRow, MatchRow, SeatResultRow, TournamentRow
from tests.tournaments.stored import count_rows
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import resolve_plans, run_tournament
from tournaments.formats.config import parse_tournament
from tournaments.formats.round_robin import cycle_schedule

ROOT = Path(__file__).resolve().parents[2]
SETUP = "tests.tournaments.toygames:install"


def config(**overrides):
    data = {
        "seed": 3,
        "games": ["toy-coins", "toy-solo"],
        "bots": ["random", "greedy"],
        "games_per_pairing": 4,
        "game": {"toy-coins": {"players": [2]}},
    }
    data.update(overrides)
    return parse_tournament(data, "toy.toml", "toy")


def options(db_url: str, **overrides) -> RunOptions:
    values = {"db_url": db_url, "workers": 2, "progress": False, "worker_setup": SETUP}
    values.update(overrides)
    return RunOptions(**values)


def recorded(db_url: str) -> list[tuple[str, str]]:
    engine = open_database(db_url)
    with Session(engine) as session:
        rows = session.exec(select(MatchRow.key, MatchRow.status)).all()
    engine.dispose()
    return list(rows)


def scheduled_keys(db_url: str, cfg, cycles: int = 1) -> set[str]:
    engine = open_database(db_url)
    with Session(engine) as session:
        plans, _ = resolve_plans(session, cfg)
        session.commit()
    engine.dispose()
    return {m.key for cycle in range(cycles) for m in cycle_schedule(cfg.format, plans, cfg.seed, cycle, bytes(32))}


def test_a_tournament_plays_exactly_its_schedule_and_rates_it(toy, db_url: str) -> None:
    cfg = config()
    report = run_tournament(cfg, options(db_url))
    assert report.state == "complete"
    expected = scheduled_keys(db_url, cfg)
    assert len(expected) == 2 * 4 + 2 * 4  # 1 pairing x 2 seatings x 4 deals + 2 bots x 4 deals
    rows = recorded(db_url)
    assert sorted(key for key, _ in rows) == sorted(expected)
    assert {status for _, status in rows} == {"played"}
    assert report.recorded == report.scheduled == len(expected) and report.played_now == len(expected)
    assert report.db_batches >= 1 and report.db_seconds > 0
    assert Path(report.log_path).read_text().count("ready") >= 2  # both workers logged into the one file
    # a second run finds nothing to play
    again = run_tournament(cfg, options(db_url))
    assert again.played_now == 0 and again.state == "complete" and again.tournament_id == report.tournament_id
    assert len(recorded(db_url)) == len(expected)


def test_the_greedy_bot_ends_above_random_in_every_table(toy, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config(games_per_pairing=12, bots=["random", "greedy", "slow"], game={"toy-coins": {"players": [2, 3]}})
    monkeypatch.setenv("TOY_SLOW_SECONDS", "0")
    run_tournament(cfg, options(db_url))
    engine = open_database(db_url)
    with Session(engine) as session:
        rated, fresh = ratings.current(session)
        names = version_names(session)
    engine.dispose()
    assert fresh
    assert rated.pools() == ["toy-coins/2p", "toy-coins/3p", "toy-solo/1p"]
    for pool in rated.pools():
        order = [names[s.bot_version_id].bot for s in rated.table(pool)]
        assert order.index("greedy") < order.index("random"), (pool, order)


def test_changing_the_schedule_makes_a_new_tournament_of_the_same_name(toy, db_url: str) -> None:
    first = run_tournament(config(), options(db_url))
    second = run_tournament(config(seed=4), options(db_url))
    assert second.tournament_id != first.tournament_id and second.played_now == second.scheduled


def test_a_bot_that_keeps_failing_is_benched_with_the_reason(toy, db_url: str) -> None:
    cfg = config(bots=["random", "greedy", "crashy"], limits={"bench_after_failures": 2}, games_per_pairing=6)
    report = run_tournament(cfg, options(db_url, workers=1))
    assert report.state == "complete"
    assert list(report.benched) and "crashy" in next(iter(report.benched))
    engine = open_database(db_url)
    with Session(engine) as session:
        benches = session.exec(select(BenchRow)).all()
        assert sorted(bench.pool for bench in benches) == ["toy-coins/o0/2p", "toy-solo/o0/1p"]  # benched per pool
        for bench in benches:
            assert "failed 2 matches in a row" in bench.reason and "exception" in bench.reason
        skipped = session.exec(select(MatchRow).where(MatchRow.status == "skipped")).all()
        assert skipped and report.skipped_now == len(skipped)
        for match in skipped:
            seats = session.exec(select(SeatResultRow).where(SeatResultRow.match_id == match.id)).all()
            assert any(s.failure_reason == "benched" for s in seats)
            assert all(s.score is None for s in seats)
        failed = session.exec(select(SeatResultRow).where(SeatResultRow.failure_reason == "exception")).all()
        assert len(failed) >= 2 and all("crashy always crashes" in s.failure_detail for s in failed)
    engine.dispose()
    assert len(recorded(db_url)) == report.scheduled  # skipped matches are recorded: the schedule is complete


def test_a_killed_worker_costs_only_its_match_which_is_retried(toy, db_url: str, tmp_path: Path, monkeypatch) -> None:
    marker = tmp_path / "die-once"
    marker.write_text("")
    monkeypatch.setenv("TOY_SUICIDE_MARKER", str(marker))
    cfg = config(games=["toy-coins"], bots=["random", "greedy", "suicidal"], games_per_pairing=3)
    report = run_tournament(cfg, options(db_url))
    assert not marker.exists()  # a worker died
    assert report.retried_now == 1 and report.errors_now == 0
    assert report.state == "complete" and report.played_now == report.scheduled
    rows = recorded(db_url)
    assert len(rows) == len({key for key, _ in rows}) == report.scheduled
    engine = open_database(db_url)
    with Session(engine) as session:
        attempts = session.exec(select(MatchRow.attempts)).all()
    engine.dispose()
    assert sorted(attempts)[-1] == 2 and attempts.count(2) == 1


def test_a_time_budget_plays_cycles_until_it_is_spent(toy, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOY_SLOW_SECONDS", "0.002")
    cfg = config(bots=["random", "slow"], games_per_pairing=2)
    report = run_tournament(cfg, options(db_url, hours=2.5 / 3600))
    assert report.state == "budget spent"
    engine = open_database(db_url)
    with Session(engine) as session:
        tournament = session.exec(select(TournamentRow)).one()
        cycles = set(session.exec(select(MatchRow.cycle)).all())
    engine.dispose()
    assert tournament.cycles >= 2 and cycles == set(range(tournament.cycles))
    keys = [key for key, _ in recorded(db_url)]
    assert len(keys) == len(set(keys))
    assert set(keys) <= scheduled_keys(db_url, cfg, tournament.cycles)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_under_a_time_budget_the_bar_shows_the_budget_left_not_an_eta_that_restarts(
    toy, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOY_SLOW_SECONDS", "0.002")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    report = run_tournament(
        config(bots=["random", "slow"], games_per_pairing=2), options(db_url, hours=4 / 3600, progress=True)
    )
    assert report.state == "budget spent"
    drawn = terminal.getvalue()
    assert "budget left" in drawn and " matches [" in drawn
    assert "<" not in drawn and "%|" not in drawn  # tqdm's ETA ("elapsed<remaining") of a total that grows every cycle


def test_without_a_terminal_no_progress_bar_is_drawn(toy, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    redirected = io.StringIO()
    monkeypatch.setattr(sys, "stderr", redirected)
    run_tournament(config(), options(db_url, progress=True))
    assert redirected.getvalue() == ""


def test_a_file_whose_bots_play_nothing_is_refused(toy, db_url: str) -> None:
    with pytest.raises(UserError, match="toy.toml: bots: no bot 'nobody'"):
        run_tournament(config(bots=["random", "nobody"]), options(db_url))
    with pytest.raises(UserError, match="toy.toml: bots: bot 'thumb' plays none of the tournament's games"):
        run_tournament(config(bots=["random", "thumb"]), options(db_url))
    with pytest.raises(UserError, match="toy.toml: game.toy-solo.bots: bot 'suicidal' does not play toy-solo"):
        run_tournament(config(game={"toy-solo": {"bots": ["suicidal"]}}), options(db_url))


# ---- crashes and Ctrl-C, in a separate coordinator process -------------------------------------------------

SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from tests.tournaments import toygames
    toygames.install()
    from tournaments.formats.config import parse_tournament
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament
    if __name__ == "__main__":  # workers start from a fork server and import this file
        cfg = parse_tournament({{"seed": 9, "games": ["toy-coins", "toy-solo"], "bots": ["random", "greedy", "slow"],
                                "games_per_pairing": 6, "game": {{"toy-coins": {{"players": [2, 3]}}}}}}, "crash.toml", "crash")
        report = run_tournament(cfg, RunOptions(db_url={db!r}, workers=2, progress=False,
                                                worker_setup="tests.tournaments.toygames:install"))
        print("STATE", report.state, report.played_now, report.scheduled)
""")


def start_coordinator(db_url: str, tmp_path: Path, slow: str) -> subprocess.Popen:
    script = tmp_path / "coordinator.py"
    script.write_text(SCRIPT.format(root=str(ROOT), db=db_url))
    env = dict(os.environ, TOY_SLOW_SECONDS=slow, LADDER_RESULTS=str(tmp_path / "results"))
    return subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for_rows(db_path: Path, at_least: int, process: subprocess.Popen, limit: float = 60) -> int:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        rows = count_rows(db_path)
        if rows >= at_least:
            return rows
        time.sleep(0.05)
    raise AssertionError("the coordinator recorded too few matches in time")


@pytest.mark.slow
def test_resume_after_kill_minus_9_plays_exactly_the_missing_matches(toy, db_url: str, tmp_path: Path) -> None:
    db_path = tmp_path / "ladder.db"
    process = start_coordinator(db_url, tmp_path, slow="0.02")
    wait_for_rows(db_path, 8, process)
    process.kill()  # SIGKILL: no clean-up at all
    process.wait(timeout=30)
    before = recorded(db_url)
    assert before and all(status == "played" for _, status in before)
    # finish it in a second coordinator
    process = start_coordinator(db_url, tmp_path, slow="0")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    state, played, scheduled = out.split("STATE ")[1].split()
    after = recorded(db_url)
    keys = [key for key, _ in after]
    assert state == "complete"
    assert len(keys) == len(set(keys)) == int(scheduled)  # exactly the schedule, no duplicates
    assert int(played) == int(scheduled) - len(before)  # only the missing ones were played
    assert {key for key, _ in before} <= set(keys)


def test_ctrl_c_stops_cleanly_keeping_every_finished_match(toy, db_url: str, tmp_path: Path) -> None:
    db_path = tmp_path / "ladder.db"
    process = start_coordinator(db_url, tmp_path, slow="0.02")
    wait_for_rows(db_path, 4, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert "Traceback" not in err, err
    state, played, scheduled = out.split("STATE ")[1].split()
    assert state == "stopped" and 0 < int(played) < int(scheduled)
    assert len(recorded(db_url)) == int(played)  # every finished match is kept, the ones in flight included
    engine = open_database(db_url)
    with Session(engine) as session:
        tournament = session.exec(select(TournamentRow)).one()
        assert tournament.state == "stopped" and tournament.pid is None
    engine.dispose()


def test_any_executor_will_do(toy, db_url: str) -> None:
    """The runner only submits match tasks and consumes results: a plain thread pool works too."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as executor:
        report = run_tournament(config(), options(db_url, executor=executor))
    assert report.state == "complete" and report.played_now == report.scheduled


def test_tasks_name_the_bots_with_no_match_left_so_workers_end_their_idle_processes(toy, db_url: str) -> None:
    """A bot is in a task's ``retire`` list from its last match on, and never before."""
    from concurrent.futures import ThreadPoolExecutor

    tasks: list[dict] = []

    class Recording(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
            tasks.append(args[0])
            return super().submit(fn, *args, **kwargs)

    with Recording(1) as executor:
        report = run_tournament(config(), options(db_url, executor=executor, in_flight_per_worker=1))
    assert report.state == "complete" and tasks
    refs = {ref for task in tasks for ref in task["seats"]}
    for index, task in enumerate(tasks):
        for ref in refs:
            later = any(ref in other["seats"] for other in tasks[index + 1 :])
            seen = any(ref in other["seats"] for other in tasks[: index + 1])
            assert (ref in task["retire"]) == (seen and not later), (index, ref, task["retire"])
