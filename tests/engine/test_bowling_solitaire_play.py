"""Rules of Bowling Solitaire (Sid Sackson): the layout, bowling a card, the end of a ball and of a frame.

Source: the second half of ../shared/rules/elevenses-for-one-and-bowling-solitaire.txt.
Decisions where the rulebook is silent: docs/rules-decisions.md (bowling-solitaire).
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalActionError, get_game
from engine.bowling_solitaire import (
    ADJACENT_PAIRS,
    DECK,
    GAME,
    PIN_GROUPS,
    PIN_NAMES,
    rack_for,
    split_frames,
)
from tests.engine.bowling_solitaire_helpers import (
    SAMPLE_FIRST_BALL,
    SAMPLE_FRAME,
    SAMPLE_SECOND_BALL,
    STOP,
    STRIKE_RACK,
    bowl,
    deal,
    play_strike,
)

# ---------------------------------------------------------------------------
# Set-up and layout
# ---------------------------------------------------------------------------


def test_registered_for_exactly_one_player() -> None:
    """ "Players: 1" - the game is a solitaire."""
    game = get_game("bowling-solitaire")
    assert game is GAME
    assert (game.min_players, game.max_players) == (1, 1)


def test_twenty_cards_ten_pins_and_piles_of_five_three_two() -> None:
    """ "Contains: 20 cards (numbered 0-9 twice)"; "lay out ten of the cards face-up in a
    triangular layout"; "The remaining ten cards are placed face-down in three piles of
    five, three and two cards respectively"; "flip over the top card on each of these three piles"."""
    for seed in range(20):
        state = GAME.new_state(1, seed)
        rack = rack_for(seed, 1)
        assert sorted(rack.pins + sum(rack.piles, ())) == list(DECK) == sorted(list(range(10)) * 2)
        assert [len(pile) for pile in rack.piles] == [5, 3, 2]
        obs = state.observation(0)
        if obs["frame"] == 1 and obs["ball"] == 1 and len(obs["pins"]) == 10:
            assert obs["pins"] == dict(zip(PIN_NAMES, rack.pins))
            assert obs["pile_sizes"] == [5, 3, 2]
            assert obs["ball_cards"] == [pile[0] for pile in rack.piles]


def test_adjacency_follows_the_triangle_and_the_rulebook_examples() -> None:
    """ "the pins must both: be adjacent to each other (eg: H-I, or E-F-H, or H-F-G, etc.)"."""
    groups = {group.names for group in PIN_GROUPS}
    assert ("H", "I") in groups
    assert ("E", "F", "H") in groups
    assert ("F", "G", "H") in groups  # H-F-G: connected through F though H does not touch G
    assert ("G", "H") not in groups and ("A", "D") not in groups and ("A", "J") not in groups
    assert ("A", "C") not in groups  # two pins apart in the back row
    assert ("A", "B", "C") in groups and ("B", "C", "D") in groups  # as in the sample frame
    assert len(ADJACENT_PAIRS) == 18
    assert len(groups) == 10 + 18 + 36


# ---------------------------------------------------------------------------
# Bowling a card
# ---------------------------------------------------------------------------


def test_one_pin_needs_the_same_number() -> None:
    """ "To knock over one pin, the number on the chosen ball card must match the number on
    the pin card you wish to knock over." ("a 6 can knock over a 6, a 2 can knock over a 2")"""
    state = deal(STRIKE_RACK)
    singles = {(a["pile"], a["pins"][0]) for a in state.legal_actions() if a["type"] == "bowl" and len(a["pins"]) == 1}
    # tops are 0 (left), 5 (centre), 8 (right): 0 takes J, 5 takes G; C (8) is in the back row
    assert singles == {(0, "J"), (1, "G")}


