"""A well-behaved bot for the sandbox tests: the first legal action, always."""

from ladder.bot import Bot


class FirstLegal(Bot):
    name = "first-legal"
    author = "the tests"
    version = "1"
    games = ("*",)

    def act(self, observation, legal_actions):
        return legal_actions[0]
