"""What a bot says about itself: read inside the sandbox in reply to ``hello``, checked here by the ladder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BotInfo:
    """What a bot says about itself (read inside the sandbox, checked by the ladder)."""

    name: str
    author: str
    version: str
    games: tuple[str, ...]
    class_name: str = ""
    every_decision: bool = False  # the bot wants to be asked even when it has a single legal action

    def plays(self, game_id: str) -> bool:
        return "*" in self.games or game_id in self.games

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "author": self.author, "version": self.version, "games": list(self.games)}


def read_bot_info(data: Any) -> BotInfo:
    """The bot's description from its reply to ``hello``; :class:`ValueError` with one sentence if it is garbage."""
    if not isinstance(data, dict):
        raise ValueError("the reply to hello carries no bot description")
    values = {}
    for key in ("name", "author", "version", "class"):
        value = data.get(key, "")
        if not isinstance(value, str) or len(value) > 200:
            raise ValueError(f"the bot description's {key!r} is not a short string")
        values[key] = value
    games = data.get("games")
    if not isinstance(games, list) or not all(isinstance(g, str) and len(g) <= 200 for g in games) or len(games) > 100:
        raise ValueError("the bot description's 'games' is not a list of game ids")
    return BotInfo(
        values["name"],
        values["author"],
        values["version"],
        tuple(games),
        values["class"],
        data.get("every_decision") is True,
    )
