"""Rules of Elevenses, one test per rule or card, each quoting the rulebook.

Quotes are from ``elevenses-rules-en.txt`` unless marked (fr), from
``elevenses-rules-fr.txt``. Positions are built with :func:`position`, which
fills every card not named; guest tests read the guest table from the state,
so they hold for any table of guests.
"""

from __future__ import annotations

import random

import pytest

from engine import DealError, IllegalActionError, OptionError
from engine.elevenses import GAME
from engine.elevenses.cards import CARD_VALUES, HOUSE_GUESTS, card_id, guest_cards_text, parse_guest_cards
from engine.elevenses.phases import PLAYOFF_ROUND_CAP, TURN_CAP_PER_SEAT
from engine.elevenses.scoring import next_server, placing_cubes
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
    position,
    where_is,
)


def play(state, card):
    state.apply({"type": "play", "card": card})


def finish_turn(state, seat: int) -> None:
    """Complete ``seat``'s turn in progress, if any, with the quietest choices (stop, no swap, return...)."""
    round_no = state.round
    quiet = ("stop", "no_swap", "return", "pass")
    while not state.is_over() and state.player == seat and state.round == round_no:
        legal = state.legal_actions()
        state.apply(next((a for a in legal if a["type"] in quiet), legal[0]))


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


# =====================================================================================
# the special actions
# =====================================================================================
def test_tea_trolley_gives_a_cube_when_face_up_at_the_end():
    """ "At the end of the round, if this card is face-up in your spread, you receive 1 sugar cube.\""""
    state = position(
        2,
        kitchens={0: [C(ELEVEN, 0)]},
        up={
            0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)},
            1: {1: C(TROLLEY, 1), 10: C(SERVANTS, 1)},
        },
    )
    # seat 0 has value 8, seat 1 value 3 with a Tea Trolley: 2 cubes and 0 + 1
    play(state, C(ELEVEN, 0))
    assert state.cubes == [2, 1]
    end = events_of(state.observation(1), "round_end")[0]
    assert end["trolley_cubes"] == [0, 1]


def test_tea_flips_a_face_up_card_of_another_player_face_down_in_place():
    """ "Choose a player. Flip any 1 face-up card in her spread that is valued 2-9 face-down.
    The flipped card remains in its position. It may later be picked up and played again.\""""
    state = position(
        3,
        kitchens={0: [C(TEA, 0), C(MILK, 0), C(ELEVEN, 0)], 1: [C(ELEVEN, 1)]},
        up={1: {1: C(TROLLEY, 1), 10: C(SERVANTS, 1), 8: C(SANDWICHES, 1)}, 0: {}},
    )
    play(state, C(TEA, 0))
    legal = state.legal_actions()
    # only 2-9, only other players: the Trolley and Servants cannot be flipped, nor own Tea
    assert legal == [{"type": "tea", "seat": 1, "position": 8}]
    state.apply(legal[0])
    assert where_is(state, C(SANDWICHES, 1)) == ("spread", 1, 8, False)
    assert state.observation(2)["spreads"][1]["face_down"][7] == 1
    assert C(SANDWICHES, 1) not in state.observation(2)["spreads"][1]["face_up"]
    assert events_of(state.observation(2), "tea")[-1]["card"] == C(SANDWICHES, 1)
    # seat 1 may pick it up again (arrange onto position 8)
    assert {"type": "arrange", "card": C(ELEVEN, 1), "position": 8} in state.legal_actions()
    check_conservation(state)


def test_tea_with_nothing_to_flip_does_nothing():
    """ "Choose a player. Flip any 1 face-up card in her spread that is valued 2-9 face-down."
    Decision D3: the chosen player is another player (as "Choose a player" is for Milk,
    Sandwiches and Cakes, whose chosen player is "your opponent"); when no other player has a
    face-up card at 2-9, Tea has no effect and the turn ends -- the player's own face-up cards
    (here Cakes, and the Tea just played) are never flipped."""
    state = position(
        2, kitchens={0: [C(TEA, 0), C(MILK, 0), C(ELEVEN, 0)]}, up={0: {9: C(CAKES, 0)}, 1: {1: C(TROLLEY, 1)}}
    )
    play(state, C(TEA, 0))
    assert state.current_player == 1
    assert events_of(state.observation(1), "tea")[-1]["target"] is None
    assert state.up[0][9] and state.up[0][2]


def test_milk_looks_at_a_kitchen_and_may_swap_secretly():
    """ "Choose a player. Look at the cards in her kitchen without any other players seeing. You
    may take 1 of her cards into your kitchen, but must give her a card from your kitchen in
    exchange. Keep this swap secret from all other players.\""""
    state = position(
        3,
        kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)], 1: [C(CAKES, 1), C(SUGAR, 2), C(ELEVEN, 1)]},
        down={0: {MILK: C(CUPS, 1)}},
    )
    play(state, C(MILK, 0))
    assert legal_of_type(state, "choose_player") == [
        {"type": "choose_player", "seat": 1},
        {"type": "choose_player", "seat": 2},
    ]
    state.apply({"type": "choose_player", "seat": 1})
    look = events_of(state.observation(0), "milk_look")
    assert look == [{"type": "milk_look", "seat": 0, "target": 1, "kitchen": [C(CAKES, 1), C(ELEVEN, 1), C(SUGAR, 2)]}]
    assert events_of(state.observation(2), "milk_look") == []
    assert "target_kitchen" not in state.observation(2)["phase"]
    legal = state.legal_actions()
    assert {"type": "no_swap"} in legal
    # "An Elevenses card may never be taken! ... You may also never give an Elevenses"
    assert all(a["take"] != C(ELEVEN, 1) and a["give"] != C(ELEVEN, 0) for a in legal if a["type"] == "swap")
    state.apply({"type": "swap", "take": C(CAKES, 1), "give": C(CUPS, 1)})
    assert where_is(state, C(CAKES, 1)) == ("kitchen", 0)
    assert where_is(state, C(CUPS, 1)) == ("kitchen", 1)
    third = events_of(state.observation(2), "swap")
    assert third == [{"type": "swap", "special": MILK, "taker": 0, "owner": 1, "taken_back": 1, "given_back": 1}]
    target_view = events_of(state.observation(1), "swap")
    assert target_view[0]["taken"] == C(CAKES, 1) and target_view[0]["given"] == C(CUPS, 1)
    check_conservation(state)


