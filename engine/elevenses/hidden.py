"""Hidden information: rebuild a full state from what one seat sees.

A seat sees every face-up card, the back of every other card (backs tell the
sets apart, and a set's cards never hide under another back), its own kitchen,
its own face-down cards while its Sugar is face up, and whatever the decision in
progress shows it (the kitchen Milk or Cakes lets it look at, the card
Sandwiches drew, the Elevenses a seat revealed for Fine China or Biscuits, its
own card set aside). :func:`state_from_observation` keeps all of that and
redraws everything else among the places of matching back, subject to what the
rules guarantee:

* a seat's Elevenses never leaves it (kitchen or own face-down spread, or the
  Sandwiches player's card drawn by Sandwiches);
* a seat taking part in Fine China or Biscuits has a card other than its
  Elevenses in its kitchen, and the card it set aside is not its Elevenses.

``pinned`` lets a bot add what it remembers (card -> place); a pin that does not
fit what the seat sees is ignored for that set. The seed of the copy (future
deals and Sandwiches draws) is drawn from ``rng``, since it is hidden too.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.elevenses.cards import (
    BACK,
    CARDS_PER_SET,
    GUEST_COUNT,
    NUMBER,
    card_id,
    elevenses_of,
    is_elevenses,
)
from engine.elevenses.phases import ARRANGE, LEFT, PHASE_BY_NAME, RIGHT, SANDWICHES_KEEP, SET_ASIDE
from engine.elevenses.state import ElevensesState

if TYPE_CHECKING:
    from engine.elevenses.game import ElevensesGame

Place = tuple[Any, ...]
"""Where a card is: ``("kitchen", seat)``, ``("spread", seat, position)`` or ``("drawn",)``."""


def _card(value: list[int]) -> int:
    return card_id(value[0], value[1])


def state_from_observation(
    game: ElevensesGame,
    obs: Mapping[str, Any],
    rng: random.Random,
    pinned: Mapping[int, Place] | None = None,
    *,
    record_events: bool = True,
) -> ElevensesState:
    """A state the observing seat cannot tell apart from the true one, hidden cards redrawn."""
    seat: int = obs["seat"]
    n: int = obs["num_players"]
    options = game.validate_options(obs["options"])
    state = ElevensesState(
        game, n, options, rng.getrandbits(63), game.guest_table(options), record_events=record_events
    )
    _restore_public(state, obs)
    phase = obs["phase"]
    visible = [False] * (n * CARDS_PER_SET)
    slots_by_set: list[list[Place]] = [[] for _ in range(n)]  # hidden places, one entry per card
    _read_spreads(state, obs, visible, slots_by_set)
    _read_kitchens(state, obs, visible, slots_by_set)
    one_card_participants = _restore_passing(state, obs) if state.phase == SET_ASIDE else set()
    _redraw_sets(state, seat, visible, slots_by_set, one_card_participants, rng, pinned)
    if state.phase == SET_ASIDE:
        _redraw_pass_choices(state, seat, phase, rng)
    if state.guests_on:
        _redraw_guests(state, obs, seat, rng)
    if state.log is not None:
        for event in obs["events"]:
            state.log.add(event, (seat,))
        state.log.marks = [len(state.log.entries)] * n
        state.log.marks[seat] = 0
    return state


def _restore_public(state: ElevensesState, obs: Mapping[str, Any]) -> None:
    """The score, the round and turn, and the decision in progress, as every seat sees them."""
    state.cubes = list(obs["cubes"])
    state.bowl = obs["bowl"]
    state.server = obs["server"]
    state.round = obs["round"]
    state.turn = obs["turn"]
    state.tied_rounds = obs["tied_rounds"]
    state.last_values = list(obs["last_values"])
    state.over = obs["over"]
    # a finished match shows no player and nobody to move (the engine's own sentinel is -1)
    state.player = -1 if obs["player"] is None else obs["player"]
    state.actor = -1 if obs["current_player"] is None else obs["current_player"]
    phase = obs["phase"]
    state.phase = PHASE_BY_NAME[phase["kind"]]
    state.played = phase["played"]
    state.arrange_left = phase.get("remaining", 0) if state.phase == ARRANGE else 0
    state.target = phase.get("target", -1)


def _read_spreads(
    state: ElevensesState, obs: Mapping[str, Any], visible: list[bool], slots_by_set: list[list[Place]]
) -> None:
    """Lay out the cards the seat sees in the spreads (and the centre); list each face-down place it cannot see."""
    if obs["centre"] is not None:  # the Elevenses that ended the last round (a finished match)
        state.centre = _card(obs["centre"])
        visible[state.centre] = True
    for s, spread in enumerate(obs["spreads"]):
        cards = state.card_at[s]
        up = state.up[s]
        for value in spread["face_up"]:
            c = _card(value)
            cards[NUMBER[c]] = c
            up[NUMBER[c]] = True
            visible[c] = True
        seen_down = spread.get("face_down_cards")
        for index, back in enumerate(spread["face_down"]):
            if back is None:
                continue
            p = index + 1
            if seen_down is not None:
                c = _card(seen_down[index])
                cards[p] = c
                visible[c] = True
            else:
                slots_by_set[back].append(("spread", s, p))
        state.up_count[s] = sum(up)


def _shown_kitchens(state: ElevensesState, obs: Mapping[str, Any]) -> dict[int, list[int]]:
    """The kitchens the seat sees whole: its own, one Milk or Cakes shows it, a skipped seat's lone Elevenses."""
    phase = obs["phase"]
    seat = obs["seat"]
    shown_kitchens: dict[int, list[int]] = {seat: [_card(c) for c in obs["kitchens"][seat]["cards"]]}
    if "target_kitchen" in phase:
        shown_kitchens[state.target] = [_card(c) for c in phase["target_kitchen"]]
    if "owner_kitchen" in phase:
        shown_kitchens[state.player] = [_card(c) for c in phase["owner_kitchen"]]
    for j in phase.get("skipped", ()):
        shown_kitchens[j] = [elevenses_of(j)]
    return shown_kitchens


