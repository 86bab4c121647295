"""Dask runs that lose their scheduler or coordinator, and the in-flight cap (split from test_dask.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.store.database import open_database
from ladder.store.tables import MatchRow, TournamentRow
from tests.tournaments.stored import count_rows, stored_results
from tests.tournaments.test_dask import ROOT, SETUP, run, toy_config, toys  # noqa: F401


@pytest.mark.slow
def test_the_cli_runs_a_file_on_dask(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    (tmp_path / "tiny.toml").write_text(
        'seed = 4\ngames = ["elfer-raus"]\nbots = ["random", "thumb"]\nplayers = [2]\n'
        'games_per_pairing = 2\nbackend = "dask"\nworkers = 2\n'
    )
    env = {**os.environ, "COLUMNS": "300", "LADDER_RESULTS": str(tmp_path / "results")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "run",
            "tiny.toml",
            "--no-progress",
            "--no-rankings",
            "--db",
            f"sqlite:///{tmp_path / 'l.db'}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "complete, 4 of 4 matches recorded" in done.stdout and "on Dask at tcp://" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "cli", "run", "tiny.toml", "--scheduler", "tcp://127.0.0.1:1", "--backend", "local"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "--scheduler names a Dask scheduler" in bad.stderr


# ---- losing the scheduler or the coordinator ------------------------------------------------------------------


def start_scheduler_and_worker(tmp_path: Path, name: str) -> tuple[list[subprocess.Popen], str]:
    """``dask scheduler`` and one ``dask worker`` as commands, as on a real cluster; the scheduler's address."""
    import json

    pytest.importorskip("distributed")
    file = tmp_path / f"{name}.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LADDER_RESULTS": str(tmp_path / f"{name}-results"),
        "TOY_SLOW_SECONDS": "0.02",
    }
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "cwd": tmp_path}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "dask", "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", str(file)],
        **quiet,
    )
    deadline = time.monotonic() + 60
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = json.loads(file.read_text())["address"]
    worker = subprocess.Popen(
        [sys.executable, "-m", "dask", "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
        **quiet,
    )
    return [scheduler, worker], address


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


@pytest.mark.slow
def test_losing_the_scheduler_stops_the_run_cleanly_and_the_same_run_resumes(toys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("TOY_SLOW_SECONDS", "0.02")
    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    config = toy_config(bots=["random", "greedy", "slow"], games_per_pairing=3)
    processes, address = start_scheduler_and_worker(tmp_path, "first")
    try:

        def kill_scheduler() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and count_rows(tmp_path / "ladder.db") < 8:
                time.sleep(0.02)
            processes[0].kill()

        killer = threading.Thread(target=kill_scheduler)
        killer.start()
        with pytest.raises(
            UserError, match="lost the connection to the Dask scheduler .* run the same command again to resume"
        ):
            run(db_url, config, scheduler=address)
        killer.join()
    finally:
        stop(processes)
    engine = open_database(db_url)
    with Session(engine) as session:
        tournament = session.exec(select(TournamentRow)).one()
        before = session.exec(select(MatchRow.key)).all()
    engine.dispose()
    assert tournament.state == "stopped" and tournament.pid is None
    assert 8 <= len(before) < tournament.scheduled and len(set(before)) == len(before)
    processes, address = start_scheduler_and_worker(tmp_path, "second")
    try:
        report = run(db_url, config, scheduler=address)
    finally:
        stop(processes)
    assert report.state == "complete" and report.played_now == report.scheduled - len(before)
    keys = [key for key, _ in stored_results(db_url).items()]
    assert len(keys) == report.scheduled


COORDINATOR = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from tests.tournaments import dask_toys
    dask_toys.install()
    from tournaments.formats.config import parse_tournament
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament
    if __name__ == "__main__":  # Dask starts its worker processes with "spawn": they import this file
        cfg = parse_tournament({{"seed": 5, "games": ["toy-coins"], "bots": ["random", "greedy", "slow"],
                                "games_per_pairing": 8, "game": {{"toy-coins": {{"players": [2, 3]}}}}}}, "c.toml", "c")
        report = run_tournament(cfg, RunOptions(db_url={db!r}, workers=2, progress=False, backend={backend!r},
                                                worker_setup="tests.tournaments.dask_toys:install"))
        print("STATE", report.state, report.played_now, report.scheduled)
""")


@pytest.mark.slow
def test_a_killed_coordinator_takes_its_cluster_along_and_the_run_resumes(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("distributed")
    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    env = {**os.environ, "TOY_SLOW_SECONDS": "0.02", "LADDER_RESULTS": str(tmp_path / "results")}

    def coordinator(backend: str) -> subprocess.Popen:
        script = tmp_path / f"coordinator-{backend}.py"
        script.write_text(COORDINATOR.format(root=str(ROOT), db=db_url, backend=backend))
        return subprocess.Popen(
            [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    process = coordinator("dask")
    deadline = time.monotonic() + 120
    while count_rows(tmp_path / "ladder.db") < 8:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    family = psutil.Process(process.pid).children(recursive=True)
    assert len(family) >= 2
    process.kill()  # SIGKILL: no clean-up at all
    process.wait(timeout=30)
    gone, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, [p.cmdline() for p in alive]  # its Dask workers (and their bots) went with it
    before = count_rows(tmp_path / "ladder.db")
    process = coordinator("dask")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    state, played, scheduled = out.split("STATE ")[1].split()
    assert state == "complete" and int(played) == int(scheduled) - before
    keys = list(stored_results(db_url))
    assert len(keys) == len(set(keys)) == int(scheduled)


# ---- in-flight work follows the executor's worker count ---------------------------------------------------


def test_in_flight_work_is_a_small_multiple_of_the_workers_there_are_now(toys, tmp_path: Path, monkeypatch) -> None:
    """The runner asks the executor how many workers it has as it goes (Dask workers come and go) and keeps
    ``in_flight_per_worker`` matches per worker in flight, never more."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))

    class Counting(ThreadPoolExecutor):
        def __init__(self) -> None:
            super().__init__(4)
            self.lock = threading.Lock()
            self.in_flight = self.most = self.submitted = 0

        @property
        def worker_count(self) -> int:
            return 1 if self.submitted < 20 else 2  # a second worker joins

        def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
            with self.lock:
                self.in_flight += 1
                self.submitted += 1
                self.most = max(self.most, self.in_flight)
                if self.submitted < 20:
                    assert self.in_flight <= 2
            future = super().submit(fn, *args, **kwargs)
            future.add_done_callback(lambda _: self._done())
            return future

        def _done(self) -> None:
            with self.lock:
                self.in_flight -= 1

    with Counting() as executor:
        report = run(
            f"sqlite:///{tmp_path / 'l.db'}",
            toy_config(bots=["random", "greedy", "slow"]),
            executor=executor,
            in_flight_per_worker=2,
        )
    assert report.state == "complete"
    assert executor.most == 4  # 2 per worker, once there were two
