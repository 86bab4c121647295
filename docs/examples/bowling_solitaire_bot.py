"""Bowling Solitaire: knock down as many pins as possible with every ball card.

What it reads: the legal actions ``bowl`` (with ``pile`` and the ``pins`` it
knocks down) and ``stop``, and from the observation ``pins`` (the standing
pins and their numbers) and ``pile_sizes``.

The idea: a play that takes more pins is better; among equal plays, use the
card of the pile with the most cards left, so the short piles' cards stay for
later. It never stops a ball while a play is possible.
"""

from ladder.bot import Bot


class GreedyBowler(Bot):
    name = "example-bowling"
    author = "the ladder's documentation"
    version = "1"
    games = ("bowling-solitaire",)

    def act(self, observation, legal_actions):
        bowls = [a for a in legal_actions if a["type"] == "bowl"]
        if not bowls:
            return legal_actions[0]  # only "stop" is left
        sizes = observation.get("pile_sizes", [0, 0, 0])
        return max(bowls, key=lambda a: (len(a["pins"]), sizes[a["pile"]], -a["pile"]))
