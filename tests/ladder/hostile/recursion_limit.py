"""Recurses without end in plain Python (the interpreter's recursion limit stops it)."""

from ladder.bot import Bot


def descend(depth):
    return descend(depth + 1) + 1


class RecursionLimit(Bot):
    name = "recursion-limit"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        return legal_actions[descend(0) % 3]
