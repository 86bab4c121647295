"""Hostile bots through the real front door: `ladder validate`, `ladder submit` and `ladder run` into a temporary database.

The sandbox's isolation half of issue 11, tried as a hostile bot author
would: every command is a real subprocess of the CLI, the tournament is a
real `ladder run` into a temporary SQLite database. The bots:

- ``thread_hog`` parks every thread its limit allows and holds them (it never
  fails itself); next to it, ``honest_threads`` starts a thread for every
  decision, and must never fail (before each bot process had a uid of its
  own, the hog left it none: "can't start new thread");
- ``busy_sleeper`` behaves during the check, then keeps a thread burning CPU
  between turns (it is stopped whenever the ladder is not waiting for it);
- ``memfd_sleeper`` behaves during the check, then tries 640 MB in a memfd
  plus 512 MB of heap under a 1024 MB limit, in memfds of 15 MB each, under
  the file-size limit (``memfd_create`` is refused);
- ``fingerprint_sleeper`` fingerprints everything it can see (mounts, paths,
  its command line, limits, ...) during the check and misbehaves if the
  tournament looks different: it must not be able to tell;
- ``snoop`` tries to import the host's installed packages, list the host's
  ``site-packages`` and read files outside the sandbox.

After each command: no bot process is left, nothing outside the sandbox was
read or changed, every scheduled match is recorded (with the reason for
every failure), the honest bots' matches are unaffected, and the tournament
is complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import game_ids
from ladder.sandbox.layers import available_layers

ROOT = Path(__file__).resolve().parents[3]
GAME = "elfer-raus"
AVAILABLE = available_layers()
pytestmark = [
    pytest.mark.skipif(GAME not in game_ids(), reason=f"{GAME} is not registered"),
    pytest.mark.skipif(
        not {"bubblewrap", "seccomp"} <= set(AVAILABLE),
        reason="needs the bubblewrap and seccomp sandbox layers (see `ladder doctor`)",
    ),
]

HEADER = f'''
import os, sys, threading, time
from ladder.bot import Bot

class _Base(Bot):
    author = "the front-door tests"
    games = ("{GAME}",)
    matches = 0
    sizes = []  # the table size of each match this process played

    def start(self, match):
        super().start(match)
        type(self).matches += 1  # per process: the ladder reuses a process for many matches
        type(self).sizes.append(match.num_players)

    @classmethod
    def awake(cls):
        # the check plays one match at each table size with one process; a two-player tournament gives a process
        # two-player matches in a row (a process never plays a deal twice, so it plays few: count on this, not on many)
        return cls.matches >= WAKE_AT or cls.sizes[-2:] == [2, 2]

    def act(self, observation, legal_actions):
        return legal_actions[0]
'''

HONEST_THREADS = (
    HEADER
    + """
class HonestThreads(_Base):
    name = "honest-threads"

    def act(self, observation, legal_actions):
        answer = []
        worker = threading.Thread(target=lambda: answer.append(legal_actions[0]))
        worker.start()  # "can't start new thread" if another bot has taken this uid's thread limit
        worker.join()
        return answer[0]

BOT = HonestThreads
"""
)

THREAD_HOG = (
    HEADER
    + """
_parked = []

def _park():
    threading.stack_size(64 * 1024)
    stop = threading.Event()
    while True:
        try:
            thread = threading.Thread(target=stop.wait, daemon=True)
            thread.start()
        except (RuntimeError, MemoryError):
            return
        _parked.append(thread)

class ThreadHog(_Base):
    name = "thread-hog"

    def start(self, match):
        super().start(match)
        if not _parked:
            _park()
            print(f"parked {len(_parked)} threads", file=sys.stderr)

BOT = ThreadHog
"""
)

SLEEPER = (
    HEADER
    + """
WAKE_AT = 0  # the first match of a process that misbehaves, however it was reached
"""
)

BUSY_SLEEPER = (
    SLEEPER
    + """
_burning = []

def _burn():
    while True:
        sum(range(10000))

