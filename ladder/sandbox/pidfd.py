"""pidfd helpers: signals and liveness checks that can never reach a reused pid."""

from __future__ import annotations

import os
import signal


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
