"""Building an executable bot once, at submission, inside a sandbox of its own.

A ``bot.toml`` may name a ``build`` command (``build = ["cc", "-O2", "-o", "bot", "bot.c"]``). It runs
once, when the bot is checked (``ladder validate``, ``ladder submit``, or a bot given by its path),
never before a match: the folder the build leaves is the bot version (its content hash is the hash
of those files), is what the bot store keeps and what matches run.

The build runs in bubblewrap, always: no network (a network namespace of its own), a read-only view
of the system's programs and libraries (``/usr``, the ``/lib`` folders, ``/etc/alternatives`` and the
loader's cache: compilers and their headers), none of the host's other files (no home, no results,
no other bots), a private ``/tmp``, and a writable copy of the bot's files in ``/build``, its working
folder (both size-capped, in memory). As root, it runs as an unprivileged uid of its own. Its limits
(:class:`BuildLimits`): wall-clock time, memory (address space of each process), processes, the
size of one file, and how much it may print. Unlike a bot, a build may start programs (a compiler
runs several), so the seccomp layer is not used; the namespaces are what hold it.

A build that fails (non-zero exit, out of time, too much output, a folder a bot may not hold)
refuses the bot with one sentence and the end of what the build printed (:class:`BuildFailure`);
nothing is stored. Without bubblewrap no build runs (:func:`build_refusal`): submit the built
program instead.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import selectors
import signal
import subprocess
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

from ladder.errors import UserError
from ladder.guest.rlimits import ProcessLimits
from ladder.sandbox.host_facts import interpreter, is_root
from ladder.sandbox.launch import SANDBOX_ENV, bwrap_options
from ladder.sandbox.layers import available_layers
from ladder.sandbox.submission import (
    MANIFEST_FILE,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    Manifest,
    Submission,
    content_hash,
    is_skipped,
    read_files,
    read_manifest,
    stage,
    stage_files,
)
from ladder.sandbox.uids import UidLease
from ladder.text import clean_text

BUILD_FOLDER = "/build"
BUILD_HOST = "/ladder-build/build_host.py"
BUILD_API = "/ladder-build/api"
BUILD_API_FILES = ("__init__.py", "guest/__init__.py", "guest/rlimits.py")
"""The ``ladder/`` files shown (read-only) to the build host under :data:`BUILD_API`: it imports
:mod:`ladder.guest.rlimits`, and nothing else of the ladder."""
SYSTEM_VIEW = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
)
"""What a build sees of the host, read-only: the programs, libraries and headers (a compiler and what it needs)."""
TAR_OVERHEAD = 1536  # bytes a tar stream may add per file (header and padding), beyond the files themselves
KEPT_STDERR_BYTES = 64 * 1024


@dataclass(frozen=True)
class BuildLimits:
    """What a build may use (``ladder validate/submit --build-seconds`` sets the time).

    - ``seconds``: wall-clock time for the whole build;
    - ``memory_mb``: address space of each of its processes;
    - ``processes``: processes and threads of its user at once;
    - ``file_mb``: the largest file it may write;
    - ``folder_mb``, ``tmp_mb``: size of its writable ``/build`` and ``/tmp`` (in memory);
    - ``output_mb``: what it may print (stdout and stderr together) before it is stopped;
    - ``stderr_lines``: how much of what it printed is shown when it fails.

    What it leaves in ``/build`` must fit a bot's limits (:data:`~ladder.sandbox.submission.MAX_FILES` files,
    :data:`~ladder.sandbox.submission.MAX_TOTAL_BYTES` bytes), as any submitted folder.
    """

    seconds: float = 120.0
    memory_mb: int = 2048
    processes: int = 256
    file_mb: int = 64
    folder_mb: int = 256
    tmp_mb: int = 256
    output_mb: int = 1
    stderr_lines: int = 20

    def process_limits(self) -> ProcessLimits:
        """The ``RLIMIT_*`` values the build host lowers itself to, which the build inherits (its CPU time a
        second over the wall-clock time: the clock stops a build first)."""
        return ProcessLimits(
            memory_bytes=self.memory_mb << 20,
            cpu_seconds=max(1, int(self.seconds) + 1),
            open_files=1024,
            processes=self.processes,
            file_bytes=self.file_mb << 20,
        )


class BuildFailure(UserError):
    """A build that did not give a bot: one sentence, and the end of what the build printed."""

    def __init__(self, sentence: str, stderr_tail: str = "") -> None:
        super().__init__(sentence)
        self.stderr_tail = stderr_tail


def build_refusal(layers: tuple[str, ...] | None = None) -> str | None:
    """Why no build can run here with ``layers`` (default: every layer available), or ``None`` if one can."""
    chosen = available_layers() if layers is None else layers
    if "bubblewrap" in chosen and "bubblewrap" in available_layers():
        return None
    return (
        "a build runs only inside bubblewrap (no network, a read-only view of the system), which is not "
        "available here: install bubblewrap (apt-get install bubblewrap), or submit the built program "
        '(command = ["./program"]) without a build'
    )


def _shown(command: tuple[str, ...]) -> str:
    return clean_text(" ".join(command), one_line=True)[:200]


# ---------------------------------------------------------------- the sandbox


def _system_view(args: list[str]) -> None:
    """bubblewrap arguments showing the system's programs and libraries read-only, at their own places."""
    _binary, folders = interpreter()
    made = {"/"}
    for path in dict.fromkeys([*SYSTEM_VIEW, *folders]):
        if not os.path.lexists(path):
            continue
        for parent in map(str, reversed(Path(path).parents)):  # bubblewrap as root makes them 0700: open them
            if parent not in made:
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
        made.add(path)
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        else:
            args += ["--ro-bind", path, path]


