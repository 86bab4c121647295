"""A bot whose author is not valid Unicode (a lone surrogate)."""

from __future__ import annotations

from ladder.bot import Bot


class SurrogateAuthor(Bot):
    name = "surrogate-author"
    author = "mallory \ud800"
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        return legal_actions[0]
