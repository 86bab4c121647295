"""Claims a game that does not exist and has a name that cannot be registered."""

from ladder.bot import Bot


class BadMetadata(Bot):
    name = "random"
    games = ("no-such-game",)

    def act(self, observation, legal_actions):
        return legal_actions[0]