class BusySleeper(_Base):
    name = "busy-sleeper"

    def start(self, match):
        super().start(match)
        if type(self).awake() and not _burning:
            _burning.append(threading.Thread(target=_burn, daemon=True))
            _burning[0].start()

BOT = BusySleeper
"""
)

MEMFD_SLEEPER = (
    SLEEPER
    + """
class MemfdSleeper(_Base):
    name = "memfd-sleeper"
    hoard = []  # kept for the process's life

    def start(self, match):
        super().start(match)
        if type(self).awake() and not type(self).hoard:
            chunk = b"x" * (1 << 20)
            hoard = type(self).hoard
            for _ in range(43):  # 43 x 15 MB: each memfd under the file-size limit, 645 MB in all
                fd = os.memfd_create("hoard")  # refused by the seccomp filter: PermissionError
                for _ in range(15):
                    os.write(fd, chunk)
                hoard.append(fd)
            hoard.append(bytearray(512 << 20))  # and the heap on top: 1157 MB under a 1024 MB limit

BOT = MemfdSleeper
"""
)

FINGERPRINT = (
    """
import glob, hashlib, json, os, resource, socket, sys
from ladder.bot import Bot

CHECK_FINGERPRINT = "0000000000000000000000000000000000000000000000000000000000000000"

def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError as error:
        return f"<{type(error).__name__}>"

def _listing(folder):
    try:
        return sorted(os.listdir(folder))
    except OSError as error:
        return f"<{type(error).__name__}>"

def _mounts():
    # mount and parent ids and the anonymous device numbers of tmpfs differ from process to process: drop them
    rows = []
    for line in _read("/proc/self/mountinfo").splitlines():
        fields = line.split()
        rows.append(" ".join(fields[3:]))
    return rows

def _command_line():
    argv = _read("/proc/self/cmdline").split("\\0")
    config = json.loads(argv[-2]) if len(argv) > 1 and argv[-2].startswith("{") else {}
    config.pop("tag", None)  # random per process
    config.pop("drop_to", None)  # a uid leased per process
    return [argv[:-2], config]

def fingerprint():
    seen = {
        "mounts": _mounts(), "cmdline": _command_line(), "cwd": os.getcwd(), "path": sys.path, "file": __file__,
        "hostname": socket.gethostname(), "env": dict(os.environ), "cgroup": _read("/proc/self/cgroup"),
        "limits": [resource.getrlimit(getattr(resource, name)) for name in sorted(dir(resource)) if name.startswith("RLIMIT_")],
        "affinity": sorted(os.sched_getaffinity(0)),
        "status": [line for line in _read("/proc/self/status").splitlines()
                   if line.split(":")[0] in ("Seccomp", "NoNewPrivs", "CapEff", "CapBnd", "Cpus_allowed_list")],
        "listings": {folder: _listing(folder) for folder in ("/", "/bot", "/tmp", "/dev", "/dev/shm", "/ladder-api", "/proc/self/fd")},
        "uid_is_first": os.getuid() in (65534, 1700000000),
        "staging": glob.glob("/tmp/ladder-*") + glob.glob("/**/ladder-bots-*", recursive=False),
    }
    return hashlib.sha256(json.dumps(seen, sort_keys=True, default=str).encode()).hexdigest()

FOUND = fingerprint()

class FingerprintSleeper(Bot):
    name = "fingerprint-sleeper"
    author = "fp:" + FOUND
    games = ("%s",)

    def act(self, observation, legal_actions):
        if CHECK_FINGERPRINT.strip("0") and FOUND != CHECK_FINGERPRINT:  # all zeros: still learning the check
            raise RuntimeError("this is the tournament: misbehaving now")
        return legal_actions[0]
"""
    % GAME
)

SNOOP = (
    """
import json, os
from ladder.bot import Bot

def _try(action):
    try:
        return f"allowed: {action()!r}"[:120]
    except BaseException as error:
        return f"{type(error).__name__}"

def _import(name):
    __import__(name)
    return name

def _packages():
    found = {}
    for root, folders, files in os.walk("/"):
        if root.startswith(("/proc", "/sys", "/dev")):
            folders[:] = []
            continue
        if os.path.basename(root) in ("site-packages", "dist-packages"):
            found[root] = sorted(folders + files)
            folders[:] = []
    return found

