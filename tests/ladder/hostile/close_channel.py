"""Closes its own channel to the ladder and carries on."""

import os
import sys
import time

from ladder.bot import Bot


class CloseChannel(Bot):
    name = "close-channel"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        host = sys.modules["__main__"]
        os.close(host._OUT)
        os.close(host._IN)
        time.sleep(3600)
