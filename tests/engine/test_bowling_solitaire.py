"""Rules of Bowling Solitaire (Sid Sackson), each test quoting the rulebook sentence it checks.

Source: the second half of ../shared/rules/elevenses-for-one-and-bowling-solitaire.txt.
Decisions where the rulebook is silent: docs/rules-decisions.md (bowling-solitaire).
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from engine import DealError, IllegalActionError, get_game
from engine.bowling_solitaire import (
    ADJACENT_PAIRS,
    DECK,
    GAME,
    PIN_GROUPS,
    PIN_NAMES,
    BowlingSolitaireState,
    Rack,
    rack_for,
    score_sheet,
    split_frames,
)
from engine.rng import stream

# ---------------------------------------------------------------------------
# Deals used below
# ---------------------------------------------------------------------------

SAMPLE_FRAME: dict[str, Any] = {
    # Reconstructed from "A SAMPLE FRAME": H=1 and F=9 go to a 0; A, B, C are 2, 7, 1;
    # B, C, D are 7, 1, 7; E is "the other 2"; G, I, J are 5, 8, 6. The left pile shows
    # 0, then 5, then 8, then 3, then 6; the centre pile 0 then 3 (its last card, never
    # seen, is the 9 left over); the right pile 4 then 4 ("exhausting that pile").
    "pins": {"A": 2, "B": 7, "C": 1, "D": 7, "E": 2, "F": 9, "G": 5, "H": 1, "I": 8, "J": 6},
    "piles": [[0, 5, 8, 3, 6], [0, 3, 9], [4, 4]],
}

# Pins 0-9 placed so that every ball card takes its own number, in an order that is
# always adjacent to a pin already down: J, H, I, E, F from the left pile, G, A, B from
# the centre pile, C, D from the right pile.
STRIKE_RACK: dict[str, Any] = {
    "pins": {"J": 0, "H": 1, "I": 2, "E": 3, "F": 4, "G": 5, "A": 6, "B": 7, "C": 8, "D": 9},
    "piles": [[0, 1, 2, 3, 4], [5, 6, 7], [8, 9]],
}
STRIKE_PLAYS: list[tuple[int, str]] = [
    (0, "J"),
    (0, "H"),
    (0, "I"),
    (0, "E"),
    (0, "F"),
    (1, "G"),
    (1, "A"),
    (1, "B"),
    (2, "C"),
    (2, "D"),
]

SAMPLE_FIRST_BALL: list[dict[str, Any]] = [
    {"type": "bowl", "pile": 0, "pins": ["F", "H"]},
    {"type": "bowl", "pile": 0, "pins": ["B", "C", "D"]},
    {"type": "bowl", "pile": 2, "pins": ["A", "E"]},
]
SAMPLE_SECOND_BALL: list[dict[str, Any]] = [
    {"type": "bowl", "pile": 0, "pins": ["G", "I"]},
    {"type": "bowl", "pile": 0, "pins": ["J"]},
]
STOP = {"type": "stop"}


def bowl(pile: int, *pins: str) -> dict[str, Any]:
    return {"type": "bowl", "pile": pile, "pins": sorted(pins)}


def play_strike(state: BowlingSolitaireState) -> None:
    for pile, pin in STRIKE_PLAYS:
        state.apply(bowl(pile, pin))


def play_sample_spare(state: BowlingSolitaireState) -> None:
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(STOP)
    for action in SAMPLE_SECOND_BALL:
        state.apply(action)


def deal(rack: dict[str, Any], **extra: Any) -> BowlingSolitaireState:
    return GAME.from_deal({**rack, **extra})


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


# ---------------------------------------------------------------------------
# Ten frames and the bonus balls
# ---------------------------------------------------------------------------

NINE_GUTTER_FRAMES = [0] * 18


def test_ten_frames_then_the_game_is_over() -> None:
    """ "Players will play ten frames, bowling up to two balls in each frame" / "At the end of ten
    frames: Your game is over" - an open tenth frame earns no bonus ball."""
    state = deal(SAMPLE_FRAME, balls=NINE_GUTTER_FRAMES)
    assert state.observation(0)["frame"] == 10
    for action in SAMPLE_FIRST_BALL:
        state.apply(action)
    state.apply(bowl(0, "I"))
    state.apply(bowl(0, "J"))
    assert state.is_over()
    assert state.balls == NINE_GUTTER_FRAMES + [8, 1]
    assert state.current_player is None and state.legal_actions() == []
    assert state.result().scores == (9,)
    with pytest.raises(IllegalActionError):
        state.apply(STOP)


