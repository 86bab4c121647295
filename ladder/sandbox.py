"""Running an untrusted bot in its own sandboxed process.

Each bot runs in a process of its own, started fresh with ``subprocess``
(never forked from the ladder), talking to the ladder only through
length-prefixed JSON frames on two pipes (:mod:`ladder.guest.protocol`). The
program on the other side is :mod:`ladder.guest.bot_host`.

Layers, the strongest available used by default (``ladder doctor`` says
which are active here and why any is missing):

``process``
    always: a new session (so the whole process group can be killed), resource
    limits (address space, CPU time, threads, file size, open files, no core
    files), a clean environment, a private working folder, a wall-clock
    deadline for start-up and for every request, and at the end or on any
    failure the group is killed with ``SIGKILL`` through a pidfd (never a pid
    that may have been reused) and reaped (no zombies). The bot is stopped
    (``SIGSTOP``) whenever the ladder is not waiting for its answer, so it
    uses no CPU between turns or between matches. When the ladder runs as
    root, every bot process runs as an unprivileged uid of its own
    (:class:`UidLease`), so no two bot processes share a thread/process limit.
``bubblewrap``
    the bot sees a read-only view of only the interpreter's standard library
    (its ``site-packages``/``dist-packages`` folders are hidden), the bot API
    (``ladder``'s bot modules, ``bots``, ``engine``), the ladder's orjson
    extension file (one file, which the host uses to read requests), the
    packages the operator allows (``SandboxLimits.packages``) and a private
    copy of its own files (``/bot``, the same view in the submission check and
    in tournaments), a private size-capped ``/tmp``, a read-only ``/dev`` with
    an empty read-only ``/dev/shm``, its own pid, network (none), IPC and UTS
    namespaces (and, when the ladder is not root, its own user namespace),
    and dies with its parent.
``seccomp``
    a system-call filter (:mod:`ladder.guest.seccomp`): no fork or exec, no sockets,
    no signals to others, no shared memory the memory limit cannot count
    (``memfd_create``, System V shared memory, POSIX message queues).

A bot breaking a rule raises :class:`~ladder.matches.match.BotFailure` (timeout,
crash, garbage, exception, memory, illegal) with the tail of its stderr.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.metadata
import importlib.util
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import typing
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import bots
import engine
import ladder
from ladder.errors import UserError
from ladder.guest import protocol
from ladder.guest import seccomp as seccomp_module
from ladder.matches.match import BotFailure, BotTimeout, TimeoutKind
from ladder.sandbox.move_clock import MoveUsage, MoveWatch, wall_cap
from ladder.sandbox.submission import Submission

LAYERS = ("process", "bubblewrap", "seccomp")
# When the ladder runs as root, each bot process runs as a uid (and gid) of its own from this range, which no
# account uses: RLIMIT_NPROC counts the threads of a uid, so a bot that parks threads only starves itself.
BOT_UID_FIRST = 1_700_000_000
BOT_UID_COUNT = 100_000
UID_LEASE_FOLDERS = ("/run/ladder/bot-uids", "/var/lib/ladder/bot-uids")
SANDBOX_API = "/ladder-api"
SANDBOX_PACKAGES = "/ladder-packages"  # where bubblewrap shows the packages the operator allows
RESERVED_PACKAGES = ("ladder", "bots", "engine")  # the bot API: always there, never from the host's site-packages
SANDBOX_BOT = "/bot"
STACK_SIGNAL = signal.SIGUSR1  # the bot host dumps its Python stack to stderr on it (faulthandler)
STACK_WAIT_SECONDS = 0.5  # how long a timed-out bot's stack dump is waited for before the kill
API_LADDER_FILES = ("__init__.py", "bot.py", "bot_host.py", "protocol.py", "seccomp.py")
SANDBOX_CODEC = f"{SANDBOX_API}/codec"  # where bubblewrap shows the ladder's orjson extension (read-only)
BOT_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONUNBUFFERED": "1",
}


@dataclass(frozen=True)
class SandboxLimits:
    """What a bot may use, and how a tournament treats failures: the one limits type of the ladder.

    A tournament file's ``[limits]`` table holds exactly these keys. The clocks:

    - ``move_seconds``: CPU time (every thread of the bot's process, and the
      children it has waited for) to answer one request (a decision, or the
      start/end hooks). CPU, not wall-clock time: a busy host does not make
      a bot lose (see :mod:`ladder.sandbox.move_clock`);
    - ``bank_seconds``: extra CPU time per match that a move running over
      ``move_seconds`` draws on; the bot is told what is left with each
      request;
    - ``move_wall_seconds``: wall-clock cap of one request, which stops a bot
      that sleeps or blocks (``None``: :data:`~ladder.sandbox.move_clock.WALL_FACTOR`
      times ``move_seconds``; it grows in proportion when the bank lets a move
      use more CPU). A wall-clock timeout while the host starved the bot is a
      host fault: the match is voided and played again;
    - ``match_seconds``: wall-clock time for all of one match's requests together;
    - ``start_seconds``: wall-clock time to start the process and load the bot;
    - ``clock_builtin_bots``: run the built-in bots (in the ladder's own
      process) under the same CPU clocks; they are checked when they answer,
      since they cannot be stopped mid-move.

    The process:

    - ``memory_mb``: address space of the bot process;
    - ``cpu_seconds``: CPU time of one bot process over its whole life (a
      backstop; the pool replaces a process that has used half of it);
    - ``idle_cpu_seconds``: CPU time a bot may use in a match beyond the time
      it was asked to think (work between turns, e.g. a background thread,
      is not allowed);
    - ``reply_bytes``: the largest reply frame;
    - ``threads``: processes and threads of the bot's user (``RLIMIT_NPROC``);
    - ``open_files``, ``file_mb``: open files, and the largest file it may write;
    - ``tmp_mb``: size of its private ``/tmp`` (bubblewrap);
    - ``stderr_lines``: how much of its stderr is kept with a failure;
    - ``packages``: installed packages (top-level import names, e.g.
      ``("numpy",)``) the operator allows bots to import. Nothing else of the
      host's ``site-packages`` is visible (with bubblewrap); a package's own
      dependencies must be listed too.

    The tournament (not used by the sandbox itself):

    - ``bench_after_failures``: a bot version that fails that many matches
      in a row is benched for the rest of the tournament;
    - ``max_attempts``: a match whose worker dies is retried up to that many
      times in all, then recorded as an error.
    """

    move_seconds: float = 5.0
    bank_seconds: float = 0.0
    move_wall_seconds: float | None = None
    match_seconds: float = 600.0
    start_seconds: float = 10.0
    clock_builtin_bots: bool = False
    memory_mb: int = 1024
    cpu_seconds: int = 3600
    idle_cpu_seconds: float = 1.0
    reply_bytes: int = 1 << 20
    threads: int = 512
    open_files: int = 64
    file_mb: int = 16
    tmp_mb: int = 16
    stderr_lines: int = 20
    packages: tuple[str, ...] = ()
    bench_after_failures: int = 5
    max_attempts: int = 3

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | SandboxLimits | None) -> SandboxLimits:
        """Limits from a plain mapping (a tournament file's ``[limits]``); unknown keys are ignored."""
        if values is None:
            return cls()
        if isinstance(values, SandboxLimits):
            return values
        hints = _limit_types()
        chosen: dict[str, Any] = {}
        for key, value in values.items():
            if key not in hints or value is None:
                continue
            if key == "packages":
                chosen[key] = allowed_packages([value] if isinstance(value, str) else value)
            else:
                chosen[key] = hints[key](value)
        return cls(**chosen)

    def wall_seconds(self, bank_left: float) -> float:
        """The wall-clock cap of one request when ``bank_left`` CPU seconds of bank are left."""
        return wall_cap(self.move_seconds, bank_left, self.move_wall_seconds)


@functools.lru_cache(maxsize=1)
def _limit_types() -> dict[str, Any]:
    """How each field of :class:`SandboxLimits` is read from a plain value (from the resolved type hints)."""
    converters: dict[str, Any] = {}
    for name, hint in typing.get_type_hints(SandboxLimits).items():
        kinds = set(typing.get_args(hint)) - {type(None)} or {hint}
        kind = next(iter(kinds)) if len(kinds) == 1 else hint
        converters[name] = kind if kind in (bool, int, float) else (lambda value: value)
    return converters


Limits = SandboxLimits
"""The name tournament code uses for the same type."""


def allowed_packages(names: Iterable[str]) -> tuple[str, ...]:
    """The operator's allow-list, checked: sorted top-level import names of installed packages.

    Raises :class:`UserError` (one line) for a name that is not a top-level
    module name, one of the bot API's own packages, or not installed here.
    """
    chosen = []
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise UserError(f"allowed package {name!r} is not a top-level module name (e.g. numpy)")
        if name in RESERVED_PACKAGES:
            raise UserError(f"allowed package {name!r} is part of the bot API and always there; leave it out")
        if name in sys.stdlib_module_names:
            raise UserError(f"allowed package {name!r} is in the standard library and always there; leave it out")
        if _package_paths(name) is None:
            raise UserError(f"allowed package {name!r} is not installed here (pip install it next to the ladder)")
        chosen.append(name)
    return tuple(sorted(set(chosen)))


@functools.lru_cache(maxsize=64)
def _package_paths(name: str) -> tuple[str, ...] | None:
    """The host paths a bot needs to import the installed package ``name``, or ``None`` if it is not installed.

    Its package folder (or module file) and every other top-level entry its
    distribution installs next to it (e.g. ``numpy.libs`` with its bundled
    shared libraries); standard-library modules are refused (they are there anyway).
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return None
    if spec.submodule_search_locations:
        locations = [os.path.realpath(location) for location in spec.submodule_search_locations]
    else:
        locations = [os.path.realpath(spec.origin)]
    parent = os.path.dirname(locations[0])
    if parent == os.path.realpath(os.path.dirname(os.__file__)):
        return None  # the standard library
    return tuple(sorted(set(locations) | _distribution_entries(name, parent)))


def _distribution_entries(name: str, parent: str) -> set[str]:
    """The top-level entries in ``parent`` that the distributions providing ``name`` install (e.g. ``numpy.libs``)."""
    paths: set[str] = set()
    for distribution in importlib.metadata.packages_distributions().get(name, []):
        try:
            files = importlib.metadata.distribution(distribution).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in files:
            top = file.parts[0] if file.parts else ""
            candidate = os.path.join(parent, top)
            if top and top not in ("..", "__pycache__") and not top.endswith((".dist-info", ".pth")) and os.path.exists(candidate):
                paths.add(os.path.realpath(candidate))
    return paths


# ---------------------------------------------------------------- the layers of this machine


@dataclass(frozen=True)
class LayerStatus:
    """Whether a layer works on this machine, and a sentence saying how or why not."""

    name: str
    available: bool
    detail: str


def interpreter() -> tuple[str, list[str]]:
    """The real interpreter binary (not a virtualenv's link) and the folders it needs."""
    binary = os.path.realpath(sys.executable)
    folders = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    if not any(binary.startswith(folder + os.sep) for folder in folders):
        folders.add(os.path.dirname(binary))
    return binary, sorted(folders)


def api_root() -> Path:
    """The folder holding the ``ladder``, ``bots`` and ``engine`` packages."""
    return Path(ladder.__file__).resolve().parent.parent


def _readable_by_others(path: str) -> bool:
    """Whether a user other than the owner (e.g. ``nobody``) can reach ``path`` and read it.

    Every folder on the way must let others through (``o+x``); the target must
    let them read (``o+r``, and ``o+x`` for a folder).
    """
    target = Path(path)
    try:
        if any(not folder.stat().st_mode & 0o001 for folder in target.parents):
            return False
        mode = target.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o004) and (not target.is_dir() or bool(mode & 0o001))


def is_root() -> bool:
    return os.geteuid() == 0


class UidLease:
    """A uid of its own (gid of the same number) for one bot process, held while the process lives.

    The kernel counts threads and processes per uid (``RLIMIT_NPROC``): were
    every bot the same user, one bot parking threads would leave none for the
    others. Leases are lock files (``flock``) in a root-only folder, so the
    ladder's processes on one machine never hand out the same uid twice at
    once, and a lease is freed when its holder dies, whatever the way (a
    lock file left behind by a killed ladder is simply locked again later).
    """

    def __init__(self, uid: int, fd: int, path: str) -> None:
        self.uid = uid
        self.gid = uid
        self._fd = fd
        self._path = path

    @classmethod
    def take(cls) -> UidLease:
        """A free uid, chosen at random: its number tells a bot nothing (not how many bots run beside it)."""
        folder = _lease_folder()
        chooser = random.SystemRandom()
        for _attempt in range(1000):
            uid = BOT_UID_FIRST + chooser.randrange(BOT_UID_COUNT)
            path = os.path.join(folder, str(uid))
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.fstat(fd).st_ino != os.stat(path, follow_symlinks=False).st_ino:
                    raise BlockingIOError  # its holder let it go and removed the file meanwhile: another try
            except (BlockingIOError, FileNotFoundError):
                os.close(fd)
                continue
            return cls(uid, fd, path)
        raise BotFailure("crash", "no free uid for the bot process (1000 tries)")

    def release(self) -> None:
        """Free the uid (the bot's processes are gone): the lock file goes first, then the lock."""
        if self._fd >= 0:
            try:
                os.unlink(self._path)
            except OSError:
                pass
            os.close(self._fd)
            self._fd = -1


@functools.lru_cache(maxsize=1)
def _lease_folder() -> str:
    """A folder only root can write, for the uid leases (the first of :data:`UID_LEASE_FOLDERS` that works)."""
    problems = []
    for folder in UID_LEASE_FOLDERS:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError as error:
            problems.append(f"{folder}: {error.strerror}")
            continue
        if info.st_uid == 0 and not info.st_mode & 0o022 and os.path.isdir(folder) and not os.path.islink(folder):
            return folder
        problems.append(f"{folder} is not a folder only root can write")
    raise UserError(f"no folder for the bots' uid leases ({'; '.join(problems)})")


@functools.lru_cache(maxsize=1)
def orjson_extension() -> str | None:
    """The file of the ladder's orjson extension module, which a bot's host may load to read requests fast.

    ``None`` when the ladder does not use orjson (not installed) or it is not a
    single extension file. The host loads it before the bot's code; if it
    cannot (e.g. unreadable by the bot's user), requests are read with the
    standard library.
    """
    module = getattr(protocol.orjson, "orjson", None)
    path = getattr(module, "__file__", None)
    if not path or not os.path.isfile(path) or not path.endswith(".so"):
        return None
    return os.path.realpath(path)


@functools.lru_cache(maxsize=1)
def _seccomp_status() -> LayerStatus:
    ok, why = seccomp_module.supported()
    if not ok:
        return LayerStatus("seccomp", False, why)
    code = (
        "import sys, os; sys.path.insert(0, sys.argv[1]); from ladder.guest import seccomp; seccomp.install()\n"
        "try:\n    pid = os.fork()\nexcept PermissionError:\n    print('denied')\nelse:\n"
        "    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n    print('allowed')\n"
    )
    binary, _ = interpreter()
    try:
        run = subprocess.run([binary, "-S", "-s", "-B", "-c", code, str(api_root())], capture_output=True, text=True,
                             timeout=20, env=dict(BOT_ENV), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return LayerStatus("seccomp", False, f"the probe could not run: {error}")
    if run.stdout.strip() != "denied":
        tail = (run.stderr.strip().splitlines() or [run.stdout.strip() or f"exit status {run.returncode}"])[-1]
        return LayerStatus("seccomp", False, f"the filter could not be installed: {tail}")
    return LayerStatus("seccomp", True, f"{why}: no fork/exec, no sockets, no signals to other processes")


@functools.lru_cache(maxsize=1)
def _bubblewrap_status() -> LayerStatus:
    binary = shutil.which("bwrap")
    if binary is None:
        return LayerStatus("bubblewrap", False, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return LayerStatus("bubblewrap", False, f"{binary} does not run: {error}")
    try:
        facts = _probe(("process", "bubblewrap"))
    except BotFailure as failure:
        lines = [line for line in failure.stderr_tail.strip().splitlines() if line.strip()]
        why = lines[-1] if lines else failure.detail
        hint = "" if is_root() else " (unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1)"
        return LayerStatus("bubblewrap", False, f"{version or binary} is installed but cannot build a sandbox here: {why}{hint}")
    mode = "as root, each bot drops to a uid of its own" if is_root() else "each bot in a user namespace of its own"
    return LayerStatus("bubblewrap", True, f"{version} ({mode}); measured inside: {facts}")


@functools.lru_cache(maxsize=1)
def _process_status() -> LayerStatus:
    limits = "rlimits on memory, CPU, threads, file size, open files; new session; clean environment; deadlines"
    if not is_root():
        return LayerStatus("process", True, f"{limits}; bots run as your user ({os.getuid()})")
    if process_layer_can_drop_root():
        return LayerStatus("process", True, f"{limits}; each bot process runs as a uid of its own")
    return LayerStatus(
        "process", True,
        f"{limits}; on its own it cannot run a bot as an unprivileged user here (the interpreter under "
        f"{interpreter()[1][0]} is not readable by others), so bots need bubblewrap",
    )


def process_layer_can_drop_root() -> bool:
    """Whether, without bubblewrap, a bot could run as ``nobody`` (it must read the interpreter and the API)."""
    _, folders = interpreter()
    return all(_readable_by_others(folder) for folder in [*folders, str(api_root())])


def separation(layers: Iterable[str]) -> tuple[str, str]:
    """How bot processes are kept from sharing limits with ``layers`` here: a short name, and a sentence why.

    Address space, CPU time, file size and open files are limits of each
    process anyway; the thread/process limit (``RLIMIT_NPROC``) is counted per
    user and per user namespace, so each bot process needs a user of its own.
    """
    chosen = set(layers)
    if is_root():
        if "bubblewrap" in chosen or process_layer_can_drop_root():
            return ("own uid", f"the ladder runs as root: each bot process runs as a uid of its own (leased from "
                    f"{BOT_UID_FIRST}-{BOT_UID_FIRST + BOT_UID_COUNT - 1}), so its thread/process limit is its own")
        return ("none", "the ladder runs as root without bubblewrap and cannot run bots as other users: it refuses to run them")
    if "bubblewrap" in chosen:
        return ("own user namespace", "each bot process runs in a user namespace of its own (bubblewrap "
                "--unshare-user), so its thread/process limit is its own")
    return ("shared uid", f"without bubblewrap and not as root, every bot runs as your uid ({os.getuid()}) and the "
            "thread/process limit is shared by all of them and your own processes: one bot parking threads can "
            "starve the others (install bubblewrap)")


def interpreter_view(layers: Iterable[str]) -> str:
    """What a bot can import with ``layers`` here, in one sentence (for ``ladder doctor``)."""
    if "bubblewrap" in set(layers):
        return ("the standard library, the bot API (ladder.bot, bots, engine) and the packages the operator allows "
                "(limits.packages / --allow-package); the host's site-packages are hidden")
    return ("without bubblewrap the bot sees the host's files its user may read, so any installed package is "
            "importable by path: the allow-list only decides what is on sys.path (install bubblewrap)")


def layer_statuses() -> list[LayerStatus]:
    """Every layer with whether it works here (probed once per process)."""
    return [_process_status(), _bubblewrap_status(), _seccomp_status()]


def available_layers() -> tuple[str, ...]:
    return tuple(status.name for status in layer_statuses() if status.available)


def default_layers() -> tuple[str, ...]:
    """The strongest combination available: every layer that works here."""
    return available_layers()


def require_layers(names: Iterable[str]) -> tuple[str, ...]:
    """Check that every layer in ``names`` works here; return the layers to use (all available ones).

    Raises :class:`UserError` naming the missing layer and why it is missing.
    For a tournament file or a ``--require-layer`` flag.
    """
    wanted = list(names)
    for name in wanted:
        if name not in LAYERS:
            raise UserError(f"no sandbox layer {name!r}; layers: {', '.join(LAYERS)}")
    statuses = {status.name: status for status in layer_statuses()}
    for name in wanted:
        if not statuses[name].available:
            raise UserError(f"the sandbox layer {name!r} is required but not available here: {statuses[name].detail}")
    return default_layers()


def check_layers(layers: Iterable[str]) -> tuple[str, ...]:
    """Validate an explicit choice of layers (``process`` is always in)."""
    chosen = tuple(dict.fromkeys(["process", *layers]))
    require_layers(chosen)
    return chosen


_PROBE_BOT = '''
import os
from ladder.bot import Bot

def _fact(name, attempt):
    try:
        attempt()
    except Exception as error:
        return f"{name}: {type(error).__name__} ({getattr(error, 'strerror', None) or error})"
    return f"{name}: allowed"

def _socket():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as connection:
        connection.settimeout(2.0)
        connection.connect(("1.1.1.1", 53))

_facts = [f"uid {os.getuid()}", _fact("/etc/passwd", lambda: open("/etc/passwd").close()),
          _fact("network", _socket)]

class Probe(Bot):
    name = "probe"
    author = ", ".join(_facts)
'''


def _probe(layers: tuple[str, ...]) -> str:
    """Start a tiny bot with ``layers`` and return what it measured about its surroundings."""
    folder = Path(tempfile.mkdtemp(prefix="ladder-probe-"))
    try:
        folder.chmod(0o755)
        (folder / "bot.py").write_text(_PROBE_BOT)
        (folder / "bot.py").chmod(0o644)
        submission = Submission("probe", "probe", ((str(folder), ""),), host_dir=str(folder))
        process = BotProcess(submission, SandboxLimits(start_seconds=20.0), layers)
        try:
            info = process.start()
        finally:
            process.kill()
        return info.author
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- one bot process


@dataclass(frozen=True)
class BotInfo:
    """What a bot says about itself (read inside the sandbox, checked by the ladder)."""

    name: str
    author: str
    version: str
    games: tuple[str, ...]
    class_name: str = ""
    every_decision: bool = False  # the bot wants to be asked even when it has a single legal action

    def plays(self, game_id: str) -> bool:
        return "*" in self.games or game_id in self.games

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "author": self.author, "version": self.version, "games": list(self.games)}


class StderrTail:
    """Drains a bot's stderr in a thread so it can never block, keeping only the end."""

    KEEP = 16384

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.total = 0  # bytes drained over the process's life: a mark for :meth:`since`
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._drain, name=f"bot-stderr-{fd}", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        try:
            while True:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                with self.lock:
                    self.buffer += chunk
                    self.total += len(chunk)
                    if len(self.buffer) > 2 * self.KEEP:
                        del self.buffer[: len(self.buffer) - self.KEEP]
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def settle(self, timeout: float = 0.2) -> None:
        """Wait (briefly) until what is already in the pipe is drained.

        A bot's stderr arrives on its own pipe: what it wrote just before its
        reply may still be unread when the reply is, and it belongs with it.
        """
        deadline = time.monotonic() + timeout
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        while self.thread.is_alive() and time.monotonic() < deadline:
            events = poller.poll(0)
            if not events or not events[0][1] & select.POLLIN:
                return
            time.sleep(0.002)

    def text(self, lines: int) -> str:
        """The last ``lines`` lines the bot wrote to stderr (what was drained so far)."""
        self.settle()
        with self.lock:
            data = bytes(self.buffer[-self.KEEP:])
        shown = data.decode("utf-8", errors="replace").splitlines()
        return "\n".join(shown[-lines:])

    def since(self, mark: int, lines: int | None = None) -> str:
        """What the bot wrote after :attr:`total` was ``mark`` (as much of it as is kept; its last ``lines`` lines
        if given)."""
        self.settle()
        with self.lock:
            data = bytes(self.buffer[-min(self.total - mark, self.KEEP, len(self.buffer)):]) if self.total > mark else b""
        text = data.decode("utf-8", errors="replace")
        return text if lines is None else "\n".join(text.splitlines()[-lines:])

    def wait(self, timeout: float) -> None:
        self.thread.join(timeout)


class _BwrapArgs:
    """bubblewrap arguments being built: what is shown where, each parent folder made once."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.made: set[str] = {"/"}

    def parents(self, dest: str) -> None:
        """Make the missing parents of ``dest`` (bwrap creates them with mode 0700 as root: make them reachable)."""
        for parent in reversed(Path(dest).parents):
            text = str(parent)
            if text not in self.made:
                self.made.add(text)
                self.args.extend(["--perms", "0755", "--dir", text])

    def ro_bind(self, source: str, dest: str) -> None:
        self.parents(dest)
        self.args.extend(["--ro-bind", source, dest])
        self.made.add(dest)

    def link_or_bind(self, folder: str, again: bool) -> bool:
        """Show the host's ``folder`` at the same place: the same link if it is one, else read-only; whether it
        was bound as a folder. ``again``: bind it even if the place is already made."""
        if os.path.islink(folder):
            self.parents(folder)
            self.args.extend(["--symlink", os.readlink(folder), folder])
            self.made.add(folder)
            return False
        if os.path.isdir(folder) and (again or folder not in self.made):
            self.ro_bind(folder, folder)
            return True
        return False



def _bot_files(binds: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every file of a submission's binds (host path, path under ``/bot``) as (host path, path inside the
    sandbox), in a stable order, without Python's byte-code caches."""
    files: list[tuple[str, str]] = []
    for source, relative in binds:
        dest = f"{SANDBOX_BOT}/{relative}" if relative else SANDBOX_BOT
        if not os.path.isdir(source):
            files.append((source, dest))
            continue
        for folder, subfolders, names in os.walk(source):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            inside = os.path.normpath(os.path.join(dest, os.path.relpath(folder, source)))
            files.extend((os.path.join(folder, name), f"{inside}/{name}") for name in sorted(names)
                         if not name.endswith((".pyc", ".pyo")))
    return files

class BotProcess:
    """One sandboxed bot process: start it, send it requests with deadlines, kill it.

    ``layers`` is a subset of :data:`LAYERS` (``process`` always applies).
    Without bubblewrap, a ladder running as root refuses to start a bot it
    cannot run as an unprivileged user, unless ``allow_root`` (tests only).
    Every method that talks to the bot raises :class:`BotFailure` if the bot
    breaks a rule, after killing the process (it is never reused after that).
    """

    def __init__(self, submission: Submission, limits: SandboxLimits, layers: Iterable[str], allow_root: bool = False,
                 cpu: int | None = None) -> None:
        self.submission = submission
        self.allow_root = allow_root
        self.cpu = cpu
        self.limits = limits
        self.layers = tuple(layers)
        self.tag = uuid.uuid4().hex[:16]
        self.popen: subprocess.Popen[bytes] | None = None
        self.bot_pid: int | None = None  # the pid whose CPU time is the bot's
        self.info: BotInfo | None = None
        self.seq = 0
        self.buffer = bytearray()
        self.stderr: StderrTail | None = None
        self.work_dir: str | None = None
        self.dead = False
        self.think_seconds = 0.0  # time the bot was given to answer, over the process's life
        self.cpu_baseline = 0.0  # CPU time used by start-up, not counted against the bot
        self._out = -1  # requests to the bot
        self._in = -1  # replies from the bot
        self._stat = -1  # /proc/<bot pid>/stat, kept open: read again at offset 0, it is current (and never another process's)
        self._bot_pidfd = -1  # the bot process, for signals that cannot reach a reused pid
        self._popen_pidfd = -1  # the process the ladder started (bubblewrap, or the bot itself)
        self.init_pid: int | None = None  # bubblewrap's init: the sandbox's pid 1, the bot's parent
        self._init_pidfd = -1
        self._file_fds: list[int] = []  # the bot's files, open for bubblewrap to copy into the sandbox
        self.lease: UidLease | None = None  # the bot's own uid (when the ladder runs as root)
        self.paused = False  # stopped (SIGSTOP) while the ladder does not wait for it
        self._watch: MoveWatch | None = None  # measures each request's CPU time (once the bot process is known)
        self._move_started = 0.0
        self._move_limit = 0.0  # the wall-clock limit of the request in progress
        self._poll_in = select.poll()
        self._poll_out = select.poll()

    # -- start-up -----------------------------------------------------------------------------
    def program(self) -> list[str] | None:
        """The command the host becomes once the sandbox is set up (an executable bot); ``None``: a Python bot."""
        return None

    def system_folders(self) -> tuple[str, ...]:
        """Host folders shown read-only at the same place beyond the interpreter's (an executable bot's runtime)."""
        return ()

    def _host_config(self, api_dir: str, bot_dir: str, drop: bool, parent_pid: int, orjson: str | None,
                     package_dirs: list[str]) -> str:
        limits = self.limits
        if drop and self.lease is None:
            self.lease = UidLease.take()
        config = {
            "api_dir": api_dir,
            "package_dirs": package_dirs,
            "orjson": orjson,
            "bot_dir": bot_dir,
            "entry": self.submission.entry,
            "module": self.submission.module,
            "attribute": self.submission.attribute,
            "seccomp": "seccomp" in self.layers,
            "exec": self.program(),
            "drop_to": [self.lease.uid, self.lease.gid] if drop and self.lease is not None else None,
            "parent_pid": parent_pid,
            "tag": self.tag,
            "cpu": self.cpu,
            "limits": {
                "memory_bytes": limits.memory_mb * 1024 * 1024,
                "cpu_seconds": max(1, int(limits.cpu_seconds)),
                "open_files": limits.open_files,
                "processes": limits.threads,
                "file_bytes": limits.file_mb * 1024 * 1024,
                "core_bytes": 0,
            },
        }
        return json.dumps(config)

    def _bwrap_command(self, info_fd: int) -> list[str]:
        binary, folders = interpreter()
        plan = _BwrapArgs(self._bwrap_options())
        shown = [*folders, *self._bind_interpreter(plan, folders)]
        args = plan.args
        for hidden in installed_package_folders(tuple(shown)):  # the standard library only: no host site-packages
            args.extend(["--perms", "0555", "--tmpfs", hidden, "--remount-ro", hidden])
        codec_inside = self._bind_api(plan)
        for folder in self.system_folders():
            plan.link_or_bind(folder, again=False)
        for name in self.limits.packages:
            for path in _package_paths(name) or ():
                plan.ro_bind(path, f"{SANDBOX_PACKAGES}/{os.path.basename(path)}")
        args += self._bot_file_copies(plan.parents)
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "0555", "--tmpfs", "/dev/shm", "--remount-ro", "/dev/shm",
                 "--remount-ro", "/dev", "--size", str(self.limits.tmp_mb * 1024 * 1024), "--perms", "1777",
                 "--tmpfs", "/tmp", "--chdir", "/tmp", "--info-fd", str(info_fd)]
        packages = [SANDBOX_PACKAGES] if self.limits.packages else []
        config = self._host_config(SANDBOX_API, SANDBOX_BOT, drop=is_root(), parent_pid=0, orjson=codec_inside,
                                   package_dirs=packages)
        return [*args, binary, "-S", "-s", "-B", "-P", f"{SANDBOX_API}/ladder/bot_host.py", config]

    @staticmethod
    def _bwrap_options() -> list[str]:
        """bubblewrap's namespaces, user and environment for a bot (before any folder is shown)."""
        args = [shutil.which("bwrap") or "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session", "--hostname", "bot", "--clearenv"]
        # Not --as-pid-1: bubblewrap's own init is the sandbox's pid 1 and the bot its child. A bot stopped between
        # turns cannot notice the ladder go away (it never reads the end of its channel), and its own parent-death
        # signal comes with the credentials of its parent, which as root (capabilities dropped, another uid) may not
        # signal it. bubblewrap's init gets its parent-death signal from a parent of its own uid, and when the init
        # dies the kernel kills every process of its pid namespace, stopped or not.
        if is_root():
            # Privileged bwrap: the host program drops to an unprivileged user before loading the bot.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user", "--disable-userns"]
        for key, value in {**BOT_ENV, "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
            args += ["--setenv", key, value]
        return args

    @staticmethod
    def _bind_interpreter(plan: _BwrapArgs, folders: list[str]) -> list[str]:
        """Show the interpreter's installation and the system's library folders; the library folders shown."""
        for folder in folders:  # the interpreter's installation (for a system Python, that is /usr)
            plan.ro_bind(folder, folder)
        shown = []
        for library in ("/lib", "/lib64", "/lib32", "/libx32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32"):
            if any(library == folder or library.startswith(folder + "/") for folder in folders):
                continue
            if plan.link_or_bind(library, again=True):
                shown.append(library)
        return shown

    @staticmethod
    def _bind_api(plan: _BwrapArgs) -> str | None:
        """Show the bot API (read-only) and the ladder's orjson extension; where the extension is inside, if any."""
        root = api_root()
        for name in API_LADDER_FILES:
            plan.ro_bind(str(root / "ladder" / name), f"{SANDBOX_API}/ladder/{name}")
        plan.ro_bind(str(Path(bots.__file__).resolve().parent), f"{SANDBOX_API}/bots")
        plan.ro_bind(str(Path(engine.__file__).resolve().parent), f"{SANDBOX_API}/engine")
        codec = orjson_extension()
        if codec is None:
            return None
        inside = f"{SANDBOX_CODEC}/{os.path.basename(codec)}"  # one file, read-only: the host reads requests with it
        plan.ro_bind(codec, inside)
        return inside

    def _bot_file_copies(self, parents: Any) -> list[str]:
        """bubblewrap arguments that copy the bot's files into a private, then read-only, tmpfs at ``/bot``.

        A copy, not a bind mount: a bind mount would show the host path it
        comes from in ``/proc/self/mountinfo`` (the staging folder of the
        submission check, or the bot store), and a bot could tell the check
        from a tournament. The copy looks the same wherever the files come from.
        """
        files = _bot_files(self.submission.binds)
        total = sum(os.path.getsize(path) for path, _ in files)
        parents(f"{SANDBOX_BOT}/entry")
        args = ["--size", str(total + (1 << 20)), "--perms", "0755", "--tmpfs", SANDBOX_BOT]
        made = {SANDBOX_BOT}
        for path, inside in files:
            for parent in reversed(Path(inside).parents):
                if str(parent).startswith(SANDBOX_BOT + "/") and str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            except OSError as error:
                raise BotFailure("crash", f"cannot copy the bot's file {path} into the sandbox: {error.strerror}") from None
            self._file_fds.append(fd)
            # an executable bot's program (made executable in the store, e.g. built at submission) stays executable
            mode = "0555" if os.fstat(fd).st_mode & 0o100 else "0444"
            args += ["--perms", mode, "--file", str(fd), inside]
        return [*args, "--remount-ro", SANDBOX_BOT]

    def _process_command(self) -> tuple[list[str], dict[str, str], str]:
        binary, _ = interpreter()
        drop = is_root() and process_layer_can_drop_root()
        if is_root() and not drop and not self.allow_root:
            raise UserError(
                "refusing to run a submitted bot as root without bubblewrap: install bubblewrap "
                "(apt-get install bubblewrap) or run the ladder as an ordinary user"
            )
        work = tempfile.mkdtemp(prefix=f"ladder-bot-{self.tag}-")
        self.work_dir = work
        packages = sorted({os.path.dirname(path) for name in self.limits.packages for path in _package_paths(name) or ()})
        config = self._host_config(str(api_root()), self.submission.host_dir, drop=drop, parent_pid=os.getpid(),
                                   orjson=orjson_extension(), package_dirs=packages)
        if self.lease is not None:
            os.chown(work, self.lease.uid, self.lease.gid)
        env = {**BOT_ENV, "HOME": work, "TMPDIR": work}
        command = [binary, "-S", "-s", "-B", "-P", str(api_root() / "ladder" / "bot_host.py"), config]
        return command, env, work

    def start(self) -> BotInfo:
        """Start the process and load the bot; its metadata, or :class:`BotFailure` (with the bot's traceback)."""
        info_read = info_write = -1
        pass_fds: tuple[int, ...] = ()
        if "bubblewrap" in self.layers:
            info_read, info_write = os.pipe2(os.O_CLOEXEC)
            try:
                command = self._bwrap_command(info_write)
            except BaseException:
                os.close(info_read)
                os.close(info_write)
                self.kill()
                raise
            pass_fds = (info_write, *self._file_fds)
            env: dict[str, str] = {"PATH": "/usr/bin:/bin"}
            cwd = "/"
        else:
            command, env, cwd = self._process_command()  # may refuse (UserError) before anything is opened
        request_read, request_write = os.pipe2(os.O_CLOEXEC)
        reply_read, reply_write = os.pipe2(os.O_CLOEXEC)
        error_read, error_write = os.pipe2(os.O_CLOEXEC)
        try:
            self.popen = subprocess.Popen(
                command, stdin=request_read, stdout=reply_write, stderr=error_write, env=env, cwd=cwd,
                pass_fds=pass_fds, start_new_session=True, close_fds=True,
            )
        except OSError as error:
            for fd in (request_read, request_write, reply_read, reply_write, error_read, error_write, info_read, info_write):
                if fd >= 0:
                    os.close(fd)
            self.kill()
            raise BotFailure("crash", f"could not start the bot process: {error}") from None
        finally:
            for fd in (request_read, reply_write, error_write, info_write):
                if fd >= 0 and self.popen is not None:
                    os.close(fd)
            for fd in self._file_fds:  # bubblewrap copies them at start
                os.close(fd)
            self._file_fds.clear()
        self._popen_pidfd = _pidfd_open(self.popen.pid)  # our child, not reaped yet: its pid is still its own
        self._out, self._in = request_write, reply_read
        os.set_blocking(self._out, False)
        self._poll_in.register(self._in, select.POLLIN)
        self._poll_out.register(self._out, select.POLLOUT)
        self.stderr = StderrTail(error_read)
        deadline = time.monotonic() + self.limits.start_seconds
        if info_read >= 0:
            self.init_pid = self._read_info(info_read, deadline)
            self._init_pidfd = _pidfd_open(self.init_pid) if self.init_pid else -1
            self.bot_pid = self._find_child(self.init_pid, deadline) if self.init_pid else None
        else:
            self.bot_pid = self.popen.pid
        if self.bot_pid is not None:
            self._open_bot_handles(self.bot_pid)
        reply = self.request({"op": "hello"}, deadline - time.monotonic(), "loading")
        if "error" in reply:
            self._fail_with_error(reply["error"], "loading")
        self.info = self._check_info(reply.get("bot"))
        return self.info

    def _find_child(self, parent: int, deadline: float) -> int:
        """The pid of the bot process: the child of bubblewrap's init (``parent``), found in ``/proc``."""
        while True:
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry.name}/stat", "rb") as stat_file:
                        text = stat_file.read()
                except OSError:
                    continue
                if int(text[text.rfind(b")") + 2:].split()[1]) == parent:
                    return int(entry.name)
            if time.monotonic() >= deadline:
                self._die_timeout(TimeoutKind.STARTUP, f"the sandbox did not start within {self.limits.start_seconds:g} s")
            if self.popen is not None and self.popen.poll() is not None:
                self._die("crash", "the sandbox (bubblewrap) failed to start")
            time.sleep(0.002)

    def _open_bot_handles(self, pid: int) -> None:
        """Open a pidfd and the ``/proc`` stat file of the bot process, and check they are of that process.

        bubblewrap reports the bot's pid; should the bot have died and its pid
        been reused in between, the pidfd would name another process. So: open
        both, check the process is a child of the one the ladder started, then
        check (through the pidfd) that it was still alive after that check.
        """
        assert self.popen is not None
        self._bot_pidfd = self._popen_pidfd if pid == self.popen.pid else _pidfd_open(pid)
        try:
            self._stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self._stat, 4096, 0)
        except OSError:
            self._die("crash", "the bot process ended while the sandbox was starting")
        self._watch = MoveWatch(self._stat, pid)
        parent = int(text[text.rfind(b")") + 2:].split()[1])
        ours = pid == self.popen.pid or parent in (self.popen.pid, self.init_pid)
        if not ours or (self._bot_pidfd >= 0 and not _pidfd_alive(self._bot_pidfd)):
            self._die("crash", "the bot process ended while the sandbox was starting")

    def _signal(self, signum: int) -> None:
        """Send ``signum`` to the bot: its process group without bubblewrap, else the sandbox's first process."""
        if "bubblewrap" not in self.layers:
            if self.popen is not None and self.popen.returncode is None:
                try:  # the bot leads its group and is not reaped yet: the group's id is still its own
                    os.killpg(self.popen.pid, signum)
                except (ProcessLookupError, PermissionError):
                    pass
        elif self._bot_pidfd >= 0:
            try:
                signal.pidfd_send_signal(self._bot_pidfd, signum)
            except (ProcessLookupError, PermissionError, OSError):
                pass

    def pause(self) -> None:
        """Stop the bot (``SIGSTOP``): it uses no CPU while the ladder is not waiting for it."""
        if not self.paused and not self.dead and self.popen is not None:
            self._signal(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        """Let a stopped bot run again (``SIGCONT``), before a request."""
        if self.paused and not self.dead:
            self._signal(signal.SIGCONT)
        self.paused = False

    def _read_info(self, fd: int, deadline: float) -> int | None:
        """The pid of the sandboxed process, from bubblewrap's ``--info-fd``."""
        data = b""
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    break
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                data += chunk
                if len(data) > 65536:
                    break
        finally:
            os.close(fd)
        try:
            return int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            if time.monotonic() >= deadline:
                self._die_timeout(TimeoutKind.STARTUP, f"the sandbox did not start within {self.limits.start_seconds:g} s")
            self._die("crash", "the sandbox (bubblewrap) failed to start")

    def _check_info(self, data: Any) -> BotInfo:
        if not isinstance(data, dict):
            self._die("garbage", "the reply to hello carries no bot description")
        values = {}
        for key in ("name", "author", "version", "class"):
            value = data.get(key, "")
            if not isinstance(value, str) or len(value) > 200:
                self._die("garbage", f"the bot description's {key!r} is not a short string")
            values[key] = value
        games = data.get("games")
        if not isinstance(games, list) or not all(isinstance(g, str) and len(g) <= 200 for g in games) or len(games) > 100:
            self._die("garbage", "the bot description's 'games' is not a list of game ids")
        return BotInfo(values["name"], values["author"], values["version"], tuple(games), values["class"],
                       data.get("every_decision") is True)

    # -- requests -----------------------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float, what: str, cpu_seconds: float | None = None) -> dict[str, Any]:
        """Send one request and wait at most ``timeout`` wall-clock seconds for the reply with its ``seq``.

        ``cpu_seconds``: the CPU time the bot may use on it (``None``: no CPU
        limit). Replies to earlier requests (stale ``seq``) are skipped.
        Raises :class:`BotFailure` (after killing the process) on a dead
        process or a malformed reply, and :class:`BotTimeout` when a clock
        runs out. Error replies are returned to the caller. The move's CPU time
        is then :meth:`move_cpu_seconds`.
        """
        if self.dead or self.popen is None:
            raise BotFailure("crash", "the bot process is not running", self.stderr_tail())
        self.seq += 1
        seq = self.seq
        message["seq"] = seq
        deadline = self._begin_move(timeout, cpu_seconds)
        try:
            data = protocol.encode_request(message)
        except ValueError as error:  # the ladder's own data: a bug, not the bot's fault
            raise RuntimeError(f"cannot encode a request: {error}") from error
        try:
            written = os.write(self._out, data)  # a request almost always fits in the pipe: one call
        except BlockingIOError:
            written = 0
        except OSError:
            self._died(what)
        if self.paused:
            # Let the bot go only now, with its request already in the pipe: a stopped bot reads nothing, and let go
            # before the write it would wake up once to find the pipe empty and once more for the request (two
            # extra context switches per decision, measured in docs/benchmarks.md). What did not fit in the pipe
            # (a huge request) is written below, once the bot runs and reads.
            self.resume()
        if written < len(data):
            self._send(memoryview(data)[written:], deadline, what)
        while True:
            reply = self._receive(deadline, what)
            reply_seq = reply["seq"]
            if reply_seq == seq:
                self.pause()
                return reply
            if reply_seq > seq:
                self._die("garbage", f"a reply numbered {reply_seq} to a request not yet made (expected {seq})")

    def _begin_move(self, timeout: float, cpu_seconds: float | None) -> float:
        """Start the clocks of one request; its wall-clock deadline."""
        now = time.monotonic()
        self._move_started = now
        self._move_limit = timeout
        if self._watch is not None:
            self._watch.begin(cpu_seconds, now)
        return now + max(0.0, timeout)

    def move_cpu_seconds(self) -> float | None:
        """CPU seconds the last request used (``None``: answered too fast to be measured, see :mod:`ladder.sandbox.move_clock`).

        Read after the reply: the bot is stopped by then, so its CPU time no longer moves.
        """
        watch = self._watch
        if watch is None or watch.cpu_start is None:
            return None
        return watch.finish(time.monotonic()).cpu_seconds

    def _send(self, view: memoryview, deadline: float, what: str) -> None:
        while view:
            try:
                written = os.write(self._out, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            except OSError:
                self._died(what)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._poll_out.poll(remaining * 1000):
                self._timeout(what)

    def _receive(self, deadline: float, what: str) -> dict[str, Any]:
        """The next reply frame, parsed strictly (its length checked against the cap before its body is kept)."""
        limit = self.limits.reply_bytes
        buffer = self.buffer
        while True:
            if len(buffer) >= 4:
                length = self._length(bytes(buffer[:4]), limit, what)
                if len(buffer) >= 4 + length:
                    body = bytes(buffer[4:4 + length])
                    del buffer[:4 + length]
                    return self._parse(body, what)
            chunk = self._next_chunk(deadline, what)
            if not buffer and len(chunk) >= 4 and len(chunk) == 4 + self._length(chunk[:4], limit, what):
                return self._parse(chunk[4:], what)  # the usual case: one read brought exactly one frame
            buffer += chunk

    def _next_chunk(self, deadline: float, what: str) -> bytes:
        """What the bot wrote next on its channel, waiting until ``deadline`` (a timeout, or a crash if it closed it).

        While it waits, it looks at the bot's CPU time now and then (:class:`MoveWatch`): a bot over its CPU
        limit is stopped then, not at the wall-clock deadline.
        """
        watch = self._watch
        while True:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                self._timeout(what)
            wait = remaining if watch is None else min(remaining, watch.wait_slice(now))
            if self._poll_in.poll(wait * 1000):
                break
            if watch is not None and watch.over_cpu(time.monotonic()):
                self._timeout(what, over_cpu=True)
        try:
            chunk = os.read(self._in, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            self._died(what)
        return chunk

    def _length(self, header: bytes, limit: int, what: str) -> int:
        try:
            return protocol.frame_length(header, limit)
        except protocol.ProtocolError as error:
            self._die("garbage", f"{error} (while {what})")

    def _parse(self, body: bytes, what: str) -> dict[str, Any]:
        try:
            return protocol.decode(body)
        except protocol.ProtocolError as error:
            self._die("garbage", f"a reply that is not valid: {error} (while {what})")

    # -- failures -----------------------------------------------------------------------------
    def _timeout(self, what: str, over_cpu: bool = False) -> NoReturn:
        """A clock ran out: say which, with the evidence of whose fault it is, and kill the bot."""
        now = time.monotonic()
        usage = self._watch.finish(now, timed_out=True) if self._watch is not None else MoveUsage(now - self._move_started)
        limit = self._watch.cpu_limit if self._watch is not None else None
        stack = self._stuck_stack()
        where = next((line.strip() for line in stack.splitlines() if line.strip().startswith("File ")), "")
        kind = TimeoutKind.CPU if over_cpu else TimeoutKind.STARTUP if self.info is None else TimeoutKind.WALL
        detail, host_fault = timeout_detail(kind, usage, limit, self._move_limit, what)
        self._die_timeout(kind, detail + (f"; stopped in {where}" if where else ""), host_fault)

    def _die_timeout(self, kind: TimeoutKind, detail: str, host_fault: str = "") -> NoReturn:
        self.kill()
        raise BotTimeout(kind, detail, self.stderr_tail(), host_fault)

    def _stuck_stack(self) -> str:
        """The Python stack of a bot that does not answer, before it is killed: the bot host's faulthandler
        writes it to stderr on STACK_SIGNAL; wait (briefly) until it is written."""
        if self.bot_pid is None or self.stderr is None or not self.alive():
            return ""
        mark = self.stderr.total
        self._signal(STACK_SIGNAL)  # through the pidfd: never a reused pid
        deadline = time.monotonic() + STACK_WAIT_SECONDS
        seen = ""
        while time.monotonic() < deadline:
            time.sleep(0.02)
            text = self.stderr.since(mark)
            if text and text == seen and "most recent call first" in text:
                break  # written, and nothing more came for a moment
            seen = text
        return self.stderr.since(mark)

    def _died(self, what: str) -> NoReturn:
        """The bot closed the channel: say how it ended (exit status or signal)."""
        status = None
        if self.popen is not None:
            try:
                status = self.popen.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                status = None
        if status is None:
            self._die("crash", f"the bot closed its channel while {what}")
        if status < 0 or status > 128:
            number = -status if status < 0 else status - 128
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            if number == signal.SIGXCPU:
                self._die_timeout(TimeoutKind.CPU, f"the bot process used up its CPU time limit while {what}")
            self._die("crash", f"the bot process was killed by {name} while {what}")
        self._die("crash", f"the bot process exited with status {status} while {what}")

    def _fail_with_error(self, error: Any, what: str) -> NoReturn:
        """The bot raised: turn its error report into a failure (``memory`` for MemoryError)."""
        if not isinstance(error, dict):
            self._die("garbage", "a malformed error report")
        kind = str(error.get("type", "Exception"))[:100]
        message = str(error.get("message", ""))[:1000]
        trace = str(error.get("traceback", ""))[-4000:]
        reason = "memory" if kind == "MemoryError" else "exception"
        detail = f"{kind} while {what}: {message}" if message else f"{kind} while {what}"
        tail = self.stderr_tail()
        self.kill()
        raise BotFailure(reason, detail, (trace + ("\n" + tail if tail else "")).strip())

    def _die(self, reason: str, detail: str) -> NoReturn:
        self.kill()
        raise BotFailure(reason, detail, self.stderr_tail())

    def stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        return self.stderr.text(self.limits.stderr_lines)

    # -- accounting and the end -----------------------------------------------------------------
    def cpu_seconds_used(self) -> float | None:
        """CPU time (user + system, all threads) the bot process has used, from ``/proc``."""
        if self._stat < 0:
            return None
        try:
            text = os.pread(self._stat, 4096, 0)
        except OSError:  # the process is gone
            return None
        parts = text[text.rfind(b")") + 2:].split()
        try:
            ticks = int(parts[11]) + int(parts[12])
        except (IndexError, ValueError):
            return None
        return ticks / _CLOCK_TICKS

    def _kill_and_reap(self, popen: subprocess.Popen[bytes]) -> None:
        """SIGKILL the bot, bubblewrap's init and the process the ladder started, then reap it."""
        # Through pidfds: a pid the ladder recorded may belong to another process by now, a pidfd never does.
        for pidfd in dict.fromkeys((self._bot_pidfd, self._init_pidfd, self._popen_pidfd)):
            if pidfd >= 0:
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                except (ProcessLookupError, PermissionError, OSError):
                    pass
        if self._popen_pidfd < 0 and popen.returncode is None:  # a kernel without pidfds: our unreaped child
            try:
                os.kill(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if popen.returncode is None:  # not reaped yet, so the group's id (its pid) is still its own
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            popen.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass

    def _close_handles(self) -> None:
        """Close the channel, the ``/proc`` file, the pidfds and any bot file not yet handed to bubblewrap."""
        for fd in dict.fromkeys((self._out, self._in, self._stat, self._bot_pidfd, self._init_pidfd, self._popen_pidfd,
                                 *self._file_fds)):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._out = self._in = self._stat = self._bot_pidfd = self._init_pidfd = self._popen_pidfd = -1
        self._file_fds.clear()
        self._watch = None  # its /proc file is closed

    def alive(self) -> bool:
        return not self.dead and self.popen is not None and self.popen.poll() is None

    def close(self) -> None:
        """Ask the bot to leave, then make sure it is gone."""
        if self.alive():
            try:
                os.write(self._out, protocol.encode({"seq": self.seq + 1, "op": "bye"}))
            except OSError:
                pass
        self.kill()

    def kill(self) -> None:
        """Kill the whole process group (and the sandbox's pid namespace) and reap it."""
        if self.dead:
            return
        self.dead = True
        popen = self.popen
        if popen is not None:
            self._kill_and_reap(popen)
        self._close_handles()
        if self.lease is not None and (popen is None or popen.returncode is not None):
            self.lease.release()  # the process is gone: its uid may serve another bot
            self.lease = None
        if self.stderr is not None:
            self.stderr.wait(1.0)
        if self.work_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def timeout_detail(kind: TimeoutKind, usage: MoveUsage, cpu_limit: float | None, wall_limit: float, what: str) -> tuple[str, str]:
    """A timeout's detail for the record, and the host fault (empty if the bot is to blame).

    A CPU timeout is always the bot's. A wall-clock (or start-up) timeout is
    the host's when the bot was starved (:attr:`MoveUsage.host_fault`).
    """
    if kind is TimeoutKind.CPU:
        used = "more" if usage.cpu_seconds is None else f"{usage.cpu_seconds:.2f} s"
        allowed = f" (its limit: {cpu_limit:.3g} s, move_seconds plus what was left of its bank)" if cpu_limit is not None else ""
        return f"used {used} of CPU time on one move{allowed} while {what}", ""
    clock = "start-up" if kind is TimeoutKind.STARTUP else "wall-clock"
    if usage.host_fault:
        host_fault = f"the host starved the bot: {usage.describe()}"
        return f"no answer within the {clock} limit of {wall_limit:.3g} s while {what}: a host fault, {host_fault}", host_fault
    return (f"no answer within the {clock} limit of {wall_limit:.3g} s while {what}, although the host did not "
            f"starve it ({usage.describe()})"), ""


def _pidfd_open(pid: int) -> int:
    """A pidfd for ``pid`` (-1 where the kernel or Python has none: then signals go by pid)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return -1


def _pidfd_alive(pidfd: int) -> bool:
    try:
        signal.pidfd_send_signal(pidfd, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _library_folders(bound: Iterable[str]) -> list[str]:
    """The ``lib*`` folders of the folders shown to a bot (Python packages live under them, not in share/ or bin/)."""
    found = []
    for root in bound:
        if root == "/" or not os.path.isdir(root) or os.path.islink(root):
            continue
        if os.path.basename(root).startswith("lib"):
            found.append(root)
            continue
        for parent in (root, os.path.join(root, "local")):
            try:
                names = sorted(os.listdir(parent))
            except OSError:
                continue
            found.extend(os.path.join(parent, name) for name in names
                         if name.startswith("lib") and os.path.isdir(os.path.join(parent, name))
                         and not os.path.islink(os.path.join(parent, name)))
    return found


@functools.lru_cache(maxsize=8)
def installed_package_folders(bound: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``site-packages``/``dist-packages`` folder inside the folders shown to a bot (bubblewrap hides them).

    A full walk (once per ladder process): besides the interpreter's own,
    other programs bring Python installations of their own under ``/usr/lib``.
    """
    found: set[str] = set()
    for root in dict.fromkeys(_library_folders(bound)):
        for folder, subfolders, files in os.walk(root):
            if "__init__.py" in files:  # a Python package: no packages folder inside
                subfolders[:] = []
                continue
            if re.fullmatch(r"python\d(\.\d+)?", os.path.basename(folder)):
                # a Python installation's library: its packages folder is right here, the rest is its stdlib
                found.update(os.path.join(folder, name) for name in subfolders
                             if name in ("site-packages", "dist-packages") and not os.path.islink(os.path.join(folder, name)))
                subfolders[:] = []
                continue
            kept = []
            for name in subfolders:
                path = os.path.join(folder, name)
                if name in ("site-packages", "dist-packages") and not os.path.islink(path):
                    found.add(path)
                elif name != "__pycache__":
                    kept.append(name)
            subfolders[:] = kept
    return tuple(sorted(found))
