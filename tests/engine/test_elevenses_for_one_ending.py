"""Rule tests for Elevenses for One: the end, the rating bands, the caps and what the player sees, each quoting the rulebook.

Sources: /work/shared/rules/elevenses-for-one-v1.1.txt (v1.1) and the first half
of elevenses-for-one-and-bowling-solitaire.txt. Interpretations are recorded in
docs/rules-decisions.md (elevenses-for-one) with the name of the test that checks them.
"""

from __future__ import annotations

import json
import random

import pytest

from engine import DealError, IllegalActionError
from engine.elevenses_for_one import (
    GAME,
    STALL_LIMIT,
    rating_band,
    state_from_observation,
)
from engine.testing import random_playout
from tests.engine.elevenses_for_one_helpers import act, deal, full_pantry, play, row

# ---- the end ---------------------------------------------------------------------------------


def test_timer_at_zero_loses() -> None:
    """ "If the timer gets to zero and you have not placed all the cards in order on the Tea Trolley, you lose
    the game". Score: top card + minutes remaining = 3 + 0."""
    state = deal(trolley=[1, 2, 3], pantry=[11, 4, 5, 6, 7, 8, 9, 10], minutes=1, cursor=0)
    act(state, "use")
    assert state.is_over() and not state.won
    assert state.legal_actions() == [] and state.current_player is None
    result = state.result()
    assert result.scores == (3.0,)
    assert result.details["band"] == ["You're fired!"]
    assert result.details["won"] == [False]
    with pytest.raises(IllegalActionError):
        state.apply({"type": "use", "card": 4})


def test_move_to_front_with_the_last_minute_loses() -> None:
    state = deal(pantry=full_pantry(), minutes=1)
    play(state, {"type": "to_front", "card": 2})
    assert state.is_over() and not state.won and state.result().scores == (1.0,)


@pytest.mark.parametrize(
    ("points", "band"),
    [
        (0, "You're fired!"),
        (7, "You're fired!"),
        (8, "The Madam is disappointed"),
        (10, "The Madam is disappointed"),
        (11, "Performed as expected"),
        (12, "Half-day off"),
        (13, "Half-day off"),
        (14, "Wages raised"),
        (15, "Wages raised"),
        (16, "Wages raised"),
    ],
)
def test_rating_bands(points: int, band: str) -> None:
    """ "0-7 points: You're fired! 8-10 points: The Madam is disappointed. 11 points: You have performed as
    expected 12-13 points: ... half-day off. 14-15 points: ... Lady Agatha raises your wages." Decision: 16,
    a perfect game, is in the top band."""
    assert rating_band(points).name == band


def test_the_eleven_point_band_is_never_awarded() -> None:
    """ "11 points: You have performed as expected" with "Number displayed on the top card on the Tea
    Trolley + Number of minutes remaining": a loss scores at most 10 and a win at least 12 (decision 25).
    Checked over random and greedy play with every option, and listed with its reason."""
    seen: set[int] = set()
    for options in ({}, {"trolley_shuffled_in": True}, {"minutes": 3}, {"discard_cap": "pile"}):
        for seed in range(150):
            state = GAME.new_state(1, seed, options)
            rng = random.Random(seed)
            while not state.is_over():
                legal = state.legal_actions()
                scores = [action for action in legal if action["type"] in ("score", "score_discard")]
                state.apply(scores[0] if scores and rng.random() < 0.9 else rng.choice(legal))
            points = int(state.result().scores[0])
            assert points != 11
            assert points >= 12 if state.won else points <= 10
            seen.add(points)
    assert len(seen) > 3
    (band,) = [value for value in GAME.detail_values("band") if value.value == "Performed as expected"]
    assert "never awarded" in band.note


def test_walk_through_a_winning_game() -> None:
    """A whole game replayed from an explicit layout, minute by minute (the rulebook has no worked example):
    15 -> 2 (14) -> 3 (13) -> Sugar 4 (11) -> 5 (10) -> Fine China 6 (9, reshuffle) -> Biscuits 7 (8)
    -> Sandwiches 8 (7) -> 10 used (6) -> 11 discarded (6) -> Cakes 9 (5) -> 10 (4, 11 returns) -> 11 wins."""
    state = deal(pantry=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], shuffles=[[7, 8, 9, 11, 10], [10]])
    play(state, {"type": "keep_order"})
    act(state, "score")
    play(state, {"type": "flip", "cards": [11]})  # Tea
    assert state.minutes == 14
    act(state, "score")
    play(state, {"type": "flip", "cards": [9, 10]})  # Milk
    assert state.minutes == 13
    act(state, "score")  # Sugar
    assert state.minutes == 11
    act(state, "score")  # Cups & Saucers
    assert state.minutes == 10
    act(state, "score")  # Fine China: all back face up, reshuffled
    assert state.pantry == [7, 8, 9, 11, 10] and all(state.face_up) and state.minutes == 9
    play(state, {"type": "keep_order"})
    act(state, "score")  # Biscuits
    play(state, {"type": "swap", "cards": [10, 11]})
    assert state.pantry == [8, 9, 10, 11] and state.minutes == 8
    act(state, "score")  # Sandwiches: 9 goes to the end; 10 is then used at once (nothing to return)
    assert row(state) == ["(10)", "11", "9"] and state.minutes == 6
    act(state, "discard")  # 11 aside for later
    assert state.discards == [11] and state.minutes == 6
    act(state, "score")  # Cakes, the last card: nothing to flip; end of the Pantry: shuffle [10]
    assert state.minutes == 5 and state.pantry == [10] and state.step == "choose"
    act(state, "score")  # Servants brings 11 back
    assert state.minutes == 4 and state.pantry == [11]
    act(state, "score")
    assert state.won
    result = state.result()
    assert result.scores == (15.0,)
    assert result.details["band"] == ["Wages raised"]
    assert result.details["minutes_left"] == [4]


