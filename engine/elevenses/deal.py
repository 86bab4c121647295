"""An Elevenses position from an explicit layout (:meth:`ElevensesGame.from_deal`), checked step by step.

Every card of every set must be somewhere exactly once, and the layout must be one the rules can reach;
the first thing wrong is named in one sentence (:class:`DealError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import DealError
from engine.elevenses.cards import BACK, CARDS_PER_SET, ELEVENSES, GUEST_COUNT, NUMBER, card_from_json
from engine.elevenses.state import ElevensesState

if TYPE_CHECKING:
    from engine.elevenses.game import ElevensesGame


class _DealtCards:
    """The cards parsed so far: each may appear once in the whole deal."""

    def __init__(self, num_sets: int) -> None:
        self.num_sets = num_sets
        self.seen: set[int] = set()

    def parse(self, value: Any) -> int:
        try:
            card = card_from_json(value, self.num_sets)
        except ValueError as error:
            raise DealError(str(error)) from None
        if card in self.seen:
            raise DealError(f"card {value!r} appears twice")
        self.seen.add(card)
        return card


def state_from_deal(game: ElevensesGame, deal: Mapping[str, Any], options: Mapping[str, Any] | None) -> ElevensesState:
    """:meth:`ElevensesGame.from_deal`: see its docstring for the layout of ``deal``."""
    validated = game.validate_options(options)
    try:
        spreads_in = list(deal["spreads"])
        kitchens_in = list(deal["kitchens"])
    except (KeyError, TypeError):
        raise DealError("a deal needs 'spreads' and 'kitchens'") from None
    n = len(spreads_in)
    game.check_num_players(n)
    if len(kitchens_in) != n:
        raise DealError(f"{n} spreads but {len(kitchens_in)} kitchens")
    state = ElevensesState(game, n, validated, int(deal.get("seed", 0)), game.guest_table(validated))
    dealt = _DealtCards(n)
    for s in range(n):
        _lay_out_seat(state, s, list(spreads_in[s]), kitchens_in[s], dealt)
    if len(dealt.seen) != n * CARDS_PER_SET:
        raise DealError(f"the deal has {len(dealt.seen)} cards, not the {n * CARDS_PER_SET} of {n} sets")
    _set_cubes(state, deal)
    player = _set_turn(state, deal)
    if state.guests_on:
        _set_guests(state, deal)
    state.begin_turn(player)
    if state.log is not None:
        state.log.add({"type": "round_start", "round": state.round, "server": state.server})
    return state


def _lay_out_seat(state: ElevensesState, s: int, layout: list[Any], kitchen_in: Any, dealt: _DealtCards) -> None:
    """Seat ``s``'s spread and kitchen, with the kitchen size its spread implies and only its own Elevenses."""
    if len(layout) == 8:
        cards = [-1] * 11
        up = [False] * 11
        for index, value in enumerate(layout):
            cards[index + 2] = dealt.parse(value)
    elif len(layout) == 10:
        cards, up = _spread_positions(s, layout, dealt)
    else:
        raise DealError(f"seat {s}: a spread is 8 face-down cards or 10 positions")
    kitchen = sorted(dealt.parse(value) for value in kitchen_in)
    state.card_at[s] = cards
    state.up[s] = up
    state.up_count[s] = sum(up)
    state.kitchen[s] = kitchen
    expected = 3 - (cards[1] >= 0) - (cards[10] >= 0)
    if len(kitchen) != expected:
        raise DealError(f"seat {s}: the kitchen must hold {expected} cards, not {len(kitchen)}")
    for c in kitchen + [cards[p] for p in range(2, 10) if not up[p]]:
        if NUMBER[c] == ELEVENSES and BACK[c] != s:
            raise DealError(f"seat {s} holds seat {BACK[c]}'s Elevenses, which never changes hands")


def _spread_positions(s: int, layout: Sequence[Any], dealt: _DealtCards) -> tuple[list[int], list[bool]]:
    """A spread written as 10 positions (1 to 10): each ``null``, ``{"up": card}`` or ``{"down": card}``."""
    cards = [-1] * 11
    up = [False] * 11
    for index, entry in enumerate(layout):
        p = index + 1
        if entry is None:
            if 2 <= p <= 9:
                raise DealError(f"seat {s}: position {p} must hold a card")
            continue
        if not isinstance(entry, Mapping) or len(entry) != 1 or ("up" not in entry and "down" not in entry):
            raise DealError(f"seat {s} position {p}: write {{'up': card}} or {{'down': card}}")
        face_up = "up" in entry
        card = dealt.parse(entry["up"] if face_up else entry["down"])
        if face_up and NUMBER[card] != p:
            raise DealError(f"seat {s}: a face-up card at position {p} must be number {p}")
        if not face_up and not 2 <= p <= 9:
            raise DealError(f"seat {s}: position {p} only takes a face-up card")
        cards[p] = card
        up[p] = face_up
    return cards, up


def _set_cubes(state: ElevensesState, deal: Mapping[str, Any]) -> None:
    """The cubes won so far: one count per seat, the bowl not empty, and no leader at the target yet."""
    n = state.num_players
    cubes = [int(c) for c in deal.get("cubes", [0] * n)]
    if len(cubes) != n or min(cubes) < 0:
        raise DealError(f"bad cubes {cubes!r}: one count of at least 0 per seat")
    if state.bowl_size is not None and sum(cubes) >= state.bowl_size:
        raise DealError(f"bad cubes {cubes!r}: a limited bowl of {state.bowl_size} would be empty, and the game over")
    top = max(cubes)
    if top >= state.target_cubes and not (state.play_on and cubes.count(top) > 1):
        raise DealError(f"bad cubes {cubes!r}: a leader at the target {state.target_cubes} means the game is over")
    state.cubes = cubes
    state.bowl = None if state.bowl_size is None else state.bowl_size - sum(cubes)


def _set_turn(state: ElevensesState, deal: Mapping[str, Any]) -> int:
    """The server, round and turn; returns the seat to play."""
    n = state.num_players
    state.server = int(deal.get("server", 0))
    state.round = int(deal.get("round", 1))
    state.turn = int(deal.get("turn", 1))
    if not 1 <= state.turn <= state.turn_cap:
        raise DealError(
            f"turn {state.turn} is not within the round's {state.turn_cap} turns (option turn_cap per seat)"
        )
    player = int(deal.get("player", state.server))
    if not (0 <= state.server < n and 0 <= player < n):
        raise DealError("server and player must be seats")
    return player


def _set_guests(state: ElevensesState, deal: Mapping[str, Any]) -> None:
    """Each seat's special guest (a different one each) and whether it was revealed."""
    n = state.num_players
    guests = [int(g) for g in deal.get("guests", range(n))]
    if len(guests) != n or len(set(guests)) != n or not all(0 <= g < GUEST_COUNT for g in guests):
        raise DealError(f"bad guests {guests!r}")
    state.guest = guests
    state.guest_shown = [bool(x) for x in deal.get("guests_revealed", [False] * n)]