def _read_kitchens(
    state: ElevensesState, obs: Mapping[str, Any], visible: list[bool], slots_by_set: list[list[Place]]
) -> None:
    """Fill the kitchens the seat sees; list a place per unseen kitchen card (and the card Sandwiches drew)."""
    shown_kitchens = _shown_kitchens(state, obs)
    for s in range(state.num_players):
        backs = list(obs["kitchens"][s]["backs"])
        known = shown_kitchens.get(s)
        if known:
            for c in known:
                backs.remove(BACK[c])
                visible[c] = True
            state.kitchen[s] = list(known)
        place = ("kitchen", s)
        for b in backs:
            slots_by_set[b].append(place)
    if state.phase == SANDWICHES_KEEP:
        phase = obs["phase"]
        if "drawn" in phase:
            state.transit = _card(phase["drawn"])
            visible[state.transit] = True
        else:
            slots_by_set[phase["drawn_back"]].append(("drawn",))


def _restore_passing(state: ElevensesState, obs: Mapping[str, Any]) -> set[int]:
    """The passing in progress (Fine China or Biscuits); returns the seats taking part with one card in the kitchen."""
    phase = obs["phase"]
    state.pass_order = list(phase["order"])
    state.pass_index = len(phase["chosen"])
    state.pass_skipped = list(phase["skipped"])
    state.pass_direction = LEFT if phase["direction"] == "left" else RIGHT
    return {j for j in state.pass_order if len(obs["kitchens"][j]["backs"]) == 1}


def _redraw_sets(
    state: ElevensesState,
    seat: int,
    visible: list[bool],
    slots_by_set: list[list[Place]],
    one_card_participants: set[int],
    rng: random.Random,
    pinned: Mapping[int, Place] | None,
) -> None:
    """Deal each set's unseen cards among its hidden places."""
    for card_set in range(state.num_players):
        slots = slots_by_set[card_set]
        if not slots:
            continue
        first = card_set * CARDS_PER_SET
        unknown = [c for c in range(first, first + CARDS_PER_SET) if not visible[c]]
        if len(slots) != len(unknown):
            raise ValueError(
                f"observation of seat {seat} is inconsistent: set {card_set} has {len(unknown)} unseen cards for {len(slots)} places"
            )
        for dealt_place, card in _draw_set(card_set, slots, unknown, state, one_card_participants, rng, pinned):
            kind = dealt_place[0]
            if kind == "kitchen":
                state.kitchen[dealt_place[1]].append(card)
            elif kind == "spread":
                state.card_at[dealt_place[1]][dealt_place[2]] = card
            else:
                state.transit = card
    for s in range(state.num_players):
        state.kitchen[s].sort()


