"""Elfer raus! (Eleven starts!): get rid of cards without opening the way for the others.

What it reads from the observation: ``hand`` (its cards as ``[colour,
number]``) and ``turn.played`` (cards laid this turn); the legal actions are
``play`` (with ``colour`` and ``number``), ``draw`` and ``end_turn``.

The idea: laying a card frees the next card of its row for whoever holds it.
So it lays first the cards that free nothing for the others (a 1, a 20, or a
card whose next card in the row is its own), holds the others back once it
has laid what the rules require, and when it must lay a card that helps the
others, it lays the highest one (the most penalty points gone).
"""

from ladder.bot import Bot


def freed_numbers(number):
    """The numbers a card makes playable next on its row (rows grow outwards from 11)."""
    if number == 11:
        return (10, 12)
    if number < 11:
        return (number - 1,) if number > 1 else ()
    return (number + 1,) if number < 20 else ()


class Blocker(Bot):
    name = "example-elfer-raus"
    author = "the ladder's documentation"
    version = "1"
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        plays = [a for a in legal_actions if a["type"] == "play"]
        if not plays:
            for kind in ("draw", "end_turn"):  # nothing to lay: draw if allowed, else end the turn
                for action in legal_actions:
                    if action["type"] == kind:
                        return action
            return legal_actions[0]
        hand = {(colour, number) for colour, number in observation.get("hand", [])}

        def gifts(action):  # how many cards this play frees that are not ours
            return sum((action["colour"], n) not in hand for n in freed_numbers(action["number"]))

        best = min(plays, key=lambda a: (gifts(a), -a["number"]))
        may_stop = any(a["type"] == "end_turn" for a in legal_actions)
        if gifts(best) > 0 and may_stop and len(hand) > len(plays):
            return next(a for a in legal_actions if a["type"] == "end_turn")  # hold the others back
        return best