def test_milk_on_a_kitchen_holding_only_elevenses_takes_nothing():
    """ "If this is the only card your opponent has then you take nothing - but at least you know she has it!\""""
    state = position(
        2,
        kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)], 1: [C(ELEVEN, 1)]},
        up={1: {1: C(TROLLEY, 1), 10: C(SERVANTS, 1)}},
    )
    play(state, C(MILK, 0))
    state.apply({"type": "choose_player", "seat": 1})
    assert state.observation(0)["phase"]["target_kitchen"] == [C(ELEVEN, 1)]
    assert state.legal_actions() == [{"type": "no_swap"}]


def test_sugar_shows_your_face_down_cards_while_face_up():
    """ "As long as Sugar is face-up in your spread, you may look at all of the face-down cards
    in your spread at any time, even when it is not your turn. ... If your Sugar card is
    turned face-down later, you lose this ability.\""""
    state = position(2, kitchens={0: [C(SUGAR, 0), C(MILK, 0), C(ELEVEN, 0)], 1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]})
    assert "face_down_cards" not in state.observation(0)["spreads"][0]
    play(state, C(SUGAR, 0))
    mine = state.observation(0)["spreads"][0]["face_down_cards"]
    for p in range(2, 10):
        if p != SUGAR:
            assert mine[p - 1] == [state.card_at[0][p] % 11 + 1, state.card_at[0][p] // 11]
    assert mine[SUGAR - 1] is None
    assert "face_down_cards" not in state.observation(1)["spreads"][0]
    # seat 1 flips the Sugar with Tea: seat 0 no longer sees
    play(state, C(TEA, 1))
    state.apply({"type": "tea", "seat": 0, "position": SUGAR})
    assert "face_down_cards" not in state.observation(0)["spreads"][0]


def test_sugar_does_not_show_other_spreads():
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]}, up={0: {SUGAR: C(SUGAR, 0)}})
    assert "face_down_cards" in state.observation(0)["spreads"][0]
    assert "face_down_cards" not in state.observation(0)["spreads"][1]


def test_cups_and_saucers_allows_up_to_three_arrange_actions():
    """ "You may immediately take up to 3 arrange actions ... Remember, a card you pick up can be
    placed down in a subsequent arrange action.\""""
    state = position(
        2, kitchens={0: [C(CUPS, 0), C(MILK, 0), C(ELEVEN, 0)]}, down={0: {CUPS: C(TEA, 1), 2: C(CAKES, 1)}}
    )
    play(state, C(CUPS, 0))
    assert state.current_player == 0 and {"type": "stop"} in state.legal_actions()
    assert all(a["position"] != CUPS for a in legal_of_type(state, "arrange"))
    state.apply({"type": "arrange", "card": C(TEA, 1), "position": 2})  # the card just picked up
    state.apply({"type": "arrange", "card": C(CAKES, 1), "position": 3})
    assert state.current_player == 0
    state.apply({"type": "arrange", "card": C(MILK, 0), "position": 6})
    assert state.current_player == 1
    check_conservation(state)


def _passing_position(n, kitchens, up=None):
    return position(n, kitchens=kitchens, up=up or {})


def test_fine_china_passes_left_after_everyone_has_chosen_in_secret():
    """ "All players must choose a card from their kitchen and place it face-down on the table.
    When all players have done this, they all pass their chosen card to the player on their
    left. Each player takes the card they received into her kitchen without anyone else seeing.\""""
    state = _passing_position(
        3,
        {
            0: [C(CHINA, 0), C(MILK, 0), C(ELEVEN, 0)],
            1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)],
            2: [C(TEA, 2), C(MILK, 2), C(ELEVEN, 2)],
        },
    )
    play(state, C(CHINA, 0))
    assert state.current_player == 0
    # "You may never pass your Elevenses card!"
    assert {"type": "set_aside", "card": C(ELEVEN, 0)} not in state.legal_actions()
    state.apply({"type": "set_aside", "card": C(MILK, 0)})
    assert state.current_player == 1
    seen_by_1 = state.observation(1)
    assert seen_by_1["phase"]["chosen"] == [0] and "my_choice" not in seen_by_1["phase"]
    assert seen_by_1["kitchens"][0]["backs"] == [0, 0, 0]  # nothing has moved yet
    state.apply({"type": "set_aside", "card": C(TEA, 1)})
    state.apply({"type": "set_aside", "card": C(MILK, 2)})
    # left follows the clockwise turn order: 0 -> 1 -> 2 -> 0
    assert where_is(state, C(MILK, 0)) == ("kitchen", 1)
    assert where_is(state, C(TEA, 1)) == ("kitchen", 2)
    assert where_is(state, C(MILK, 2)) == ("kitchen", 0)
    moves = events_of(state.observation(2), "passed")[0]["moves"]
    assert moves == [{"from": 0, "to": 1, "back": 0}, {"from": 1, "to": 2, "back": 1}, {"from": 2, "to": 0, "back": 2}]
    received = events_of(state.observation(2), "received")
    assert received == [{"type": "received", "seat": 2, "from": 1, "card": C(TEA, 1)}]
    assert state.current_player == 1
    check_conservation(state)


