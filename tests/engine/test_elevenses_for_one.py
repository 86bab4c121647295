"""Rule tests for Elevenses for One, each quoting the rulebook sentence it checks.

Sources: /work/shared/rules/elevenses-for-one-v1.1.txt (v1.1) and the first half
of elevenses-for-one-and-bowling-solitaire.txt. Interpretations are recorded in
docs/rules-decisions.md (elevenses-for-one) with the name of the test that checks them.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import DealError, IllegalActionError, OptionError, get_game
from engine.elevenses_for_one import (
    DISCARD_LIMIT,
    GAME,
    STALL_LIMIT,
    ElevensesForOneState,
    rating_band,
    state_from_observation,
)
from engine.rng import stream
from engine.testing import random_playout


def deal(options: dict[str, Any] | None = None, **layout: Any) -> ElevensesForOneState:
    return GAME.from_deal(layout, options)


def play(state: ElevensesForOneState, *actions: dict[str, Any]) -> ElevensesForOneState:
    for action in actions:
        state.apply(action)
    return state


def types(state: ElevensesForOneState) -> list[str]:
    return [action["type"] for action in state.legal_actions()]


def row(state: ElevensesForOneState) -> list[str]:
    """The Pantry as text: face-down cards in brackets."""
    return [str(card) if up else f"({card})" for card, up in zip(state.pantry, state.face_up)]


def events(state: ElevensesForOneState) -> list[dict[str, Any]]:
    return state.observation(0)["events"]


def current_card(state: ElevensesForOneState) -> int:
    assert state.step == "choose"
    return state.pantry[state.current]


SCORE = {"type": "score"}
USE = {"type": "use"}
DISCARD = {"type": "discard"}


def act(state: ElevensesForOneState, kind: str) -> ElevensesForOneState:
    """Score, use or discard the current card."""
    state.apply({"type": kind, "card": current_card(state)})
    return state


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


def full_pantry() -> list[int]:
    return [3, 4, 2, 5, 6, 7, 8, 9, 10, 11]


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


# ---- the cards ---------------------------------------------------------------------------


def test_tea_used_flips_one_chosen_face_up_card_never_5_nor_itself() -> None:
    """(2) Tea: "After using or scoring this card, choose any face-up card in the pantry and flip it
    face-down (without using its action)." (5): "This card can never be flipped face down by the action
    on cards (2) or (3) or (9)." """
    state = deal(pantry=[2, 5, 3, 4, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert state.step == "flip"
    assert state.minutes == 15 and state.face_up[0]  # the action comes first, then face down, then the minute
    assert [action["cards"] for action in state.legal_actions()] == [[3], [4], [6], [7], [8], [9], [10], [11]]
    play(state, {"type": "flip", "cards": [4]})
    # Tea face down, 4 face down, one minute; then 5 (neither scorable nor discardable) is used at once
    assert row(state)[:4] == ["(2)", "(5)", "3", "(4)"]
    assert state.minutes == 13
    assert current_card(state) == 3


def test_tea_scored_flips_a_card() -> None:
    """(2) Tea: "After using or scoring this card ..." """
    state = deal(pantry=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "score")
    play(state, {"type": "flip", "cards": [3]})
    assert row(state)[0] == "(3)"
    assert state.minutes == 14
    assert current_card(state) == 4


def test_tea_with_no_face_up_card_does_nothing_but_still_costs_a_minute() -> None:
    """(2): "If there are no face-up cards available, do nothing." NOTES: "Sometimes the instructions on a
    card cannot be followed. In such cases, there is no action to perform ... However, you must still flip
    the card face-down and lose a minute for "using" the card." """
    state = deal(
        pantry=[2, 5, 3, 4, 6, 7, 8, 9, 10, 11],
        face_down=[3, 4, 6, 7, 8, 9, 10, 11],
        cursor=0,
        shuffles=[[2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
    )
    act(state, "use")
    seen = events(state)
    assert not [event for event in seen if event["event"] == "flip"]  # 5 is the only face-up card
    assert [event["card"] for event in seen if event["event"] == "use"] == [2, 5]
    assert state.minutes == 13  # Tea's minute, then the forced use of 5
    assert state.shuffles == 1


def test_tea_with_one_candidate_flips_it_without_asking() -> None:
    """A forced choice is made automatically: the only face-up card is flipped."""
    state = deal(pantry=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], face_down=[3, 4, 6, 7, 8, 9, 10], cursor=0)
    act(state, "score")
    assert {"event": "flip", "cards": [11]} in events(state)


def test_milk_flips_two_chosen_cards() -> None:
    """(3) Milk: "choose any two face-up card in the Pantry and flip them face-down (without using their
    actions)." Never 5 (card 5's restriction), never Milk itself (decision)."""
    state = deal(trolley=[1, 2], pantry=[3, 4, 6, 7, 5, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert state.step == "flip"
    pairs = [action["cards"] for action in state.legal_actions()]
    assert len(pairs) == 21  # pairs of 4, 6, 7, 8, 9, 10, 11
    assert all(5 not in pair and 3 not in pair for pair in pairs)
    play(state, {"type": "flip", "cards": [6, 7]})
    assert row(state)[:4] == ["(3)", "4", "(6)", "(7)"]
    assert state.minutes == 14


def test_milk_with_one_card_available_must_flip_that_one() -> None:
    """(3): "If there is only one face-up card available you must flip that one." """
    state = deal(trolley=[1, 2], pantry=[3, 4, 5, 6, 7, 8, 9, 10, 11], face_down=[6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert {"event": "flip", "cards": [4]} in events(state)
    assert state.minutes == 13  # Milk, then the forced use of 5


def test_milk_scored_flips_two() -> None:
    state = deal(trolley=[1, 2], pantry=[3, 4, 6, 7, 5, 8, 9, 10, 11], cursor=0)
    act(state, "score")
    assert state.step == "flip" and len(state.legal_actions()) == 21


def test_sugar_used_costs_two_minutes() -> None:
    """(4) Sugar: "after using or scoring this card, you must lose two minutes from your timer instead of one." """
    state = deal(trolley=[1, 2], pantry=[4, 3, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert state.minutes == 13
    assert row(state)[0] == "(4)"


def test_sugar_scored_costs_two_minutes() -> None:
    """(4) Sugar: "... after using or scoring this card, you must lose two minutes ..." """
    state = deal(trolley=[1, 2, 3], pantry=[4, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "score")
    assert state.minutes == 13 and state.top == 4


def test_sugar_with_one_minute_left_stops_the_clock_at_zero() -> None:
    """Decision: the timer shows 0 at the least; the game is lost."""
    state = deal(trolley=[1, 2, 3], pantry=[4, 5, 6, 7, 8, 9, 10, 11], minutes=1, cursor=0)
    act(state, "score")
    assert state.is_over() and not state.won
    assert state.minutes == 0 and state.result().scores == (4.0,)


def test_cups_and_saucers_can_never_be_discarded() -> None:
    """(5): "This card can never be discarded." "After using or scoring this card there is no action to perform." """
    state = deal(trolley=[1, 2, 3, 4], pantry=[5, 6, 7, 8, 9, 10, 11], cursor=0)
    assert types(state) == ["score", "use"]
    act(state, "use")
    assert row(state)[0] == "(5)" and state.minutes == 14
    assert current_card(state) == 6


def test_cups_and_saucers_not_scorable_is_used_at_once() -> None:
    """With neither score nor discard possible, using 5 is forced."""
    state = deal(trolley=[1, 2, 3], pantry=[5, 4, 6, 7, 8, 9, 10, 11], cursor=0)
    assert row(state)[0] == "(5)" and state.minutes == 14
    assert current_card(state) == 4


def test_fine_china_used_reshuffles_and_returns_to_step_one() -> None:
    """(6): "After using or scoring this card, collect all the face-up and face-down cards in the Pantry and
    shuffle them, returning to step 1 of the Game Chart." and B: "Use the card. Perform the action written
    on the card. Then turn the card face-down. Then lose one minute." Decision: both steps after the action
    apply to Fine China too: step 1 lays every card face up, then Fine China is turned face down where it
    lies and the minute is lost."""
    state = deal(pantry=[6, 3, 2, 4, 5, 7, 8, 9, 10, 11], face_down=[3], cursor=0, seed=11)
    act(state, "use")
    expected = list(range(2, 12))
    stream(11, "reshuffle", 1).shuffle(expected)
    assert state.pantry == expected
    assert [card for card, up in zip(state.pantry, state.face_up) if not up] == [6]
    assert state.minutes == 14
    assert state.step == "move_to_front"  # step 2 follows step 1


def test_fine_china_scored_reshuffles() -> None:
    state = deal(trolley=[1, 2, 3, 4, 5], pantry=[6, 7, 8, 9, 10, 11], cursor=0, shuffles=[[9, 8, 7, 11, 10]])
    act(state, "score")
    assert state.pantry == [9, 8, 7, 11, 10] and all(state.face_up)
    assert state.minutes == 14
    assert state.step == "move_to_front"


def test_biscuits_swaps_two_other_face_up_cards() -> None:
    """(7): "select two other face-up cards in the Pantry and swap their positions. The two cards must stay
    face-up and no other cards may be disturbed." """
    state = deal(trolley=[1, 2, 3], pantry=[7, 5, 4, 6, 8, 9, 10, 11], face_down=[11], cursor=0)
    act(state, "use")
    assert state.step == "swap"
    pairs = [action["cards"] for action in state.legal_actions()]
    assert len(pairs) == 15  # pairs of 4, 5, 6, 8, 9, 10 (not 7, not the face-down 11)
    play(state, {"type": "swap", "cards": [4, 5]})
    assert row(state) == ["(7)", "4", "5", "6", "8", "9", "10", "(11)"]
    assert state.minutes == 14
    assert current_card(state) == 4


def test_biscuits_with_two_face_up_cards_must_swap_them() -> None:
    """(7): "If there are only two face-up cards available you must swap them." """
    state = deal(trolley=[1, 2, 3], pantry=[7, 5, 4, 6, 8, 9, 10, 11], face_down=[6, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert state.pantry[:3] == [7, 4, 5]
    assert current_card(state) == 4


def test_biscuits_with_fewer_than_two_does_nothing() -> None:
    """(7): "If there are less than two face-up cards available, do nothing." """
    state = deal(trolley=[1, 2, 3], pantry=[7, 4, 5, 6, 8, 9, 10, 11], face_down=[5, 6, 8, 9, 10, 11], cursor=0)
    act(state, "use")
    assert state.pantry == [7, 4, 5, 6, 8, 9, 10, 11]
    assert state.minutes == 14 and current_card(state) == 4


def test_biscuits_scored_swaps() -> None:
    state = deal(trolley=[1, 2, 3, 4, 5, 6], pantry=[7, 9, 8, 10, 11], cursor=0)
    act(state, "score")
    play(state, {"type": "swap", "cards": [8, 9]})
    assert state.pantry == [8, 9, 10, 11] and state.minutes == 14
    assert current_card(state) == 8


def test_sandwiches_moves_the_first_card_to_the_end_face_up() -> None:
    """(8): "take the first card in the Pantry (whether face-up or face-down) and place it at the end of
    the Pantry face-up." """
    state = deal(trolley=[1, 2, 3], pantry=[4, 8, 6, 5, 7, 9, 10, 11], face_down=[4], cursor=1)
    act(state, "use")
    assert row(state) == ["(8)", "6", "5", "7", "9", "10", "11", "4"]
    assert state.minutes == 14
    assert current_card(state) == 6


def test_sandwiches_moves_itself_when_first() -> None:
    """(8): "(8) must move itself if it is the first card in the Pantry." It is then turned face down."""
    state = deal(trolley=[1, 2, 3], pantry=[8, 6, 5, 4, 7, 9, 10, 11], cursor=0)
    act(state, "use")
    assert row(state) == ["6", "5", "4", "7", "9", "10", "11", "(8)"]
    assert state.minutes == 14
    assert current_card(state) == 6


def test_sandwiches_scored_moves_the_first_card() -> None:
    state = deal(trolley=list(range(1, 8)), pantry=[10, 8, 9, 11], face_down=[10], cursor=1)
    act(state, "score")
    assert row(state) == ["9", "11", "10"]
    assert state.minutes == 14
    assert current_card(state) == 9


def test_cakes_flips_the_next_card() -> None:
    """(9): "After using or scoring this card, flip the next card in the Pantry after (9) face-down." """
    state = deal(trolley=[1, 2, 3], pantry=[9, 6, 4, 5, 7, 8, 10, 11], cursor=0)
    act(state, "use")
    assert row(state)[:3] == ["(9)", "(6)", "4"]
    assert state.minutes == 14
    assert current_card(state) == 4


def test_cakes_never_flips_5() -> None:
    """(9): "If the next card is already face-down, or is card (5), do nothing." """
    state = deal(trolley=[1, 2, 3, 4], pantry=[9, 5, 6, 7, 8, 10, 11], cursor=0)
    act(state, "use")
    assert row(state)[:2] == ["(9)", "5"]
    assert current_card(state) == 5


def test_cakes_as_last_card_does_nothing() -> None:
    """(9): "If (9) is the last card in the Pantry, do nothing." """
    state = deal(trolley=[1, 2, 3], pantry=[4, 5, 6, 7, 8, 10, 11, 9], cursor=7, shuffles=[[4, 5, 6, 7, 8, 9, 10, 11]])
    act(state, "use")
    assert not [event for event in events(state) if event["event"] == "flip"]
    assert state.minutes == 14 and state.shuffles == 1


def test_cakes_scored_flips_the_card_that_followed_it() -> None:
    """Decision: when (9) is scored, "the next card in the Pantry after (9)" is the card that followed it."""
    state = deal(trolley=list(range(1, 9)), pantry=[9, 11, 10], cursor=0)
    act(state, "score")
    assert row(state) == ["(11)", "10"]
    assert state.minutes == 14
    assert current_card(state) == 10


def test_servants_can_never_be_discarded() -> None:
    """(10): "This card can never be discarded." """
    state = deal(trolley=list(range(1, 10)), pantry=[10, 11], cursor=0)
    assert types(state) == ["score", "use"]


def test_servants_used_returns_a_discard_directly_after_it_for_no_minute() -> None:
    """(10): "After using this card you may take a card from your discard pile and place it face-up, directly
    after (10) in the Pantry. If you do perform this action, flip (10) face-down but do not lose a minute
    (Servants are so helpful!)" """
    state = deal(trolley=[1, 2, 3], discards=[4, 6], pantry=[10, 5, 7, 8, 9, 11], cursor=0)
    assert state.step == "servants_return"
    assert state.legal_actions() == [
        {"type": "return", "card": 4},
        {"type": "return", "card": 6},
        {"type": "decline"},
    ]
    play(state, {"type": "return", "card": 4})
    assert row(state)[:3] == ["(10)", "4", "5"]
    assert state.discards == [6]
    assert state.minutes == 15
    assert current_card(state) == 4


def test_servants_used_without_returning_costs_a_minute() -> None:
    """(10): "If you use this card but cannot (or choose not to) return a card from the discard pile, flip it
    face-down and lose a minute (as is usual), performing no action." """
    state = deal(trolley=[1, 2, 3], discards=[4, 6], pantry=[10, 7, 5, 8, 9, 11], cursor=0)
    play(state, {"type": "decline"})
    assert row(state)[0] == "(10)" and state.discards == [4, 6]
    assert state.minutes == 14
    assert current_card(state) == 7
    # cannot: an empty pile, and the use is forced and immediate
    state = deal(trolley=[1, 2, 3], pantry=[10, 7, 4, 5, 6, 8, 9, 11], cursor=0)
    assert row(state)[0] == "(10)" and state.minutes == 14
    assert current_card(state) == 7


def test_servants_scored_must_return_a_discarded_eleven() -> None:
    """(10): "When you score (10), lose a minute (as is usual), and if (11) is currently discarded, you must
    use this card's action to return it to the Pantry face-up." Decision: 11 takes the place of (10), so it is
    the next card looked at."""
    state = deal(trolley=list(range(1, 10)), discards=[11], pantry=[10], cursor=0)
    act(state, "score")
    assert state.discards == [] and row(state) == ["11"]
    assert state.minutes == 14
    assert current_card(state) == 11
    act(state, "score")
    assert state.won and state.result().scores == (25.0,)


def test_servants_scored_without_eleven_discarded_only_costs_a_minute() -> None:
    state = deal(trolley=list(range(1, 10)), pantry=[10, 11], cursor=0)
    act(state, "score")
    assert state.minutes == 14 and state.pantry == [11]


def test_elevenses_discarded_may_first_score_a_discard() -> None:
    """(11): "after discarding this card you may first take a card from your discard pile, score it, and then
    place (11) in the discard pile." Decision: that score is a score in every respect: the card's action is
    performed and its minute(s) lost (Sugar: two). (With the pile reading of the cap, so that 7 may still be
    discarded afterwards.)"""
    state = deal({"discard_cap": "pile"}, trolley=[1, 2, 3], discards=[4, 6], pantry=[11, 7, 5, 8, 9, 10], cursor=0)
    act(state, "discard")
    assert state.step == "elevenses_score"
    assert state.legal_actions() == [{"type": "score_discard", "card": 4}, {"type": "decline"}]
    play(state, {"type": "score_discard", "card": 4})
    assert state.trolley == [1, 2, 3, 4]
    assert state.discards == [6, 11]
    assert state.minutes == 13
    assert current_card(state) == 7


def test_elevenses_score_from_discards_performs_the_cards_action() -> None:
    """The scored discard's action is performed: Milk flips two cards."""
    state = deal(trolley=[1, 2], discards=[3], pantry=[11, 4, 6, 7, 5, 8, 9, 10], cursor=0)
    act(state, "discard")
    play(state, {"type": "score_discard", "card": 3})
    assert state.step == "flip"
    play(state, {"type": "flip", "cards": [6, 7]})
    assert row(state)[:3] == ["4", "(6)", "(7)"]
    assert state.discards == [11] and state.minutes == 14


def test_elevenses_option_is_optional() -> None:
    """NOTES: "The only exceptions to this is the (10) Servants and (11) Elevenses cards. The instructions on
    these cards are always optional." """
    state = deal(trolley=[1, 2, 3], discards=[4, 6], pantry=[11, 7, 5, 8, 9, 10], cursor=0)
    act(state, "discard")
    play(state, {"type": "decline"})
    assert state.discards == [4, 6, 11] and state.trolley == [1, 2, 3]
    assert state.minutes == 15


def test_elevenses_scored_discard_must_be_a_legal_move() -> None:
    """(11): "Any card you score in this way must be a legal move (next in number order to the last card
    scored.)" Without such a discard, 11 is simply discarded."""
    state = deal(trolley=[1, 2, 3], discards=[6], pantry=[11, 7, 4, 5, 8, 9, 10], cursor=0)
    act(state, "discard")
    assert state.discards == [6, 11]
    assert current_card(state) == 7


def test_cakes_scored_from_the_discards_flips_nothing() -> None:
    """Decision: a (9) scored from the discard pile has no place in the Pantry, so no card is "after (9)"."""
    state = deal(trolley=list(range(1, 9)), discards=[9], pantry=[11, 10], cursor=0)
    act(state, "discard")
    play(state, {"type": "score_discard", "card": 9})
    assert row(state) == ["10"]
    assert state.minutes == 14 and state.discards == [11]
    act(state, "score")  # 10 scored: the discarded 11 comes back and is next
    act(state, "score")
    assert state.won and state.minutes == 13


def test_mandatory_instructions_offer_no_way_out() -> None:
    """NOTES: "if the instructions on a card can be followed then they must be followed to the letter at all
    times." Tea, Milk and Biscuits offer only their choices; Servants and Elevenses may decline."""
    state = deal(pantry=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], cursor=0)
    act(state, "score")
    assert set(types(state)) == {"flip"}
    state = deal(trolley=[1, 2, 3, 4, 5, 6], pantry=[7, 9, 8, 10, 11], cursor=0)
    act(state, "score")
    assert set(types(state)) == {"swap"}


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
