"""Hostile bots against the sandbox: each loses its match with the right reason, and nothing else is hurt.

Every bot in ``tests/ladder/hostile/`` plays the toy game against a
well-behaved sandboxed bot. After each match: the hostile seat failed with the
expected reason (or, for the harmless-but-rude ones, did not fail at all), the
well-behaved bot did not fail and its process is still the same, no process
of the hostile bot is left on the machine, and the files of the ladder (its
database, the bot store) are unchanged.

Tests needing a layer that this machine lacks are skipped, saying which.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from ladder.matches.match import MatchOutcome, MatchSpec, play_match
from ladder.sandbox.layers import available_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.seats.botstore import check_submitted_bot, register
from ladder.seats.players import PlayerPool
from tests.ladder.front_door import command_lines
from tests.ladder.toy_game import GAME_ID, toy_game_registered

HERE = Path(__file__).parents[1]  # tests/ladder: the hostile bots
HOSTILE = HERE / "hostile"
GOOD_BOT = str(HERE / "good_bot.py")
AVAILABLE = available_layers()

LIMITS = SandboxLimits(
    move_seconds=5.0,
    match_seconds=5.0,
    start_seconds=15.0,
    memory_mb=256,
    idle_cpu_seconds=0.3,
    cpu_seconds=60,
)


@dataclass(frozen=True)
class Expect:
    """What must happen to a hostile bot: the failure reason (None: it must not fail) and words in the detail."""

    reason: str | None  # "a|b": either
    detail: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()  # words that must appear in its stderr tail / traceback
    needs: tuple[str, ...] = ()  # sandbox layers without which the test is skipped
    move_seconds: float = (
        5.0  # CPU per move: generous (a loaded machine is slow to fill 256 MB), except to test timeouts
    )
    move_wall_seconds: float | None = None  # the wall-clock cap (default: 5 x move_seconds)


EXPECTED: dict[str, Expect] = {
    # a bot that computes runs out of CPU time; one that sleeps, of wall-clock time (not starved: its fault)
    "infinite_loop": Expect("timeout", ("of CPU time on one move", "its limit: 0.5 s"), move_seconds=0.5),
    "long_sleep": Expect(
        "timeout",
        ("no answer within the wall-clock limit of 0.5 s", "did not starve"),
        move_seconds=0.5,
        move_wall_seconds=0.5,
    ),
    "ignore_sigterm": Expect(
        "timeout", ("no answer within the wall-clock limit of 0.5 s",), move_seconds=0.5, move_wall_seconds=0.5
    ),
    "late_reply": Expect(
        "timeout", ("no answer within the wall-clock limit of 0.5 s",), move_seconds=0.5, move_wall_seconds=0.5
    ),
    "memory_gigabytes": Expect("memory", ("MemoryError",)),
    "memory_creep": Expect("memory", ("MemoryError",)),
    "recursion_bomb": Expect("crash", ("SIGSEGV",), ("in __getattr__",)),
    "recursion_limit": Expect("exception", ("RecursionError",)),
    "thread_bomb": Expect("exception", ("RuntimeError", "can't start new thread")),
    "fork": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "subprocess_shell": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "multiprocessing_pool": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "double_fork_daemon": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "network": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "loopback": Expect("exception", ("PermissionError",), needs=("seccomp",)),
    "signal_parent": Expect("exception", ("PermissionError", "kill("), needs=("seccomp",)),
    "read_files": Expect("exception", ("could not read",), ("FileNotFoundError",), needs=("bubblewrap",)),
    "proc_environ": Expect("exception", ("saw processes",), needs=("bubblewrap",)),
    "write_files": Expect("exception", ("PermissionError",), ("OSError",), needs=("bubblewrap",)),
    "fill_disk": Expect("exception", ("OSError",), needs=("bubblewrap",)),
    "huge_reply": Expect("garbage", ("over the limit",)),
    "nested_json": Expect("garbage", ("nested too deeply",)),
    "nan_reply": Expect("garbage", ("NaN is not JSON",)),
    "garbage_bytes": Expect("garbage", ("not JSON",)),
    # under bubblewrap the sandbox's monitor still holds the pipe, so the silence ends in a timeout
    "close_channel": Expect("timeout|crash", (), move_seconds=0.5, move_wall_seconds=0.5),
    "sys_exit": Expect("crash", ("exited with status 0",)),
    "segfault_at_import": Expect("crash", ("SIGSEGV", "loading"), ("Fatal Python error",)),
    "exit_at_import": Expect("crash", ("exited with status 3", "loading")),
    "import_time_code": Expect("exception", ("while loading",), ("FileNotFoundError",), needs=("bubblewrap",)),
    "raise_everywhere": Expect("exception", ("ValueError", "no start for you")),
    "illegal_action": Expect("illegal", ("'n': 1000",)),
    "type_confused_action": Expect("illegal", (".0}",)),
    "bad_metadata": Expect("exception", ("does not play toy-count",)),
    # stopped between turns, its thread burns nothing there: it plays on (the submission check refuses it)
    "cpu_thread": Expect(None),
    "stale_reply": Expect(None),
    "print_stdout": Expect(None),
}

SECRET = "ladder-secret-" + hashlib.sha256(str(os.getpid()).encode()).hexdigest()[:12]


def skip_unless(needs: tuple[str, ...]) -> None:
    missing = [layer for layer in needs if layer not in AVAILABLE]
    if missing:
        pytest.skip(f"needs the sandbox layer(s) {', '.join(missing)}, not available here (see `ladder doctor`)")


def live_tags(tags: list[str]) -> list[str]:
    """The tags (from ``tags``) found in the command line of any process on the machine."""
    return [f"{tag} (pid {pid})" for pid, text in command_lines() for tag in tags if tag in text]


def zombie_children() -> list[int]:
    """Children of this process that exited and were never reaped."""
    zombies = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rfind(b")") + 2 :].split()
        if fields[0] == b"Z" and int(fields[1]) == os.getpid():
            zombies.append(int(entry))
    return zombies


def gone_tags(pool: PlayerPool) -> list[str]:
    """Tags of the pool's processes that were stopped (after a failure)."""
    alive = {process.tag for process in pool.processes()}
    return [tag for tag in pool.tags if tag not in alive]


