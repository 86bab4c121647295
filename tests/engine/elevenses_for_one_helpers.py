"""Helpers for the Elevenses for One tests: deals, playing actions, reading the row and the events."""

from __future__ import annotations

from typing import Any

from engine.elevenses_for_one import (
    GAME,
    ElevensesForOneState,
)


def deal(options: dict[str, Any] | None = None, **layout: Any) -> ElevensesForOneState:
    return GAME.from_deal(layout, options)


def play(state: ElevensesForOneState, *actions: dict[str, Any]) -> ElevensesForOneState:
    for action in actions:
        state.apply(action)
    return state


def types(state: ElevensesForOneState) -> list[str]:
    return [action["type"] for action in state.legal_actions()]


def row(state: ElevensesForOneState) -> list[str]:
    """The Pantry as text: face-down cards in brackets."""
    return [str(card) if up else f"({card})" for card, up in zip(state.pantry, state.face_up)]


def events(state: ElevensesForOneState) -> list[dict[str, Any]]:
    return state.observation(0)["events"]


def current_card(state: ElevensesForOneState) -> int:
    assert state.step == "choose"
    return state.pantry[state.current]


SCORE = {"type": "score"}
USE = {"type": "use"}
DISCARD = {"type": "discard"}


def act(state: ElevensesForOneState, kind: str) -> ElevensesForOneState:
    """Score, use or discard the current card."""
    state.apply({"type": kind, "card": current_card(state)})
    return state


def full_pantry() -> list[int]:
    return [3, 4, 2, 5, 6, 7, 8, 9, 10, 11]