@pytest.mark.parametrize(
    ("pins", "layout"),
    [
        (("H", "I"), {"H": 2, "I": 4}),  # "an adjacent 2 and 4 (2+4=6)"
        (("E", "F", "H"), {"E": 1, "F": 2, "H": 3}),  # "1, 2 and 3 (1+2+3=6)"
        (("H", "J"), {"H": 7, "J": 9}),  # "a 7 and 9 (7+9=16)"
        (("F", "G", "H"), {"H": 8, "F": 8, "G": 0}),  # "an 8, 8 and 0 (8+8+0=16)"
    ],
)
def test_two_or_three_adjacent_pins_need_the_final_digit(pins: tuple[str, ...], layout: dict[str, int]) -> None:
    """ "To knock over 2-3 pins with the same ball card, the pins must both: be adjacent to each
    other ... and, when these pin cards' numbers are added together, their final digit must
    equal the number on the ball card." ("a 6 may be used to knock over an adjacent 2 and 4
    (2+4=6), or 1, 2 and 3 (1+2+3=6), or a 7 and 9 (7+9=16), or even an 8, 8 and 0 (8+8+0=16).")"""
    cards = Counter(DECK)
    cards.subtract(layout.values())
    cards[6] -= 1  # the ball card on top of the left pile
    rest = sorted(cards.elements())
    pins_of = dict(layout)
    for name in PIN_NAMES:
        if name not in layout:
            pins_of[name] = rest.pop()
    piles = [[6, *rest[:4]], rest[4:7], rest[7:9]]
    state = GAME.from_deal({"pins": pins_of, "piles": piles})
    assert sum(layout[name] for name in pins) % 10 == 6
    assert bowl(0, *pins) in state.legal_actions()
    # the same pins are refused to any other card: put a different card on top of the left pile
    swap = next(i for i, card in enumerate(piles[0]) if card != 6)
    other_piles = [list(pile) for pile in piles]
    other_piles[0][0], other_piles[0][swap] = other_piles[0][swap], other_piles[0][0]
    other = GAME.from_deal({"pins": pins_of, "piles": other_piles})
    assert bowl(0, *pins) not in other.legal_actions()


def test_a_group_must_be_connected() -> None:
    """ "the pins must both: be adjacent to each other" - two pins that do not touch are never
    taken together, even when their sum ends in the ball card's number."""
    # G (5) and H (1) sum to 6 but do not touch; the 6 on top cannot take them
    pins = {"A": 0, "B": 0, "C": 2, "D": 3, "E": 4, "F": 7, "G": 5, "H": 1, "I": 9, "J": 8}
    state = GAME.from_deal({"pins": pins, "piles": [[6, 1, 2, 3, 4], [5, 6, 7], [8, 9]]})
    assert bowl(0, "G", "H") not in state.legal_actions()
    assert all(a["pins"] != ["G", "H"] for a in state.legal_actions() if a["type"] == "bowl")


def test_first_card_of_a_frame_cannot_take_the_back_row() -> None:
    """ "The first ball card played in a frame cannot be used to knock over any pins in the back
    row (A-B-C-D)." (The sample frame: "He would have preferred to remove the 2, 7 and 1 in
    positions A, B and C, but is not allowed to take any cards from the back row on the first play.")"""
    state = deal(SAMPLE_FRAME)
    legal = state.legal_actions()
    assert bowl(0, "A", "B", "C") not in legal and bowl(1, "A", "B", "C") not in legal
    assert all(not set(a["pins"]) & set("ABCD") for a in legal if a["type"] == "bowl")
    state.apply(SAMPLE_FIRST_BALL[0])
    # once a pin is down, the centre pile's "remaining 0" may take A, B and C (B touches F)
    assert bowl(1, "A", "B", "C") in state.legal_actions()


def test_first_card_of_a_frame_cannot_take_the_centre_pin_alone() -> None:
    """ "The first ball card played in a frame cannot be used to knock over the center pin (F) by itself." """
    # F is 4 and a 4 is on top of the left pile; J is 0 and the centre pile shows 0
    pins = {"A": 1, "B": 2, "C": 3, "D": 5, "E": 6, "F": 4, "G": 7, "H": 8, "I": 9, "J": 0}
    piles = [[4, 1, 2, 3, 5], [0, 6, 7], [8, 9]]
    state = GAME.from_deal({"pins": pins, "piles": piles})
    assert bowl(0, "F") not in state.legal_actions()
    state.apply(bowl(1, "J"))  # the centre pile's 0 takes the head pin
    assert bowl(0, "F") not in state.legal_actions()  # F does not touch J
    state.apply(bowl(2, "H"))  # the right pile's 8 takes H, which touches J
    assert bowl(0, "F") in state.legal_actions()  # F alone is fine now: it touches H


def test_the_centre_pin_may_go_with_others_on_the_first_card() -> None:
    """ "The player starts by removing the 1 and 9 in positions H and F, using the 0 from the left-hand pile."
    - the centre pin is barred only "by itself"."""
    state = deal(SAMPLE_FRAME)
    assert bowl(0, "F", "H") in state.legal_actions()


