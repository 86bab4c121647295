"""Which sandbox layers work here (probed once per process) and which a run uses."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ladder.errors import UserError
from ladder.guest import seccomp as seccomp_module
from ladder.matches.match import BotFailure
from ladder.sandbox.host_facts import BOT_ENV, api_root, interpreter, is_root, process_layer_can_drop_root
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.process import BotProcess
from ladder.sandbox.submission import Submission
from ladder.sandbox.uids import BOT_UID_COUNT, BOT_UID_FIRST

LAYERS = ("process", "bubblewrap", "seccomp")


# ---------------------------------------------------------------- the layers of this machine


@dataclass(frozen=True)
class LayerStatus:
    """Whether a layer works on this machine, and a sentence saying how or why not."""

    name: str
    available: bool
    detail: str


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
        run = subprocess.run(
            [binary, "-S", "-s", "-B", "-c", code, str(api_root())],
            capture_output=True,
            text=True,
            timeout=20,
            env=dict(BOT_ENV),
            stdin=subprocess.DEVNULL,
        )
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
        hint = (
            ""
            if is_root()
            else " (unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1)"
        )
        return LayerStatus(
            "bubblewrap", False, f"{version or binary} is installed but cannot build a sandbox here: {why}{hint}"
        )
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
        "process",
        True,
        f"{limits}; on its own it cannot run a bot as an unprivileged user here (the interpreter under "
        f"{interpreter()[1][0]} is not readable by others), so bots need bubblewrap",
    )


def separation(layers: Iterable[str]) -> tuple[str, str]:
    """How bot processes are kept from sharing limits with ``layers`` here: a short name, and a sentence why.

    Address space, CPU time, file size and open files are limits of each
    process anyway; the thread/process limit (``RLIMIT_NPROC``) is counted per
    user and per user namespace, so each bot process needs a user of its own.
    """
    chosen = set(layers)
    if is_root():
        if "bubblewrap" in chosen or process_layer_can_drop_root():
            return (
                "own uid",
                f"the ladder runs as root: each bot process runs as a uid of its own (leased from "
                f"{BOT_UID_FIRST}-{BOT_UID_FIRST + BOT_UID_COUNT - 1}), so its thread/process limit is its own",
            )
        return (
            "none",
            "the ladder runs as root without bubblewrap and cannot run bots as other users: it refuses to run them",
        )
    if "bubblewrap" in chosen:
        return (
            "own user namespace",
            "each bot process runs in a user namespace of its own (bubblewrap "
            "--unshare-user), so its thread/process limit is its own",
        )
    return (
        "shared uid",
        f"without bubblewrap and not as root, every bot runs as your uid ({os.getuid()}) and the "
        "thread/process limit is shared by all of them and your own processes: one bot parking threads can "
        "starve the others (install bubblewrap)",
    )


def interpreter_view(layers: Iterable[str]) -> str:
    """What a bot can import with ``layers`` here, in one sentence (for ``ladder doctor``)."""
    if "bubblewrap" in set(layers):
        return (
            "the standard library, the bot API (ladder.bot, bots, engine) and the packages the operator allows "
            "(limits.packages / --allow-package); the host's site-packages are hidden"
        )
    return (
        "without bubblewrap the bot sees the host's files its user may read, so any installed package is "
        "importable by path: the allow-list only decides what is on sys.path (install bubblewrap)"
    )


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


_PROBE_BOT = """
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
"""


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
