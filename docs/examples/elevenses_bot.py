"""Elevenses (2-4 players): play the kitchen's cards, arrange when it helps, aim effects at the leader.

What it reads: ``seat`` (from the envelope every observation starts with:
``game``, ``num_players``, ``seat``, ``current_player``, ``over``) and ``cubes``
(each player's cubes) from the observation, and the legal actions: ``play`` and ``arrange`` (with the
``card``), ``pass``/``stop``, ``choose_player`` (with a ``seat``), ``swap``,
``no_swap``, ``tea``, ``draw``, ``return``/``keep``, ``set_aside``.

The idea: when an effect lets it pick a player, pick the one with the most
cubes (the leader); otherwise prefer playing a card to passing, take a swap
when one is offered, and choose at random among equals (seeded, so a match
replays the same way).
"""

from ladder.bot import Bot

ORDER = ("play", "arrange", "swap", "keep", "tea", "draw", "set_aside", "stop", "pass", "no_swap", "return")


class LeaderHunter(Bot):
    name = "example-elevenses"
    author = "the ladder's documentation"
    version = "1"
    games = ("elevenses",)

    def act(self, observation, legal_actions):
        me = observation["seat"]
        cubes = observation.get("cubes") or []
        by_type = {}
        for action in legal_actions:
            by_type.setdefault(action["type"], []).append(action)
        targets = [a for a in legal_actions if a["type"] in ("choose_player", "tea") and a.get("seat") != me]
        if targets and cubes:
            most = max(cubes[a["seat"]] for a in targets)
            return self.rng.choice([a for a in targets if cubes[a["seat"]] == most])
        for kind in ORDER:
            if kind in by_type:
                return self.rng.choice(by_type[kind])
        return self.rng.choice(legal_actions)