def test_biscuits_passes_right():
    """ "they all pass their chosen card to the player on their right\""""
    state = _passing_position(
        3,
        {
            0: [C(BISCUITS, 0), C(MILK, 0), C(ELEVEN, 0)],
            1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)],
            2: [C(TEA, 2), C(MILK, 2), C(ELEVEN, 2)],
        },
    )
    play(state, C(BISCUITS, 0))
    state.apply({"type": "set_aside", "card": C(MILK, 0)})
    state.apply({"type": "set_aside", "card": C(TEA, 1)})
    state.apply({"type": "set_aside", "card": C(MILK, 2)})
    assert where_is(state, C(MILK, 0)) == ("kitchen", 2)
    assert where_is(state, C(TEA, 1)) == ("kitchen", 0)
    assert where_is(state, C(MILK, 2)) == ("kitchen", 1)


@pytest.mark.parametrize("card", [CHINA, BISCUITS])
def test_passing_with_two_players_is_an_exchange(card):
    """ "In a 2 player game, the players simply pass to each other.\""""
    state = _passing_position(2, {0: [C(card, 0), C(MILK, 0), C(ELEVEN, 0)], 1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]})
    play(state, C(card, 0))
    state.apply({"type": "set_aside", "card": C(MILK, 0)})
    state.apply({"type": "set_aside", "card": C(TEA, 1)})
    assert where_is(state, C(MILK, 0)) == ("kitchen", 1)
    assert where_is(state, C(TEA, 1)) == ("kitchen", 0)


@pytest.mark.parametrize(("card", "expected"), [(CHINA, {0: 2, 2: 3, 3: 0}), (BISCUITS, {0: 3, 3: 2, 2: 0})])
def test_a_kitchen_of_only_elevenses_is_revealed_and_skipped(card, expected):
    """ "If this is the only card in your kitchen when Fine China is played, you must reveal your
    Elevenses card to all players. You are then ignored in the passing. That is, the player on
    your right passes to the player on your left." (Biscuits: "the player on your left passes
    to the player on your right.")"""
    kitchens = {
        0: [C(card, 0), C(MILK, 0), C(ELEVEN, 0)],
        1: [C(ELEVEN, 1)],
        2: [C(TEA, 2), C(MILK, 2), C(ELEVEN, 2)],
        3: [C(TEA, 3), C(MILK, 3), C(ELEVEN, 3)],
    }
    state = _passing_position(4, kitchens, up={1: {1: C(TROLLEY, 1), 10: C(SERVANTS, 1)}})
    play(state, C(card, 0))
    reveal = events_of(state.observation(3), "reveal_elevenses")
    assert reveal == [{"type": "reveal_elevenses", "seat": 1, "card": C(ELEVEN, 1)}]
    assert state.observation(2)["phase"]["skipped"] == [1]
    chosen = {0: C(MILK, 0), 2: C(TEA, 2), 3: C(MILK, 3)}
    order = []
    while state.current_player != 1 and state.phase == 8:
        seat = state.current_player
        order.append(seat)
        state.apply({"type": "set_aside", "card": chosen[seat]})
    assert order == [0, 2, 3]
    for giver, receiver in expected.items():
        assert where_is(state, chosen[giver]) == ("kitchen", receiver)
    assert state.kitchen[1] == [card_id(ELEVEN, 1)]
    check_conservation(state)


def test_two_players_with_a_skipped_seat_pass_nothing():
    """ "If this happens in a 2 player game, no cards are passed.\""""
    state = _passing_position(
        2,
        {0: [C(CHINA, 0), C(MILK, 0), C(ELEVEN, 0)], 1: [C(ELEVEN, 1)]},
        up={1: {1: C(TROLLEY, 1), 10: C(SERVANTS, 1)}},
    )
    kitchen_before = list(state.kitchen[0])
    play(state, C(CHINA, 0))
    assert state.current_player == 1 and state.phase == 0
    assert len(state.kitchen[0]) == len(kitchen_before)  # played China, picked up a card, nothing passed


