"""The rule-of-thumb bot ("thumb"): never stop early, knock down the most pins."""

from __future__ import annotations

from typing import Any

from bots.base import Bot

GAME_ID = "bowling-solitaire"


def _pins_of(action: dict[str, Any]) -> int:
    return len(action.get("pins", ()))


class BowlingThumbBot(Bot):
    """Rule of thumb: never stop early; take the play that knocks down the most pins,
    and between equals bowl from the pile with the most cards left (it keeps the
    most cards in reach)."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        plays = [action for action in legal_actions if action["type"] == "bowl"]
        if not plays:
            return legal_actions[0]
        sizes = observation["pile_sizes"]
        return max(plays, key=lambda action: (_pins_of(action), sizes[action["pile"]]))
