"""The command line that starts a bot: bubblewrap's arguments (what is shown where) or the plain process."""

from __future__ import annotations

import json
import os
import select
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import bots
import engine
from ladder.errors import UserError
from ladder.matches.match import BotFailure
from ladder.sandbox.host_facts import (
    API_LADDER_FILES,
    BOT_ENV,
    GUEST_HOST,
    SANDBOX_API,
    SANDBOX_BOT,
    SANDBOX_CODEC,
    SANDBOX_PACKAGES,
    api_root,
    interpreter,
    is_root,
    orjson_extension,
    process_layer_can_drop_root,
)
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.packages import _package_paths, installed_package_folders
from ladder.sandbox.submission import Submission
from ladder.sandbox.uids import UidLease


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
            files.extend(
                (os.path.join(folder, name), f"{inside}/{name}")
                for name in sorted(names)
                if not name.endswith((".pyc", ".pyo"))
            )
    return files


class BotLaunch:
    """The command line that starts a bot: bubblewrap's arguments, or the plain process (the start-up half of
    :class:`~ladder.sandbox.process.BotProcess`)."""

    submission: Submission
    limits: SandboxLimits
    layers: tuple[str, ...]
    allow_root: bool
    cpu: int | None
    tag: str
    work_dir: str | None
    lease: UidLease | None
    _file_fds: list[int]

    def program(self) -> list[str] | None:
        """The command the host becomes once the sandbox is set up (an executable bot); ``None``: a Python bot."""
        return None

    def system_folders(self) -> tuple[str, ...]:
        """Host folders shown read-only at the same place beyond the interpreter's (an executable bot's runtime)."""
        return ()

    def _host_config(
        self, api_dir: str, bot_dir: str, drop: bool, parent_pid: int, orjson: str | None, package_dirs: list[str]
    ) -> str:
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
            "limits": limits.process_limits().to_json(),
        }
        return json.dumps(config)

    def _bwrap_command(self, info_fd: int) -> list[str]:
        binary, folders = interpreter()
        plan = _BwrapArgs(bwrap_options("bot"))
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
        args += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--perms",
            "0555",
            "--tmpfs",
            "/dev/shm",
            "--remount-ro",
            "/dev/shm",
            "--remount-ro",
            "/dev",
            "--size",
            str(self.limits.tmp_mb * 1024 * 1024),
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
            "--chdir",
            "/tmp",
            "--info-fd",
            str(info_fd),
        ]
        packages = [SANDBOX_PACKAGES] if self.limits.packages else []
        config = self._host_config(
            SANDBOX_API, SANDBOX_BOT, drop=is_root(), parent_pid=0, orjson=codec_inside, package_dirs=packages
        )
        return [*args, binary, "-S", "-s", "-B", "-P", f"{SANDBOX_API}/{GUEST_HOST}", config]

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
                raise BotFailure(
                    "crash", f"cannot copy the bot's file {path} into the sandbox: {error.strerror}"
                ) from None
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
        packages = sorted(
            {os.path.dirname(path) for name in self.limits.packages for path in _package_paths(name) or ()}
        )
        config = self._host_config(
            str(api_root()),
            self.submission.host_dir,
            drop=drop,
            parent_pid=os.getpid(),
            orjson=orjson_extension(),
            package_dirs=packages,
        )
        if self.lease is not None:
            os.chown(work, self.lease.uid, self.lease.gid)
        env = {**BOT_ENV, "HOME": work, "TMPDIR": work}
        command = [binary, "-S", "-s", "-B", "-P", str(api_root() / GUEST_HOST), config]
        return command, env, work


def read_info_pid(fd: int, deadline: float) -> int | None:
    """The pid of the sandbox's first process, from bubblewrap's ``--info-fd`` (closed here); ``None`` if bubblewrap
    wrote none by ``deadline`` (``time.monotonic()``) or failed."""
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
        return None


def child_of(parent: int) -> int | None:
    """A child of process ``parent`` (the bot process, child of bubblewrap's init), found in ``/proc``; ``None`` yet."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat_file:
                text = stat_file.read()
        except OSError:
            continue
        if int(text[text.rfind(b")") + 2 :].split()[1]) == parent:
            return int(entry.name)
    return None


SANDBOX_ENV = {**BOT_ENV, "HOME": "/tmp", "TMPDIR": "/tmp"}
"""The whole environment inside bubblewrap, a bot's or a build's (``--clearenv`` first)."""


def bwrap_options(hostname: str, caps: tuple[str, ...] = ("CAP_SETUID", "CAP_SETGID")) -> list[str]:
    """bubblewrap's namespaces, user and environment (:data:`SANDBOX_ENV`) for a bot or a build, before any folder
    is shown. As root, bubblewrap keeps only ``caps``, for the host program that drops to an unprivileged user."""
    args = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        hostname,
        "--clearenv",
    ]
    # Not --as-pid-1: bubblewrap's own init is the sandbox's pid 1 and the bot its child. A bot stopped between
    # turns cannot notice the ladder go away (it never reads the end of its channel), and its own parent-death
    # signal comes with the credentials of its parent, which as root (capabilities dropped, another uid) may not
    # signal it. bubblewrap's init gets its parent-death signal from a parent of its own uid, and when the init
    # dies the kernel kills every process of its pid namespace, stopped or not.
    if is_root():
        args += ["--cap-drop", "ALL"]
        for cap in caps:
            args += ["--cap-add", cap]
    else:
        args += ["--unshare-user", "--disable-userns"]
    for key, value in SANDBOX_ENV.items():
        args += ["--setenv", key, value]
    return args