def test_passing_may_use_the_card_picked_up_by_the_play():
    """The card at position 6 is picked up before the special action (fr: "prend en main la
    carte face cachée ... Ensuite, le joueur doit appliquer les effets de l'action spéciale"),
    so it may be the one passed."""
    state = _passing_position(
        2,
        {0: [C(CHINA, 0), C(ELEVEN, 0)], 1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]},
        up={0: {10: C(SERVANTS, 0)}},
    )
    picked = state.card_at[0][CHINA]
    play(state, C(CHINA, 0))
    assert state.legal_actions() == [{"type": "set_aside", "card": [picked % 11 + 1, picked // 11]}]


def test_sandwiches_draws_a_random_card_of_the_chosen_back():
    """ "Choose a player. She must take a card from your kitchen without seeing what it is (she
    will of course see the card backs). ... Your opponent looks at the taken card secretly and
    decides to either return it to you or to keep it. If she keeps it, she must give you a card
    from her kitchen. Keep this swap secret from all other players.\""""
    state = position(
        3,
        kitchens={0: [C(SANDWICHES, 0), C(MILK, 0), C(TEA, 0)], 1: [C(CAKES, 1), C(MILK, 1), C(ELEVEN, 1)]},
        down={0: {SANDWICHES: C(SUGAR, 2), 2: C(ELEVEN, 0)}},
    )
    play(state, C(SANDWICHES, 0))
    state.apply({"type": "choose_player", "seat": 1})
    assert state.current_player == 1
    assert state.legal_actions() == [{"type": "draw", "back": 0}, {"type": "draw", "back": 2}]
    state.apply({"type": "draw", "back": 0})
    drawn = state.transit
    assert drawn in (card_id(MILK, 0), card_id(TEA, 0))
    drawn_json = [drawn % 11 + 1, 0]
    assert state.observation(1)["phase"]["drawn"] == drawn_json
    assert state.observation(0)["phase"]["drawn"] == drawn_json  # the owner sees what is missing
    assert "drawn" not in state.observation(2)["phase"]
    assert state.observation(2)["phase"]["drawn_back"] == 0
    legal = state.legal_actions()
    assert {"type": "return"} in legal
    # "Your opponent may never give an Elevenses in exchange for the card she takes."
    assert {"type": "keep", "give": C(ELEVEN, 1)} not in legal
    state.apply({"type": "keep", "give": C(MILK, 1)})
    assert where_is(state, drawn_json) == ("kitchen", 1)
    assert where_is(state, C(MILK, 1)) == ("kitchen", 0)
    third = events_of(state.observation(2), "sandwiches_give")
    assert third == [{"type": "sandwiches_give", "seat": 1, "owner": 0, "back": 1}]
    assert not events_of(state.observation(2), "sandwiches_keep")
    check_conservation(state)


def test_sandwiches_draw_is_random_over_seeds():
    """ "You may shuffle your kitchen before the card is taken": each card of the chosen back can come."""
    seen = set()
    for seed in range(30):
        state = position(
            2,
            kitchens={0: [C(SANDWICHES, 0), C(MILK, 0), C(TEA, 0)]},
            down={0: {SANDWICHES: C(SUGAR, 0), 2: C(ELEVEN, 0)}},
            seed=seed,
        )
        play(state, C(SANDWICHES, 0))
        state.apply({"type": "choose_player", "seat": 1})
        seen.add(state.transit)
    assert seen == {card_id(MILK, 0), card_id(TEA, 0), card_id(SUGAR, 0)}


def test_sandwiches_drawing_elevenses_must_return_it():
    """ "An Elevenses card may never be taken! If your opponent chooses Elevenses from your
    kitchen, she must return it.\""""
    state = position(
        2,
        kitchens={0: [C(SANDWICHES, 0), C(ELEVEN, 0)]},
        up={0: {10: C(SERVANTS, 0)}},
        down={0: {SANDWICHES: C(TEA, 1)}},
    )
    play(state, C(SANDWICHES, 0))
    state.apply({"type": "choose_player", "seat": 1})
    state.apply({"type": "draw", "back": 0})
    assert state.transit == card_id(ELEVEN, 0)
    assert state.legal_actions() == [{"type": "return"}]
    state.apply({"type": "return"})
    assert where_is(state, C(ELEVEN, 0)) == ("kitchen", 0)


def test_sandwiches_with_one_back_draws_without_a_choice():
    state = position(
        2, kitchens={0: [C(SANDWICHES, 0), C(MILK, 0), C(TEA, 0)]}, down={0: {SANDWICHES: C(SUGAR, 0), 2: C(ELEVEN, 0)}}
    )
    play(state, C(SANDWICHES, 0))
    state.apply({"type": "choose_player", "seat": 1})
    assert state.phase == 7 and state.current_player == 1  # straight to keep or return
    state.apply({"type": "return"})
    assert state.current_player == 1 and state.phase == 0
    assert sorted(state.kitchen[0]) == sorted([card_id(MILK, 0), card_id(TEA, 0), card_id(SUGAR, 0)])


def test_cakes_lets_the_chosen_player_look_and_swap():
    """ "Choose a player. She looks at your kitchen without any other players seeing. She may take
    1 of your cards into her kitchen, but must give you a card from her kitchen in exchange.\""""
    state = position(
        3,
        kitchens={0: [C(CAKES, 0), C(MILK, 0), C(ELEVEN, 0)], 1: [C(TEA, 1), C(SUGAR, 1), C(ELEVEN, 1)]},
        down={0: {CAKES: C(CUPS, 2)}},
    )
    play(state, C(CAKES, 0))
    state.apply({"type": "choose_player", "seat": 1})
    assert state.current_player == 1
    look = events_of(state.observation(1), "cakes_look")
    assert look[0]["kitchen"] == [C(MILK, 0), C(ELEVEN, 0), C(CUPS, 2)]
    assert events_of(state.observation(2), "cakes_look") == []
    assert events_of(state.observation(0), "cakes_look") == []
    legal = state.legal_actions()
    assert all(a["take"] != C(ELEVEN, 0) and a["give"] != C(ELEVEN, 1) for a in legal if a["type"] == "swap")
    state.apply({"type": "swap", "take": C(CUPS, 2), "give": C(TEA, 1)})
    assert where_is(state, C(CUPS, 2)) == ("kitchen", 1)
    assert where_is(state, C(TEA, 1)) == ("kitchen", 0)
    assert state.current_player == 1  # and it is now seat 1's own turn
    check_conservation(state)


def test_cakes_on_a_kitchen_of_only_elevenses_takes_nothing():
    """ "If this is the only card in your kitchen then your opponent takes nothing - but she knows you have it!"""
    # the card under Cakes is the Elevenses, so the kitchen ends as [Elevenses]
    state = position(
        2, kitchens={0: [C(CAKES, 0)]}, up={0: {10: C(SERVANTS, 0), 1: C(TROLLEY, 0)}}, down={0: {CAKES: C(ELEVEN, 0)}}
    )
    play(state, C(CAKES, 0))
    state.apply({"type": "choose_player", "seat": 1})
    assert state.observation(1)["phase"]["owner_kitchen"] == [C(ELEVEN, 0)]
    assert state.legal_actions() == [{"type": "no_swap"}]


def test_servants_shows_the_kitchen_to_all():
    """ "You must show the cards in your kitchen to all players. After this, your kitchen is secret again.\""""
    state = position(3, kitchens={0: [C(SERVANTS, 0), C(MILK, 1), C(ELEVEN, 0)]})
    play(state, C(SERVANTS, 0))
    for seat in (1, 2):
        shown = events_of(state.observation(seat), "servants")
        assert shown == [{"type": "servants", "seat": 0, "kitchen": [C(ELEVEN, 0), C(MILK, 1)]}]
    assert "cards" not in state.observation(1)["kitchens"][0]


def test_elevenses_card_never_changes_hands():
    """ "You may never pass your Elevenses card, or give it in exchange for a card you take.
    Elevenses may never be taken by an opponent." Over many random games, each Elevenses stays
    with its seat (checked by check_conservation)."""
    rng = random.Random(3)
    for seed in range(20):
        state = GAME.new_state(rng.choice([2, 3, 4]), seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            check_conservation(state)


# =====================================================================================
# scoring and the game
# =====================================================================================
@pytest.mark.parametrize(
    ("values", "cubes"),
    [
        ([8, 3], [2, 0]),  # "In a 2-player game, the player with the second-highest value receives nothing."
        ([8, 8], [1, 1]),  # "If players tie for the highest value, they each receive 1 sugar cube"
        ([8, 5, 3], [2, 1, 0]),  # "the player with the second-highest value receives 1 sugar cube"
        ([8, 5, 5], [2, 0, 0]),  # "If players tie for the second-highest value, they each receive nothing."
        ([8, 8, 5], [1, 1, 0]),  # "... and the other players receive nothing."
        ([3, 9, 9, 9], [0, 1, 1, 1]),
        ([1, 2, 3, 4], [0, 0, 1, 2]),
        ([0, 0, 0, 0], [1, 1, 1, 1]),
    ],
)
def test_placing_cubes(values, cubes):
    """ "Whoever has the spread with the highest value has served the best morning tea and receives 2 sugar cubes.\""""
    assert placing_cubes(values) == cubes


@pytest.mark.parametrize(
    ("cubes", "holder", "expected"),
    [([3, 1, 2], 0, 1), ([1, 2, 1], 0, 0), ([2, 1, 1], 0, 1), ([2, 1, 1], 2, 2), ([1, 2, 3, 1], 1, 3)],
)
def test_starting_server_goes_to_the_fewest_cubes(cubes, holder, expected):
    """ "The player who now has the fewest total sugar cubes takes the starting server card. If
    multiple players are tied for the fewest, then the tied player closest to the current holder
    of the starting server card in clockwise order takes the starting server card." A tied holder
    keeps it (decision)."""
    assert next_server(cubes, holder) == expected


def _ending_position(n, cubes, **kw):
    """Seat 0 can play Elevenses with 8 value; the others have nothing face up."""
    return position(
        n,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}},
        cubes=cubes,
        **kw,
    )


def test_next_round_starts_with_the_new_server():
    """ "A new round now begins!" -- the holder of the starting server card takes the first turn."""
    state = _ending_position(3, [0, 0, 0])
    play(state, C(ELEVEN, 0))
    # cubes [2, 0, 0]: seats 1 and 2 tie for fewest; seat 1 is closest clockwise to the holder 0
    assert state.cubes == [2, 0, 0] and state.server == 1 and state.current_player == 1
    assert state.round == 2
    check_conservation(state)
    assert sorted(state.kitchen[0] + state.card_at[0][2:10]) == list(range(11))


def test_the_game_ends_when_a_seat_reaches_the_target_alone():
    """ "If after scoring a round, any player has at least 5 sugar cubes and has more than anyone
    else, she wins the game!\""""
    state = _ending_position(2, [3, 4])
    play(state, C(ELEVEN, 0))
    assert state.is_over() and state.current_player is None
    result = state.result()
    assert state.cubes == [5, 4]
    assert result.ranks == (1, 2) and result.details["won"] == [True, False]
    # "Card 11 is not part of the spread and is played to the centre of the table."
    assert where_is(state, C(ELEVEN, 0)) == ("centre",)
    assert state.observation(1)["centre"] == C(ELEVEN, 0)
    check_conservation(state)


def test_below_the_target_the_game_goes_on():
    state = _ending_position(2, [1, 2])
    play(state, C(ELEVEN, 0))
    assert not state.is_over() and state.cubes == [3, 2]


def _tie_position(cubes, **kw):
    """Seat 0 can play Elevenses for 2 cubes (value 8); seat 1 has a face-up Tea Trolley
    (1 cube) and nothing else of value; seat 2 has nothing."""
    return position(
        3,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}, 1: {1: C(TROLLEY, 1)}},
        cubes=cubes,
        **kw,
    )


