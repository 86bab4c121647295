"""Double-forks a daemon (new session, parent gone) that would outlive the match, then hangs."""

import os
import time

from ladder.bot import Bot


class DoubleForkDaemon(Bot):
    name = "double-fork-daemon"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:  # the daemon: lives on, burning a little CPU
                    time.sleep(0.05)
            os._exit(0)
        time.sleep(3600)
        return legal_actions[0]