def test_a_tenth_frame_spare_earns_one_bonus_ball() -> None:
    """ "If a player makes a spare or a strike in the tenth frame, the player must throw one or two more
    balls to determine their scoring bonus!" - one ball after a spare, at a fresh rack."""
    state = deal(SAMPLE_FRAME, balls=NINE_GUTTER_FRAMES, later_racks=[STRIKE_RACK])
    play_sample_spare(state)
    assert not state.is_over()
    obs = state.observation(0)
    assert (obs["frame"], obs["bonus_rack"], obs["ball"]) == (10, 1, 1)
    assert len(obs["pins"]) == 10
    assert obs["can_stop"] is False and STOP not in state.legal_actions()  # a single ball, no second to hope for
    play_strike(state)
    assert state.is_over()  # a strike on the bonus ball earns nothing more
    assert state.balls[18:] == [7, 3, 10]
    assert score_sheet(state.balls)[-1] == 20
    assert state.result().scores == (20,)


def test_a_tenth_frame_strike_earns_two_bonus_balls_at_one_rack() -> None:
    """ "the player must throw one or two more balls" - two after a strike: the first at a fresh rack,
    the second at what it leaves (here the sample frame: 7 then a spare's 3)."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, later_racks=[SAMPLE_FRAME])
    play_strike(state)
    obs = state.observation(0)
    assert (obs["frame"], obs["bonus_rack"], obs["ball"], obs["can_stop"]) == (10, 1, 1, True)
    play_sample_spare(state)
    assert state.is_over()
    assert state.balls[18:] == [10, 7, 3]
    assert score_sheet(state.balls)[-1] == 20


def test_a_strike_on_the_first_bonus_ball_resets_the_pins() -> None:
    """Tenpin scoring, "A 'perfect game' is when you reach the highest score possible: 300 points!" -
    after a strike on the first bonus ball the second bonus ball is bowled at a fresh rack."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, later_racks=[STRIKE_RACK, STRIKE_RACK])
    play_strike(state)
    play_strike(state)
    obs = state.observation(0)
    assert (obs["bonus_rack"], obs["ball"], obs["can_stop"], len(obs["pins"])) == (2, 1, False, 10)
    play_strike(state)
    assert state.is_over()
    assert state.balls[18:] == [10, 10, 10]


def test_a_perfect_game_scores_300() -> None:
    """ "A "perfect game" is when you reach the highest score possible: 300 points!" """
    state = deal(STRIKE_RACK, later_racks=[STRIKE_RACK] * 11)
    for _ in range(12):
        play_strike(state)
    assert state.is_over()
    assert state.balls == [10] * 12
    result = state.result()
    assert result.scores == (300,)
    assert result.details["strikes"] == [10] and result.details["strike_rate"] == [1.0]
    assert result.details["spares"] == [0] and result.details["spare_rate"] == [0.0]


def test_bonus_racks_are_drawn_from_their_own_streams() -> None:
    """Decision: the bonus balls of the tenth frame are bowled at fresh racks 11 and 12, each drawn
    from stream(seed, "frame", n) like any frame's shuffle."""
    state = deal(STRIKE_RACK, balls=NINE_GUTTER_FRAMES, seed=77)
    play_strike(state)
    obs = state.observation(0)
    rack = rack_for(77, 11)
    assert rack == Rack.shuffled(stream(77, "frame", 11))
    assert {**obs["pins"], **obs["pins_down"]} == dict(zip(PIN_NAMES, rack.pins))


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def test_score_pad_from_the_rulebook() -> None:
    """ "Here is a score pad showing a game of Bowling Solitaire in progress. The fourth frame has just
    been completed. 20 46 65 74" (eight and two, a strike, a strike, then six and three)."""
    assert score_sheet([8, 2, 10, 10, 6, 3]) == [20, 46, 65, 74, None, None, None, None, None, None]


def test_score_pad_step_by_step() -> None:
    """ "The spare is noted in the corner of the first frame. NO SCORE IS ENTERED YET." ... "These 10 are
    added to the 10 already earned in the first frame, and 20 points are now entered for the first
    frame." ... "Now that we are two balls after the second frame's strike, the second frame score can
    be recorded ... a running total of 46 pins." """
    assert score_sheet([8, 2]) == [None] * 10
    assert score_sheet([8, 2, 10]) == [20] + [None] * 9
    assert score_sheet([8, 2, 10, 10]) == [20] + [None] * 9
    assert score_sheet([8, 2, 10, 10, 6]) == [20, 46] + [None] * 8
    assert score_sheet([8, 2, 10, 10, 6, 3])[:4] == [20, 46, 65, 74]


