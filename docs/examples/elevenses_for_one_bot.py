"""Elevenses for One: score in order, bring the card you need to the front, waste no minutes.

What it reads: ``top`` (the number on top of the trolley, so ``top + 1`` is
the card to score next), ``minutes``, ``discards``, and the legal actions
(``score``, ``use``, ``discard``, ``keep_order``, ``to_front``, ``flip``,
``swap``, ``return``, ``score_discard``, ``decline``).

The idea, in order: score whenever possible; at the start of a pass move the
next card needed to the front (one minute well spent); discard a card that is
far from being needed rather than spend a minute using it; take the free
extras Elevenses and the Servants offer.
"""

from ladder.bot import Bot

PREFERENCE = ("score", "score_discard", "return")


class OrderlyMaid(Bot):
    name = "example-elevenses-for-one"
    author = "the ladder's documentation"
    version = "1"
    games = ("elevenses-for-one",)

    def act(self, observation, legal_actions):
        wanted = observation.get("top", 0) + 1
        by_type = {}
        for action in legal_actions:
            by_type.setdefault(action["type"], []).append(action)
        for kind in PREFERENCE:
            if kind in by_type:
                return by_type[kind][0]
        if "to_front" in by_type or "keep_order" in by_type:
            for action in by_type.get("to_front", []):
                if action["card"] == wanted:
                    return action
            return by_type.get("keep_order", legal_actions)[0]
        if "discard" in by_type and by_type["discard"][0]["card"] > wanted + 2:
            return by_type["discard"][0]
        if "use" in by_type:
            return by_type["use"][0]
        return self.rng.choice(legal_actions)
