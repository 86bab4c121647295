"""What a seat sees (its observation) and the text rendering of a position, read off the state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.elevenses.cards import BACK, SUGAR, card_json, card_label
from engine.elevenses.phases import (
    ARRANGE,
    CAKES_SWAP,
    LEFT,
    MILK_SWAP,
    PHASE_NAMES,
    SANDWICHES_DRAW,
    SANDWICHES_KEEP,
    SET_ASIDE,
)

if TYPE_CHECKING:
    from engine.elevenses.state import ElevensesState


def seat_observation(state: ElevensesState, seat: int) -> dict[str, Any]:
    """The observation of ``seat`` (the fields are listed in :mod:`engine.elevenses.state`)."""
    n = state.num_players
    spreads = spread_views(state, seat)
    kitchens = kitchen_views(state, seat)
    guests: list[int | None] | None = None
    if state.guests_on:
        guests = [state.guest[s] if state.guest_shown[s] else None for s in range(n)]
    return {
        "options": dict(state.options),
        "target_cubes": state.target_cubes,
        "bowl_size": state.bowl_size,
        "turn_cap": state.turn_cap,
        "guest_cards": [list(g.wants) for g in state.guest_table] if state.guests_on else None,
        "round": state.round,
        "turn": state.turn,
        "player": None if state.over else state.player,
        "server": state.server,
        "cubes": list(state.cubes),
        "bowl": state.bowl,
        "centre": None if state.centre < 0 else card_json(state.centre),
        "tied_rounds": state.tied_rounds,
        "phase": phase_view(state, seat),
        "spreads": spreads,
        "kitchens": kitchens,
        "guests": guests,
        "my_guest": state.guest[seat] if state.guests_on else None,
        "values": [state.spread_value(s) for s in range(n)],
        "last_values": list(state.last_values),
        "events": state.log.since_last_decision(seat) if state.log is not None else [],
    }


def spread_views(state: ElevensesState, seat: int) -> list[dict[str, Any]]:
    """Every spread as ``seat`` sees it: face-up cards, the backs of face-down ones, and (Sugar up) its own."""
    sugar = state.up[seat][SUGAR]
    spreads: list[dict[str, Any]] = []
    for s in range(state.num_players):
        cards = state.card_at[s]
        up = state.up[s]
        spread: dict[str, Any] = {
            "face_up": [card_json(cards[p]) for p in range(1, 11) if up[p]],
            "face_down": [None if (up[p] or cards[p] < 0) else BACK[cards[p]] for p in range(1, 11)],
        }
        if s == seat and sugar:
            spread["face_down_cards"] = [None if (up[p] or cards[p] < 0) else card_json(cards[p]) for p in range(1, 11)]
        spreads.append(spread)
    return spreads


def kitchen_views(state: ElevensesState, seat: int) -> list[dict[str, Any]]:
    """Every kitchen as ``seat`` sees it: the backs, and the cards of its own."""
    kitchens: list[dict[str, Any]] = []
    for s in range(state.num_players):
        entry: dict[str, Any] = {"backs": sorted(BACK[c] for c in state.kitchen[s])}
        if s == seat:
            entry["cards"] = [card_json(c) for c in state.kitchen[s]]
        kitchens.append(entry)
    return kitchens


def phase_view(state: ElevensesState, seat: int) -> dict[str, Any]:
    """The decision in progress, with what it shows to ``seat``."""
    phase = state.phase
    view: dict[str, Any] = {"kind": PHASE_NAMES[phase], "played": state.played}
    if phase == ARRANGE:
        view["remaining"] = state.arrange_left
    elif phase in (MILK_SWAP, CAKES_SWAP, SANDWICHES_DRAW, SANDWICHES_KEEP):
        view["target"] = state.target
        if phase == MILK_SWAP and seat == state.player:
            view["target_kitchen"] = [card_json(c) for c in state.kitchen[state.target]]
        elif phase == CAKES_SWAP and seat == state.target:
            view["owner_kitchen"] = [card_json(c) for c in state.kitchen[state.player]]
        elif phase == SANDWICHES_KEEP:
            view["drawn_back"] = BACK[state.transit]
            if seat in (state.player, state.target):
                view["drawn"] = card_json(state.transit)
    elif phase == SET_ASIDE:
        view["direction"] = "left" if state.pass_direction == LEFT else "right"
        view["order"] = list(state.pass_order)
        view["chosen"] = list(state.pass_order[: state.pass_index])
        view["skipped"] = list(state.pass_skipped)
        if state.pass_choice[seat] >= 0:
            view["my_choice"] = card_json(state.pass_choice[seat])
    return view


def render_text(state: ElevensesState) -> str:
    """A position as text, every card shown (for people reading a replay or a test failure)."""
    n = state.num_players
    lines = [
        f"Elevenses ({state.edition}, target {state.target_cubes}) round {state.round} turn {state.turn}: "
        f"cubes {state.cubes}, bowl {'unlimited' if state.bowl is None else state.bowl}, server {state.server}"
    ]
    if state.over:
        lines.append(f"game over; winners {state.winners()}")
    else:
        lines.append(f"seat {state.actor} decides ({PHASE_NAMES[state.phase]}), turn of seat {state.player}")
    for s in range(n):
        cells = []
        for p in range(1, 11):
            c = state.card_at[s][p]
            if c < 0:
                cells.append(f"{p}:-")
            else:
                cells.append(f"{p}:{card_label(c)}" + ("" if state.up[s][p] else "(down)"))
        guest = ""
        if state.guest[s] >= 0:
            guest = f" guest {state.guest_table[state.guest[s]].name}{' (revealed)' if state.guest_shown[s] else ''}"
        lines.append(f"seat {s} value {state.spread_value(s)}{guest}")
        lines.append("  spread: " + " ".join(cells))
        lines.append("  kitchen: " + ", ".join(card_label(c) for c in state.kitchen[s]))
    if state.transit >= 0:
        lines.append(f"drawn by Sandwiches: {card_label(state.transit)}")
    return "\n".join(lines)
