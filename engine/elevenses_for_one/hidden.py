"""A full state rebuilt from the player's observation (only the future shuffles are unknown)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.elevenses_for_one.cards import ENDED_TIME, ENDED_WON
from engine.elevenses_for_one.game import GAME
from engine.elevenses_for_one.state import ElevensesForOneState


def state_from_observation(observation: Mapping[str, Any], seed: int) -> ElevensesForOneState:
    """A state the player cannot tell apart from the one that gave ``observation``.

    Everything on the table is known, so only the future shuffles are
    unknown: they are drawn from ``seed``. Look-ahead bots use this to build
    their own determinized states from what they were shown.
    """
    options = GAME.validate_options(
        {
            "minutes": observation["start_minutes"],
            "trolley_shuffled_in": observation["trolley_shuffled_in"],
            "discard_cap": observation["discard_cap"],
        }
    )
    state = ElevensesForOneState(GAME, options)
    state.seed = seed
    state.pantry = [slot["card"] for slot in observation["pantry"]]
    state.face_up = [bool(slot["face_up"]) for slot in observation["pantry"]]
    state.trolley = list(observation["trolley"])
    state.discards = list(observation["discards"])
    state.discards_made = observation["discards_made"]
    state.minutes = observation["minutes"]
    state.step = observation["step"]
    state.current = -1 if observation["current"] is None else observation["current"]
    state.next_index = observation["next_index"]
    effect = observation["effect"]
    if effect is not None:
        state.effect_card = effect["card"]
        state.effect_by = effect["by"]
    state.shuffles = observation["shuffles"]
    state.stalled_passes = observation["stalled_passes"]
    state.clock_moved = observation["clock_moved_this_pass"]
    if observation["over"]:
        state.ended = ENDED_WON if observation["won"] else ENDED_TIME
    return state
