"""The legal actions of each decision, read off the state (the state's ``_legal_actions`` dispatches here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core import Action
from engine.elevenses.cards import BACK, CARDS_PER_SET, ELEVENSES, ELEVENSES_MIN_FACE_UP, card_json
from engine.elevenses.phases import (
    CAKES_SWAP,
    CHOOSE_PLAYER,
    MILK_SWAP,
    SANDWICHES_DRAW,
    SANDWICHES_KEEP,
    SET_ASIDE,
    TEA_FLIP,
    TURN,
)

if TYPE_CHECKING:
    from engine.elevenses.state import ElevensesState

_E = ELEVENSES - 1  # card % 11 of an Elevenses card


def own_move_actions(state: ElevensesState, phase: int, s: int) -> list[Action]:
    """A turn: play a card (on a turn only), arrange one, or pass; an arrange that goes on: arrange or stop."""
    kitchen = state.kitchen[s]
    up = state.up[s]
    actions: list[Action] = play_actions(state, s) if phase == TURN else []
    downs = [p for p in range(2, 10) if not up[p]]
    for c in kitchen:
        cj = [c % CARDS_PER_SET + 1, c // CARDS_PER_SET]
        for p in downs:
            actions.append({"type": "arrange", "card": cj, "position": p})
    actions.append({"type": "pass"} if phase == TURN else {"type": "stop"})
    return actions


def play_actions(state: ElevensesState, s: int) -> list[Action]:
    """The kitchen cards seat ``s`` may play: not a copy of a face-up card, the Elevenses only once enough are up."""
    up = state.up[s]
    actions: list[Action] = []
    for c in state.kitchen[s]:
        number = c % CARDS_PER_SET + 1
        if number <= 10:
            if up[number]:
                continue  # "may not play a morning tea card if another copy ... is face-up"
        elif state.up_count[s] < ELEVENSES_MIN_FACE_UP:
            continue
        actions.append({"type": "play", "card": [number, c // CARDS_PER_SET]})
    return actions


def tea_actions(state: ElevensesState) -> list[Action]:
    s, n = state.actor, state.num_players
    return [
        {"type": "tea", "seat": t, "position": p}
        for t in ((s + i) % n for i in range(1, n))
        for p in range(2, 10)
        if state.up[t][p]
    ]


def choose_player_actions(state: ElevensesState) -> list[Action]:
    s, n = state.actor, state.num_players
    return [{"type": "choose_player", "seat": (s + i) % n} for i in range(1, n)]


def swap_actions(state: ElevensesState) -> list[Action]:
    owner = state.target if state.phase == MILK_SWAP else state.player
    takes = [card_json(c) for c in state.kitchen[owner] if c % CARDS_PER_SET != _E]
    gives = [card_json(g) for g in state.kitchen[state.actor] if g % CARDS_PER_SET != _E]
    return [{"type": "no_swap"}] + [{"type": "swap", "take": t, "give": g} for t in takes for g in gives]


def sandwiches_draw_actions(state: ElevensesState) -> list[Action]:
    return [{"type": "draw", "back": b} for b in sorted({BACK[c] for c in state.kitchen[state.player]})]


def sandwiches_keep_actions(state: ElevensesState) -> list[Action]:
    actions: list[Action] = [{"type": "return"}]
    if state.transit % CARDS_PER_SET != _E:  # "An Elevenses card may never be taken!"
        actions.extend(
            {"type": "keep", "give": card_json(g)} for g in state.kitchen[state.actor] if g % CARDS_PER_SET != _E
        )
    return actions


def set_aside_actions(state: ElevensesState) -> list[Action]:
    return [{"type": "set_aside", "card": card_json(c)} for c in state.kitchen[state.actor] if c % CARDS_PER_SET != _E]


LEGAL_ACTIONS_BY_PHASE: dict[int, Callable[[ElevensesState], list[Action]]] = {
    TEA_FLIP: tea_actions,
    CHOOSE_PLAYER: choose_player_actions,
    MILK_SWAP: swap_actions,
    CAKES_SWAP: swap_actions,
    SANDWICHES_DRAW: sandwiches_draw_actions,
    SANDWICHES_KEEP: sandwiches_keep_actions,
    SET_ASIDE: set_aside_actions,
}
"""The legal actions of each decision that is not a seat's own turn or arrange."""
