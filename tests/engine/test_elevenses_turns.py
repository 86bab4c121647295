"""Rules of Elevenses: the deal, playing a card and arrange actions, one test per rule, each quoting the rulebook.

Quotes are from ``elevenses-rules-en.txt`` unless marked (fr), from
``elevenses-rules-fr.txt``. Positions are built with :func:`position`, which
fills every card not named; guest tests read the guest table from the state,
so they hold for any table of guests.
"""

from __future__ import annotations

import pytest

from engine import IllegalActionError
from engine.elevenses import GAME
from engine.elevenses.cards import card_id
from tests.engine.elevenses_helpers import (
    BISCUITS,
    CAKES,
    CHINA,
    CUPS,
    ELEVEN,
    MILK,
    SANDWICHES,
    SERVANTS,
    SUGAR,
    TEA,
    TROLLEY,
    C,
    check_conservation,
    events_of,
    legal_of_type,
    play,
    position,
    where_is,
)


# =====================================================================================
# setting up and the deal
# =====================================================================================
@pytest.mark.parametrize("n", [2, 3, 4])
def test_deal_eight_face_down_and_three_in_the_kitchen(n):
    """ "Each player shuffles her 11 morning tea cards. She then places 8 of them face-down on
    the table in front of her in 2 rows of 4. ... The remaining 3 cards are taken into her
    hand and called her kitchen." and "Each player takes a set of 11 morning tea cards,
    which are differentiated by the colour of their backs.\""""
    state = GAME.new_state(n, 11)
    check_conservation(state)
    for s in range(n):
        assert state.card_at[s][1] == -1 and state.card_at[s][10] == -1
        assert not any(state.up[s])
        assert len(state.kitchen[s]) == 3
        assert sorted(state.kitchen[s] + state.card_at[s][2:10]) == list(range(11 * s, 11 * s + 11))


def test_first_round_starts_with_seat_zero_holding_the_server_card():
    """ "The player who has most recently finished drinking a delicious cup of tea will play
    first. She takes the starting server card" -- decided: seat 0 (see rules decisions)."""
    state = GAME.new_state(3, 5)
    assert state.server == 0 and state.current_player == 0
    assert state.observation(1)["server"] == 0


def test_deal_depends_on_the_seed_only():
    a = GAME.new_state(4, 99)
    b = GAME.new_state(4, 99)
    c = GAME.new_state(4, 100)
    assert a.kitchen == b.kitchen and a.card_at == b.card_at
    assert (a.kitchen, a.card_at) != (c.kitchen, c.card_at)


def test_turns_go_clockwise():
    """ "Then the players take turns in clockwise order around the table.\""""
    state = GAME.new_state(3, 1)
    seen = []
    for _ in range(4):
        seen.append(state.current_player)
        state.apply({"type": "pass"})
    assert seen == [0, 1, 2, 0]


# =====================================================================================
# playing a card
# =====================================================================================
def test_play_to_position_picks_up_the_face_down_card():
    """ "When a card is played to a position that has a face-down card, this card is picked up."
    (fr) "le joueur prend en main la carte face cachée située sur l'emplacement indiqué ...
    avant d'y déposer face visible la carte jouée.\""""
    state = position(2, kitchens={0: [C(SUGAR, 0), C(TEA, 1), C(MILK, 0)]}, down={0: {4: C(CAKES, 1)}})
    play(state, C(SUGAR, 0))
    assert where_is(state, C(SUGAR, 0)) == ("spread", 0, SUGAR, True)
    assert where_is(state, C(CAKES, 1)) == ("kitchen", 0)
    check_conservation(state)
    # the others see the back of the card picked up, not the card
    public = [e for e in state.observation(1)["events"] if e["type"] == "play"]
    assert public == [{"type": "play", "seat": 0, "card": C(SUGAR, 0), "picked_up_back": 1}]
    assert events_of(state.observation(1), "picked_up") == []