def test_tied_leaders_share_the_victory_by_default():
    """ "If multiple players have the same highest number of sugar cubes of 5 or more, then they
    kiss each other on the cheek and share victory!" (fr: "En cas d'égalité, les joueurs
    s'embrassent, se félicitent mutuellement et partagent leur victoire !") -- decision D16."""
    state = _tie_position([3, 4, 0])
    play(state, C(ELEVEN, 0))
    assert state.cubes == [5, 5, 0]
    assert state.is_over() and state.round == 1 and state.tied_rounds == 0
    assert state.result().ranks == (1, 1, 3)
    assert state.result().details["won"] == [True, True, False]


def test_play_on_option_plays_until_an_outright_winner():
    """ "More competitive players may keep playing additional rounds until there is an outright
    winner." -- option ties="play_on" (decision D16)."""
    state = _tie_position([3, 4, 0], options={"ties": "play_on"})
    play(state, C(ELEVEN, 0))
    assert state.cubes == [5, 5, 0] and not state.is_over() and state.tied_rounds == 1 and state.round == 2
    # an outright leader after a tie wins at once
    state = _tie_position([5, 5, 0], options={"ties": "play_on"})
    play(state, C(ELEVEN, 0))
    assert state.cubes == [7, 6, 0] and state.is_over() and state.result().ranks == (1, 2, 3)
    assert state.result().details["won"] == [True, False, False]


