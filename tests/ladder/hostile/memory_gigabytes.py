"""Asks for 8 GB at once."""

from ladder.bot import Bot


class MemoryGigabytes(Bot):
    name = "memory-gigabytes"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        hoard = bytearray(8 * 1024**3)
        return legal_actions[len(hoard) % 3]
