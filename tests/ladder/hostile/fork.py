"""Forks when asked to move (a fork bomb would follow)."""

import os

from ladder.bot import Bot


class Fork(Bot):
    name = "fork"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        while True:
            os.fork()
