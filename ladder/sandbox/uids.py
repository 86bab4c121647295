"""A uid of its own for each bot process when the ladder runs as root (leases are lock files)."""

from __future__ import annotations

import fcntl
import functools
import os
import random

from ladder.errors import UserError
from ladder.matches.match import BotFailure

# When the ladder runs as root, each bot process runs as a uid (and gid) of its own from this range, which no
# account uses: RLIMIT_NPROC counts the threads of a uid, so a bot that parks threads only starves itself.
BOT_UID_FIRST = 1_700_000_000
BOT_UID_COUNT = 100_000
UID_LEASE_FOLDERS = ("/run/ladder/bot-uids", "/var/lib/ladder/bot-uids")


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
