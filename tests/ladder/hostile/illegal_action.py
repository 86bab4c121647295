"""Answers with an action that is not among the legal ones."""

from ladder.bot import Bot


class IllegalAction(Bot):
    name = "illegal-action"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        return {"type": "add", "n": 1000}