def test_play_on_shares_the_victory_after_its_cap():
    """Decision D16: the play-on lasts at most PLAYOFF_ROUND_CAP rounds; if the last of them
    leaves the top tied again, the tied seats "share victory"."""
    state = _tie_position([3, 4, 0], options={"ties": "play_on"})
    state.tied_rounds = PLAYOFF_ROUND_CAP
    play(state, C(ELEVEN, 0))
    assert state.cubes == [5, 5, 0] and state.is_over()
    assert state.result().ranks == (1, 1, 3)
    assert state.result().details["won"] == [True, True, False]


def test_the_play_on_cap_is_in_the_option_help():
    spec = next(spec for spec in GAME.option_specs if spec.name == "ties")
    assert spec.default == "share" and spec.choices == ("share", "play_on")
    assert f"at most {PLAYOFF_ROUND_CAP} more rounds" in spec.describe()


def test_cubes_are_unlimited_by_default():
    """ "25 Plastic Sugar Cubes" is a component count; the bowl "is simply used to store all the
    sugar cubes still to be awarded" and no rule makes it a limit (decision D14): a round is
    paid in full however many cubes are out."""
    state = _tie_position([9, 8, 9], options={"target": 11})  # 26 cubes out: more than the box's 25
    assert state.bowl is None and state.observation(0)["bowl"] is None
    play(state, C(ELEVEN, 0))
    assert state.cubes == [11, 9, 9]  # 2 for the best spread, 1 for the Tea Trolley
    assert state.is_over() and state.result().ranks == (1, 2, 2)


def test_limited_bowl_option_pays_while_cubes_last_and_ends_the_game_when_empty():
    """Option sugar_bowl="limited" (the box's "25 Plastic Sugar Cubes", fr "30 cubes Sucre"):
    cubes are paid from the bowl (first places, then second, then Tea Trolleys, clockwise from
    the server) while it lasts, and the game ends after a round that empties it."""
    state = _tie_position([6, 8, 10], options={"target": 11, "sugar_bowl": "limited"})
    assert state.bowl == 1
    play(state, C(ELEVEN, 0))
    # the best spread is owed 2 and gets the last cube; the Tea Trolley gets nothing
    assert state.cubes == [7, 8, 10] and state.bowl == 0
    assert state.is_over()
    assert state.result().ranks == (3, 2, 1)
    end = events_of(state.observation(1), "round_end")[0]
    assert end["placing_cubes"] == [1, 0, 0] and end["trolley_cubes"] == [0, 0, 0] and end["game_over"]


def test_new_options_are_validated_with_one_clear_line():
    for options, message in (
        ({"sugar_bowl": "huge"}, "option 'sugar_bowl' must be one of 'unlimited', 'limited', not 'huge'"),
        ({"ties": "coin"}, "option 'ties' must be one of 'share', 'play_on', not 'coin'"),
    ):
        with pytest.raises(OptionError) as caught:
            GAME.validate_options(options)
        assert str(caught.value) == message
    parsed = GAME.parse_options(["sugar_bowl=limited", "ties=play_on"])
    assert parsed == {**GAME.default_options(), "sugar_bowl": "limited", "ties": "play_on"}


