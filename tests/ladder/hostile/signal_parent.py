"""Tries to kill its parent and the ladder (SIGKILL), then anything else it can see."""

import os
import signal

from ladder.bot import Bot

LADDER_PID = 0  # filled in by the test


class SignalParent(Bot):
    name = "signal-parent"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        errors = []
        for pid in (os.getppid(), LADDER_PID, 1):
            if pid and pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError as error:
                    errors.append(f"kill({pid}): {type(error).__name__}")
        raise PermissionError("; ".join(errors) or "nothing to kill")
