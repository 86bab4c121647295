"""Elevenses: what each seat may see, resampling, and card conservation.

"Each player's kitchen is kept secret from the other players (unless a special action
requires it to be revealed)"; card backs are public ("it will now be recognisable due to its
different-coloured back"); Sugar shows its owner's face-down cards; Milk, Cakes and
Sandwiches show cards to one seat only; Servants and a revealed Elevenses to all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.elevenses import GAME, ElevensesState, state_from_observation
from engine.elevenses.cards import BACK, ELEVENSES, NUMBER, card_id
from engine.elevenses.phases import SET_ASIDE
from tests.engine.elevenses_helpers import ELEVEN, MILK, TEA, C, check_conservation, position

OPTION_SETS = [{}, {"special_guests": True}, {"edition": "fr"}]


def random_states(count: int, seed: int = 0) -> Iterator[ElevensesState]:
    """Many states from random playouts over player counts and options."""
    rng = random.Random(seed)
    produced = 0
    game_seed = 0
    while produced < count:
        n = rng.choice([2, 3, 4])
        state = GAME.new_state(n, game_seed, rng.choice(OPTION_SETS))
        game_seed += 1
        while not state.is_over() and produced < count:
            yield state
            produced += 1
            state.apply(rng.choice(state.legal_actions()))


def visible_cards(state: ElevensesState, seat: int) -> set[int]:
    """The cards ``seat`` may see now, from the rules (not from the observation)."""
    n = state.num_players
    seen = set(state.kitchen[seat])
    for s in range(n):
        for p in range(1, 11):
            c = state.card_at[s][p]
            if c >= 0 and (state.up[s][p] or (s == seat and state.up[seat][4])):
                seen.add(c)
    phase = state.phase
    if phase == 4 and seat == state.player:  # Milk: the chooser looks at the target's kitchen
        seen.update(state.kitchen[state.target])
    if phase == 5 and seat == state.target:  # Cakes: the chosen player looks at the player's kitchen
        seen.update(state.kitchen[state.player])
    if phase == 7 and seat in (state.player, state.target):
        seen.add(state.transit)
    if phase == SET_ASIDE:
        for j in state.pass_skipped:
            seen.add(card_id(ELEVENSES, j))
    if state.centre >= 0:
        seen.add(state.centre)
    return seen


def cards_in(obs: Any) -> Iterator[list[int]]:
    """Every card identity written in an observation, events left out."""
    if isinstance(obs, dict):
        for key, value in obs.items():
            if key == "events":
                continue
            if key in ("drawn", "my_choice", "centre") and isinstance(value, list):
                yield value
            elif key in ("cards", "target_kitchen", "owner_kitchen", "face_up", "face_down_cards"):
                yield from (card for card in value if card is not None)
            else:
                yield from cards_in(value)
    elif isinstance(obs, list):
        for item in obs:
            yield from cards_in(item)


def test_observation_shows_only_backs_of_hidden_cards():
    """Other kitchens and face-down cards show their backs only; one's own kitchen is known."""
    state = GAME.new_state(3, 4)
    obs = state.observation(1)
    assert obs["kitchens"][1]["cards"] == [[c % 11 + 1, c // 11] for c in state.kitchen[1]]
    assert obs["kitchens"][0] == {"backs": [0, 0, 0]}
    assert obs["spreads"][0] == {"face_up": [], "face_down": [None, 0, 0, 0, 0, 0, 0, 0, 0, None]}


def test_no_observation_names_a_card_its_seat_cannot_see():
    """Over many random states, every card an observation names is one the rules let the seat see."""
    for state in random_states(3000, seed=1):
        for seat in range(state.num_players):
            allowed = visible_cards(state, seat)
            for card in cards_in(state.observation(seat)):
                assert card_id(*card) in allowed, f"seat {seat} is shown {card}\n{state.render()}"


PRIVATE_EVENT_WITNESSES = {
    "picked_up": lambda e: {e["seat"]},
    "milk_look": lambda e: {e["seat"]},
    "cakes_look": lambda e: {e["seat"]},
    "received": lambda e: {e["seat"]},
    "sandwiches_return": lambda e: {e["seat"], e["owner"]},
    "sandwiches_keep": lambda e: {e["seat"], e["owner"]},
}


def test_events_naming_hidden_cards_reach_only_the_seats_that_saw_them():
    """ "Keep this swap secret from all other players." and "without anyone seeing": an event that
    names a hidden card is witnessed only by the seats the rules let see it."""
    checked = 0
    rng = random.Random(5)
    for seed in range(40):
        state = GAME.new_state(rng.choice([3, 4]), seed, rng.choice(OPTION_SETS))
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        for witnesses, event in state.log.entries:
            kind = event["type"]
            if kind in PRIVATE_EVENT_WITNESSES:
                assert witnesses == PRIVATE_EVENT_WITNESSES[kind](event), event
                checked += 1
            elif kind == "arrange" and "placed" in event:
                assert witnesses == {event["seat"]}
            elif kind == "swap" and "taken" in event:
                assert witnesses == {event["taker"], event["owner"]}
            elif kind == "sandwiches_draw" and "card" in event:
                assert witnesses == {event["seat"], event["owner"]}
            else:
                # public events name only cards everybody sees: played, flipped, shown, revealed
                names_cards = any(key in event for key in ("placed", "taken", "given", "kitchen", "card"))
                if names_cards and kind not in ("play", "tea", "servants", "reveal_elevenses"):
                    raise AssertionError(f"public event names a card: {event}")
    assert checked > 100


def test_resampling_keeps_what_the_seat_sees_and_redraws_the_rest():
    """resample_hidden redraws opponents' kitchens and face-down cards, keeping backs."""
    state = GAME.new_state(3, 8)
    differences = 0
    rng = random.Random(0)
    for _ in range(20):
        twin = state.resample_hidden(0, rng)
        assert twin.kitchen[0] == state.kitchen[0]
        assert json.dumps(twin.observation(0), sort_keys=True) == json.dumps(state.observation(0), sort_keys=True)
        for s in range(3):
            assert sorted(BACK[c] for c in twin.kitchen[s]) == sorted(BACK[c] for c in state.kitchen[s])
        differences += twin.kitchen[1] != state.kitchen[1] or twin.card_at != state.card_at
        check_conservation(twin)
    assert differences >= 15


def test_resampling_keeps_the_cards_a_special_action_shows():
    """Milk: the chooser sees the chosen kitchen while deciding; a resample keeps it."""
    state = position(
        3,
        kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)], 1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]},
    )
    state.apply({"type": "play", "card": C(MILK, 0)})
    state.apply({"type": "choose_player", "seat": 1})
    rng = random.Random(1)
    for _ in range(10):
        twin = state.resample_hidden(0, rng)
        assert twin.kitchen[1] == state.kitchen[1]
        assert twin.legal_actions() == state.legal_actions()
        other = state.resample_hidden(2, rng)
        check_conservation(other)


