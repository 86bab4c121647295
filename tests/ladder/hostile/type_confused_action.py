"""Answers with a legal action written with other JSON types (a float for an integer)."""

from ladder.bot import Bot


class TypeConfusedAction(Bot):
    name = "type-confused-action"
    games = ("toy-count",)

    def act(self, observation, legal_actions):
        action = legal_actions[0]
        return {key: float(value) if type(value) is int else value for key, value in action.items()}
