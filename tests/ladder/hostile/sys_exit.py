"""Calls sys.exit() in the middle of a match."""

import sys

from ladder.bot import Bot


class SysExit(Bot):
    name = "sys-exit"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        sys.exit(0)
