"""A full Elfer raus! state rebuilt from what one seat observes: the look-ahead worlds of a search bot."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from typing import Any

from engine.elfer_raus.cards import COLOUR_INDEX, deck_cards, parse_card
from engine.elfer_raus.game import GAME
from engine.elfer_raus.state import ElferRausState, UnrecordedLog


def _deal_unseen(
    pool: list[int],
    sizes: Mapping[int, int],
    excluded: Mapping[int, Collection[int]],
    rng: random.Random,
) -> dict[int, list[int]] | None:
    """Share ``pool`` out to the places (seats, and ``-1`` for the pack) in ``sizes``, at random,
    never giving a seat a card it is known not to hold; ``None`` if the draw got stuck."""
    room = dict(sizes)
    shares: dict[int, list[int]] = {place: [] for place in sizes}
    free: list[int] = []
    constrained: list[tuple[int, list[int]]] = []
    for card in pool:
        allowed = [place for place in sizes if place < 0 or card not in excluded.get(place, ())]
        if len(allowed) == len(sizes):
            free.append(card)
        else:
            constrained.append((card, allowed))
    rng.shuffle(constrained)
    constrained.sort(key=lambda item: len(item[1]))
    for card, allowed in constrained:
        open_places = [place for place in allowed if room[place] > 0]
        if not open_places:
            return None
        place = rng.choices(open_places, weights=[room[p] for p in open_places])[0]
        shares[place].append(card)
        room[place] -= 1
    rng.shuffle(free)
    start = 0
    for place in sorted(sizes):
        shares[place].extend(free[start : start + room[place]])
        start += room[place]
    return shares


def state_from_observation(
    observation: Mapping[str, Any],
    options: Mapping[str, Any],
    rng: random.Random,
    excluded: Mapping[int, Collection[int]] | None = None,
) -> ElferRausState:
    """A state the observing seat cannot tell apart from the one that gave ``observation``.

    The seat's hand, the rows, every hand size, the pack size, the totals and the
    turn are kept; the other hands and the pack are redrawn from the cards the
    seat has not seen. ``excluded`` maps a seat to cards it is known not to hold
    (e.g. the cards that fitted when it had to draw): they are dealt elsewhere
    when the draw allows it, else the constraint is dropped. A card another seat
    has just drawn and may still lay is drawn among the unseen cards that fit.
    Later rounds are dealt from a fresh seed. Events are not recorded: the state
    is for looking ahead.
    """
    validated = GAME.validate_options(options)
    seat: int = observation["seat"]
    n: int = observation["num_players"]
    first_dealer = (observation["dealer"] - observation["round"] + 1) % n
    state = ElferRausState.blank(GAME, n, rng.getrandbits(63), validated, first_dealer=first_dealer)
    state.log = UnrecordedLog(n)
    _restore_public(state, observation)
    own = {parse_card(card) for card in observation["hand"]}
    state.hands[seat] = own
    unseen = [card for card in deck_cards(validated["without_blues"]) if card not in own and not state.on_table(card)]
    sizes = {other: observation["hand_sizes"][other] for other in range(n) if other != seat}
    sizes[-1] = observation["pack_size"]
    turn = observation["turn"]
    pending_holder = state.current if turn["awaiting_drawn_card"] and state.current != seat else None
    kept = -1
    if turn["awaiting_drawn_card"]:
        kept = _drawn_card(state, turn, pending_holder, unseen, sizes, rng)
    shares = _deal_respecting(unseen, sizes, excluded, rng)
    for other in sizes:
        if other >= 0:
            state.hands[other] = set(shares[other])
    pack = shares[-1]
    rng.shuffle(pack)
    state.pack = pack
    if kept >= 0:
        if pending_holder is not None:
            state.hands[pending_holder].add(kept)
        state.pending_draw = kept
    return state


def _restore_public(state: ElferRausState, observation: Mapping[str, Any]) -> None:
    """Copy what every seat sees (round, dealer, totals, rows, the turn so far) from ``observation`` into ``state``."""
    state.round = observation["round"]
    state.dealer = observation["dealer"]
    state.starter = observation["starter"]
    state.totals = list(observation["totals"])
    state.round_points = [list(points) for points in observation["round_points"]]
    state.round_winners = [None] * len(state.round_points)
    state.over = observation["over"]
    state.current = observation["current_player"]
    for colour_name, ends in observation["rows"].items():
        if ends:
            colour = COLOUR_INDEX[colour_name]
            state.low[colour], state.high[colour] = ends
    turn = observation["turn"]
    state.played_this_turn = turn["played"]
    state.drawn_this_turn = turn["drawn"]


def _drawn_card(
    state: ElferRausState,
    turn: Mapping[str, Any],
    pending_holder: int | None,
    unseen: list[int],
    sizes: dict[int, int],
    rng: random.Random,
) -> int:
    """The matching card just drawn and not yet laid: the observer's own (shown to it), or another seat's,
    drawn among the unseen cards that fit and taken out of what is left to deal."""
    if pending_holder is None:
        return parse_card(turn["drawn_card"])
    kept = rng.choice(sorted(card for card in unseen if state.fits(card)))
    unseen.remove(kept)
    sizes[pending_holder] -= 1
    return kept


def _deal_respecting(
    unseen: list[int],
    sizes: Mapping[int, int],
    excluded: Mapping[int, Collection[int]] | None,
    rng: random.Random,
) -> dict[int, list[int]]:
    """The unseen cards shared out, keeping ``excluded`` cards away from their seats if 20 tries manage it."""
    for _ in range(20 if excluded else 1):
        shares = _deal_unseen(unseen, sizes, excluded or {}, rng)
        if shares is not None:
            return shares
    shares = _deal_unseen(unseen, sizes, {}, rng)
    assert shares is not None
    return shares