@pytest.mark.parametrize(
    ("n", "options", "rounds"),
    [
        (4, {"edition": "fr", "target": 11}, 4 * 10 // 2 + 1),
        (2, {}, 2 * 4 // 2 + 1),
        (3, {"edition": "fr"}, 3 * 6 // 2 + 1),
        (4, {"ties": "play_on"}, 4 * 4 // 2 + 1 + PLAYOFF_ROUND_CAP),
        (4, {"edition": "fr", "target": 11, "sugar_bowl": "limited"}, 4 * 10 // 2 + 1),
        (2, {"target": 11, "sugar_bowl": "limited", "ties": "play_on"}, 2 * 10 // 2 + 1 + PLAYOFF_ROUND_CAP),
    ],
)
def test_round_cap(n, options, rounds):
    """Decision D14: every round pays at least 2 cubes (2 to the best spread, or 1 to each tied
    best), so a seat reaches the target by round n * (target - 1) // 2 + 1; the play-on adds at
    most PLAYOFF_ROUND_CAP rounds (and a limited bowl ends the game within its size in rounds)."""
    assert GAME.max_rounds(n, options) == rounds


def test_the_slowest_game_reaches_the_round_cap_and_no_further():
    """Two seats that never play tie at value 0 every round (1 cube each, "If players tie for the
    highest value, they each receive 1 sugar cube"), the slowest game there is: with target 11
    and play-on it lasts exactly the round cap."""
    options = {"target": 11, "ties": "play_on"}
    state = GAME.new_state(2, 0, options)
    while not state.is_over():
        state.apply({"type": "pass"})
    assert state.cubes == [state.round, state.round]
    assert state.round == GAME.max_rounds(2, options) == 11 + PLAYOFF_ROUND_CAP
    assert state.result().ranks == (1, 1)


def test_a_deal_must_be_a_position_the_rules_reach():
    """A leader at the target, or an empty limited bowl, means the game is over: no such deal."""
    with pytest.raises(DealError, match="leader at the target"):
        _tie_position([5, 4, 0])
    with pytest.raises(DealError, match="leader at the target"):
        _tie_position([5, 5, 0])  # tied at the target: over when ties are shared
    assert not _tie_position([5, 5, 0], options={"ties": "play_on"}).is_over()
    with pytest.raises(DealError, match="would be empty"):
        _tie_position([8, 8, 9], options={"target": 11, "sugar_bowl": "limited"})


def test_the_turn_cap_scores_the_round_as_if_eleven_struck():
    """Decision D13: the rulebook lets a round go on while nobody plays "the Elevenses card"; a
    round nobody ends is scored after turn_cap turns per seat (default TURN_CAP_PER_SEAT)."""
    for options, per_seat in (({}, TURN_CAP_PER_SEAT), ({"turn_cap": 7}, 7)):
        state = _ending_position(2, [0, 0], options=options)
        assert state.turn_cap == per_seat * 2 and state.observation(1)["turn_cap"] == per_seat * 2
        for _ in range(state.turn_cap - 1):
            state.apply({"type": "pass"})
        assert state.round == 1
        state.apply({"type": "pass"})
        end = events_of(state.observation(0), "round_end")[0]
        assert end["reason"] == "turn_cap" and end["values"] == [8, 0] and end["turns"] == per_seat * 2
        assert state.cubes == [2, 0] and state.round == 2


def test_turn_cap_option_is_validated():
    assert TURN_CAP_PER_SEAT == 24
    with pytest.raises(OptionError, match="at least 5"):
        GAME.validate_options({"turn_cap": 4})
    with pytest.raises(OptionError, match="at most 100"):
        GAME.validate_options({"turn_cap": 101})
    with pytest.raises(OptionError, match="integer"):
        GAME.validate_options({"turn_cap": 12.0})
    assert GAME.parse_options(["turn_cap=12"])["turn_cap"] == 12
    with pytest.raises(DealError, match="turn_cap"):
        _ending_position(2, [0, 0], options={"turn_cap": 5}, turn=11)


def test_max_actions_bounds_a_passing_game():
    """Every round pays at least one cube, so rounds are at most the bowl; the bound holds."""
    state = GAME.new_state(2, 0)
    count = 0
    while not state.is_over():
        state.apply({"type": "pass"} if {"type": "pass"} in state.legal_actions() else state.legal_actions()[0])
        count += 1
    assert count <= GAME.max_actions(2, {})


# =====================================================================================
# editions and options
# =====================================================================================
def test_editions_set_target_and_bowl():
    """English: "until a player has 5 or more sugar cubes", "25 Plastic Sugar Cubes"; French:
    "lorsqu'un joueur possède 7 cubes ou plus", "30 cubes Sucre".\""""
    en = GAME.new_state(2, 0, {"sugar_bowl": "limited"})
    fr = GAME.new_state(2, 0, {"edition": "fr", "sugar_bowl": "limited"})
    assert (en.target_cubes, en.bowl) == (5, 25)
    assert (fr.target_cubes, fr.bowl) == (7, 30)
    # the box's count bounds the bowl only with the limited bowl (decision D14)
    assert GAME.new_state(2, 0, {"edition": "fr"}).bowl is None


@pytest.mark.parametrize(
    ("edition", "target", "expected"), [("en", 9, 9), ("fr", 5, 5), ("fr", 11, 11), ("en", "edition", 5)]
)
def test_target_variant(edition, target, expected):
    """(fr) "changez simplement le nombre (5, 9 ou 11) de cubes sucre nécessaire pour la victoire !\""""
    state = GAME.new_state(3, 0, {"edition": edition, "target": target})
    assert state.target_cubes == expected
    assert state.observation(0)["target_cubes"] == expected


def test_target_option_rejects_other_values():
    with pytest.raises(OptionError):
        GAME.validate_options({"target": 6})
    assert GAME.parse_options(["target=9"])["target"] == 9


def test_french_edition_announces_the_value_after_each_play():
    """(fr) "Pour terminer, le joueur annonce la valeur totale des cartes posées visibles sur sa
    nappe" -- the face-up cards are public anyway; the announcement is an event."""
    state = position(
        2, kitchens={0: [C(SUGAR, 0), C(MILK, 0), C(ELEVEN, 0)]}, up={0: {9: C(CAKES, 0)}}, options={"edition": "fr"}
    )
    play(state, C(SUGAR, 0))
    assert events_of(state.observation(1), "announce") == [{"type": "announce", "seat": 0, "value": 3}]
    english = position(2, kitchens={0: [C(SUGAR, 0), C(MILK, 0), C(ELEVEN, 0)]})
    play(english, C(SUGAR, 0))
    assert events_of(english.observation(1), "announce") == []


def test_french_target_seven_ends_there():
    state = _ending_position(2, [5, 0], options={"edition": "fr"})
    play(state, C(ELEVEN, 0))
    assert state.cubes == [7, 0] and state.is_over()


def test_from_deal_rejects_impossible_layouts():
    def deal(kitchen0, kitchen1, spread0=None):
        spreads = [spread0 or [C(k, 0) for k in range(1, 9)], [C(k, 1) for k in range(1, 9)]]
        return {"spreads": spreads, "kitchens": [kitchen0, kitchen1]}

    GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 0)], [C(9, 1), C(10, 1), C(11, 1)]))
    with pytest.raises(DealError):  # a kitchen too small
        GAME.from_deal(deal([C(9, 0), C(10, 0)], [C(9, 1), C(10, 1), C(11, 1), C(11, 0)]))
    with pytest.raises(DealError):  # an Elevenses with another seat
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 1)], [C(9, 1), C(10, 1), C(11, 0)]))
    with pytest.raises(DealError):  # a card twice
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(10, 0)], [C(9, 1), C(10, 1), C(11, 1)]))
    spread = [None, {"up": C(3, 0)}] + [{"down": C(k, 0)} for k in (1, 2, 4, 5, 6, 7, 8)] + [None]
    with pytest.raises(DealError):  # a face-up card away from its position
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 0)], [C(9, 1), C(10, 1), C(11, 1)], spread))


def test_illegal_action_changes_nothing():
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]})
    with pytest.raises(IllegalActionError):
        state.apply({"type": "play", "card": C(ELEVEN, 0)})  # no four face-up cards


