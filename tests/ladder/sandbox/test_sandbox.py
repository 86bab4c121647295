"""The sandbox seen from inside and outside: what a bot can see, limits, reuse, references."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from ladder.errors import UserError
from ladder.guest import seccomp
from ladder.matches.match import MatchSpec, play_match
from ladder.sandbox.layers import LayerStatus, available_layers, require_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.uids import BOT_UID_COUNT, BOT_UID_FIRST
from ladder.seats.players import PlayerPool, check_bot_reference
from tests.ladder.toy_game import GAME_ID, toy_game_registered

AVAILABLE = available_layers()
LIMITS = SandboxLimits(move_seconds=2.0, match_seconds=10.0, memory_mb=256)


@pytest.fixture(autouse=True)
def toy_game(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("results")
    monkeypatch.setenv("LADDER_RESULTS", str(home))
    monkeypatch.setenv("LADDER_DB", f"sqlite:///{home / 'ladder.db'}")
    with toy_game_registered():
        yield


def write_bot(folder: Path, body: str, name: str = "bot.py") -> str:
    path = folder / name
    path.write_text("from ladder.bot import Bot\n" + body)
    return str(path)


def failure_of(pool: PlayerPool, path: str, seed: int = 1):
    outcome = play_match(MatchSpec(GAME_ID, (path,), seed), [pool.player(path, GAME_ID)])
    return outcome.failures.get(0)


INSIDE = """
import json, os, socket, sys
class Inside(Bot):
    name = "inside"
    games = ("toy-count",)
    def act(self, observation, legal_actions):
        facts = {"uid": os.getuid(), "gid": os.getgid(), "env": sorted(os.environ), "cwd": os.getcwd(),
                 "root": sorted(os.listdir("/")), "pid": os.getpid(), "exe": sys.executable}
        for path in ("/etc", "/work", "/home", "/root/.ssh", "/var"):
            facts["sees " + path] = os.path.exists(path)
        try:
            open("/tmp/scratch", "w").write("ok")
            facts["tmp writable"] = True
        except OSError:
            facts["tmp writable"] = False
        try:
            open(os.path.join(os.path.dirname(__file__), "x"), "w")
            facts["own folder writable"] = True
        except OSError:
            facts["own folder writable"] = False
        with open("/proc/self/status") as status:
            facts["status"] = {k: v.strip() for k, v in (l.split(":", 1) for l in status) if k in ("CapEff", "NoNewPrivs", "Seccomp")}
        import engine, bots.random_bot
        raise RuntimeError("FACTS" + json.dumps(facts))
