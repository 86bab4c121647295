"""Helpers for the Bowling Solitaire tests: the deals used, bowling a card, playing a strike or the sample spare."""

from __future__ import annotations

from typing import Any

from engine.bowling_solitaire import (
    GAME,
    BowlingSolitaireState,
)

# ---------------------------------------------------------------------------
# Deals used below
# ---------------------------------------------------------------------------

SAMPLE_FRAME: dict[str, Any] = {
    # Reconstructed from "A SAMPLE FRAME": H=1 and F=9 go to a 0; A, B, C are 2, 7, 1;
    # B, C, D are 7, 1, 7; E is "the other 2"; G, I, J are 5, 8, 6. The left pile shows
    # 0, then 5, then 8, then 3, then 6; the centre pile 0 then 3 (its last card, never
    # seen, is the 9 left over); the right pile 4 then 4 ("exhausting that pile").
    "pins": {"A": 2, "B": 7, "C": 1, "D": 7, "E": 2, "F": 9, "G": 5, "H": 1, "I": 8, "J": 6},
    "piles": [[0, 5, 8, 3, 6], [0, 3, 9], [4, 4]],
}

# Pins 0-9 placed so that every ball card takes its own number, in an order that is
# always adjacent to a pin already down: J, H, I, E, F from the left pile, G, A, B from
# the centre pile, C, D from the right pile.
STRIKE_RACK: dict[str, Any] = {
    "pins": {"J": 0, "H": 1, "I": 2, "E": 3, "F": 4, "G": 5, "A": 6, "B": 7, "C": 8, "D": 9},
    "piles": [[0, 1, 2, 3, 4], [5, 6, 7], [8, 9]],
}
STRIKE_PLAYS: list[tuple[int, str]] = [
    (0, "J"),
    (0, "H"),
    (0, "I"),
    (0, "E"),
    (0, "F"),
    (1, "G"),
    (1, "A"),
    (1, "B"),
    (2, "C"),
    (2, "D"),
]

SAMPLE_FIRST_BALL: list[dict[str, Any]] = [
    {"type": "bowl", "pile": 0, "pins": ["F", "H"]},
    {"type": "bowl", "pile": 0, "pins": ["B", "C", "D"]},
    {"type": "bowl", "pile": 2, "pins": ["A", "E"]},
]
SAMPLE_SECOND_BALL: list[dict[str, Any]] = [
    {"type": "bowl", "pile": 0, "pins": ["G", "I"]},
    {"type": "bowl", "pile": 0, "pins": ["J"]},
]
STOP = {"type": "stop"}


def bowl(pile: int, *pins: str) -> dict[str, Any]:
    return {"type": "bowl", "pile": pile, "pins": sorted(pins)}


def play_strike(state: BowlingSolitaireState) -> None:
    for pile, pin in STRIKE_PLAYS:
        state.apply(bowl(pile, pin))


def play_sample_spare(state: BowlingSolitaireState) -> None:
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(STOP)
    for action in SAMPLE_SECOND_BALL:
        state.apply(action)


def deal(rack: dict[str, Any], **extra: Any) -> BowlingSolitaireState:
    return GAME.from_deal({**rack, **extra})
