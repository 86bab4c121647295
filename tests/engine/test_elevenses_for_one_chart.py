"""Rule tests for Elevenses for One: the set-up and the steps of the game chart, each quoting the rulebook.

Sources: /work/shared/rules/elevenses-for-one-v1.1.txt (v1.1) and the first half
of elevenses-for-one-and-bowling-solitaire.txt. Interpretations are recorded in
docs/rules-decisions.md (elevenses-for-one) with the name of the test that checks them.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import DealError, OptionError, get_game
from engine.elevenses_for_one import (
    DISCARD_LIMIT,
    GAME,
)
from engine.rng import stream
from tests.engine.elevenses_for_one_helpers import act, current_card, deal, full_pantry, play, row, types

# ---- set-up --------------------------------------------------------------------------


def test_registered() -> None:
    assert get_game("elevenses-for-one") is GAME
    assert (GAME.min_players, GAME.max_players) == (1, 1)


def test_setup_trolley_pantry_and_fifteen_minutes() -> None:
    """ "place the clock card on top of the timer card so that only the number 15 is showing."
    "place the (1) Tea Trolley card face up in front of you."
    "shuffle the remaining 10 cards (2-11) and then place them face-up in a row"."""
    state = GAME.new_state(1, 7)
    assert state.trolley == [1]
    assert sorted(state.pantry) == list(range(2, 12))
    assert all(state.face_up)
    assert state.minutes == 15
    assert state.step == "move_to_front"  # the set-up shuffle is step 1; step 2 follows


def test_deal_is_drawn_from_its_own_stream() -> None:
    """The initial shuffle comes from stream(seed, "deal")."""
    expected = list(range(2, 12))
    stream(7, "deal").shuffle(expected)
    assert GAME.new_state(1, 7).pantry == expected
    assert GAME.new_state(1, 8).pantry != expected


def test_minutes_option() -> None:
    """ "You could also try starting the game with only 14 (or fewer) minutes remaining"."""
    assert GAME.new_state(1, 0, {"minutes": 9}).minutes == 9
    with pytest.raises(OptionError):
        GAME.new_state(1, 0, {"minutes": 16})
    with pytest.raises(OptionError):
        GAME.new_state(1, 0, {"minutes": 0})


def test_greater_challenge_trolley_shuffled_in() -> None:
    """ "simply begin the game with the Tea Trolley card shuffled in with the other pantry cards"."""
    state = GAME.new_state(1, 3, {"trolley_shuffled_in": True})
    assert state.trolley == []
    assert sorted(state.pantry) == list(range(1, 12))
    assert state.top == 0
    # the 1 must be scored first, and scoring it costs a minute like any other card
    state = deal({"trolley_shuffled_in": True}, pantry=[2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11], cursor=1)
    assert types(state) == ["score", "use", "discard"]
    act(state, "score")
    assert state.trolley == [1] and state.minutes == 14
    assert current_card(state) == 3 or state.step != "choose"


def test_greater_challenge_loss_with_empty_trolley_scores_zero() -> None:
    """Score = "Number displayed on the top card on the Tea Trolley" + minutes: nothing on the trolley is 0."""
    state = deal({"trolley_shuffled_in": True, "minutes": 1}, pantry=[11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], cursor=0)
    act(state, "use")
    assert state.is_over() and not state.won
    assert state.result().scores == (0.0,)


# ---- step 2: the move to the front ---------------------------------------------------------


def test_move_to_front_costs_one_minute() -> None:
    """ "You may choose to take a single face-up Pantry card and place it first in the Pantry,
    in front of all the other Pantry cards. If you did so, lose one minute." """
    state = deal(pantry=full_pantry())
    assert state.step == "move_to_front"
    play(state, {"type": "to_front", "card": 2})
    assert state.pantry == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert state.minutes == 14
    assert current_card(state) == 2 and state.current == 0


def test_keeping_the_order_costs_nothing() -> None:
    """ "You *may* choose" the move: declining is free and step 3 looks at the first card."""
    state = play(deal(pantry=full_pantry()), {"type": "keep_order"})
    assert state.minutes == 15
    assert current_card(state) == 3 and state.current == 0


def test_move_to_front_offers_face_up_cards_other_than_the_first() -> None:
    """ "take a single face-up Pantry card": face-down cards cannot move; moving the first card
    (a no-op that would only cost a minute) is not offered (decision)."""
    state = deal(pantry=full_pantry(), face_down=[4])
    moves = [action["card"] for action in state.legal_actions() if action["type"] == "to_front"]
    assert state.legal_actions()[0] == {"type": "keep_order"}
    assert moves == [2, 5, 6, 7, 8, 9, 10, 11]