"""


def inside_facts(pool: PlayerPool, folder: Path) -> dict:
    failure = failure_of(pool, write_bot(folder, INSIDE))
    assert failure is not None and failure.reason == "exception", failure
    return json.loads(failure.detail.split("FACTS", 1)[1])


@pytest.mark.skipif("bubblewrap" not in AVAILABLE, reason="needs the bubblewrap layer, not available here")
def test_inside_bubblewrap_a_bot_sees_only_the_interpreter_the_api_and_its_files(tmp_path: Path) -> None:
    with PlayerPool(limits=LIMITS) as pool:
        facts = inside_facts(pool, tmp_path)
    assert set(facts["root"]) <= {
        "bot",
        "dev",
        "ladder-api",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "proc",
        "root",
        "tmp",
        "usr",
    }
    assert {"bot", "ladder-api", "tmp", "usr"} <= set(facts["root"])
    assert not any(facts[f"sees {path}"] for path in ("/etc", "/work", "/home", "/root/.ssh", "/var"))
    assert facts["tmp writable"] and not facts["own folder writable"]
    assert facts["cwd"] == "/tmp"
    assert facts["pid"] == 2  # its own pid namespace, where bubblewrap's init is pid 1
    assert set(facts["env"]) <= {
        "PATH",
        "LANG",
        "HOME",
        "TMPDIR",
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING",
        "PYTHONUNBUFFERED",
        "PWD",
    }
    assert facts["status"]["CapEff"] == "0000000000000000"
    assert facts["status"]["NoNewPrivs"] == "1"
    import os

    if os.geteuid() == 0:
        # root's bots run as a uid of their own (so no two bot processes share a thread limit)
        assert BOT_UID_FIRST <= facts["uid"] < BOT_UID_FIRST + BOT_UID_COUNT and facts["gid"] == facts["uid"]


@pytest.mark.needs_bot_sandbox
@pytest.mark.skipif("seccomp" not in AVAILABLE, reason="needs the seccomp layer, not available here")
def test_the_seccomp_filter_is_on_inside(tmp_path: Path) -> None:
    with PlayerPool(limits=LIMITS) as pool:
        facts = inside_facts(pool, tmp_path)
    assert facts["status"]["Seccomp"] == "2"


def test_the_seccomp_filter_is_small_and_denies_what_it_says() -> None:
    program = seccomp.build_filter(1234)
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    for name in (
        "fork",
        "vfork",
        "execve",
        "socket",
        "connect",
        "ptrace",
        "setsid",
        "unshare",
        "mount",
        "bpf",
        "memfd_create",
        "shmget",
        "shmat",
        "mq_open",
    ):
        assert name in seccomp.DENIED_X86_64


def test_limits_come_from_a_tournament_files_mapping() -> None:
    limits = SandboxLimits.from_mapping(
        {"move_seconds": 1.5, "match_seconds": 30, "memory_mb": 512, "bench_after_failures": 5, "max_attempts": 3}
    )
    assert (limits.move_seconds, limits.match_seconds, limits.memory_mb) == (1.5, 30.0, 512)
    assert SandboxLimits.from_mapping(None) == SandboxLimits()
    assert SandboxLimits.from_mapping(limits) is limits


def test_a_missing_layer_that_is_required_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from ladder.sandbox import layers as sandbox

    monkeypatch.setattr(
        sandbox,
        "layer_statuses",
        lambda: [
            LayerStatus("process", True, "ok"),
            LayerStatus("bubblewrap", False, "bwrap is not installed"),
            LayerStatus("seccomp", True, "ok"),
        ],
    )
    with pytest.raises(UserError, match="'bubblewrap' is required but not available here: bwrap is not installed"):
        require_layers(["bubblewrap"])
    with pytest.raises(UserError, match="bubblewrap"):
        PlayerPool(require=["bubblewrap"])
    with pytest.raises(UserError, match="no sandbox layer 'chroot'"):
        require_layers(["chroot"])
    assert require_layers(["seccomp"]) == ("process", "seccomp")


@pytest.mark.needs_bot_sandbox
def test_one_process_serves_many_matches_with_a_fresh_bot_each_time(tmp_path: Path) -> None:
    path = write_bot(
        tmp_path,
        """
MATCHES = []
class Fresh(Bot):
    name = "fresh"
    games = ("toy-count",)
    def __init__(self):
        super().__init__()
        self.moves = 0
    def start(self, match):
        super().start(match)
        MATCHES.append(match.seed)
    def act(self, observation, legal_actions):
        self.moves += 1
        if self.moves > 21:
            raise RuntimeError("this bot object has played before")
        return legal_actions[len(MATCHES) % 3]
""",
    )
    with PlayerPool(limits=LIMITS) as pool:
        outcomes = [play_match(MatchSpec(GAME_ID, (path,), seed), [pool.player(path, GAME_ID)]) for seed in range(6)]
        assert all(not o.failures for o in outcomes)
        assert pool.started == 1
        # module state survives (documented), so the answer depends on how many matches it has seen
        assert outcomes[0].actions[0] == {"type": "add", "n": 2}
        assert outcomes[1].actions[0] == {"type": "add", "n": 3}


@pytest.mark.needs_bot_sandbox
def test_the_match_budget_is_shared_by_all_moves(tmp_path: Path) -> None:
    path = write_bot(
        tmp_path,
        """
import time
class Slow(Bot):
    name = "slow"
    games = ("toy-count",)
    def act(self, observation, legal_actions):
        time.sleep(0.2)
        return legal_actions[0]
""",
    )
    with PlayerPool(limits=SandboxLimits(move_seconds=1.0, match_seconds=0.7)) as pool:
        failure = failure_of(pool, path)
    assert failure.reason == "timeout"
    assert "left in its match budget" in failure.detail or "used up" in failure.detail
    assert 2 <= failure.at_action <= 4


@pytest.mark.needs_bot_sandbox
def test_an_exception_is_reported_with_the_bots_own_traceback(tmp_path: Path) -> None:
    path = write_bot(
        tmp_path,
        """
