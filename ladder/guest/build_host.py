"""The program that runs inside a bot's build sandbox: it runs the build, then hands the folder back.

Started by :mod:`ladder.sandbox.build` as ``python -S -s -B -P build_host.py CONFIG`` inside bubblewrap,
with the bot's files in a private, size-capped, writable folder (``/build``). In this order it:

1. lowers its resource limits (memory, CPU time, processes, file size, no core files), which the
   build and everything it starts inherit;
2. when started as root, gives the build folder to the unprivileged uid the ladder leased for this
   build and becomes that uid (losing every capability), and sets ``no_new_privs``;
3. runs the build command in ``/build`` with its stdout and stderr both on its own stderr (which the
   ladder keeps the tail of), stdin empty;
4. when the build succeeds, writes the folder as it was left as a tar stream on stdout (regular
   files, folders, and anything else as it is: the ladder refuses what a bot may not hold) and exits
   0; when it fails, exits with the build's status (128 + the signal's number for a signal).

Only the standard library and :mod:`ladder.guest.rlimits` (mounted beside it) are used: this file runs where
nothing else is shown.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tarfile
from typing import Any

PR_SET_NO_NEW_PRIVS = 38
CANNOT_RUN = 127


def _become(uid: int, gid: int, folder: str) -> None:
    """Give ``folder`` (the build's, made by bubblewrap as root) to ``uid``, then become it for good."""
    for path, _folders, names in os.walk(folder):
        for target in [path, *(os.path.join(path, name) for name in names)]:
            os.lchown(target, uid, gid)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError(f"could not become uid {uid}")


def _no_new_privileges() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _run(command: list[str], folder: str, env: dict[str, str]) -> int:
    """The build's exit status (128 + the signal for a signal, 127 when it cannot start)."""
    if command[0].startswith("./"):
        command = [os.path.join(folder, command[0][2:]), *command[1:]]
    try:
        status = subprocess.run(
            command, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=2, stderr=2, check=False
        ).returncode
    except OSError as error:
        print(f"ladder: cannot run {command[0]!r}: {error.strerror or error}", file=sys.stderr, flush=True)
        return CANNOT_RUN
    return status if status >= 0 else 128 - status


def _send_folder(folder: str) -> None:
    """The build folder as a tar stream on stdout, its paths relative to the folder."""
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.PAX_FORMAT) as stream:
        for path, folders, names in os.walk(folder):
            folders.sort()
            for name in sorted(names) + [f for f in folders if os.path.islink(os.path.join(path, f))]:
                full = os.path.join(path, name)
                stream.add(full, arcname=os.path.relpath(full, folder), recursive=False)
    sys.stdout.buffer.flush()


def main() -> None:
    config: dict[str, Any] = json.loads(sys.argv[1])
    folder = config["folder"]
    sys.path.insert(0, config["api_dir"])  # the ladder's guest files this host uses (mounted read-only)
    from ladder.guest.rlimits import ProcessLimits, set_limits

    set_limits(ProcessLimits.from_json(config["limits"]))
    if config.get("drop_to") is not None and os.getuid() == 0:
        uid, gid = config["drop_to"]
        _become(uid, gid, folder)
    _no_new_privileges()
    os.umask(0o022)
    status = _run(list(config["command"]), folder, dict(config["env"]))
    if status != 0:
        sys.exit(status)
    try:
        _send_folder(folder)
    except OSError as error:
        print(f"ladder: cannot read what the build left: {error}", file=sys.stderr, flush=True)
        sys.exit(CANNOT_RUN)


if __name__ == "__main__":
    main()
