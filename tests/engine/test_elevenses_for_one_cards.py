"""Rule tests for Elevenses for One: the effects of the cards, each quoting the rulebook.

Sources: /work/shared/rules/elevenses-for-one-v1.1.txt (v1.1) and the first half
of elevenses-for-one-and-bowling-solitaire.txt. Interpretations are recorded in
docs/rules-decisions.md (elevenses-for-one) with the name of the test that checks them.
"""

from __future__ import annotations

from engine.rng import stream
from tests.engine.elevenses_for_one_helpers import act, current_card, deal, events, play, row, types

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
