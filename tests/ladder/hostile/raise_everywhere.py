"""Raises in every call of the Bot API."""

from ladder.bot import Bot


class RaiseEverywhere(Bot):
    name = "raise-everywhere"
    games = ("toy-count",)

    def start(self, match):
        raise ValueError("no start for you")

    def act(self, observation, legal_actions):
        raise ValueError("no move for you")

    def end(self, result):
        raise ValueError("no end for you")