def test_later_cards_must_take_a_pin_next_to_one_removed() -> None:
    """ "After any pins have been knocked over and removed, any subsequent balls must knock over at
    least one pin adjacent to a card already removed. (for example, if pins E and H were removed with
    the first ball card, pin C and G could not be removed with the second ball card, but pins F, C and
    G could be.)" """
    pins = {"A": 0, "B": 0, "C": 4, "D": 6, "E": 1, "F": 8, "G": 5, "H": 2, "I": 3, "J": 9}
    piles = [[3, 9, 1, 2, 4], [7, 5, 6], [7, 8]]
    state = GAME.from_deal({"pins": pins, "piles": piles})
    state.apply(bowl(0, "E", "H"))  # 1 + 2 = 3
    legal = state.legal_actions()
    assert state.observation(0)["ball_cards"] == [9, 7, 7]
    assert bowl(0, "C", "G") not in legal  # 4 + 5 = 9, but neither touches E or H
    assert bowl(1, "C", "F", "G") in legal  # 4 + 8 + 5 = 17, and F touches E and H
    for action in legal:
        if action["type"] == "bowl":
            assert any({pin, down} in ({a, b} for a, b in ADJACENT_PAIRS) for pin in action["pins"] for down in "EH")


def test_using_a_card_turns_up_the_next_one() -> None:
    """ "Once pins have been knocked over, those pin cards and the ball card used are removed and
    placed out of the game ... Then, the face-down card (if there is one) that lay beneath the ball
    card just used must be flipped so its number is visible." """
    state = deal(SAMPLE_FRAME)
    state.apply(SAMPLE_FIRST_BALL[0])
    obs = state.observation(0)
    assert obs["ball_cards"] == [5, 0, 4]  # "using the newly exposed 5"
    assert obs["pile_sizes"] == [4, 3, 2]
    assert obs["out_of_play"] == [0, 1, 9]
    assert obs["pins_down"] == {"F": 9, "H": 1}
    assert "F" not in obs["pins"] and "H" not in obs["pins"]


# ---------------------------------------------------------------------------
# The end of a ball and of a frame
# ---------------------------------------------------------------------------


def test_the_sample_frame_replays_to_a_spare() -> None:
    """ "A SAMPLE FRAME" ... "He has made a SPARE!" - replayed play by play."""
    state = deal(SAMPLE_FRAME)
    state.apply(SAMPLE_FIRST_BALL[0])
    state.apply(SAMPLE_FIRST_BALL[1])
    # "using the remaining 0 to take the 2, 7 and 1 in positions A, B and C" was possible too
    state.apply(SAMPLE_FIRST_BALL[2])
    obs = state.observation(0)
    assert obs["pins"] == {"G": 5, "I": 8, "J": 6}  # "The 5, 8 and 6 in positions G, I and J now remain."
    assert bowl(0, "I") in state.legal_actions()  # "The 8 could be removed"
    assert STOP in state.legal_actions()
    state.apply(STOP)  # "the player takes a second ball"
    obs = state.observation(0)
    assert obs["ball"] == 2
    assert obs["pile_sizes"] == [2, 2, 0]  # "the 4 from the top of the right-hand pile, exhausting that pile"
    assert obs["ball_cards"] == [3, 3, None]  # "he has a choice of two exposed 3s"
    assert bowl(0, "G", "I") in state.legal_actions() and bowl(1, "G", "I") in state.legal_actions()
    state.apply(SAMPLE_SECOND_BALL[0])  # "the one on the left-hand pile and removed the 5 and 8"
    assert state.observation(0)["ball_cards"][0] == 6  # "A 6 is now exposed"
    state.apply(SAMPLE_SECOND_BALL[1])
    assert state.balls == [7, 3]
    assert split_frames(state.balls)[0].spare
    assert state.observation(0)["frame"] == 2


def test_a_strike_ends_the_frame_at_once() -> None:
    """ "If you can continue using ball cards to remove pins from the layout until all are gone you
    have scored a STRIKE! Proceed to the next frame." """
    state = deal(STRIKE_RACK, seed=5)
    play_strike(state)
    assert state.balls == [10]
    obs = state.observation(0)
    assert (obs["frame"], obs["ball"], len(obs["pins"])) == (2, 1, 10)


