"""A helper process that dies with the process that started it (Linux's ``PR_SET_PDEATHSIG``).

The served ladder's check jobs and the local pool's workers write to the database and start bots: outliving a
server killed with ``kill -9`` they would go on writing with no server up, and a restart would run a second copy
beside them. The kernel's parent-death signal ends them with their parent, however it died. It fires when the
*thread* that started the process exits, so only a process started by a thread that lives as long as its
parent's work may ask for it (the checker's thread, the fork server's only thread).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> bool:
    """Ask to be killed (SIGKILL) when the parent dies; exit at once if ``parent_pid``, the parent this process was
    started by, is already gone (it died before the request was made). Whether the kernel took the request (not
    on other systems than Linux, where nothing is done)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        taken = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        taken = False
    if parent_pid and os.getppid() != parent_pid:
        os._exit(1)  # orphaned already: the work it was started for is no one's now
    return taken