def _file_copies(files: dict[str, bytes], manifest: Manifest) -> tuple[list[str], list[int]]:
    """bubblewrap arguments copying the bot's files into ``/build``, and the descriptors it copies them from.

    Each file is handed over in an anonymous in-memory file (``memfd``): nothing is written on the host.
    """
    args: list[str] = []
    fds: list[int] = []
    made = {BUILD_FOLDER}
    program = manifest.build[0][2:] if manifest.build[0].startswith("./") else None
    try:
        for relative in sorted(files):
            inside = f"{BUILD_FOLDER}/{relative}"
            for parent in reversed(Path(inside).parents):
                if str(parent).startswith(BUILD_FOLDER + "/") and str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            fds.append(os.memfd_create("bot-file", os.MFD_CLOEXEC))
            os.write(fds[-1], files[relative])
            os.lseek(fds[-1], 0, os.SEEK_SET)
            args += ["--perms", "0755" if relative == program else "0644", "--file", str(fds[-1]), inside]
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return args, fds


def _bwrap_command(manifest: Manifest, limits: BuildLimits, copies: list[str], lease: UidLease | None) -> list[str]:
    binary, _folders = interpreter()
    # as root, the build host gives the folder to the build's uid (CAP_CHOWN), then becomes it
    args = bwrap_options("build", ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN"))
    _system_view(args)
    guest = Path(__file__).resolve().parent.parent / "guest"
    for name in BUILD_API_FILES:  # the guest files the build host imports, where it finds them
        args += ["--ro-bind", str(guest.parent / name), f"{BUILD_API}/ladder/{name}"]
    args += [
        "--ro-bind",
        str(guest / "build_host.py"),
        BUILD_HOST,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.tmp_mb << 20),
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--size",
        str(limits.folder_mb << 20),
        "--perms",
        "0755",
        "--tmpfs",
        BUILD_FOLDER,
        *copies,
        "--chdir",
        BUILD_FOLDER,
    ]
    config = {
        "folder": BUILD_FOLDER,
        "command": list(manifest.build),
        "env": dict(SANDBOX_ENV),
        "drop_to": [lease.uid, lease.gid] if lease is not None else None,
        "api_dir": BUILD_API,
        "limits": limits.process_limits().to_json(),
    }
    return [*args, binary, "-S", "-s", "-B", "-P", BUILD_HOST, json.dumps(config)]


