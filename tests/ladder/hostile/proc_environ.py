"""Reads other processes' environments and command lines through /proc (secrets live there)."""

import os
import sys

from ladder.bot import Bot

LADDER_PID = 0  # filled in by the test


class ProcEnviron(Bot):
    name = "proc-environ"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        pids = {"1", str(os.getppid()), str(LADDER_PID)}
        pids.update(p for p in os.listdir("/proc") if p.isdigit())
        for pid in sorted(pids):
            for what in ("environ", "cmdline"):
                try:
                    with open(f"/proc/{pid}/{what}", "rb") as stolen:
                        print(f"PROC {pid} {what}: {stolen.read(8192)!r}", file=sys.stderr)
                except OSError:
                    pass
        raise RuntimeError(f"saw processes {sorted(pids)}")