# ---- decisions: the caps that make every match end -------------------------------------------


def test_an_empty_pantry_is_a_loss() -> None:
    """Decision: with no card left in the Pantry (the rest discarded), nothing can ever be scored: the game is
    lost at once and the clock runs out."""
    state = deal(trolley=list(range(1, 11)), pantry=[11], cursor=0, minutes=9)
    act(state, "discard")
    assert state.is_over() and not state.won and state.ended == "stuck"
    assert state.minutes == 0 and state.result().scores == (10.0,)


def test_passes_where_the_clock_never_moves_are_capped() -> None:
    """Decision (the cap): Servants returns for free and discarding is free, so a player could pass through the
    Pantry forever (with ``discard_cap="pile"``); the fifth pass in a row in which the clock never moved
    ends the game as a loss."""
    state = deal(
        {"discard_cap": "pile"}, trolley=list(range(1, 8)), discards=[8, 9, 11], pantry=[10], cursor=0, minutes=9
    )
    passes = 0
    while not state.is_over():
        assert state.step == "servants_return"
        play(state, {"type": "return", "card": 8})
        assert state.minutes == 9
        act(state, "discard")  # 8 could be scored; discarded instead
        passes += 1
    assert passes == STALL_LIMIT
    assert state.ended == "stalled" and state.minutes == 0
    assert state.result().scores == (7.0,)


def test_a_pass_that_moves_the_clock_resets_the_stall_count() -> None:
    state = deal(
        {"discard_cap": "pile"}, trolley=list(range(1, 8)), discards=[8, 9, 11], pantry=[10], cursor=0, minutes=9
    )
    for _ in range(STALL_LIMIT - 1):
        play(state, {"type": "return", "card": 8})
        act(state, "discard")
    assert state.stalled_passes == STALL_LIMIT - 1
    play(state, {"type": "decline"})  # a minute lost
    assert state.stalled_passes == 0 and not state.is_over()


def test_max_actions_bounds_long_and_looping_play() -> None:
    """Random players and a player who prefers free actions (keep the order, discard, return) stay under the
    declared bound."""
    preference = {
        "keep_order": 0,
        "discard": 1,
        "return": 2,
        "decline": 3,
        "score_discard": 4,
        "flip": 5,
        "swap": 5,
        "use": 6,
        "score": 7,
        "to_front": 8,
    }
    for options in ({}, {"trolley_shuffled_in": True}):
        cap = GAME.max_actions(1, GAME.validate_options(options))
        for seed in range(150):
            rng = random.Random(seed)
            state = GAME.new_state(1, seed, options)
            count = 0
            while not state.is_over():
                legal = state.legal_actions()
                best = min(preference[action["type"]] for action in legal)
                state.apply(rng.choice([action for action in legal if preference[action["type"]] == best]))
                count += 1
            assert count <= cap
            random_playout(GAME.new_state(1, seed, options), rng, cap)


# ---- information ----------------------------------------------------------------------------


def test_observation_shows_face_down_cards_the_player_turned() -> None:
    """Decision: every card is laid face up and turned face down in place by the player, so its place is known."""
    state = deal(pantry=[11, 4, 3, 2, 5, 6, 7, 8, 9, 10], face_down=[4], cursor=0)
    obs = state.observation(0)
    assert obs["pantry"][1] == {"card": 4, "face_up": False}
    assert obs["current"] == 0 and obs["current_card"] == 11
    assert obs["minutes"] == 15 and obs["trolley"] == [1] and obs["discards"] == []
    assert json.loads(json.dumps(obs)) == obs


def test_resample_hidden_redraws_only_future_shuffles() -> None:
    state = deal(trolley=[1, 2, 3, 4, 5], pantry=[9, 8, 7, 6, 10, 11], face_down=[8, 7, 6, 10, 11], cursor=0, seed=3)
    rng = random.Random(1)
    orders = set()
    for _ in range(8):
        twin = state.resample_hidden(0, rng)
        assert twin.observation(0) == state.observation(0)
        act(twin, "use")
        orders.add(tuple(twin.pantry))
    assert len(orders) > 1
    assert state.pantry == [9, 8, 7, 6, 10, 11]  # the original is untouched


def test_state_from_observation_rebuilds_an_equivalent_state() -> None:
    for seed in range(30):
        state = GAME.new_state(1, seed)
        rng = random.Random(seed)
        while not state.is_over():
            obs = state.observation(0)
            twin = state_from_observation(obs, seed)
            mine = dict(obs, events=[])
            assert dict(twin.observation(0), events=[]) == mine
            assert twin.legal_actions() == state.legal_actions()
            state.apply(rng.choice(state.legal_actions()))


def test_from_deal_rejects_malformed_layouts() -> None:
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": [2, 3]})  # cards missing
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": [2, 3, 4, 6, 7, 8, 9, 10, 11], "discards": [5]})  # 5 is never discarded
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": [5, 6, 7, 8, 9, 10, 11], "discards": [2, 3, 4, 1]})
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": list(range(1, 12))})  # 1 in the Pantry needs the greater challenge
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": list(range(2, 12)), "cursor": 0, "face_down": [2]})
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": list(range(2, 12)), "minutes": 0})
    with pytest.raises(DealError):
        GAME.from_deal({"pantry": [3, 4, 5, 6, 7, 8, 9, 10, 11], "trolley": [1, 2], "discards": [], "face_down": [2]})


def test_clone_is_independent() -> None:
    state = deal(pantry=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    twin = state.clone()
    act(twin, "score")
    assert state.trolley == [1] and twin.trolley == [1, 2]
    assert state.legal_actions() != twin.legal_actions()