@dataclass
class _Collected:
    """What came out of the build's sandbox: the folder (a tar stream), the end of its messages, what went wrong."""

    folder: bytearray
    messages: bytearray
    printed: int = 0
    problem: str = ""


def _collect(popen: subprocess.Popen[bytes], limits: BuildLimits, shown: str) -> _Collected:
    """Read the sandbox's stdout (the folder) and stderr (the build's messages) until it ends or breaks a limit."""
    assert popen.stdout is not None and popen.stderr is not None
    out, err = popen.stdout.fileno(), popen.stderr.fileno()
    got = _Collected(bytearray(), bytearray())
    folder_cap = MAX_TOTAL_BYTES + MAX_FILES * TAR_OVERHEAD + (64 << 10)
    deadline = time.monotonic() + limits.seconds
    with selectors.DefaultSelector() as selector:
        selector.register(out, selectors.EVENT_READ)
        selector.register(err, selectors.EVENT_READ)
        while selector.get_map() and not got.problem:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                got.problem = f"the build ({shown}) did not finish within {limits.seconds:g} s (--build-seconds)"
                break
            for key, _events in selector.select(remaining):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == out:
                    got.folder += chunk
                    if len(got.folder) > folder_cap:
                        got.problem = (
                            f"the build ({shown}) left more than {MAX_TOTAL_BYTES >> 20} MB of files; "
                            "that is the most a bot may bring"
                        )
                else:
                    got.messages += chunk
                    got.printed += len(chunk)
                    del got.messages[:-KEPT_STDERR_BYTES]
                    if got.printed > limits.output_mb << 20:
                        got.problem = f"the build ({shown}) printed more than {limits.output_mb} MB of messages"
    return got


def _kill(popen: subprocess.Popen[bytes]) -> None:
    """Kill bubblewrap's group; its pid namespace (the whole build) dies with it."""
    if popen.returncode is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        popen.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _tail(messages: bytes | bytearray, lines: int) -> str:
    text = clean_text(messages.decode("utf-8", errors="replace"))
    return "\n".join(text.strip("\n").splitlines()[-lines:])


def _run_sandboxed(files: dict[str, bytes], manifest: Manifest, limits: BuildLimits, shown: str) -> _Collected:
    """Run the build in bubblewrap; what came out, with ``problem`` set when it failed."""
    lease = UidLease.take() if is_root() else None
    fds: list[int] = []
    try:
        copies, fds = _file_copies(files, manifest)
        command = _bwrap_command(manifest, limits, copies, lease)
        try:
            popen = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=fds,
                start_new_session=True,
                close_fds=True,
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
            )
        except OSError as error:
            raise BuildFailure(f"the build sandbox (bubblewrap) could not start: {error}") from None
        for fd in fds:  # bubblewrap copies them at its start: ours are no longer needed
            os.close(fd)
        fds = []
        try:
            got = _collect(popen, limits, shown)
        finally:
            _kill(popen)
            popen.stdout.close()  # type: ignore[union-attr]
            popen.stderr.close()  # type: ignore[union-attr]
        if not got.problem and popen.returncode != 0:
            got.problem = _failed(popen.returncode, shown)
        return got
    finally:
        for fd in fds:
            os.close(fd)
        if lease is not None:
            lease.release()


def _failed(status: int | None, shown: str) -> str:
    """The sentence for a build that exited with ``status`` (the host reports a signal as 128 + its number)."""
    signal_name = None
    if status is not None and status > 128:
        try:
            signal_name = signal.Signals(status - 128).name
        except ValueError:
            signal_name = None
    if signal_name is not None:
        return (
            f"the build ({shown}) was killed by {signal_name} (a limit of the build: CPU time, memory or file "
            "size); its output is below"
        )
    return f"the build ({shown}) failed with exit status {status}: fix it (its output is below) and submit again"