REPORT = {
    "imports": {name: _try(lambda name=name: _import(name)) for name in ("typer", "rich", "sqlmodel", "tqdm", "orjson", "numpy")},
    "site_packages": _packages(),
    "reads": {str(i): _try(lambda path=path: open(path, "rb").read(20)) for i, path in enumerate(SECRETS)},
    "writes": {str(i): _try(lambda path=path: open(path, "ab").write(b"x")) for i, path in enumerate(SECRETS)},
}

class Snoop(Bot):
    name = "snoop"
    author = "see stderr"
    games = ("%s",)

    def __init__(self):
        raise RuntimeError("REPORT" + json.dumps(REPORT))
"""
    % GAME
)


def ladder(home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LADDER_RESULTS": str(home / "results"),
        "LADDER_DB": f"sqlite:///{home / 'results' / 'ladder.db'}",
        "COLUMNS": "200",
    }
    run = subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=home
    )
    deadline = time.monotonic() + 5.0
    while bot_processes(str(home)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bot_processes(str(home)) == [], f"`ladder {args[0]}` left bot processes behind"
    return run


def bot_processes(marker: str) -> list[int]:
    """Sandboxed bot processes whose bot file holds ``marker`` (this test's bots, not other programs' ones)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if b"bot_host.py" not in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                continue
            source = Path(f"/proc/{entry.name}/root/bot/bot.py").read_text(errors="replace")
        except OSError:
            continue
        if marker in source:
            found.append(int(entry.name))
    return found


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[Path]:
    """A working folder with its own results folder; no process of this test's bots may outlive a command."""
    (tmp_path / "results").mkdir()
    yield tmp_path
    assert bot_processes(str(tmp_path)) == [], "bot processes were left behind"


def write(home: Path, name: str, source: str) -> Path:
    """The bot file ``name``, marked with the test's folder (so its processes can be found)."""
    path = home / f"{name}.py"
    path.write_text(f"# a bot of {home}\n{source}")
    return path


def check_matches(home: Path, path: Path) -> list[int]:
    """The table size of each match the submission check plays with one process for a bot like ``path``
    (`ladder validate --json`)."""
    run = ladder(home, "validate", str(path), "--matches", "1", "--json")
    report = json.loads(run.stdout)
    assert report["ok"], report
    return [match["players"] for match in report["matches"]]


def tree_digest(*folders: Path) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def test_validate_refuses_memfd_and_shared_memory_beyond_the_memory_limit(home: Path) -> None:
    """640 MB in a memfd plus 512 MB of heap under 1024 MB: the memfd is refused, and /dev/shm is read-only."""
    path = write(
        home,
        "memfd",
        MEMFD_SLEEPER.replace("WAKE_AT = 0", "WAKE_AT = 1").replace("BOT = MemfdSleeper", "")
        + """
class SharedMemory(_Base):
    name = "shared-memory"

    def start(self, match):
        super().start(match)
        from multiprocessing import shared_memory
        shared_memory.SharedMemory(create=True, size=640 << 20)

BOT = MemfdSleeper
""",
    )
    run = ladder(home, "validate", str(path), "--matches", "1", "--json")
    report = json.loads(run.stdout)
    assert not report["ok"] and "PermissionError" in report["problem"], report
    assert "memfd_create" in report["explanation"], report["explanation"]
    shm = home / "shm.py"
    shm.write_text(path.read_text().replace("BOT = MemfdSleeper", "BOT = SharedMemory"))
    report = json.loads(ladder(home, "validate", str(shm), "--matches", "1", "--json").stdout)
    assert not report["ok"] and (
        "Read-only file system" in report["problem"] + report["explanation"] or "PermissionError" in report["problem"]
    ), report