def test_resampling_keeps_each_elevenses_with_its_seat_and_passing_choices_legal():
    """ "You may never pass your Elevenses card!": redrawn states keep every Elevenses with its
    seat, a seat taking part in a passing keeps a card it can pass, and hidden set-aside
    choices are redrawn among passable cards."""
    rng = random.Random(2)
    seen_set_aside = 0
    for state in random_states(2500, seed=3):
        seat = rng.randrange(state.num_players)
        twin = state.resample_hidden(seat, rng)
        check_conservation(twin)
        if twin.phase == SET_ASIDE:
            seen_set_aside += 1
            for j in twin.pass_order[: twin.pass_index]:
                c = twin.pass_choice[j]
                assert c in twin.kitchen[j] and NUMBER[c] != ELEVEN
            for j in twin.pass_order:
                assert any(NUMBER[c] != ELEVEN for c in twin.kitchen[j])
    assert seen_set_aside > 10


def test_resampled_states_play_on_to_the_end():
    rng = random.Random(4)
    for index, state in enumerate(random_states(400, seed=6)):
        if index % 40:
            continue
        twin = state.resample_hidden(rng.randrange(state.num_players), rng)
        while not twin.is_over():
            twin.apply(rng.choice(twin.legal_actions()))
            check_conservation(twin)


def test_pins_place_remembered_cards():
    """A bot may pin cards it remembers (e.g. a card it arranged face down) to their places."""
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]})
    state.apply({"type": "arrange", "card": C(ELEVEN, 0), "position": 7})
    state.apply({"type": "stop"})
    obs = state.observation(0)
    rng = random.Random(3)
    pinned = {card_id(ELEVEN, 0): ("spread", 0, 7)}
    for _ in range(10):
        twin = state_from_observation(GAME, obs, rng, pinned)
        assert twin.card_at[0][7] == card_id(ELEVEN, 0)
    # a pin that contradicts the backs is ignored
    wrong = {card_id(TEA, 1): ("spread", 0, 7)}
    twin = state_from_observation(GAME, obs, rng, wrong)
    check_conservation(twin)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_card_conservation_over_thousands_of_random_states(n):
    """Every card of every set is always in exactly one place."""
    rng = random.Random(n)
    count = 0
    for seed in range(60):
        state = GAME.new_state(n, seed, rng.choice(OPTION_SETS))
        while not state.is_over():
            check_conservation(state)
            count += 1
            state.apply(rng.choice(state.legal_actions()))
        check_conservation(state)
    assert count > 5000


@pytest.mark.parametrize("ending", ["elevenses", "turn_cap", "limited_bowl"])
def test_resampling_a_finished_game(ending):
    """``resample_hidden`` holds at every state, a finished game included: the round ended by
    Elevenses ("Card 11 ... is played to the centre of the table": a visible card that used to
    be missed, raising ValueError), by the turn cap, or by an empty limited bowl. The copy is
    over, offers nothing, shows each seat the same view and has the same result."""
    from engine.testing import check_resampled
    from tests.engine.elevenses_helpers import BISCUITS, CAKES, CHINA, SANDWICHES

    spread = {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}
    options = {"sugar_bowl": "limited", "target": 11} if ending == "limited_bowl" else {}
    cubes = [4, 0, 1] if ending != "limited_bowl" else [8, 8, 8]
    state = position(
        3, kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]}, up={0: spread}, cubes=cubes, options=options
    )
    if ending == "turn_cap":
        while not state.is_over():
            state.apply({"type": "pass"})
    else:
        state.apply({"type": "play", "card": C(ELEVEN, 0)})
    assert state.is_over()
    assert (state.centre >= 0) == (ending != "turn_cap")
    check_resampled(state, random.Random(5), draws=5)
    for seat in range(3):
        twin = state.resample_hidden(seat, random.Random(seat))
        assert twin.is_over() and twin.legal_actions() == [] and twin.current_player is None
        assert twin.result() == state.result()
        assert twin.centre == state.centre
        check_conservation(twin)