def test_tenpin_scoring() -> None:
    """ "It is scored like a regular game of bowling." """
    assert score_sheet([10] * 12)[-1] == 300
    assert score_sheet([10] * 12) == [30, 60, 90, 120, 150, 180, 210, 240, 270, 300]
    assert score_sheet([0] * 20)[-1] == 0
    assert score_sheet([5, 5] * 10 + [5])[-1] == 150
    assert score_sheet([9, 0] * 10)[-1] == 90
    assert score_sheet([0] * 18 + [10, 3, 4])[-1] == 17
    assert score_sheet([0] * 18 + [3, 7, 10])[-1] == 20
    assert score_sheet([0] * 18 + [10, 10])[9] is None  # one bonus ball still to come
    assert score_sheet([0, 10, 5, 0] + [0] * 16)[:2] == [15, 20]  # 0 then 10 is a spare


@pytest.mark.parametrize(
    ("balls", "message"),
    [
        ([3, -1], "negative|fewer than 0"),
        ([11], "more than the ten"),
        ([6, 5], "more than the ten standing"),
        ([0] * 20 + [4], "after the game is over"),
        ([0] * 18 + [3, 4, 2], "after the game is over"),
        ([0] * 18 + [10, 3, 8], "cannot knock down 8"),
        ([0] * 18 + [10, 10, 10, 1], "after the game is over"),
        ([0] * 18 + [9, 2], "more than the ten standing"),
        ([2.5], "whole number"),
        ([True], "whole number"),
    ],
)
def test_impossible_sequences_are_refused(balls: list[Any], message: str) -> None:
    """A sequence of balls that could not happen is refused with a clear message."""
    with pytest.raises(ValueError, match=message):
        score_sheet(balls)


def test_result_reports_the_score_sheet_total_and_rates() -> None:
    """The game's result is the score sheet's total; strikes and spares are counted over the ten frames."""
    state = deal(SAMPLE_FRAME, later_racks=[STRIKE_RACK, STRIKE_RACK], seed=4)
    play_sample_spare(state)
    play_strike(state)
    play_strike(state)
    rng = random.Random(4)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    result = state.result()
    frames = split_frames(state.balls)
    assert result.scores == (score_sheet(state.balls)[-1],)
    assert result.details["strikes"] == [sum(f.strike for f in frames)] and result.details["strikes"][0] >= 2
    assert result.details["spares"] == [sum(f.spare for f in frames)] and result.details["spares"][0] >= 1
    assert result.details["strike_rate"] == [result.details["strikes"][0] / 10]
    assert result.details["spare_rate"] == [result.details["spares"][0] / 10]
    assert result.ranks == (1,)


# ---------------------------------------------------------------------------
# Explicit deals, chance, observation, actions
# ---------------------------------------------------------------------------


def test_explicit_deals_are_checked() -> None:
    """A deal must use the twenty cards, ten pins and piles of five, three and two."""
    with pytest.raises(DealError):
        GAME.from_deal({"pins": SAMPLE_FRAME["pins"], "piles": [[0, 5, 8, 3], [0, 3, 9, 6], [4, 4]]})
    with pytest.raises(DealError):
        GAME.from_deal({"pins": {**SAMPLE_FRAME["pins"], "A": 3}, "piles": SAMPLE_FRAME["piles"]})
    with pytest.raises(DealError):
        GAME.from_deal({"pins": SAMPLE_FRAME["pins"]})
    with pytest.raises(DealError):
        GAME.from_deal({**SAMPLE_FRAME, "balls": [3]})  # an unfinished frame
    with pytest.raises(DealError):
        GAME.from_deal({**SAMPLE_FRAME, "balls": [0] * 20})  # no frame left to bowl


def test_every_frame_is_drawn_from_the_seed_and_its_number_alone() -> None:
    """Chance: frame n's shuffle comes from stream(seed, "frame", n), whatever was played before."""
    seed = 2024
    layouts: list[dict[int, dict[str, int]]] = []
    for policy in ("first", "stop", "random"):
        state = GAME.new_state(1, seed)
        rng = random.Random(policy)
        seen: dict[int, dict[str, int]] = {}
        while not state.is_over():
            obs = state.observation(0)
            seen.setdefault(obs["frame"] + obs["bonus_rack"], {**obs["pins"], **obs["pins_down"]})
            legal = state.legal_actions()
            if policy == "first":
                action = legal[0]
            elif policy == "stop":
                action = STOP if STOP in legal else legal[-1]
            else:
                action = rng.choice(legal)
            state.apply(action)
        layouts.append(seen)
    assert all(set(range(1, 11)) <= set(seen) for seen in layouts)
    for seen in layouts:
        for rack_number, layout in seen.items():
            assert layout == dict(zip(PIN_NAMES, Rack.shuffled(stream(seed, "frame", rack_number)).pins))


