"""The rule-of-thumb bot ("thumb"), which reads only the observation (it imports nothing of the engine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bots.base import Bot

GAME_ID = "elevenses-for-one"


def _next_needed(observation: dict[str, Any]) -> int:
    return int(observation["top"]) + 1


def _position_of(observation: dict[str, Any], card: int) -> int | None:
    for index, slot in enumerate(observation["pantry"]):
        if slot["card"] == card:
            return index
    return None


def _face_up_ahead(observation: dict[str, Any]) -> list[tuple[int, int]]:
    """(index, card) of face-up Pantry cards not yet looked at in this pass."""
    start = observation["next_index"]
    if observation["step"] == "choose" and observation["current"] is not None:
        start = observation["current"] + 1
    return [
        (index, slot["card"]) for index, slot in enumerate(observation["pantry"]) if slot["face_up"] and index >= start
    ]


Choice = Callable[[dict[str, Any], list[dict[str, Any]], dict[str, list[dict[str, Any]]]], dict[str, Any]]
"""A rule of thumb for one kind of step: (observation, legal actions, legal actions by type) -> action."""


def thumb_choice(observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The rule-of-thumb action for this observation (used by both bots)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal_actions:
        by_type.setdefault(action["type"], []).append(action)
    choose = _THUMB_BY_STEP.get(observation["step"])
    if choose is None:
        return legal_actions[0]
    return choose(observation, legal_actions, by_type)


def _thumb_choose(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Step 3: score the current card if it is next, else discard it or use it."""
    if "score" in by_type:
        return by_type["score"][0]
    card = observation["current_card"]
    if "discard" in by_type:
        if card == 11:
            # Either it scores the next card from the pile at once, or it waits
            # there for free: scoring Servants must bring it back.
            return by_type["discard"][0]
        room = _discards_left(observation)
        eleven_ahead = any(c == 11 for _, c in _face_up_ahead(observation))
        if room == 1 and eleven_ahead:
            return by_type["use"][0]  # keep the last place for Elevenses
        if not _useful_to_use(observation, card) or observation["minutes"] <= 2:
            return by_type["discard"][0]
    return by_type["use"][0]


def _thumb_move_to_front(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Step 2: bring the next card forward when what stands before it would cost minutes or discards."""
    needed = _next_needed(observation)
    position = _position_of(observation, needed)
    room = _discards_left(observation)
    if position is not None and position > 0 and observation["minutes"] > 2:
        before = [slot["card"] for slot in observation["pantry"][:position]]
        costly = sum(1 for card in before if card in (5, 10)) + max(0, len(before) - room)
        if costly >= 1:
            for action in by_type.get("to_front", []):
                if action["card"] == needed:
                    return action
    return by_type["keep_order"][0]


def _thumb_servants_return(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Servants used: return the next card from the pile, else a useful one, else decline."""
    needed = _next_needed(observation)
    returns = by_type.get("return", [])
    for action in returns:
        if action["card"] == needed:
            return action
    # Returning is free and the card can be discarded again: prefer a useful one.
    for preferred in (8, 7, 3, 2, 9):
        for action in returns:
            if action["card"] == preferred:
                return action
    if returns:
        return returns[0]
    return by_type["decline"][0]


def _thumb_elevenses_score(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    return by_type["score_discard"][0] if "score_discard" in by_type else legal_actions[0]


def _thumb_flip(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Tea or Milk: flip the cards standing between us and the next card; keep the helpers."""
    needed = _next_needed(observation)
    ahead = [card for _, card in _face_up_ahead(observation)]
    needed_at = ahead.index(needed) if needed in ahead else len(ahead)
    discards = observation["discards"]
    return min(
        legal_actions,
        key=lambda action: sum(_flip_cost(card, needed, ahead, needed_at, discards) for card in action["cards"]),
    )


def _flip_cost(card: int, needed: int, ahead: list[int], needed_at: int, discards: list[int]) -> int:
    """How bad flipping ``card`` face down is (Servants first: passing it costs a minute)."""
    if card == needed:
        return 100
    if card == 10 and needed in discards:
        return 50  # Servants will fetch the needed card back
    if card == 11 and needed in discards:
        return 40  # Elevenses can score it from the pile
    if card in ahead and ahead.index(card) < needed_at:
        return -2 if card == 10 else -1
    return 10 if card == needed + 1 else 5


def _thumb_swap(
    observation: dict[str, Any], legal_actions: list[dict[str, Any]], by_type: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Biscuits: swap the next card for the trolley with the first face-up card ahead."""
    needed = _next_needed(observation)
    ahead_with_places = _face_up_ahead(observation)
    if ahead_with_places:
        first_card = ahead_with_places[0][1]
        for action in legal_actions:
            if set(action["cards"]) == {first_card, needed}:
                return action
    return legal_actions[0]


_THUMB_BY_STEP: dict[str, Choice] = {
    "choose": _thumb_choose,
    "move_to_front": _thumb_move_to_front,
    "servants_return": _thumb_servants_return,
    "elevenses_score": _thumb_elevenses_score,
    "flip": _thumb_flip,
    "swap": _thumb_swap,
}
"""The rule of thumb for each step of the game chart; any other step takes the first legal action."""


def _discards_left(observation: dict[str, Any]) -> int:
    """How many more cards may be discarded now (older observations: the room in the pile)."""
    if "discards_left" in observation:
        return int(observation["discards_left"])
    return int(observation["discard_limit"]) - len(observation["discards"])


def _useful_to_use(observation: dict[str, Any], card: int) -> bool:
    """Whether using ``card`` now would clear the way to the next card for the trolley."""
    needed = _next_needed(observation)
    ahead = _face_up_ahead(observation)
    cards_ahead = [c for _, c in ahead]
    if needed not in cards_ahead:
        return False
    before_needed = cards_ahead[: cards_ahead.index(needed)]
    if card in (2, 3, 9):
        return len(before_needed) > 0
    if card == 7:
        return len(before_needed) > 0
    return False


class ElevensesForOneThumbBot(Bot):
    """Rules of thumb: score when you can, discard for free, let Servants fetch discards back."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        action = thumb_choice(observation, legal_actions)
        return action if action in legal_actions else legal_actions[0]