# =====================================================================================
# special guests (the advanced rules)
# =====================================================================================
CUSTOM_GUESTS = "1-9-10,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8"


def _kitchen_for(ups, first, avoid=()):
    """A kitchen for seat 0 holding ``first`` and fillers, of the size its spread allows."""
    size = 3 - sum(1 for p in ups if p in (1, 10))
    kitchen = list(first)
    for filler in (ELEVEN, TEA, MILK, SUGAR, CUPS, CHINA, BISCUITS, SANDWICHES, CAKES):
        if len(kitchen) >= size:
            break
        if filler not in ups and filler not in avoid and C(filler, 0) not in kitchen:
            kitchen.append(C(filler, 0))
    return kitchen


def _guest_position(options, wants):
    """Seat 0 holds guest 0 and has two of its three cards face up; the third is in its kitchen."""
    ups = {wants[0]: C(wants[0], 0), wants[1]: C(wants[1], 0)}
    kitchen = _kitchen_for(ups, [C(wants[2], 0)], avoid=wants)
    return position(2, kitchens={0: kitchen}, up={0: ups}, options=options, guests=[0, 1])


@pytest.mark.parametrize("table", ["house", CUSTOM_GUESTS])
def test_special_guest_arrives_at_the_end_of_the_turn_worth_two(table):
    """ "At the end of a turn in which the 3 morning tea cards depicted on your special guest card
    are face-up in your spread, you may reveal your special guest card. Turn it face-up. Your
    morning tea has gained 2 value!\""""
    options = {"special_guests": True, "guest_cards": table}
    wants = parse_guest_cards(table)[0].wants
    state = _guest_position(options, wants)
    assert state.observation(1)["guests"][0] is None and state.observation(1)["my_guest"] == 1
    assert state.observation(0)["guests"][0] is None and state.observation(0)["my_guest"] == 0
    value_before = state.card_value(0)
    play(state, C(wants[2], 0))
    finish_turn(state, 0)
    assert state.guest_shown[0]
    assert state.spread_value(0) == state.card_value(0) + 2
    assert state.card_value(0) >= value_before
    assert state.observation(1)["guests"][0] == 0
    arrivals = events_of(state.observation(1), "guest_arrives")
    assert arrivals == [{"type": "guest_arrives", "seat": 0, "guest": 0, "wants": list(wants)}]


@pytest.mark.parametrize("table", ["house", CUSTOM_GUESTS])
def test_special_guest_stays_when_a_card_is_turned_face_down(table):
    """ "If later in the game, one of these 3 morning tea cards is turned face-down again, your
    special guest card remains face-up.\""""
    options = {"special_guests": True, "guest_cards": table}
    wants = parse_guest_cards(table)[0].wants
    ups = {w: C(w, 0) for w in wants}
    state = position(
        2,
        kitchens={1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]},
        up={0: ups},
        options=options,
        guests=[0, 1],
        guests_revealed=[True, False],
        player=1,
    )
    flippable = [w for w in wants if 2 <= w <= 9]
    play(state, C(TEA, 1))
    if flippable:
        state.apply({"type": "tea", "seat": 0, "position": flippable[0]})
        assert not state.up[0][flippable[0]]
    assert state.guest_shown[0]
    assert state.spread_value(0) == state.card_value(0) + 2


def test_special_guest_is_not_revealed_after_elevenses():
    """ "You may not reveal your special guest card after playing the Elevenses card." (The
    position is built by hand: in play the guest would have come at the end of an earlier turn.)"""
    options = {"special_guests": True}
    wants = GAME.guest_table(GAME.validate_options(options))[0].wants
    ups = {w: C(w, 0) for w in wants}
    extra = next(p for p in range(2, 10) if p not in wants)
    ups[extra] = C(extra, 0)
    state = position(2, kitchens={0: _kitchen_for(ups, [C(ELEVEN, 0)])}, up={0: ups}, options=options, guests=[0, 1])
    play(state, C(ELEVEN, 0))
    end = events_of(state.observation(1), "round_end")[0]
    assert end["values"][0] == sum(CARD_VALUES[p] for p in ups)  # no +2: the guest never arrived


def test_a_revealed_guest_does_not_count_toward_elevenses():
    """ "when it is face-up it does not count as one of the 4 cards required to play the Elevenses card.\""""
    state = position(
        2,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0)]},
        up={0: {1: C(TROLLEY, 0), 6: C(CHINA, 0), 7: C(BISCUITS, 0)}},
        options={"special_guests": True},
        guests=[0, 1],
        guests_revealed=[True, False],
    )
    assert {"type": "play", "card": C(ELEVEN, 0)} not in state.legal_actions()
    assert state.spread_value(0) == 4 + 2


def test_guests_are_dealt_one_per_seat_each_round():
    """ "At the start of each round, shuffle all 6 special guest cards and randomly deal 1
    face-down to each player. Any remaining special guest cards are not used this round.\""""
    seen = set()
    for seed in range(12):
        state = GAME.new_state(4, seed, {"special_guests": True})
        assert len(set(state.guest)) == 4 and all(0 <= g < 6 for g in state.guest)
        seen.update(state.guest)
    assert seen == set(range(6))
    assert GAME.new_state(2, 0).guest == [-1, -1]


def test_guest_cards_option_is_validated():
    assert parse_guest_cards(guest_cards_text(HOUSE_GUESTS)) != HOUSE_GUESTS  # same wants, other names
    assert [g.wants for g in parse_guest_cards(guest_cards_text(HOUSE_GUESTS))] == [g.wants for g in HOUSE_GUESTS]
    for bad in ["1-2-3", "1-2-11,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8", "1-1-2,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8", "x"]:
        with pytest.raises(OptionError):
            GAME.validate_options({"guest_cards": bad})
    GAME.validate_options({"guest_cards": CUSTOM_GUESTS})
