"""Ignores SIGTERM (and SIGINT, SIGHUP) and then never answers: only SIGKILL can stop it."""

import signal
import time

from ladder.bot import Bot

for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)


class IgnoreSigterm(Bot):
    name = "ignore-sigterm"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        while True:
            time.sleep(0.01)
