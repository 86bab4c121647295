"""Recurses without end through C code (with the recursion limit raised, so the C stack overflows)."""

import sys

from ladder.bot import Bot


class Deep:
    def __getattr__(self, name):
        return getattr(self, name + "x")  # each level goes through the interpreter's C code


class RecursionBomb(Bot):
    name = "recursion-bomb"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        sys.setrecursionlimit(10**8)
        Deep().a
        return legal_actions[0]
