"""Running an untrusted bot in its own sandboxed process.

Each bot runs in a process of its own, started fresh with ``subprocess``
(never forked from the ladder), talking to the ladder only through
length-prefixed JSON frames on two pipes (:mod:`ladder.protocol`). The
program on the other side is :mod:`ladder.bot_host`.

Layers, the strongest available used by default (``ladder doctor`` says
which are active here and why any is missing):

``process``
    always: a new session (so the whole process group can be killed), resource
    limits (address space, CPU time, threads, file size, open files, no core
    files), a clean environment, a private working folder, a wall-clock
    deadline for start-up and for every request, and at the end or on any
    failure the group is killed with ``SIGKILL`` and reaped (no zombies). When
    the ladder runs as root, the bot runs as an unprivileged user.
``bubblewrap``
    the bot sees a read-only view of only the interpreter, the bot API
    (``ladder``'s bot modules, ``bots``, ``engine``), the ladder's orjson
    extension file (one file, which the host uses to read requests) and its
    own files, a
    private size-capped ``/tmp``, its own pid, network (none), IPC and UTS
    namespaces, and dies with its parent.
``seccomp``
    a system-call filter (:mod:`ladder.seccomp`): no fork or exec, no sockets,
    no signals to others.

A bot breaking a rule raises :class:`~ladder.match.BotFailure` (timeout,
crash, garbage, exception, memory, illegal) with the tail of its stderr.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NoReturn

import bots
import engine
import ladder
from ladder import protocol
from ladder import seccomp as seccomp_module
from ladder.errors import UserError
from ladder.match import BotFailure
from ladder.submission import Submission

LAYERS = ("process", "bubblewrap", "seccomp")
UNPRIVILEGED_UID = 65534  # "nobody": what a bot runs as when the ladder runs as root
UNPRIVILEGED_GID = 65534
SANDBOX_API = "/ladder-api"
SANDBOX_BOT = "/bot"
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
    """What a sandboxed bot may use. Times are wall-clock seconds unless said otherwise.

    - ``move_seconds``: to answer one request (a decision, or the start/end hooks);
    - ``match_seconds``: for all of one match's requests together;
    - ``start_seconds``: to start the process and load the bot;
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
    - ``stderr_lines``: how much of its stderr is kept with a failure.
    """

    move_seconds: float = 5.0
    match_seconds: float = 600.0
    start_seconds: float = 10.0
    memory_mb: int = 1024
    cpu_seconds: int = 3600
    idle_cpu_seconds: float = 1.0
    reply_bytes: int = 1 << 20
    threads: int = 512
    open_files: int = 64
    file_mb: int = 16
    tmp_mb: int = 16
    stderr_lines: int = 20

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | SandboxLimits | None) -> SandboxLimits:
        """Limits from a plain mapping (a tournament file's ``[limits]``); unknown keys are ignored."""
        if values is None:
            return cls()
        if isinstance(values, SandboxLimits):
            return values
        known = {f.name: f.type for f in fields(cls)}
        chosen = {}
        for key, value in values.items():
            if key in known and value is not None:
                chosen[key] = float(value) if known[key] == "float" else int(value)
        return cls(**chosen)


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
        "import sys, os; sys.path.insert(0, sys.argv[1]); from ladder import seccomp; seccomp.install()\n"
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
    mode = "as root, bot drops to uid %d" % UNPRIVILEGED_UID if is_root() else "in an unprivileged user namespace"
    return LayerStatus("bubblewrap", True, f"{version} ({mode}); measured inside: {facts}")


@functools.lru_cache(maxsize=1)
def _process_status() -> LayerStatus:
    limits = "rlimits on memory, CPU, threads, file size, open files; new session; clean environment; deadlines"
    if not is_root():
        return LayerStatus("process", True, f"{limits}; bots run as your user ({os.getuid()})")
    if process_layer_can_drop_root():
        return LayerStatus("process", True, f"{limits}; bots run as uid {UNPRIVILEGED_UID}")
    return LayerStatus(
        "process", True,
        f"{limits}; on its own it cannot run a bot as an unprivileged user here (the interpreter under "
        f"{interpreter()[1][0]} is not readable by others), so bots need bubblewrap",
    )


def process_layer_can_drop_root() -> bool:
    """Whether, without bubblewrap, a bot could run as ``nobody`` (it must read the interpreter and the API)."""
    _, folders = interpreter()
    return all(_readable_by_others(folder) for folder in [*folders, str(api_root())])


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

    def since(self, mark: int, lines: int) -> str:
        """The last ``lines`` lines of what the bot wrote after :attr:`total` was ``mark`` (as much as is kept)."""
        self.settle()
        with self.lock:
            data = bytes(self.buffer[-min(self.total - mark, self.KEEP, len(self.buffer)):]) if self.total > mark else b""
        shown = data.decode("utf-8", errors="replace").splitlines()
        return "\n".join(shown[-lines:])

    def wait(self, timeout: float) -> None:
        self.thread.join(timeout)


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
        self._poll_in = select.poll()
        self._poll_out = select.poll()

    # -- start-up -----------------------------------------------------------------------------
    def program(self) -> list[str] | None:
        """The command the host becomes once the sandbox is set up (an executable bot); ``None``: a Python bot."""
        return None

    def system_folders(self) -> tuple[str, ...]:
        """Host folders shown read-only at the same place beyond the interpreter's (an executable bot's runtime)."""
        return ()

    def _host_config(self, api_dir: str, bot_dir: str, drop: bool, parent_pid: int, orjson: str | None) -> str:
        limits = self.limits
        config = {
            "api_dir": api_dir,
            "orjson": orjson,
            "bot_dir": bot_dir,
            "entry": self.submission.entry,
            "module": self.submission.module,
            "attribute": self.submission.attribute,
            "seccomp": "seccomp" in self.layers,
            "exec": self.program(),
            "drop_to": [UNPRIVILEGED_UID, UNPRIVILEGED_GID] if drop else None,
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
        root = api_root()
        args = [shutil.which("bwrap") or "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "bot", "--clearenv"]
        if is_root():
            # Privileged bwrap: the host program drops to an unprivileged user before loading the bot.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user", "--disable-userns"]
        for key, value in {**BOT_ENV, "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
            args += ["--setenv", key, value]
        made: set[str] = {"/"}

        def parents(dest: str) -> None:
            # bwrap creates missing folders with mode 0700 when run as root: make them reachable.
            for parent in reversed(Path(dest).parents):
                text = str(parent)
                if text not in made:
                    made.add(text)
                    args.extend(["--perms", "0755", "--dir", text])

        def ro_bind(source: str, dest: str) -> None:
            parents(dest)
            args.extend(["--ro-bind", source, dest])
            made.add(dest)

        for folder in folders:  # the interpreter's installation (for a system Python, that is /usr)
            ro_bind(folder, folder)
        for library in ("/lib", "/lib64", "/lib32", "/libx32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32"):
            if any(library == folder or library.startswith(folder + "/") for folder in folders):
                continue
            if os.path.islink(library):
                parents(library)
                args.extend(["--symlink", os.readlink(library), library])
                made.add(library)
            elif os.path.isdir(library):
                ro_bind(library, library)
        for name in API_LADDER_FILES:
            ro_bind(str(root / "ladder" / name), f"{SANDBOX_API}/ladder/{name}")
        ro_bind(str(Path(bots.__file__).resolve().parent), f"{SANDBOX_API}/bots")
        ro_bind(str(Path(engine.__file__).resolve().parent), f"{SANDBOX_API}/engine")
        codec, codec_inside = orjson_extension(), None
        if codec is not None:  # one file, read-only: the host reads the ladder's requests with it
            codec_inside = f"{SANDBOX_CODEC}/{os.path.basename(codec)}"
            ro_bind(codec, codec_inside)
        for folder in self.system_folders():
            if os.path.islink(folder):
                parents(folder)
                args.extend(["--symlink", os.readlink(folder), folder])
                made.add(folder)
            elif os.path.isdir(folder) and folder not in made:
                ro_bind(folder, folder)
        parents(f"{SANDBOX_BOT}/entry")
        for source, relative in self.submission.binds:
            dest = f"{SANDBOX_BOT}/{relative}" if relative else SANDBOX_BOT
            args.extend(["--ro-bind", source, dest])
        args += ["--proc", "/proc", "--dev", "/dev", "--size", str(self.limits.tmp_mb * 1024 * 1024), "--perms", "1777",
                 "--tmpfs", "/tmp", "--chdir", "/tmp", "--info-fd", str(info_fd)]
        config = self._host_config(SANDBOX_API, SANDBOX_BOT, drop=is_root(), parent_pid=0, orjson=codec_inside)
        return [*args, binary, "-S", "-s", "-B", "-P", f"{SANDBOX_API}/ladder/bot_host.py", config]

    def _process_command(self) -> tuple[list[str], dict[str, str], str]:
        binary, _ = interpreter()
        drop = is_root() and process_layer_can_drop_root()
        if is_root() and not drop and not self.allow_root:
            raise UserError(
                "refusing to run a submitted bot as root without bubblewrap: install bubblewrap "
                "(apt-get install bubblewrap) or run the ladder as an ordinary user"
            )
        work = tempfile.mkdtemp(prefix=f"ladder-bot-{self.tag}-")
        if drop:
            os.chown(work, UNPRIVILEGED_UID, UNPRIVILEGED_GID)
        self.work_dir = work
        env = {**BOT_ENV, "HOME": work, "TMPDIR": work}
        config = self._host_config(str(api_root()), self.submission.host_dir, drop=drop, parent_pid=os.getpid(),
                                   orjson=orjson_extension())
        command = [binary, "-S", "-s", "-B", "-P", str(api_root() / "ladder" / "bot_host.py"), config]
        return command, env, work

    def start(self) -> BotInfo:
        """Start the process and load the bot; its metadata, or :class:`BotFailure` (with the bot's traceback)."""
        info_read = info_write = -1
        pass_fds: tuple[int, ...] = ()
        if "bubblewrap" in self.layers:
            info_read, info_write = os.pipe2(os.O_CLOEXEC)
            pass_fds = (info_write,)
            command = self._bwrap_command(info_write)
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
        self._out, self._in = request_write, reply_read
        os.set_blocking(self._out, False)
        self._poll_in.register(self._in, select.POLLIN)
        self._poll_out.register(self._out, select.POLLOUT)
        self.stderr = StderrTail(error_read)
        deadline = time.monotonic() + self.limits.start_seconds
        self.bot_pid = self._read_info(info_read, deadline) if info_read >= 0 else self.popen.pid
        if self.bot_pid is not None:
            try:
                self._stat = os.open(f"/proc/{self.bot_pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._stat = -1
        reply = self.request({"op": "hello"}, deadline - time.monotonic(), "loading")
        if "error" in reply:
            self._fail_with_error(reply["error"], "loading")
        self.info = self._check_info(reply.get("bot"))
        return self.info

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
                self._die("timeout", f"the sandbox did not start within {self.limits.start_seconds:g} s")
            self._die("crash", "the sandbox (bubblewrap) failed to start")
            raise AssertionError("unreachable")

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
        return BotInfo(values["name"], values["author"], values["version"], tuple(games), values["class"])

    # -- requests -----------------------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float, what: str) -> dict[str, Any]:
        """Send one request and wait at most ``timeout`` seconds for the reply with its ``seq``.

        Replies to earlier requests (stale ``seq``) are skipped. Raises
        :class:`BotFailure` (after killing the process) on a timeout, a dead
        process, or a malformed reply. Error replies are returned to the caller.
        """
        if self.dead or self.popen is None:
            raise BotFailure("crash", "the bot process is not running", self.stderr_tail())
        self.seq += 1
        seq = self.seq
        message["seq"] = seq
        deadline = time.monotonic() + max(0.0, timeout)
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
        if written < len(data):
            self._send(memoryview(data)[written:], deadline, what)
        while True:
            reply = self._receive(deadline, what)
            reply_seq = reply["seq"]
            if reply_seq == seq:
                return reply
            if reply_seq > seq:
                self._die("garbage", f"a reply numbered {reply_seq} to a request not yet made (expected {seq})")

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
        """What the bot wrote next on its channel, waiting until ``deadline`` (a timeout, or a crash if it closed it)."""
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not self._poll_in.poll(remaining * 1000):
            self._timeout(what)
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
    def _timeout(self, what: str) -> NoReturn:
        self._die("timeout", f"no answer within the time limit while {what}")

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
                self._die("timeout", f"the bot process used up its CPU time limit while {what}")
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
            for pid_target in (self.bot_pid, popen.pid):
                if pid_target:
                    try:
                        os.kill(pid_target, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                popen.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self._out, self._in, self._stat):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._out = self._in = self._stat = -1
        if self.stderr is not None:
            self.stderr.wait(1.0)
        if self.work_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