def test_observation_shows_the_table_but_not_the_face_down_order() -> None:
    """The player sees the pins, the face-up ball cards, the pile sizes and the cards out of play;
    the order of the face-down cards is hidden."""
    state = deal(SAMPLE_FRAME)
    obs = state.observation(0)
    assert set(obs) >= {
        "frame",
        "ball",
        "pins",
        "pins_down",
        "ball_cards",
        "pile_sizes",
        "out_of_play",
        "balls",
        "score_sheet",
        "can_stop",
        "bonus_rack",
    }
    assert obs["pins"] == SAMPLE_FRAME["pins"] and obs["ball_cards"] == [0, 0, 4]
    assert obs["pile_sizes"] == [5, 3, 2] and obs["out_of_play"] == [] and obs["pins_down"] == {}
    other = GAME.from_deal({"pins": SAMPLE_FRAME["pins"], "piles": [[0, 9, 3, 6, 4], [0, 8, 5], [4, 3]]})
    assert other.observation(0) == obs
    assert other.legal_actions() == state.legal_actions()
    json.dumps(obs)


def test_resample_hidden_redraws_only_the_face_down_cards() -> None:
    """resample_hidden shuffles the unseen face-down cards among the face-down places."""
    state = deal(SAMPLE_FRAME)
    state.apply(SAMPLE_FIRST_BALL[0])
    face_down = sorted(card for pile in state.piles for card in pile[:-1])
    orders = set()
    for draw in range(40):
        twin = state.resample_hidden(0, random.Random(draw))
        assert twin.observation(0) == state.observation(0)
        assert [pile[-1] for pile in twin.piles] == [pile[-1] for pile in state.piles]
        assert sorted(card for pile in twin.piles for card in pile[:-1]) == face_down
        orders.add(tuple(tuple(pile) for pile in twin.piles))
    assert len(orders) > 10
    assert [list(p) for p in state.piles] == [[6, 3, 8, 5], [9, 3, 0], [4, 4]]  # the original is untouched


def _brute_force_plays(state: BowlingSolitaireState) -> set[str]:
    """Every legal play, found straight from the rulebook's sentences, independently of the engine."""
    obs = state.observation(0)
    standing = obs["pins"]
    down = set(obs["pins_down"])
    touching = {frozenset(pair) for pair in ADJACENT_PAIRS}

    def connected(names: tuple[str, ...]) -> bool:
        reached = {names[0]}
        grew = True
        while grew:
            grew = False
            for name in names:
                if name not in reached and any(frozenset((name, r)) in touching for r in reached):
                    reached.add(name)
                    grew = True
        return len(reached) == len(names)

    found: set[str] = set()
    for pile, card in enumerate(obs["ball_cards"]):
        if card is None:
            continue
        for size in (1, 2, 3):
            for names in itertools.combinations(sorted(standing), size):
                total = sum(standing[name] for name in names)
                if size == 1 and total != card:
                    continue
                if size > 1 and (total % 10 != card or not connected(names)):
                    continue
                if not down:
                    if set(names) & set("ABCD") or names == ("F",):
                        continue
                elif not any(frozenset((name, d)) in touching for name in names for d in down):
                    continue
                found.add(json.dumps({"type": "bowl", "pile": pile, "pins": list(names)}))
    if found and obs["can_stop"]:
        found.add(json.dumps(STOP))
    return found


def test_every_legal_play_is_offered_and_nothing_else() -> None:
    """Every legal play is offered (each face-up card against every group it may take), nothing else,
    with pins in a canonical sorted order."""
    for seed in range(25):
        state = GAME.new_state(1, seed)
        rng = random.Random(seed)
        while not state.is_over():
            legal = state.legal_actions()
            assert {json.dumps(a) for a in legal} == _brute_force_plays(state)
            assert len({json.dumps(a) for a in legal}) == len(legal)
            for action in legal:
                if action["type"] == "bowl":
                    assert action["pins"] == sorted(action["pins"])
            state.apply(rng.choice(legal))


def test_unsorted_pins_are_refused() -> None:
    """Actions name their pins in the canonical sorted order only."""
    state = deal(SAMPLE_FRAME)
    with pytest.raises(IllegalActionError):
        state.apply({"type": "bowl", "pile": 0, "pins": ["H", "F"]})
    assert state.balls == [] and len(state.observation(0)["pins"]) == 10


def test_max_actions_bounds_every_game() -> None:
    """Twelve racks at most, each at most ten plays and one stop."""
    assert GAME.max_actions(1, {}) == 132
    longest = 0
    for seed in range(200):
        state = GAME.new_state(1, seed)
        rng = random.Random(seed)
        count = 0
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            count += 1
        longest = max(longest, count)
    assert longest <= GAME.max_actions(1, {})


def test_clone_is_independent() -> None:
    state = deal(SAMPLE_FRAME)
    twin = state.clone()
    play_sample_spare(twin)
    assert state.balls == [] and state.observation(0)["pins"] == SAMPLE_FRAME["pins"]
    assert twin.balls == [7, 3]
    assert isinstance(state.render(), str) and "J:6" in state.render()