def test_validate_shows_no_installed_package_and_nothing_outside(home: Path) -> None:
    secret = home / "secret.txt"
    secret.write_text("the operator's secret")
    secret.chmod(0o644)
    database = home / "results" / "ladder.db"
    ladder(home, "bots")  # creates the database
    targets = [str(secret), str(database), str(ROOT / "pyproject.toml")]
    before = tree_digest(home / "results") + secret.read_text()
    path = write(home, "snoop", "SECRETS = %r\n" % targets + SNOOP)
    report = json.loads(ladder(home, "validate", str(path), "--json").stdout)
    assert not report["ok"]
    found = json.loads(report["problem"].split("REPORT", 1)[1].split(" (its last words")[0])
    imports = found["imports"]
    assert imports.pop("orjson").startswith("allowed"), "the ladder's own orjson (one file) is documented as there"
    assert all(outcome == "ModuleNotFoundError" for outcome in imports.values()), imports
    assert all(listing == [] for listing in found["site_packages"].values()), found["site_packages"]
    # Keyed by position in SECRETS, not by path: a long checkout path must not push the report past the
    # stderr tail the problem quotes.
    assert len(found["reads"]) == len(found["writes"]) == len(targets), found
    assert all(
        not outcome.startswith("allowed") for outcome in [*found["reads"].values(), *found["writes"].values()]
    ), found
    assert tree_digest(home / "results") + secret.read_text() == before


def test_an_allowed_package_is_importable_and_nothing_else(home: Path) -> None:
    """The operator's allow-list (`--allow-package`) shows that package, and only it."""
    path = write(home, "snoop", "SECRETS = []\n" + SNOOP)
    report = json.loads(ladder(home, "validate", str(path), "--json", "--allow-package", "tqdm").stdout)
    found = json.loads(report["problem"].split("REPORT", 1)[1].split(" (its last words")[0])
    assert found["imports"]["tqdm"].startswith("allowed"), found["imports"]
    assert found["imports"]["rich"] == "ModuleNotFoundError" and found["imports"]["typer"] == "ModuleNotFoundError"
    refused = ladder(home, "validate", str(path), "--allow-package", "no_such_package_here")
    assert refused.returncode == 2 and "not installed here" in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.slow
def test_the_check_and_the_tournament_look_the_same_to_a_bot(home: Path) -> None:
    """A sleeper fingerprints what it sees in the check; in `ladder run` it finds the very same view."""
    probe = write(home, "fingerprint", FINGERPRINT)
    first = json.loads(ladder(home, "validate", str(probe), "--json").stdout)
    again = json.loads(ladder(home, "validate", str(probe), "--json").stdout)
    assert first["ok"] and again["ok"], first
    seen = first["bot"]["author"].removeprefix("fp:")
    assert again["bot"]["author"] == first["bot"]["author"], "two checks of one bot look different to it"
    probe.write_text(probe.read_text().replace("0" * 64, seen))  # the same size: the view of /bot does not change
    submitted = ladder(home, "submit", str(probe))
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    (home / "sleeper.toml").write_text(
        f'name = "sleeper"\nseed = 5\ngames = ["{GAME}"]\nbots = ["fingerprint-sleeper", "random"]\n'
        "players = [2]\ngames_per_pairing = 2\nworkers = 1\n"
    )
    run = ladder(home, "run", "sleeper.toml", "--no-progress")
    assert run.returncode == 0, run.stdout + run.stderr
    matches, seats = stored(home)
    assert matches and all(status == "played" for status, _ in matches.values())
    failures = [seat for seat in seats if seat["reason"]]
    assert failures == [], f"the sleeper told the tournament from the check: {failures[:2]}"


def stored(home: Path) -> tuple[dict[int, tuple[str, str]], list[dict[str, object]]]:
    """Every match (status, error) by id, and every seat with its bot reference and failure."""
    with sqlite3.connect(home / "results" / "ladder.db") as connection:
        matches = {row[0]: (row[1], row[2]) for row in connection.execute("select id, status, error from match")}
        refs = {row[0]: json.loads(row[1]) for row in connection.execute("select id, seats_json from match")}
        names = dict(
            connection.execute(
                "select bot_version.content_hash, bot.name from bot_version join bot on bot.id = bot_version.bot_id"
            )
        )
        seats = []
        for match_id, seat, reason, detail in connection.execute(
            "select match_id, seat, failure_reason, failure_detail from seat_result"
        ):
            ref = refs[match_id][seat]
            seats.append(
                {
                    "match": match_id,
                    "bot": names.get(ref.removeprefix("store:"), ref),
                    "reason": reason,
                    "detail": detail,
                }
            )
    return matches, seats


