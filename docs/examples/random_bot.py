"""The smallest complete bot: a uniformly random legal action, in every game.

Try it:
    ladder validate docs/examples/random_bot.py
    ladder play elfer-raus docs/examples/random_bot.py random -n 20
    ladder submit docs/examples/random_bot.py --name my-random
"""

from ladder.bot import Bot


class ExampleRandom(Bot):
    name = "example-random"
    author = "the ladder's documentation"
    version = "1"
    games = ("*",)  # every game: it only looks at the legal actions it is offered

    def act(self, observation, legal_actions):
        # self.rng is a random.Random seeded from the match's seed and this bot's seat
        # (by Bot.start), so the same match plays out the same way every time.
        return self.rng.choice(legal_actions)
