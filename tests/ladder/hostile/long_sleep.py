"""Sleeps for an hour when asked to move."""

import time

from ladder.bot import Bot


class LongSleep(Bot):
    name = "long-sleep"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        time.sleep(3600)
        return legal_actions[0]
