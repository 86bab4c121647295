"""Starts threads until it cannot."""

import threading
import time

from ladder.bot import Bot


class ThreadBomb(Bot):
    name = "thread-bomb"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        while True:
            threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