# ---- step 3: score, use, discard -------------------------------------------------------


def test_score_only_the_next_number() -> None:
    """ "If the card has the next number in ascending order as the card on top of the Tea Trolley,
    you may place it on top of that pile"."""
    state = deal(pantry=full_pantry(), cursor=0)  # 3 on top of 1: not next
    assert types(state) == ["use", "discard"]
    state = deal(pantry=full_pantry(), cursor=2)  # 2 on top of 1
    assert types(state) == ["score", "use", "discard"]


def test_scoring_removes_the_card_and_costs_a_minute() -> None:
    """ "place it on top of that pile, removing it from the game ... If it was another number,
    *then lose one minute.*" """
    state = deal(trolley=[1, 2, 3, 4], pantry=[5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "score")
    assert state.trolley == [1, 2, 3, 4, 5]
    assert 5 not in state.pantry
    assert state.minutes == 14
    assert current_card(state) == 6  # step 4: the card after it


def test_scoring_eleven_wins_without_losing_a_minute() -> None:
    """ "If the card you scored was #11, you win!" """
    state = deal(trolley=list(range(1, 11)), pantry=[11], minutes=7, cursor=0)
    act(state, "score")
    assert state.is_over() and state.won and state.minutes == 7
    result = state.result()
    assert result.scores == (18.0,) and result.ranks == (1,)
    assert result.details["won"] == [True]
    assert result.details["band"] == ["Wages raised"]
    assert result.details["minutes_left"] == [7]


def test_use_turns_the_card_face_down_and_costs_a_minute() -> None:
    """ "B. Use the card. Perform the action written on the card. Then turn the card face-down.
    *Then lose one minute.*" (11: "You may flip it and lose a minute to no effect.")"""
    state = deal(pantry=[11, 2, 3, 4, 5, 6, 7, 8, 9, 10], cursor=0)
    act(state, "use")
    assert row(state)[:2] == ["(11)", "2"]
    assert state.minutes == 14
    assert current_card(state) == 2


def test_discard_has_no_action_and_costs_no_minute() -> None:
    """ "C. Discard the card ... place the card aside "for later" and into your discard pile ...
    Do not perform the action on the card. Do not lose one minute." """
    state = deal(trolley=[1], pantry=[3, 4, 2, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "discard")  # Milk, discarded: nothing is flipped
    assert state.discards == [3]
    assert state.minutes == 15
    assert all(state.face_up)
    assert current_card(state) == 4


def test_discard_unavailable_with_three_cards_discarded() -> None:
    """ "If three cards have already been discarded, this option is unavailable." With no score and
    no discard possible, using the card is forced and happens at once."""
    state = deal(discards=[3, 4, 6], pantry=[11, 2, 5, 7, 8, 9, 10], cursor=0)
    assert DISCARD_LIMIT == 3
    assert row(state)[0] == "(11)"  # 11 could only be used
    assert state.minutes == 14
    assert current_card(state) == 2
    assert types(state) == ["score", "use"]


def test_discard_cap_counts_the_discards_of_the_game() -> None:
    """ "If less than three cards have been discarded, place the card aside ... (If three cards have
    already been discarded, this option is unavailable.)" Decision (default ``discard_cap="game"``):
    three discards in a game; a card Servants takes back does not free a place."""
    state = deal(trolley=[1, 2], discards=[3, 4, 6], pantry=[10, 7, 5, 8, 9, 11], cursor=0)
    play(state, {"type": "return", "card": 4})
    assert state.discards == [3, 6] and state.discards_made == 3
    assert state.observation(0)["discards_left"] == 0
    # 4 can be neither scored nor discarded: used at once (Sugar, two minutes), face down
    assert row(state)[:2] == ["(10)", "(4)"] and state.minutes == 13


def test_discard_cap_counts_a_discard_taken_back_as_made() -> None:
    """A card taken back by Servants and discarded again is one more discard ("three cards have already
    been discarded"), so the free loop "return 9, discard 9" is closed."""
    layout: dict[str, Any] = {"pantry": [10], "trolley": list(range(1, 8)), "discards": [8, 9, 11], "minutes": 12}
    state = deal(**layout)
    play(state, {"type": "return", "card": 9})
    assert state.minutes == 11  # 9 could only be used (Cakes): the minute is lost
    looping = deal({"discard_cap": "pile"}, **layout)
    play(looping, {"type": "return", "card": 9})
    assert types(looping) == ["use", "discard"]  # with the pile reading, 9 may be discarded again for free
    act(looping, "discard")
    assert looping.minutes == 12 and looping.step == "servants_return"
    with pytest.raises(DealError):
        deal(trolley=list(range(1, 8)), discards=[8, 9, 11], pantry=[10], cursor=0, discards_made=4)
    with pytest.raises(DealError):
        deal(trolley=list(range(1, 8)), discards=[8, 9], pantry=[10, 11], cursor=0, discards_made=1)


def test_discard_cap_pile_option_counts_the_cards_in_the_pile() -> None:
    """The other reading, option ``discard_cap="pile"``: "If less than three cards have been discarded"
    counts the cards lying in the discard pile, so a card returned by Servants frees a place."""
    state = deal({"discard_cap": "pile"}, trolley=[1, 2], discards=[3, 4, 6], pantry=[10, 7, 5, 8, 9, 11], cursor=0)
    assert state.step == "servants_return"  # 10 cannot be scored nor discarded: used at once
    play(state, {"type": "return", "card": 4})
    assert state.discards == [3, 6]
    assert current_card(state) == 4
    assert types(state) == ["use", "discard"]


# ---- step 4 and step 1 -------------------------------------------------------------------


def test_face_down_cards_are_skipped() -> None:
    """ "4. Look at the next card in the Pantry. If it is face-up, GO TO 3. If it is face down, REPEAT 4." """
    state = deal(pantry=[11, 4, 3, 2, 5, 6, 7, 8, 9, 10], face_down=[4, 3], cursor=0)
    act(state, "use")
    assert state.current == 3 and current_card(state) == 2


def test_end_of_pantry_reshuffles_everything_face_up() -> None:
    """ "If you have reached the end of the Pantry, GO TO 1." / "1. Shuffle the Pantry cards and lay
    them face up in a line." The n-th shuffle draws from stream(seed, "reshuffle", n)."""
    state = deal(trolley=[1, 2, 3, 4, 5], pantry=[9, 8, 7, 6, 10, 11], face_down=[8, 7, 6, 10, 11], cursor=0, seed=42)
    act(state, "use")  # Cakes: the next card is already face down
    expected = [6, 7, 8, 9, 10, 11]
    stream(42, "reshuffle", 1).shuffle(expected)
    assert state.pantry == expected
    assert all(state.face_up)
    assert state.shuffles == 1
    assert state.minutes == 14
    assert state.step == "move_to_front"


def test_discards_are_never_shuffled_back() -> None:
    """NOTES: "Likewise, discards can never be shuffled back into the Pantry." """
    state = deal(
        trolley=[1, 2, 3], discards=[4, 11], pantry=[9, 8, 7, 6, 5, 10], face_down=[8, 7, 6, 5, 10], cursor=0, seed=9
    )
    act(state, "use")
    assert sorted(state.pantry) == [5, 6, 7, 8, 9, 10]
    assert state.discards == [4, 11] and state.shuffles == 1
    state = deal(discards=[4, 11], pantry=[6, 2, 3, 5, 7, 8, 9, 10], cursor=0)
    act(state, "use")  # Fine China
    assert sorted(state.pantry) == [2, 3, 5, 6, 7, 8, 9, 10] and state.discards == [4, 11]


def test_reshuffle_order_depends_only_on_seed_counter_and_cards() -> None:
    """The same n-th shuffle of the same cards gives the same order, whatever led there."""
    first = deal(trolley=[1, 2, 3, 4, 5], pantry=[9, 8, 7, 6, 10, 11], face_down=[8, 7, 6, 10, 11], cursor=0, seed=5)
    act(first, "use")
    second = deal(trolley=[1, 2, 3, 4, 5], pantry=[11, 10, 6, 7, 8, 9], face_down=[10, 6, 7, 8, 9], cursor=0, seed=5)
    act(second, "use")
    assert first.pantry == second.pantry


def test_scripted_shuffles_replay_a_given_order() -> None:
    state = deal(
        trolley=[1, 2, 3, 4, 5],
        pantry=[9, 8, 7, 6, 10, 11],
        face_down=[8, 7, 6, 10, 11],
        cursor=0,
        shuffles=[[11, 10, 9, 8, 7, 6]],
    )
    act(state, "use")
    assert state.pantry == [11, 10, 9, 8, 7, 6]
