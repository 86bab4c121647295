"""Spins forever when asked to move."""

from ladder.bot import Bot


class InfiniteLoop(Bot):
    name = "infinite-loop"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        while True:
            pass