class Buggy(Bot):
    name = "buggy"
    games = ("toy-count",)
    def act(self, observation, legal_actions):
        return legal_actions[observation["no-such-key"]]
""",
    )
    with PlayerPool(limits=LIMITS) as pool:
        failure = failure_of(pool, path)
    assert failure.reason == "exception"
    assert "KeyError" in failure.detail
    assert 'File "/bot/bot.py"' in failure.stderr_tail or "bot.py" in failure.stderr_tail
    assert 'observation["no-such-key"]' in failure.stderr_tail
    assert "bot_host" not in failure.stderr_tail  # the ladder's own frames are left out


@pytest.mark.needs_bot_sandbox
def test_a_bot_that_does_not_load_is_one_clear_line_for_play(tmp_path: Path) -> None:
    path = write_bot(tmp_path, "x = 1 / 0\n")
    with pytest.raises(UserError) as caught:
        check_bot_reference(path, GAME_ID)
    message = str(caught.value)
    assert "\n" not in message
    assert "ZeroDivisionError" in message and "loading" in message


def test_unknown_references_are_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no bot 'nobody-at-all'"):
        check_bot_reference("nobody-at-all", GAME_ID)
    with pytest.raises(UserError, match="not a bot store reference"):
        check_bot_reference("store:1234", GAME_ID)
    with pytest.raises(UserError, match="no such file"):
        check_bot_reference(str(tmp_path / "missing.py"), GAME_ID)


@pytest.mark.needs_bot_sandbox
def test_a_bot_that_does_not_play_the_game_is_refused(tmp_path: Path) -> None:
    path = write_bot(tmp_path, "class Other(Bot):\n    name = 'other'\n    games = ('elfer-raus',)\n")
    with pytest.raises(UserError, match="does not play toy-count; it plays: elfer-raus"):
        check_bot_reference(path, GAME_ID)


@pytest.mark.needs_bot_sandbox
def test_an_installed_packages_bot_runs_sandboxed_from_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    package = site / "toybots"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "strategy.py").write_text("def choose(legal):\n    return legal[-1]\n")
    (package / "bot.py").write_text(
        "from ladder.bot import Bot\nfrom toybots.strategy import choose\n"
        "class Packaged(Bot):\n    name = 'packaged'\n    games = ('toy-count',)\n"
        "    def act(self, observation, legal_actions):\n        return choose(legal_actions)\n"
    )
    info = site / "toybots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toybots\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ladder.bots]\npackaged = toybots.bot:Packaged\n")
    monkeypatch.syspath_prepend(str(site))
    assert "toybots" not in sys.modules
    with PlayerPool(limits=LIMITS) as pool:
        for ref in ("ep:packaged", "packaged"):
            outcome = play_match(MatchSpec(GAME_ID, (ref,), 1), [pool.player(ref, GAME_ID)])
            assert outcome.failures == {}
            assert outcome.actions[0] == {"type": "add", "n": 3}
    assert "toybots" not in sys.modules  # found, never imported by the ladder


ECHO = """
import os, sys
class Echo(Bot):
    name = "echo"
    games = ("*",)
    def act(self, observation, legal_actions):
        codec = getattr(sys.modules.get("orjson"), "__file__", None)
        try:
            open(codec, "ab").close()
            writable = True
        except (OSError, TypeError):
            writable = False
        raise RuntimeError("ECHO" + repr((observation, legal_actions, codec, writable)))
