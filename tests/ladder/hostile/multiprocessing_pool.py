"""Starts worker processes with multiprocessing to think in parallel."""

import multiprocessing

from ladder.bot import Bot


def _think():
    pass


class MultiprocessingPool(Bot):
    name = "multiprocessing-pool"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        worker = multiprocessing.get_context("fork").Process(target=_think)
        worker.start()
        worker.join()
        return legal_actions[0]
