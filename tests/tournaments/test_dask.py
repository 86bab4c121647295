"""Tournaments on a Dask cluster: the same answers as the local pool, sandboxed workers, faults.

The clusters here are real: ``distributed.LocalCluster`` with worker processes
(and nannies), or ``dask scheduler`` / ``dask worker`` started as commands.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.sandbox.bot_info import BotInfo
from ladder.sandbox.submission import content_hash, read_files
from ladder.seats.botstore import CheckReport, register
from ladder.seats.versions import builtin_hash
from ladder.store.database import open_database
from ladder.store.tables import MatchRow, TournamentRow
from tests.tournaments import dask_toys
from tests.tournaments.stored import count_rows, differences, stored_results
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import run_tournament
from tournaments.executors.tasks import MatchTask
from tournaments.executors.worker import (
    MatchRefused,
    host_threads,
    install_bot_files,
    play_task,
    run_hosted,
    stop_hosts,
)
from tournaments.formats.config import parse_tournament

ROOT = Path(__file__).resolve().parents[2]
SETUP = "tests.tournaments.dask_toys:install"
FIRSTY = (
    "from ladder.bot import Bot\n\n"
    "class FirstBot(Bot):\n"
    "    name = 'firsty'\n"
    "    games = ('*',)\n\n"
    "    def act(self, observation, legal_actions):\n"
    "        return legal_actions[0]\n"
)


@pytest.fixture
def toys() -> Iterator[None]:
    dask_toys.install()
    yield
    dask_toys.uninstall()


def toy_config(**overrides: Any):
    data: dict[str, Any] = {
        "seed": 11,
        "games": ["toy-coins", "toy-solo"],
        "bots": ["random", "greedy", "slow", "suicidal", "firsty"],
        "games_per_pairing": 2,
        "game": {"toy-coins": {"players": [2, 3]}},
    }
    data.update(overrides)
    return parse_tournament(data, "dask-toy.toml", "dask-toy")


def submit_firsty(folder: Path, db_url: str) -> str:
    """Register a one-line sandboxed bot (the sandbox check is skipped: the sandbox tests cover it); its hash."""
    path = folder / "firsty.py"
    path.write_text(FIRSTY)
    report = CheckReport(
        str(path),
        content_hash(read_files(path)),
        info=BotInfo("firsty", "tests", "1", ("*",)),
        name="firsty",
        games=["toy-coins", "toy-solo"],
    )
    return register(report, db_url).content_hash


DEAL_SECRET = "d5" * 32  # the same deals in every database, so that the local pool and Dask runs compare equal


def run(db_url: str, config: Any = None, **options: Any):
    values: dict[str, Any] = {
        "db_url": db_url,
        "workers": 2,
        "progress": False,
        "worker_setup": SETUP,
        "deal_secret": DEAL_SECRET,
    }
    values.update(options)
    return run_tournament(config or toy_config(), RunOptions(**values))


def local_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: Any = None) -> dict[str, Any]:
    """What the local pool stores for the toy tournament (its own results folder and database)."""
    where = tmp_path / "local"
    where.mkdir()
    monkeypatch.setenv("LADDER_RESULTS", str(where / "results"))
    db_url = f"sqlite:///{where / 'ladder.db'}"
    submit_firsty(where, db_url)
    report = run(db_url, config, backend="local")
    assert report.state == "complete" and report.errors_now == 0
    return stored_results(db_url)


def sandbox_or_skip() -> None:
    from ladder.sandbox.layers import default_layers

    try:
        default_layers()
    except UserError as error:
        pytest.skip(f"the sandbox cannot run here: {error}")


# ---- the long-lived threads that keep bots alive ---------------------------------------------------------


@pytest.mark.needs_bot_sandbox
def test_bots_started_on_a_host_thread_outlive_the_thread_that_asked() -> None:
    """A sandboxed bot dies with the *thread* that started it (parent-death signal): Dask runs tasks on a
    thread pool, so the ladder starts bots on long-lived host threads instead. Shown both ways here."""
    sandbox_or_skip()
    from ladder.seats.players import PlayerPool

    good = str(ROOT / "tests" / "ladder" / "good_bot.py")

    def start_bot() -> PlayerPool:
        pool = PlayerPool()
        pool.warm(good)
        return pool

    box: dict[str, PlayerPool] = {}
    asker = threading.Thread(target=lambda: box.setdefault("direct", start_bot()))
    asker.start()
    asker.join()
    direct = box["direct"]
    deadline = time.monotonic() + 10
    while any(p.alive() for p in direct.processes()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p.alive() for p in direct.processes()), "the bot should have died with its thread"
    direct.close()

    asker = threading.Thread(target=lambda: box.setdefault("hosted", run_hosted(start_bot)))
    asker.start()
    asker.join()
    hosted = box["hosted"]
    try:
        time.sleep(0.5)
        assert hosted.processes() and all(p.alive() for p in hosted.processes())
        names = {run_hosted(lambda: threading.current_thread().name) for _ in range(3)}
        assert len(names) == 1 and names <= set(host_threads())  # one long-lived thread did it all
    finally:
        run_hosted(hosted.close)
        stop_hosts()
    assert not host_threads()


def test_hosted_calls_return_values_and_raise_exceptions_as_themselves() -> None:
    try:
        assert run_hosted(pow, 2, 10) == 1024
        with pytest.raises(ZeroDivisionError):
            run_hosted(lambda: 1 / 0)
    finally:
        stop_hosts()


# ---- bot files on workers: shipped, hashed, refused when wrong ---------------------------------------------


def test_a_worker_refuses_a_bot_it_lacks_or_has_in_another_version(toys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    files = {"bot.py": FIRSTY.encode()}
    digest = content_hash(files)

    def task(seats: list[str], hashes: list[str]) -> dict[str, Any]:
        return MatchTask(
            key="k", game="toy-coins", seats=tuple(seats), hashes=tuple(hashes), seed=1, options={"coins": 12}
        ).to_wire()

    greedy = builtin_hash("greedy")
    with pytest.raises(
        MatchRefused, match=r"refuses match k \(seat 1\): bot version .* is not in this worker's bot store"
    ):
        play_task(task(["greedy", f"store:{digest}"], [greedy, digest]))
    tampered = tmp_path / "results" / "bots" / digest
    tampered.mkdir(parents=True)
    (tampered / "bot.py").write_text(FIRSTY + "# changed\n")
    with pytest.raises(MatchRefused, match="is not the one entered"):
        play_task(task(["greedy", f"store:{digest}"], [greedy, digest]))
    with pytest.raises(MatchRefused, match="built-in bot 'random' here is version .* install the same version"):
        play_task(task(["greedy", "random"], [greedy, "0" * 64]))
    with pytest.raises(MatchRefused, match="no bot 'nobody' here"):
        play_task(task(["greedy", "nobody"], [greedy, "0" * 64]))
    record = play_task(task(["greedy", "random"], [greedy, builtin_hash("random")]))
    assert record["action_count"] == 24


def test_shipped_bot_files_are_hashed_on_arrival(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    files = {"bot.py": FIRSTY.encode(), "data/table.txt": b"1 2 3\n"}
    digest = content_hash(files)
    with pytest.raises(ValueError, match="arrived with hash"):
        install_bot_files({digest: {**files, "bot.py": b"import os\n"}})
    assert install_bot_files({digest: files}) == [digest]
    assert install_bot_files({digest: files}) == []  # already there, intact: left alone
    (tmp_path / "results" / "bots" / digest / "bot.py").write_text("import os\n")  # damaged copy: replaced
    assert install_bot_files({digest: files}) == [digest]
    assert (tmp_path / "results" / "bots" / digest / "bot.py").read_bytes() == files["bot.py"]


# ---- choosing the backend --------------------------------------------------------------------------------


def test_backend_and_scheduler_keys_are_checked() -> None:
    assert parse_tournament({"seed": 1}).backend == "local"
    config = parse_tournament({"seed": 1, "backend": "dask", "scheduler": "10.0.0.5:8786"})
    assert (config.backend, config.scheduler) == ("dask", "tcp://10.0.0.5:8786")
    for data, message in [
        ({"backend": "spark"}, 'backend: must be one of local, dask, not "spark"'),
        ({"scheduler": "tcp://h:8786"}, 'scheduler: names a Dask scheduler: set backend = "dask" too'),
        ({"backend": "dask", "scheduler": "http://h:8786"}, "is not a Dask scheduler address"),
        ({"backend": "dask", "scheduler": "tcp://h"}, "is not a Dask scheduler address"),
    ]:
        with pytest.raises(UserError, match=message):
            parse_tournament({"seed": 1, **data}, "t.toml")


def test_asking_for_dask_without_it_is_one_line_saying_how_to_install_it(toys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(
        UserError, match="the dask backend needs Dask, which is not installed here: pip install dask distributed"
    ):
        run(f"sqlite:///{tmp_path / 'l.db'}", toy_config(bots=["random", "greedy"], game={}, backend="dask"))
    script = (
        "import sys; sys.modules['distributed'] = None; sys.argv = ['ladder', 'run', 'tournaments/quick.toml', "
        "'--backend', 'dask']; from cli.app import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "300", "LADDER_RESULTS": str(tmp_path / "results")},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "error: the dask backend needs Dask" in lines[0], done.stderr
    assert "pip install dask distributed" in lines[0], done.stderr


def test_a_dry_run_of_a_dask_file_needs_no_dask(toys, tmp_path: Path, monkeypatch) -> None:
    from tournaments.coordinator.dry_run import plan_tournament

    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    monkeypatch.setitem(sys.modules, "distributed", None)
    config = toy_config(bots=["random", "greedy"], game={}, backend="dask", scheduler="tcp://sched:8786")
    plan = plan_tournament(config, f"sqlite:///{tmp_path / 'l.db'}")
    assert plan["backend"] == "dask" and plan["scheduler"] == "tcp://sched:8786" and plan["per_cycle"] > 0


def test_a_scheduler_needs_the_dask_backend(toys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    with pytest.raises(UserError, match="--scheduler names a Dask scheduler: it needs --backend dask"):
        run(
            f"sqlite:///{tmp_path / 'l.db'}",
            toy_config(bots=["random", "greedy"], game={}),
            backend="local",
            scheduler="tcp://h:1",
        )


def test_an_unreachable_scheduler_leaves_a_complete_tournament_complete(toys, tmp_path: Path, monkeypatch) -> None:
    """Running a complete tournament again with nothing new to play, on a scheduler that cannot be reached, turned
    it "stopped" (its secret already revealed, which a stopped tournament never has); found by the fresh-user walk.
    A tournament with matches still to play is left stopped, to be resumed."""
    import tournaments.executors.dask_executor

    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    db_url = f"sqlite:///{tmp_path / 'l.db'}"
    config = toy_config(bots=["random", "greedy"], game={})
    assert run(db_url, config, backend="local").state == "complete"

    def unreachable(**_: Any) -> Any:
        raise UserError("cannot reach the Dask scheduler at tcp://127.0.0.1:1: timed out")

    monkeypatch.setattr(tournaments.executors.dask_executor, "open_dask_executor", unreachable)

    def states() -> list[str]:
        engine = open_database(db_url)
        with Session(engine) as session:
            found = [row.state for row in session.exec(select(TournamentRow)).all()]
        engine.dispose()
        return found

    with pytest.raises(UserError, match="cannot reach"):
        run(db_url, config, scheduler="tcp://127.0.0.1:1", deal_secret=None)
    assert states() == ["complete"]
    more = toy_config(bots=["random", "greedy"], game={}, cycles=2)  # the same tournament, with a cycle to play
    with pytest.raises(UserError, match="cannot reach"):
        run(db_url, more, scheduler="tcp://127.0.0.1:1", deal_secret=None)
    assert states() == ["stopped"]


# ---- on a cluster ------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
def test_dask_stores_exactly_what_the_local_pool_stores_even_when_a_worker_dies(
    toys, tmp_path: Path, monkeypatch
) -> None:
    """The same file and seed on a local cluster the run starts itself: the same scores, ranks and action
    logs, a sandboxed bot included, while one worker is killed in the middle of a match (the suicidal bot)."""
    pytest.importorskip("distributed")
    sandbox_or_skip()
    reference = local_reference(tmp_path, monkeypatch)
    where = tmp_path / "dask"
    where.mkdir()
    monkeypatch.setenv("LADDER_RESULTS", str(where / "results"))
    marker = where / "die-once"
    marker.write_text("")
    monkeypatch.setenv("TOY_SUICIDE_MARKER", str(marker))
    db_url = f"sqlite:///{where / 'ladder.db'}"
    submit_firsty(where, db_url)
    report = run(db_url, backend="dask")
    assert not marker.exists()  # a worker died mid-match
    assert report.state == "complete" and report.errors_now == 0 and report.played_now == report.scheduled
    assert report.retried_now >= 1  # its match (and the one queued behind it, if any) played again elsewhere
    assert report.backend == "dask" and report.scheduler.startswith("tcp://")
    found = stored_results(db_url)
    assert len(found) == report.scheduled == len(reference)
    assert not differences(reference, found)
    assert all(seat[4] is None for match in found.values() for seat in match["seats"])  # no seat failed
    log = Path(report.log_path).read_text()
    assert "Dask Worker process" in log  # the workers' records reach the coordinator's log file


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    """A LocalCluster that outlives the runs, as a cluster started by hand would; its workers have a
    results folder (and so a bot store) of their own."""
    distributed = pytest.importorskip("distributed")
    worker_results = tmp_path_factory.mktemp("worker-results")
    previous = os.environ.get("LADDER_RESULTS")
    os.environ["LADDER_RESULTS"] = str(worker_results)
    try:
        local = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
    finally:
        if previous is None:
            os.environ.pop("LADDER_RESULTS", None)
        else:
            os.environ["LADDER_RESULTS"] = previous
    yield local, worker_results
    local.close()


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
def test_on_a_running_cluster_bots_are_shipped_and_a_killed_worker_costs_nothing(
    toys, cluster, tmp_path: Path, monkeypatch
) -> None:
    """``--scheduler``: the run joins a cluster; the submitted bot's files reach the workers' own bot store,
    one worker is SIGKILLed mid-tournament, and the stored results are still exactly the local pool's."""
    sandbox_or_skip()
    local, worker_results = cluster
    reference = local_reference(tmp_path, monkeypatch)
    where = tmp_path / "dask"
    where.mkdir()
    monkeypatch.setenv("LADDER_RESULTS", str(where / "results"))
    db_url = f"sqlite:///{where / 'ladder.db'}"
    digest = submit_firsty(where, db_url)
    killed: list[int] = []

    def kill_one_worker() -> None:
        """SIGKILL a worker that is playing a match, once a few matches are recorded."""
        import distributed

        deadline = time.monotonic() + 60
        with distributed.Client(local.scheduler_address, timeout=30) as spy:
            pids = spy.run(os.getpid)
            while time.monotonic() < deadline:
                if count_rows(where / "ladder.db") >= 20:
                    busy = [address for address, keys in spy.processing().items() if keys]
                    if busy:
                        os.kill(pids[busy[0]], signal.SIGKILL)
                        killed.append(pids[busy[0]])
                        return
                time.sleep(0.01)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    report = run(db_url, scheduler=local.scheduler_address)
    killer.join()
    assert killed, "the tournament ended before a worker could be killed"
    assert report.state == "complete" and report.errors_now == 0 and report.played_now == report.scheduled
    assert not differences(reference, stored_results(db_url))
    assert (worker_results / "bots" / digest / "bot.py").read_text() == FIRSTY  # shipped, hashed, installed
    import distributed

    with distributed.Client(local.scheduler_address, timeout=30) as client:
        assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures) == 3  # restored
        assert killed[0] not in client.run(os.getpid).values()  # the nanny replaced the dead worker


def test_a_match_that_keeps_killing_workers_is_recorded_as_failed(toys, cluster, tmp_path: Path, monkeypatch) -> None:
    local, _ = cluster
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    config = toy_config(
        games=["toy-solo"], bots=["greedy", "killer"], games_per_pairing=1, game={}, limits={"max_attempts": 2}
    )
    report = run(db_url, config, scheduler=local.scheduler_address)
    assert report.played_now == 1 and report.errors_now == 1 and report.state == "incomplete"
    engine = open_database(db_url)
    with Session(engine) as session:
        failed = session.exec(select(MatchRow).where(MatchRow.status == "error")).one()
    engine.dispose()
    assert "killer" in failed.key and failed.attempts == 2
    assert "killed its worker 2 time(s)" in failed.error and "allowed-failures = 1" in failed.error
    assert report.retried_now >= 1  # its first death: played again, then given up
    assert "died holding" in Path(report.log_path).read_text()