def test_tea_trolley_servants_and_elevenses_pick_up_nothing():
    """ "(This card is played to the left of the player's spread, so no card is drawn after
    playing it)" (Tea Trolley; Servants "to the right"; Elevenses "to the centre of the table")."""
    state = position(2, kitchens={0: [C(TROLLEY, 0), C(SERVANTS, 0), C(MILK, 0)]})
    play(state, C(TROLLEY, 0))
    assert state.card_at[0][1] == card_id(TROLLEY, 0) and state.up[0][1]
    assert len(state.kitchen[0]) == 2
    state.apply({"type": "pass"})
    play(state, C(SERVANTS, 0))
    assert state.card_at[0][10] == card_id(SERVANTS, 0) and state.up[0][10]
    assert state.kitchen[0] == [card_id(MILK, 0)]
    check_conservation(state)


def test_may_play_a_card_from_another_players_set():
    """ "A player may play a morning tea card that came from another player's kitchen.\""""
    state = position(2, kitchens={0: [C(SUGAR, 1), C(TEA, 0), C(MILK, 0)]})
    assert {"type": "play", "card": C(SUGAR, 1)} in state.legal_actions()
    play(state, C(SUGAR, 1))
    assert where_is(state, C(SUGAR, 1)) == ("spread", 0, SUGAR, True)


def test_may_not_play_a_copy_of_a_face_up_card():
    """ "A player may not play a morning tea card if another copy of the card is face-up in her spread.\""""
    state = position(
        2,
        kitchens={0: [C(SUGAR, 1), C(TROLLEY, 1)]},
        up={0: {SUGAR: C(SUGAR, 0), TROLLEY: C(TROLLEY, 0)}, 1: {}},
    )
    plays = legal_of_type(state, "play")
    assert {"type": "play", "card": C(SUGAR, 1)} not in plays
    assert {"type": "play", "card": C(TROLLEY, 1)} not in plays


def test_elevenses_needs_four_face_up_cards_counting_the_ends_of_the_spread():
    """ "Elevenses may only be played if you have at least 4 face-up cards in your spread."
    Cards 1 and 10 are part of the spread ("Card 11 is not part of the spread").\""""
    three = position(2, kitchens={0: [C(ELEVEN, 0)]}, up={0: {1: C(TROLLEY, 0), 10: C(SERVANTS, 0), 4: C(SUGAR, 0)}})
    assert {"type": "play", "card": C(ELEVEN, 0)} not in three.legal_actions()
    four = position(
        2,
        kitchens={0: [C(ELEVEN, 0)]},
        up={0: {1: C(TROLLEY, 0), 10: C(SERVANTS, 0), 4: C(SUGAR, 0), 9: C(CAKES, 0)}},
    )
    assert {"type": "play", "card": C(ELEVEN, 0)} in four.legal_actions()


def test_elevenses_ends_the_round_at_once():
    """ "As soon as any player plays the Elevenses card, it is 11 o'clock ... The round ends
    immediately." and "Each player announces the total value of all the face-up cards".\""""
    state = position(
        3,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}, 1: {10: C(SERVANTS, 1)}},
    )
    play(state, C(ELEVEN, 0))
    end = events_of(state.observation(2), "round_end")[0]
    assert end["reason"] == "elevenses"
    assert end["values"] == [8, 3, 0]
    assert end["placing_cubes"] == [2, 1, 0]
    assert state.round == 2 and state.turn == 1
    check_conservation(state)