# ---------------------------------------------------------------- what it left


def _unpack(folder: bytes, shown: str) -> dict[str, bytes]:
    """The files of the build folder's tar stream; plain files only, as for any submitted folder."""
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(folder), mode="r:") as archive:
            for member in archive:
                name = posixpath.normpath(member.name)
                if name.startswith("/") or name == ".." or name.startswith("../"):
                    raise BuildFailure(f"the build ({shown}) left a file outside its folder ({name!r})")
                if member.isdir():
                    continue
                if not member.isreg():
                    raise BuildFailure(
                        f"the build ({shown}) left {name}, which is not a plain file (a symbolic link?); "
                        "a bot's folder must hold plain files only"
                    )
                extracted = archive.extractfile(member)
                if not is_skipped(name) and extracted is not None:
                    files[name] = extracted.read()
    except tarfile.TarError as error:
        raise BuildFailure(f"the build's folder could not be read back ({error})") from None
    if len(files) > MAX_FILES:
        raise BuildFailure(f"the build ({shown}) left more than {MAX_FILES} files; a bot may have at most {MAX_FILES}")
    if sum(len(data) for data in files.values()) > MAX_TOTAL_BYTES:
        raise BuildFailure(
            f"the build ({shown}) left more than {MAX_TOTAL_BYTES >> 20} MB of files; that is the most a bot may bring"
        )
    return files


def build_files(
    files: dict[str, bytes], label: str, layers: tuple[str, ...] | None = None, limits: BuildLimits | None = None
) -> dict[str, bytes]:
    """The files of a bot after its ``build`` (the bot's own when it has none); :class:`BuildFailure` if it fails.

    The submitted ``bot.toml`` is put back over whatever the build left under that name: the manifest
    says what the author submitted, a build does not rewrite it.
    """
    if MANIFEST_FILE not in files:
        return files
    manifest = read_manifest(files, label)
    if not manifest.build:
        return files
    refusal = build_refusal(layers)
    if refusal is not None:
        raise BuildFailure(f"{label}/{MANIFEST_FILE} has a build command, but {refusal}")
    chosen = limits or BuildLimits()
    shown = _shown(manifest.build)
    got = _run_sandboxed(files, manifest, chosen, shown)
    if got.problem:
        raise BuildFailure(got.problem, _tail(got.messages, chosen.stderr_lines))
    built = _unpack(bytes(got.folder), shown)
    built[MANIFEST_FILE] = files[MANIFEST_FILE]
    program = manifest.command[0]
    if program.startswith("./") and program[2:] not in built:
        raise BuildFailure(
            f"the build ({shown}) succeeded but left no {program[2:]}, the program command runs ({program})",
            _tail(got.messages, chosen.stderr_lines),
        )
    return built


# ---------------------------------------------------------------- a bot given by its path

_built: dict[str, Submission] = {}  # source hash -> the staged build, for this process


def stage_bot(path: str | Path, layers: tuple[str, ...] | None = None, limits: BuildLimits | None = None) -> Submission:
    """Stage the bot at ``path`` (:func:`ladder.sandbox.submission.stage`), built first when its ``bot.toml`` has a build.

    A build runs once per process for the same files: ``ladder validate`` builds, and the matches of
    the check (and ``ladder submit``'s registration) use that build.
    """
    files = read_files(path)
    if MANIFEST_FILE not in files or not read_manifest(files, str(path)).build:
        return stage(path)
    source = content_hash(files)
    staged = _built.get(source)
    if staged is None or not os.path.isdir(staged.host_dir):
        staged = stage_files(str(path), build_files(files, str(path), layers, limits))
        _built[source] = staged
    return staged
