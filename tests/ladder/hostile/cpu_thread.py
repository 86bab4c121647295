"""Answers at once, but keeps a background thread burning CPU between turns."""

import threading

from ladder.bot import Bot

_started = []


def _burn():
    while True:
        sum(range(10000))


class CpuThread(Bot):
    name = "cpu-thread"
    games = ("toy-count",)

    def start(self, match):
        super().start(match)
        if not _started:
            _started.append(threading.Thread(target=_burn, daemon=True))
            _started[0].start()

    def act(self, observation, legal_actions):
        return legal_actions[0]
