"""Helpers for the Elevenses tests: build positions, find cards, check the card count."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.elevenses import GAME, ElevensesState
from engine.elevenses.cards import BACK, CARDS_PER_SET, ELEVENSES, NUMBER, card_id, card_json

TROLLEY, TEA, MILK, SUGAR, CUPS, CHINA, BISCUITS, SANDWICHES, CAKES, SERVANTS, ELEVEN = range(1, 12)


def C(number: int, card_set: int) -> list[int]:
    """A card as JSON: ``[number, set]``."""
    return [number, card_set]


def position(
    n: int,
    *,
    kitchens: Mapping[int, list[list[int]]] | None = None,
    up: Mapping[int, Mapping[int, list[int]]] | None = None,
    down: Mapping[int, Mapping[int, list[int]]] | None = None,
    options: Mapping[str, Any] | None = None,
    **extra: Any,
) -> ElevensesState:
    """A legal position at the start of a turn, every card not named filled in.

    ``kitchens[seat]`` is that kitchen (its size must be 3 minus the cards at positions 1
    and 10); ``up[seat][p]`` and ``down[seat][p]`` name face-up and face-down cards.
    Unnamed cards fill the rest: each seat's own Elevenses stays with it (never with
    another seat), the others in id order.
    """
    kitchens = dict(kitchens or {})
    up = {s: dict(v) for s, v in (up or {}).items()}
    down = {s: dict(v) for s, v in (down or {}).items()}
    named = [
        card_id(*c)
        for c in (
            [c for k in kitchens.values() for c in k]
            + [c for v in up.values() for c in v.values()]
            + [c for v in down.values() for c in v.values()]
        )
    ]
    assert len(set(named)) == len(named), "a card is named twice"
    pool = [c for c in range(n * CARDS_PER_SET) if c not in named]
    spreads: list[list[Any]] = []
    kitchen_lists: list[list[list[int]]] = []
    layouts: list[list[Any]] = []
    for s in range(n):
        layout: list[Any] = [None] * 10
        for p, c in up.get(s, {}).items():
            layout[p - 1] = {"up": c}
        for p, c in down.get(s, {}).items():
            layout[p - 1] = {"down": c}
        layouts.append(layout)
    # each seat's own Elevenses first, into its own empty places
    for s in range(n):
        eleven = card_id(ELEVENSES, s)
        if eleven not in pool:
            continue
        pool.remove(eleven)
        free = [p for p in range(2, 10) if layouts[s][p - 1] is None]
        if s not in kitchens:
            kitchens[s] = [card_json(eleven)]
        elif free:
            layouts[s][free[0] - 1] = {"down": card_json(eleven)}
        else:
            raise AssertionError(f"no room for seat {s}'s Elevenses")
    pool = [c for c in pool if NUMBER[c] != ELEVENSES]
    for s in range(n):
        for p in range(2, 10):
            if layouts[s][p - 1] is None:
                layouts[s][p - 1] = {"down": card_json(pool.pop(0))}
        size = 3 - (layouts[s][0] is not None) - (layouts[s][9] is not None)
        kitchen = list(kitchens.get(s, []))
        while len(kitchen) < size:
            kitchen.append(card_json(pool.pop(0)))
        kitchen_lists.append(kitchen)
        spreads.append(layouts[s])
    assert not pool, f"cards left over: {pool}"
    return GAME.from_deal({"spreads": spreads, "kitchens": kitchen_lists, **extra}, options)


def where_is(state: ElevensesState, card: list[int]) -> tuple[Any, ...]:
    """The place of a card: ("kitchen", s), ("spread", s, p, face_up) or ("drawn",)."""
    c = card_id(*card)
    for s in range(state.num_players):
        if c in state.kitchen[s]:
            return ("kitchen", s)
        for p in range(1, 11):
            if state.card_at[s][p] == c:
                return ("spread", s, p, state.up[s][p])
    if state.transit == c:
        return ("drawn",)
    if state.centre == c:
        return ("centre",)
    raise AssertionError(f"card {card} is nowhere")


def check_conservation(state: ElevensesState) -> None:
    """Every card of every set is in exactly one place, and the places are well formed."""
    n = state.num_players
    places: list[int] = []
    for s in range(n):
        places.extend(state.kitchen[s])
        for p in range(1, 11):
            c = state.card_at[s][p]
            if c >= 0:
                places.append(c)
                if state.up[s][p]:
                    assert NUMBER[c] == p, f"face-up card {c} at position {p}"
            else:
                assert p in (1, 10) and not state.up[s][p], f"seat {s} position {p} is empty"
        assert state.up_count[s] == sum(state.up[s]), "face-up count out of step"
        assert state.kitchen[s] == sorted(state.kitchen[s]), "kitchen not kept in canonical order"
        # a seat keeps eleven cards: spread 2-9, positions 1 and 10, kitchen (and a drawn card)
        held = 8 + (state.card_at[s][1] >= 0) + (state.card_at[s][10] >= 0) + len(state.kitchen[s])
        if state.transit >= 0 and s == state.player:
            held += 1
        if state.centre >= 0 and BACK[state.centre] == s:
            held += 1
        assert held == CARDS_PER_SET, f"seat {s} holds {held} cards"
        for c in state.kitchen[s] + [state.card_at[s][p] for p in range(2, 10)]:
            if NUMBER[c] == ELEVENSES:
                assert BACK[c] == s, "an Elevenses card left its seat"
    if state.transit >= 0:
        places.append(state.transit)
    if state.centre >= 0:
        assert state.is_over() and NUMBER[state.centre] == ELEVENSES
        places.append(state.centre)
    assert sorted(places) == list(range(n * CARDS_PER_SET)), "a card is missing or doubled"


def legal_of_type(state: ElevensesState, kind: str) -> list[dict[str, Any]]:
    return [a for a in state.legal_actions() if a["type"] == kind]


def events_of(obs: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in obs["events"] if e["type"] == kind]


def play(state, card):
    state.apply({"type": "play", "card": card})


def finish_turn(state, seat: int) -> None:
    """Complete ``seat``'s turn in progress, if any, with the quietest choices (stop, no swap, return...)."""
    round_no = state.round
    quiet = ("stop", "no_swap", "return", "pass")
    while not state.is_over() and state.player == seat and state.round == round_no:
        legal = state.legal_actions()
        state.apply(next((a for a in legal if a["type"] in quiet), legal[0]))


def ending_position(n, cubes, **kw):
    """Seat 0 can play Elevenses with 8 value; the others have nothing face up."""
    return position(
        n,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}},
        cubes=cubes,
        **kw,
    )
