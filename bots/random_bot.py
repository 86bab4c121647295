"""A bot that picks uniformly among the legal actions: it plays every game."""

from __future__ import annotations

from typing import Any

from bots.base import Bot


class RandomBot(Bot):
    """Uniformly random legal actions, seeded per match: the ladder's baseline."""

    name = "random"
    author = "the ladder"
    version = "1"
    games = ("*",)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self.rng.choice(legal_actions)