"""


@pytest.mark.parametrize("layers", [None, ("process", "seccomp")], ids=["default-layers", "without-bubblewrap"])
def test_requests_reach_the_bot_exactly_and_its_host_reads_them_with_the_ladders_orjson(
    tmp_path: Path, layers: tuple[str, ...] | None
) -> None:
    """Whichever encoder writes a request (orjson, or the standard library for what orjson cannot write
    exactly), the bot gets the same values; the bot's host loads the ladder's orjson read-only when it can."""
    import ast
    import os

    from ladder.guest import protocol
    from ladder.sandbox.host_facts import orjson_extension
    from ladder.sandbox.layers import default_layers
    from ladder.sandbox.process import BotProcess
    from ladder.sandbox.submission import stage

    if layers and any(layer not in AVAILABLE for layer in layers):
        pytest.skip(f"needs the sandbox layers {layers}")
    chosen = layers or default_layers()
    process = BotProcess(stage(write_bot(tmp_path, ECHO)), LIMITS, chosen, allow_root=True)
    process.start()
    try:
        process.request(
            {"op": "start", "match": {"game": GAME_ID, "seat": 0, "num_players": 1, "options": {}, "seed": 2**70}},
            5.0,
            "starting",
        )
        legal = [{"type": "play", "card": ["red", 3]}, {"type": "pass"}]
        for observation in (
            {"hand": [["red", 3]], "note": "thé ☕", "none": None, "ratio": 0.1, "top": 2**64 - 1},
            {"seed": 2**70, "negative": -(2**70), "ratio": 1e-7},
        ):
            reply = process.request({"op": "act", "observation": observation, "legal": legal}, 5.0, "deciding")
            seen, seen_legal, codec, writable = ast.literal_eval(reply["error"]["message"].split("ECHO", 1)[1])
            assert seen == observation and seen_legal == legal
            assert [type(value) for value in seen.values()] == [type(value) for value in observation.values()]
    finally:
        process.close()
    extension = orjson_extension()
    if extension is not None and os.stat(extension).st_mode & 0o004:
        assert codec is not None and protocol.orjson is not None
        if "bubblewrap" in chosen:
            assert codec.startswith("/ladder-api/codec/") and not writable
    elif protocol.orjson is None:
        assert codec is None


@pytest.mark.parametrize("layers", [None, ("process", "seccomp")], ids=["default-layers", "without-bubblewrap"])
def test_bot_processes_die_with_the_ladder(tmp_path: Path, layers: tuple[str, ...] | None) -> None:
    """If the ladder is killed outright (SIGKILL, no clean-up), its bots go too."""
    import os
    import signal
    import subprocess
    import time

    from tests.ladder.sandbox.test_hostile import live_tags

    if layers and any(layer not in AVAILABLE for layer in layers):
        pytest.skip(f"needs the sandbox layers {layers}")
    bot = write_bot(tmp_path, "class Idle(Bot):\n    name = 'idle'\n")
    script = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})\n"
        "from ladder.seats.players import PlayerPool\n"
        f"pool = PlayerPool(layers={layers!r}, allow_root=True)\n"
        f"pool.warm({bot!r}, 2)\n"
        "from ladder.sandbox.submission import staging_root\n"
        "print(' '.join(pool.tags), staging_root(), flush=True)\n"
        "time.sleep(600)\n"
    )
    ladder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        *tags, staged = ladder.stdout.readline().split()
        assert len(tags) == 2 and len(live_tags(tags)) >= 2
    finally:
        os.kill(ladder.pid, signal.SIGKILL)
        ladder.wait()
    deadline = time.monotonic() + 5
    while live_tags(tags) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_tags(tags) == []
    # a ladder killed outright cannot tidy up its temporary folders: do it for it
    import glob
    import shutil

    for folder in [staged, *(path for tag in tags for path in glob.glob(f"/tmp/ladder-bot-{tag}-*"))]:
        shutil.rmtree(folder, ignore_errors=True)


WHO = """
import os
class Who(Bot):
    name = "who"
    games = ("toy-count",)
    author = f"{os.getuid()} {os.getgid()}"