def _redraw_pass_choices(state: ElevensesState, seat: int, phase: Mapping[str, Any], rng: random.Random) -> None:
    """The cards already set aside: the seat's own as shown, the others' drawn from their (redrawn) kitchens."""
    for j in phase["chosen"]:
        if j == seat:
            state.pass_choice[j] = _card(phase["my_choice"])
        else:
            choices = [c for c in state.kitchen[j] if not is_elevenses(c)]
            state.pass_choice[j] = rng.choice(choices)


def _redraw_guests(state: ElevensesState, obs: Mapping[str, Any], seat: int, rng: random.Random) -> None:
    """The guests not revealed, dealt from those the seat has not seen."""
    known_guests = {s: g for s, g in enumerate(obs["guests"]) if g is not None}
    known_guests[seat] = obs["my_guest"]
    pool = [g for g in range(GUEST_COUNT) if g not in known_guests.values()]
    rng.shuffle(pool)
    for s in range(state.num_players):
        state.guest[s] = known_guests[s] if s in known_guests else pool.pop()
        state.guest_shown[s] = obs["guests"][s] is not None


def _draw_set(
    card_set: int,
    slots: list[Place],
    unknown: list[int],
    state: ElevensesState,
    one_card_participants: set[int],
    rng: random.Random,
    pinned: Mapping[int, Place] | None,
) -> list[tuple[Place, int]]:
    """Deal ``unknown`` cards of one set to ``slots`` (places of that back), at random,
    keeping the Elevenses where the rules allow it and honouring fitting pins."""
    if pinned:
        result = _try_draw(card_set, list(slots), list(unknown), state, one_card_participants, rng, pinned)
        if result is not None:
            return result
    result = _try_draw(card_set, list(slots), list(unknown), state, one_card_participants, rng, None)
    if result is None:
        raise ValueError(f"no place for the Elevenses of set {card_set}")
    return result


def _try_draw(
    card_set: int,
    slots: list[Place],
    unknown: list[int],
    state: ElevensesState,
    one_card_participants: set[int],
    rng: random.Random,
    pinned: Mapping[int, Place] | None,
) -> list[tuple[Place, int]] | None:
    result = _pin(slots, unknown, pinned) if pinned else []
    if result is None:
        return None  # a pin contradicts what the seat sees now
    eleven = elevenses_of(card_set)
    if eleven in unknown:
        allowed = [place for place in slots if _elevenses_place_ok(place, card_set, state, one_card_participants)]
        if not allowed:
            return None
        place = rng.choice(allowed)
        slots.remove(place)
        unknown.remove(eleven)
        result.append((place, eleven))
    elif any(
        card == eleven and not _elevenses_place_ok(place, card_set, state, one_card_participants)
        for place, card in result
    ):
        return None
    rng.shuffle(unknown)
    result.extend(zip(slots, unknown))
    return result


def _pin(slots: list[Place], unknown: list[int], pinned: Mapping[int, Place]) -> list[tuple[Place, int]] | None:
    """Put each pinned unknown card in its place (taking both out of ``slots`` and ``unknown``);
    ``None`` when a pin names a place that is not a hidden place of this set."""
    result: list[tuple[Place, int]] = []
    for card in list(unknown):
        place = pinned.get(card)
        if place is None:
            continue
        place = tuple(place)
        if place not in slots:
            return None
        slots.remove(place)
        unknown.remove(card)
        result.append((place, card))
    return result


def _elevenses_place_ok(place: Place, card_set: int, state: ElevensesState, one_card_participants: set[int]) -> bool:
    if place[0] == "spread":
        return place[1] == card_set
    if place[0] == "kitchen":
        return place[1] == card_set and card_set not in one_card_participants
    return state.player == card_set


def sugar_visible(obs: Mapping[str, Any]) -> bool:
    """Whether the observing seat's Sugar is face up (it then sees its face-down cards)."""
    return "face_down_cards" in obs["spreads"][obs["seat"]]
