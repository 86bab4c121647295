"""Allocates 64 MB blocks (touching every page) until something gives."""

from ladder.bot import Bot

HOARD = []


class MemoryCreep(Bot):
    name = "memory-creep"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        while True:
            HOARD.append(b"x" * (64 * 1024 * 1024))