def tree_digest(*paths: Path) -> str:
    digest = hashlib.sha256()
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(autouse=True)
def toy_game(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if "LADDER_RESULTS" not in os.environ or "ladder-home" not in os.environ["LADDER_RESULTS"]:
        home = tmp_path_factory.mktemp("results")
        monkeypatch.setenv("LADDER_RESULTS", str(home))
        monkeypatch.setenv("LADDER_DB", f"sqlite:///{home / 'ladder.db'}")
    with toy_game_registered():
        yield


@pytest.fixture(scope="module")
def ladder_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A results folder with a database and one registered bot, as a ladder in use has."""
    home = tmp_path_factory.mktemp("ladder-home")
    with pytest.MonkeyPatch.context() as monkeypatch, toy_game_registered():
        monkeypatch.setenv("LADDER_RESULTS", str(home))
        monkeypatch.setenv("LADDER_DB", f"sqlite:///{home / 'ladder.db'}")
        monkeypatch.setenv("LADDER_TEST_SECRET", SECRET)
        good = home.parent / "registered_good.py"
        good.write_text(Path(GOOD_BOT).read_text().replace('games = ("*",)', f'games = ("{GAME_ID}",)'))
        report = check_submitted_bot(str(good), name="registered-good", limits=LIMITS, matches_per_table=1)
        assert report.ok, report.problem
        register(report)
        yield home


@pytest.fixture()
def pool(request: pytest.FixtureRequest) -> Iterator[PlayerPool]:
    name = getattr(request, "param", None)
    move = EXPECTED[name].move_seconds if name else 0.5
    wall = EXPECTED[name].move_wall_seconds if name else None
    with PlayerPool(limits=replace(LIMITS, move_seconds=move, move_wall_seconds=wall)) as the_pool:
        yield the_pool
    assert live_tags(the_pool.tags) == [], "bot processes outlived the pool"
    assert zombie_children() == [], "bot processes were not reaped"


def prepare(name: str, folder: Path, **values: object) -> str:
    """A copy of the hostile bot ``name`` with its placeholders filled in."""
    source = (HOSTILE / f"{name}.py").read_text()
    replacements = {
        "TARGETS: list = []": f"TARGETS: list = {values.get('targets', [])!r}",
        "PORT = 0": f"PORT = {values.get('port', 0)}",
        "LADDER_PID = 0": f"LADDER_PID = {os.getpid()}",
        'MARKER = ""': f"MARKER = {str(values.get('marker', ''))!r}",
    }
    for old, new in replacements.items():
        source = source.replace(old, new)
    path = folder / f"{name}.py"
    path.write_text(source)
    return str(path)


def play(pool: PlayerPool, hostile: str, seed: int = 1) -> MatchOutcome:
    spec = MatchSpec(GAME_ID, (hostile, GOOD_BOT), seed)
    return play_match(spec, [pool.player(hostile, GAME_ID), pool.player(GOOD_BOT, GAME_ID)])


def assert_expected(outcome: MatchOutcome, expect: Expect) -> None:
    failure = outcome.failures.get(0)
    if expect.reason is None:
        assert failure is None, failure
    else:
        assert failure is not None, "the hostile bot did not fail"
        assert failure.reason in expect.reason.split("|"), failure
        for words in expect.detail:
            assert words in failure.detail + failure.stderr_tail, failure
        for words in expect.stderr:
            assert words in failure.stderr_tail, failure
        assert outcome.ranks[0] == 2 and outcome.ranks[1] == 1, "the failing bot must lose"
    assert 1 not in outcome.failures, f"the well-behaved bot was hurt: {outcome.failures.get(1)}"
    assert SECRET not in (failure.stderr_tail + failure.detail if failure else "")


@pytest.mark.needs_bot_sandbox
@pytest.mark.parametrize(("name", "pool"), [(name, name) for name in sorted(EXPECTED)], indirect=["pool"])
def test_hostile_bot_loses_and_leaves_nothing(name: str, pool: PlayerPool, ladder_home: Path, tmp_path: Path) -> None:
    expect = EXPECTED[name]
    skip_unless(expect.needs)
    store = ladder_home / "bots"
    database = ladder_home / "ladder.db"
    store_file = next(store.rglob("bot.py"))
    before = tree_digest(store, database)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    marker = tmp_path / "import-time-marker"
    hostile = prepare(
        name,
        tmp_path,
        targets=[str(store_file), str(database), str(ladder_home / "ladder.db-wal")],
        port=listener.getsockname()[1],
        marker=marker,
    )
    try:
        pool.warm(GOOD_BOT)
        good_process = pool.processes()[0]
        outcome = play(pool, hostile)
        if name == "cpu_thread":  # stopped between matches: its thread burns no CPU while the bot waits in the pool
            idle = next(process for process in pool.processes() if process is not good_process)
            time.sleep(0.1)  # a stop signal takes effect at once, but give it a moment under load
            cpu_before = idle.cpu_seconds_used()
            time.sleep(0.6)
            assert idle.paused and idle.cpu_seconds_used() == cpu_before
            outcome = play(pool, hostile, 2)
        assert_expected(outcome, expect)
        if expect.reason is not None:
            assert live_tags(gone_tags(pool)) == [], "a process of the failed bot is still running"
            assert zombie_children() == [], "the failed bot's process was not reaped"
            assert len(pool.processes()) == 1, "only the well-behaved bot's process should remain"
        # the well-behaved bot keeps its process and plays on
        again = play_match(
            MatchSpec(GAME_ID, (GOOD_BOT, "random"), 7),
            [pool.player(GOOD_BOT, GAME_ID), pool.player("random", GAME_ID)],
        )
        assert again.failures == {}
        assert good_process.alive() and good_process in pool.processes()
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody reached the ladder's machine
    finally:
        listener.close()
    assert not marker.exists(), "code of the bot ran outside the sandbox"
    assert tree_digest(store, database) == before, "the bot store or the database changed"


@pytest.mark.needs_bot_sandbox
def test_the_ladder_never_imports_a_bot(pool: PlayerPool, tmp_path: Path) -> None:
    """Import-time code runs only in the sandbox: the ladder's own Bot class is untouched."""
    import sys

    from ladder.bot import Bot

    act = Bot.act
    marker = tmp_path / "marker"
    hostile = prepare("import_time_code", tmp_path, marker=marker)
    play(pool, hostile)
    assert Bot.act is act
    assert not any("import_time_code" in name for name in sys.modules)
    if "bubblewrap" in AVAILABLE:
        assert not marker.exists()


@pytest.mark.needs_bot_sandbox
def test_stale_replies_are_ignored_and_the_real_answer_used(pool: PlayerPool, tmp_path: Path) -> None:
    outcome = play(pool, str(HOSTILE / "stale_reply.py"))
    assert outcome.failures == {}
    # the bot's real answer is the last legal action (add 3); the stale frame said index 99
    assert outcome.actions[0] == {"type": "add", "n": 3}


@pytest.mark.needs_bot_sandbox
def test_printing_to_stdout_ends_up_in_stderr(pool: PlayerPool) -> None:
    outcome = play(pool, str(HOSTILE / "print_stdout.py"))
    assert outcome.failures == {}
    tails = [p.stderr_tail() for p in pool.processes()]
    assert any("PRINTED-BY-ACT" in tail for tail in tails)
    assert any("PRINTED-AT-IMPORT" in tail for tail in tails)


@pytest.mark.needs_bot_sandbox
def test_a_replaced_process_serves_the_next_match(pool: PlayerPool) -> None:
    """After a failure the process is replaced: the bot's next match starts from a fresh process."""
    hostile = str(HOSTILE / "illegal_action.py")
    first = play(pool, hostile)
    second = play(pool, hostile)
    assert first.failures[0].reason == second.failures[0].reason == "illegal"
    assert pool.started == 3  # the good bot once, the hostile bot twice


@pytest.mark.skipif("bubblewrap" not in AVAILABLE, reason="needs the bubblewrap layer, not available here")
def test_a_double_forked_daemon_dies_with_its_sandbox_even_without_seccomp(tmp_path: Path) -> None:
    """Without the seccomp layer fork is allowed: the pid namespace still takes every process down."""
    with PlayerPool(limits=replace(LIMITS, move_seconds=0.5), layers=("process", "bubblewrap")) as pool:
        outcome = play(pool, str(HOSTILE / "double_fork_daemon.py"))
        assert outcome.failures[0].reason == "timeout"
        assert live_tags(gone_tags(pool)) == []
    assert live_tags(pool.tags) == []


@pytest.mark.skipif("bubblewrap" not in AVAILABLE, reason="needs the bubblewrap layer, not available here")
def test_no_network_even_without_seccomp(tmp_path: Path) -> None:
    with PlayerPool(limits=LIMITS, layers=("process", "bubblewrap")) as pool:
        outcome = play(pool, str(HOSTILE / "network.py"))
    failure = outcome.failures[0]
    assert failure.reason == "exception"
    assert "Network is unreachable" in failure.detail or "OSError" in failure.detail, failure


def test_process_layer_alone_still_enforces_deadlines_and_memory(tmp_path: Path) -> None:
    """The weakest configuration (no bubblewrap, no seccomp) still times out, limits memory and kills."""
    with PlayerPool(limits=replace(LIMITS, move_seconds=1.0), layers=("process",), allow_root=True) as pool:
        for name in ("ignore_sigterm", "memory_gigabytes"):
            outcome = play(pool, str(HOSTILE / f"{name}.py"))
            assert outcome.failures[0].reason == EXPECTED[name].reason
        assert live_tags(gone_tags(pool)) == []
    assert live_tags(pool.tags) == []


VALIDATE_REASON = {"bad_metadata": "built-in bot's", "cpu_thread": "kept working while it was not its turn"}


@pytest.mark.needs_bot_sandbox
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_validate_refuses_or_contains_every_hostile_bot(name: str) -> None:
    """`ladder validate`/`submit` run this check: each hostile bot is refused with its reason, or contained."""
    expect = EXPECTED[name]
    skip_unless(expect.needs)
    limits = replace(LIMITS, move_seconds=expect.move_seconds, move_wall_seconds=expect.move_wall_seconds)
    report = check_submitted_bot(str(HOSTILE / f"{name}.py"), limits=limits, matches_per_table=1)
    assert report.process_tags and live_tags(report.process_tags) == [], "the check left a bot process running"
    if expect.reason is None and name not in VALIDATE_REASON:
        assert report.ok, report.problem
        return
    assert not report.ok
    wanted = VALIDATE_REASON.get(name) or expect.reason.split("|")
    if isinstance(wanted, str):
        assert wanted in report.problem, report.problem
    else:
        assert any(reason in report.problem for reason in wanted), report.problem
    assert "\n" not in report.problem


@pytest.mark.needs_bot_sandbox
def test_hostile_files_are_copied_not_run_in_place(tmp_path: Path) -> None:
    """A bot run from a path is a private copy: changing the file mid-run changes nothing."""
    path = tmp_path / "bot.py"
    shutil.copy(GOOD_BOT, path)
    with PlayerPool(limits=LIMITS) as pool:
        player = pool.player(str(path), GAME_ID)
        path.write_text("raise SystemExit('changed')\n")
        outcome = play_match(MatchSpec(GAME_ID, (str(path),), 3), [player])
    assert outcome.failures == {}