def test_an_action_written_with_other_json_types_is_refused_and_changes_nothing():
    """ "she chooses 1 card from her kitchen and plays it face-up to her spread" -- the card
    must be one of hers, exactly: ``[5.0, 0]`` is not the card ``[5, 0]`` and ``true`` is not
    seat 1. (The audit's case: ``[5.0, 0]`` used to be accepted, leave the kitchen with 2
    cards and raise half-way.)"""
    state = position(2, kitchens={0: [C(CUPS, 0), C(TEA, 0), C(MILK, 0)]}, up={1: {9: C(CAKES, 1)}})
    before = (state.observation(0), state.observation(1))
    for bad in (
        {"type": "play", "card": [5.0, 0]},
        {"type": "play", "card": [5, False]},
        {"type": "play", "card": (5, 0)},
        {"type": "play", "card": ["5", 0]},
        {"type": "arrange", "card": [5, 0], "position": 2.0},
    ):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
        assert (state.observation(0), state.observation(1)) == before
        assert len(state.kitchen[0]) == 3
    play(state, C(TEA, 0))
    assert {"type": "tea", "seat": 1, "position": 9} in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply({"type": "tea", "seat": True, "position": 9})
    state.apply({"type": "tea", "seat": 1, "position": 9})
    assert events_of(state.observation(1), "tea")[0]["target"] == 1
    assert type(events_of(state.observation(1), "tea")[0]["target"]) is int


# =====================================================================================
# arrange actions
# =====================================================================================
def test_arrange_swaps_a_kitchen_card_with_a_face_down_card():
    """ "the player chooses a card from her kitchen and plays it face-down to her spread, in any
    position from 2-9 where there is a face-down card. She then picks up the face-down card
    that was in this position and adds it to her kitchen without anyone seeing.\""""
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]}, down={0: {6: C(CAKES, 1)}})
    state.apply({"type": "arrange", "card": C(ELEVEN, 0), "position": 6})
    assert where_is(state, C(ELEVEN, 0)) == ("spread", 0, 6, False)
    assert where_is(state, C(CAKES, 1)) == ("kitchen", 0)
    assert state.current_player == 0  # a second arrange action may follow
    public = events_of(state.observation(1), "arrange")
    assert public == [{"type": "arrange", "seat": 0, "position": 6, "placed_back": 0, "picked_up_back": 1}]
    check_conservation(state)


def test_second_arrange_may_place_the_card_just_picked_up_and_two_is_the_limit():
    """ "The player may perform a second arrange action in this way if she wishes. In this
    arrange action, she may place the card she just picked up.\""""
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]}, down={0: {6: C(CAKES, 1)}})
    state.apply({"type": "arrange", "card": C(MILK, 0), "position": 6})
    assert {"type": "arrange", "card": C(CAKES, 1), "position": 2} in state.legal_actions()
    state.apply({"type": "arrange", "card": C(CAKES, 1), "position": 2})
    assert state.current_player == 1  # the turn is over after two


def test_arrange_only_onto_face_down_positions_two_to_nine():
    """ "in any position from 2-9 where there is a face-down card\""""
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0)]}, up={0: {SUGAR: C(SUGAR, 0)}})
    positions = {a["position"] for a in legal_of_type(state, "arrange")}
    assert positions == {2, 3, 5, 6, 7, 8, 9}


def test_zero_arrange_actions_is_a_pass_and_one_may_stop_after_one():
    """ "she may take up to 2 arrange actions\""""
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]})
    assert {"type": "pass"} in state.legal_actions()
    state.apply({"type": "arrange", "card": C(MILK, 0), "position": 4})
    assert {"type": "stop"} in state.legal_actions()
    assert legal_of_type(state, "play") == []  # arranging is the whole turn
    state.apply({"type": "stop"})
    assert state.current_player == 1


def test_placed_card_of_another_set_shows_its_back():
    """ "A player may place down a morning tea card that came from another player's kitchen. Of
    course, it will now be recognisable due to its different-coloured back.\""""
    state = position(2, kitchens={0: [C(MILK, 1), C(TEA, 0), C(ELEVEN, 0)]})
    state.apply({"type": "arrange", "card": C(MILK, 1), "position": 5})
    assert state.observation(1)["spreads"][0]["face_down"][4] == 1