"""


@pytest.mark.needs_bot_sandbox
@pytest.mark.skipif(not __import__("os").geteuid() == 0, reason="uids of their own are for a ladder running as root")
def test_as_root_every_bot_process_runs_as_a_uid_of_its_own(tmp_path: Path) -> None:
    """The thread limit counts per uid: two processes of one bot, alive at once, never share one."""
    path = write_bot(tmp_path, WHO)
    with PlayerPool(limits=LIMITS) as pool:
        pool.warm(path, 3)
        processes = pool.processes()
        uids = {process.lease.uid for process in processes if process.lease is not None}
        assert len(uids) == 3 and all(BOT_UID_FIRST <= uid < BOT_UID_FIRST + BOT_UID_COUNT for uid in uids)
        seen = {pool.describe(path).author}
        assert seen <= {f"{uid} {uid}" for uid in uids}
    assert all(process.lease is None for process in processes), "a dead process's uid is handed back"


@pytest.mark.needs_bot_sandbox
def test_a_bot_is_stopped_while_the_ladder_does_not_wait_for_it(tmp_path: Path) -> None:
    """Between requests the process is stopped (state T); the next request lets it go on."""
    path = write_bot(tmp_path, WHO)
    with PlayerPool(limits=LIMITS) as pool:
        pool.warm(path)
        process = pool.processes()[0]
        assert process.paused

        def state() -> bytes:
            with open(f"/proc/{process.bot_pid}/stat", "rb") as stat:
                text = stat.read()
            return text[text.rfind(b")") + 2 :].split()[0]

        deadline = time.monotonic() + 2.0
        while state() != b"T" and time.monotonic() < deadline:  # a stop signal is delivered, not waited for
            time.sleep(0.01)
        assert state() == b"T"
        assert process.request({"op": "ping"}, 5.0, "pinging").get("ok") is True
        assert process.paused


@pytest.mark.needs_bot_sandbox
def test_killing_goes_through_a_pidfd_and_leaves_nothing(tmp_path: Path) -> None:
    import os

    path = write_bot(tmp_path, WHO)
    with PlayerPool(limits=LIMITS) as pool:
        pool.warm(path)
        process = pool.processes()[0]
        pidfd, pid = process._bot_pidfd, process.bot_pid
        assert pidfd >= 0 and pid is not None
        process.kill()
        assert process._bot_pidfd == -1 and not process.alive()
        assert not os.path.exists(f"/proc/{pid}") or b"bot_host" not in open(f"/proc/{pid}/cmdline", "rb").read()


@pytest.mark.needs_bot_sandbox
def test_a_worker_stops_the_idle_processes_of_a_bot_with_no_match_left(tmp_path: Path) -> None:
    """The runner lists bots whose every match is handed out (``retire``); the worker then ends their idle processes."""
    from dataclasses import asdict

    from tournaments.executors.tasks import MatchTask
    from tournaments.executors.worker import _player_source, play_task

    path = write_bot(
        tmp_path, WHO + "    def act(self, observation, legal_actions):\n        return legal_actions[0]\n"
    )
    limits = asdict(SandboxLimits())
    task = MatchTask(key="k1", game=GAME_ID, seats=(path,), seed=1, limits=limits).to_wire()
    pool = _player_source(limits)
    try:
        assert not play_task(task)["failures"]
        kept = pool.processes()
        assert len(kept) == 1 and kept[0].alive(), "a bot with matches to come keeps its process"
        assert not play_task({**task, "key": "k2", "retire": [path]})["failures"]
        assert pool.processes() == [] and not kept[0].alive(), "its last match played, its process is gone"
    finally:
        pool.close()


def test_the_operators_allow_list_of_packages_is_checked() -> None:
    from tournaments.formats.config import parse_tournament

    assert SandboxLimits.from_mapping({"packages": ["tqdm", "tqdm"]}).packages == ("tqdm",)
    with pytest.raises(UserError, match="part of the bot API"):
        SandboxLimits.from_mapping({"packages": ["engine"]})
    with pytest.raises(UserError, match="not installed here"):
        SandboxLimits.from_mapping({"packages": ["no_such_package_here"]})
    with pytest.raises(UserError, match="not a top-level module name"):
        SandboxLimits.from_mapping({"packages": ["tqdm.auto"]})
    with pytest.raises(UserError, match="in the standard library"):
        SandboxLimits.from_mapping({"packages": ["json"]})
    data = {"seed": 1, "games": [GAME_ID], "bots": ["random"], "limits": {"packages": ["no_such_package_here"]}}
    with pytest.raises(
        UserError, match=r"t.toml: limits.packages: allowed package 'no_such_package_here' is not installed"
    ):
        parse_tournament(data, "t.toml", "t")
    data["limits"] = {"packages": ["tqdm"]}
    assert parse_tournament(data, "t.toml", "t").limits.packages == ("tqdm",)
