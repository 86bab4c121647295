"""Rules of Elevenses: the special actions of the cards, one test per card, each quoting the rulebook.

Quotes are from ``elevenses-rules-en.txt`` unless marked (fr), from
``elevenses-rules-fr.txt``. Positions are built with :func:`position`, which
fills every card not named; guest tests read the guest table from the state,
so they hold for any table of guests.
"""

from __future__ import annotations

import random

import pytest

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