def test_stopping_ends_the_first_ball_and_throws_out_the_top_cards() -> None:
    """ "or if, in the hope of obtaining a SPARE, you choose not to use a ball card that could be used,
    you have reached the end of your first ball of the frame. Once this occurs, remove the top card from
    each of your ball piles still remaining, placing them out of the game." """
    state = deal(SAMPLE_FRAME)
    assert STOP in state.legal_actions()  # even before any pin is down
    state.apply(SAMPLE_FIRST_BALL[0])
    state.apply(STOP)
    obs = state.observation(0)
    assert state.balls == [2]
    assert obs["ball"] == 2
    assert obs["ball_cards"] == [8, 3, 4]
    assert obs["pile_sizes"] == [3, 2, 1]
    assert obs["out_of_play"] == sorted([0, 1, 9, 5, 0, 4])


def test_the_first_ball_ends_by_itself_when_no_card_can_be_used() -> None:
    """ "If, however, you reach the point where no cards from the top of your ball piles can be used ...
    you have reached the end of your first ball of the frame." """
    # every pin is 0-4 and the ball cards showing are 9, 9, 8: no single pin matches and no group of
    # front pins adds up to 8 or 9 ... so nothing can be played and the first ball ends with 0 pins
    pins = {"A": 4, "B": 4, "C": 3, "D": 3, "E": 0, "F": 2, "G": 0, "H": 1, "I": 1, "J": 2}
    piles = [[9, 5, 5, 6, 6], [9, 7, 7], [8, 8]]
    state = GAME.from_deal({"pins": pins, "piles": piles})
    assert state.balls == [0]
    obs = state.observation(0)
    assert obs["ball"] == 2
    assert obs["ball_cards"] == [5, 7, 8]
    assert obs["out_of_play"] == [8, 9, 9]


def test_no_stop_in_the_second_ball() -> None:
    """The second ball "continue[s] playing": the rulebook lets the player stop only the first ball
    ("you choose not to use a ball card that could be used, you have reached the end of your first ball")."""
    state = deal(SAMPLE_FRAME)
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(STOP)
    assert STOP not in state.legal_actions()
    assert state.observation(0)["can_stop"] is False
    with pytest.raises(IllegalActionError):
        state.apply(STOP)


def test_an_open_frame_scores_the_pins_down() -> None:
    """ "Otherwise, you score as many pins as you had managed to knock down." - the sample frame,
    had the player taken the 8: "that would leave an isolated 6 and a 5" """
    state = deal(SAMPLE_FRAME, seed=3)
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(bowl(0, "I"))
    # nothing fits the 5 and the 6 any more: the first ball ends with 8 pins, the tops go out
    assert state.balls == [8]
    obs = state.observation(0)
    assert (obs["ball"], obs["ball_cards"]) == (2, [6, 3, None])
    assert state.legal_actions() == [bowl(0, "J")]
    state.apply(bowl(0, "J"))
    # "Since the second 5 has already been used there would be no possibility of removing the 5."
    assert state.balls == [8, 1]
    assert state.observation(0)["frame"] == 2


def test_opening_restrictions_bind_the_first_card_of_a_second_ball_when_no_pin_is_down() -> None:
    """ "The first ball card played in a frame cannot be used to knock over any pins in the back row"
    - if the first ball took no pin, the first card played in the frame comes in the second ball."""
    pins = {"A": 4, "B": 4, "C": 3, "D": 3, "E": 0, "F": 2, "G": 0, "H": 1, "I": 1, "J": 2}
    piles = [[9, 5, 5, 6, 6], [9, 7, 7], [8, 8]]
    state = GAME.from_deal({"pins": pins, "piles": piles})
    assert state.balls == [0] and state.observation(0)["ball"] == 2
    legal = state.legal_actions()
    assert legal  # the 5 takes F, H and J (2 + 1 + 2), for one
    assert all(not set(a["pins"]) & set("ABCD") for a in legal if a["type"] == "bowl")
    assert bowl(2, "A", "B") not in legal  # 4 + 4 = 8 with the right pile's 8: back row
    assert bowl(1, "B", "C") not in legal  # 4 + 3 = 7 with the centre pile's 7: back row


def test_a_new_rack_every_frame() -> None:
    """ "At the end of a frame: Score your frame, shuffle all twenty cards, and set up the game once again." """
    state = deal(STRIKE_RACK, seed=11)
    play_strike(state)
    obs = state.observation(0)
    rack = rack_for(11, 2)
    assert obs["pins"] == dict(zip(PIN_NAMES, rack.pins))
    assert obs["pile_sizes"] == [5, 3, 2] and obs["out_of_play"] == []