@pytest.mark.slow
def test_hostile_bots_in_a_real_tournament_hurt_only_themselves(home: Path) -> None:
    """Thread hog, busy and memfd sleepers next to honest bots: every match recorded, the honest ones untouched."""
    counting = write(home, "counting", SLEEPER + "\nclass Counting(_Base):\n    name = 'counting'\n\nBOT = Counting\n")
    sizes = check_matches(home, counting)
    # every seat of every table size, the sizes taking turns: no [2, 2] in the check
    assert sorted(sizes) == [size for size in range(2, 7) for _ in range(size)], sizes
    assert not any(a == b == 2 for a, b in zip(sizes, sizes[1:])), sizes
    wake_at = 10**9  # woken by two two-player matches in a row only
    bots = {
        "honest_threads": HONEST_THREADS,
        "thread_hog": THREAD_HOG,
        "busy_sleeper": BUSY_SLEEPER.replace("WAKE_AT = 0", f"WAKE_AT = {wake_at}"),
        "memfd_sleeper": MEMFD_SLEEPER.replace("WAKE_AT = 0", f"WAKE_AT = {wake_at}"),
    }
    for name, source in bots.items():
        submitted = ladder(home, "submit", str(write(home, name, source)), "--matches", "1")
        assert submitted.returncode == 0, f"{name}: {submitted.stdout}{submitted.stderr}"
    store_before = tree_digest(home / "results" / "bots")
    (home / "hostile.toml").write_text(
        f'name = "hostile"\nseed = 11\ngames = ["{GAME}"]\n'
        'bots = ["honest-threads", "thread-hog", "busy-sleeper", "memfd-sleeper", "random"]\n'
        "players = [2]\ngames_per_pairing = 2\nworkers = 1\n\n[limits]\nmove_seconds = 5\nbench_after_failures = 1000\n"
    )
    run = ladder(home, "run", "hostile.toml", "--no-progress")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tournament hostile #1: complete" in run.stdout, run.stdout
    matches, seats = stored(home)
    pairs = 5 * 4 // 2
    assert len(matches) == pairs * 2 * 2, "every scheduled match is recorded"
    assert all(status == "played" and not error for status, error in matches.values()), matches
    by_bot: dict[str, list[dict[str, object]]] = {}
    for seat in seats:
        by_bot.setdefault(str(seat["bot"]), []).append(seat)
    for honest in ("honest-threads", "random", "busy-sleeper"):
        failed = [seat for seat in by_bot[honest] if seat["reason"]]
        assert failed == [], f"{honest} was hurt: {failed[:2]}"
    # the hog's 500 threads cost CPU each time it is stopped and let go again: that is charged to it, and only to it
    hog = [seat for seat in by_bot["thread-hog"] if seat["reason"]]
    assert all(seat["reason"] == "timeout" and "of CPU" in str(seat["detail"]) for seat in hog), hog[:2]
    memfd = [seat for seat in by_bot["memfd-sleeper"] if seat["reason"]]
    assert memfd, "the memfd sleeper never woke up (or its memfd was allowed)"
    assert all(seat["reason"] == "exception" and "PermissionError" in str(seat["detail"]) for seat in memfd), memfd[:2]
    assert tree_digest(home / "results" / "bots") == store_before, "the bot store changed"


def test_doctor_says_how_bots_are_kept_apart_and_what_they_can_import(home: Path) -> None:
    run = ladder(home, "doctor", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    expected = "own uid" if os.geteuid() == 0 else "own user namespace"
    assert report["separation"]["kind"] == expected, report["separation"]
    assert "site-packages are hidden" in report["interpreter_view"]
    human = ladder(home, "doctor")
    assert "Bots kept apart by: own" in human.stdout and "stopped (SIGSTOP)" in " ".join(human.stdout.split())
