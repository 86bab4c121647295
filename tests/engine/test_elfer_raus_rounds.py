"""Rules of Elfer raus! (elfer-raus-eleven-starts.txt): rounds and the game, the number swap, what seats see.

Choices where the rulebook is silent are in docs/rules-decisions.md (elfer-raus).
"""

from __future__ import annotations

import json
import random

import pytest

from engine import OptionError, get_game
from engine.elfer_raus import (
    COLOURS,
    GAME,
    card_id,
    deck_cards,
)
from engine.rng import stream
from engine.testing import random_playout
from tests.engine.elfer_raus_helpers import DRAW, c, cid, fresh_deal, full_rows, hand_of, play, plays_in, position

# ---- round and game ---------------------------------------------------------------


def test_first_out_wins_the_round_and_the_others_score_their_cards() -> None:
    """ "The round is won by the first player able to play his last card. The other players should
    add up the values of their cards and make a note of the totals" """
    rows = full_rows("yellow", "green", "blue") | {"red": [3, 17]}
    state = position(3, rows, {0: "r2", 1: "r1 r18", 2: "r19 r20"}, current=0)
    state.apply(play("r2"))  # seat 0's last card
    obs = state.observation(1)
    end = next(e for e in obs["events"] if e["type"] == "round_end")
    assert end["winner"] == 0 and end["reason"] == "out"
    assert end["points"] == [0, 1 + 18, 19 + 20]
    assert obs["totals"] == [0, 19, 39]
    assert obs["round"] == 2  # the next round is dealt


def test_the_lowest_total_after_the_rounds_wins_and_ties_share() -> None:
    """ "The overall game e.g. after 3-5 rounds, is won by the player with the lowest final total." """
    rows = full_rows("yellow", "green", "blue") | {"red": [4, 17]}
    state = position(4, rows, {0: "r3", 1: "r2 r18", 2: "r1 r19", 3: "r20"}, current=0, options={"rounds": 1})
    state.apply(play("r3"))
    assert state.is_over() and state.current_player is None
    result = state.result()
    assert result.scores == (0.0, 20.0, 20.0, 20.0)
    assert result.ranks == (1, 2, 2, 2)
    assert result.details["rounds_won"] == [1, 0, 0, 0]


def test_a_game_has_the_chosen_number_of_rounds() -> None:
    """ "The overall game e.g. after 3-5 rounds": option rounds, 1 to 10, 3 by default."""
    assert GAME.default_options()["rounds"] == 3
    for bad in (0, 11):
        with pytest.raises(OptionError):
            GAME.validate_options({"rounds": bad})
    for rounds in (1, 3, 5):
        state = GAME.new_state(3, rounds, {"rounds": rounds})
        random_playout(state, random.Random(rounds), GAME.max_actions(3, {"rounds": rounds}))
        assert len(state.round_points) == rounds
        totals = [sum(points[seat] for points in state.round_points) for seat in range(3)]
        assert list(state.result().scores) == totals
        assert len(state.result().details["round_points"][0]) == rounds


def test_later_rounds_open_with_the_red_eleven_again() -> None:
    """ "The player with the red eleven goes first": every round is dealt afresh and opened the same
    way (rules decision)."""
    state = GAME.new_state(4, 11)
    while state.round == 1:
        state.apply(random.Random(len(state.log.entries)).choice(state.legal_actions()))
    shuffled = list(deck_cards(False))
    attempt = state.redeals
    stream(11, "deal", 2, attempt).shuffle(shuffled)
    for colour in range(4):
        eleven = card_id(colour, 11)
        if eleven in shuffled[:60]:
            holder = shuffled.index(eleven) // 15
            break
    assert state.starter == holder
    assert state.low[colour] == 11 and sum(1 for low in state.low if low) == 1


def test_a_round_where_no_one_can_go_ends_with_everyone_scoring_their_hand() -> None:
    """A round where no one can play and the pack is empty ends, each player scoring what they hold
    (rules decision). With the whole deck in play this cannot happen, so the test takes the red 3
    out of the game to force it."""
    rows = full_rows("yellow", "green", "blue") | {"red": [3, 20]}
    state = position(2, rows, {0: "r1", 1: "r2"}, current=1)
    state.low[COLOURS.index("red")] = 4  # the red 3 is lost: the red 2 and red 1 can never be laid
    state.pass_turn_from(1)
    assert state.round_points[0] == [1, 2]
    assert state.round_winners[0] is None
    assert state.totals == [1, 2]
    end = next(e for e in state.log.since_last_decision(0) if e["type"] == "round_end")
    assert end["reason"] == "blocked" and end["points"] == [1, 2]
    assert state.round == 2


def test_random_games_never_block() -> None:
    """Every round of a full deck ends with a player going out (the blocked end is unreachable)."""
    for seed in range(30):
        for options in ({}, {"number_swap": True}):
            state = GAME.new_state(2 + seed % 5, seed, options)
            random_playout(state, random.Random(seed), GAME.max_actions(2 + seed % 5, GAME.validate_options(options)))
            assert None not in state.round_winners


# ---- number swap -----------------------------------------------------------------------


def test_number_swap_rows_start_with_10_11_or_12_in_any_colour() -> None:
    """ "instead you can start a row with a 10, 11 or 12. There is also no order in the colours." """
    state = fresh_deal(2, {0: "b12 r11 y10 g9 g13"}, options={"number_swap": True})
    obs = state.observation(0)
    assert all(row is None for row in obs["rows"].values())  # nothing is laid for the starter
    assert {"b12", "r11", "y10"} <= plays_in(state.legal_actions())
    assert not {"g9", "g13"} & plays_in(state.legal_actions())
    state.apply(play("b12"))
    assert state.observation(0)["rows"]["blue"] == [12, 12]


def test_number_swap_rows_build_both_ways_from_their_first_card() -> None:
    """ "you can start a row with a 10, 11 or 12" and the row grows from it as in the base game."""
    state = fresh_deal(2, {0: "r10 r9 r11 r12 r8"}, options={"number_swap": True})
    state.apply(play("r10"))
    assert plays_in(state.legal_actions()) >= {"r9", "r11"}
    assert "r12" not in plays_in(state.legal_actions())
    state.apply(play("r11"))
    state.apply(play("r12"))
    state.apply(play("r9"))
    state.apply(play("r8"))
    assert state.observation(0)["rows"]["red"] == [8, 12]


def test_number_swap_other_rows_need_not_follow_the_first() -> None:
    """ "if the first row is started with e.g. a 10, the other rows may still start with 11 or 12.
    The starting card of the first colour doesn't have to be followed by the other colours." """
    state = fresh_deal(2, {0: "r10 y12 g11"}, options={"number_swap": True})
    state.apply(play("r10"))
    assert {"y12", "g11"} <= plays_in(state.legal_actions())
    state.apply(play("y12"))
    assert state.observation(0)["rows"]["yellow"] == [12, 12]


def test_number_swap_the_player_right_of_the_dealer_begins_and_the_deal_passes_on() -> None:
    """ "The player right from the dealer begins." The first dealer is the last seat, so seat 0
    begins; the deal passes to the right each round (rules decision)."""
    for num_players in (2, 3, 6):
        state = GAME.new_state(num_players, 5, {"number_swap": True, "rounds": 3})
        rng = random.Random(num_players)
        for round_number in (1, 2, 3):
            obs = state.observation(0)
            assert obs["round"] == round_number
            assert obs["dealer"] == (num_players - 1 + round_number - 1) % num_players
            assert obs["starter"] == (obs["dealer"] + 1) % num_players == state.current_player
            assert all(row is None for row in obs["rows"].values())
            while not state.is_over() and state.round == round_number:
                state.apply(rng.choice(state.legal_actions()))
    explicit = fresh_deal(3, {}, options={"number_swap": True}, dealer=1)
    assert explicit.current_player == 2


def test_number_swap_a_starter_who_cannot_go_draws() -> None:
    """ "Like the base game if the player can't lay down a card on the table he/she must take up to
    3 cards from the pack." """
    state = fresh_deal(
        3,
        {1: "r10 r11 r12 y10 y11 y12", 2: "g10 g11 g12 b10 b11 b12"},
        pack_top="r1 r2 r3",
        options={"number_swap": True},
    )
    assert state.current_player == 0
    assert state.legal_actions() == [DRAW]
    state.apply(DRAW)
    assert {"r1", "r2", "r3"} <= hand_of(state, 0)
    assert state.current_player == 1


# ---- what seats see ------------------------------------------------------------------


def test_a_drawn_card_is_seen_only_by_its_drawer_until_played() -> None:
    """Cards are dealt "face down" and the pack is "face down": others see that a card was drawn,
    not which, until it is played."""
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "r1"}, pack_top="y1 r12", rest_to=1)
    state.apply(DRAW)
    mine = [e for e in state.observation(0)["events"] if e["type"] == "draw"]
    assert mine == [{"type": "draw", "seat": 0, "cards": [c("y1"), c("r12")], "fits": True}]
    theirs = [e for e in state.observation(1)["events"] if e["type"] == "draw"]
    assert theirs == [{"type": "draw", "seat": 0, "count": 2, "fits": True}]
    text = json.dumps(state.observation(1))
    assert '["yellow", 1]' not in text and '["red", 12]' not in text
    assert state.observation(1)["turn"]["drawn_card"] is None
    state.apply(play("r12"))
    assert {"type": "play", "seat": 0, "colour": "red", "number": 12} in state.observation(1)["events"]
    assert state.observation(1)["hand_sizes"] == [2, len(state.hands[1])]


def test_observation_holds_the_public_table_and_own_hand_only() -> None:
    state = GAME.new_state(4, 2)
    obs = state.observation(1)
    assert set(obs) == {
        "game",
        "seat",
        "num_players",
        "round",
        "rounds",
        "dealer",
        "starter",
        "current_player",
        "hand",
        "rows",
        "opening_numbers",
        "pack_size",
        "hand_sizes",
        "totals",
        "round_points",
        "turn",
        "over",
        "events",
    }
    assert sorted(cid(f"{colour[0]}{number}") for colour, number in obs["hand"]) == sorted(state.hands[1])
    for other in (0, 2, 3):
        for card in state.hands[other]:
            assert [COLOURS[card // 20], card % 20 + 1] not in obs["hand"]


def test_resampling_keeps_what_the_seat_knows_and_redraws_the_rest() -> None:
    state = GAME.new_state(3, 8)
    rng = random.Random(1)
    seen_other_hands = set()
    for _ in range(20):
        twin = state.resample_hidden(0, rng)
        assert twin.hands[0] == state.hands[0]
        assert [len(h) for h in twin.hands] == [len(h) for h in state.hands]
        assert len(twin.pack) == len(state.pack)
        assert sorted(twin.hands[1] | twin.hands[2] | set(twin.pack)) == sorted(
            state.hands[1] | state.hands[2] | set(state.pack)
        )
        seen_other_hands.add(frozenset(twin.hands[1]))
    assert len(seen_other_hands) > 1


def test_resampling_keeps_another_seats_drawn_card_playable() -> None:
    """A seat known to hold a matching drawn card keeps one (any unseen matching card) in the copy."""
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "y6"}, pack_top="y1 r12", rest_to=1)
    state.apply(DRAW)
    rng = random.Random(3)
    for _ in range(30):
        twin = state.resample_hidden(1, rng)
        assert twin.pending_draw in twin.hands[0]
        assert twin.fits(twin.pending_draw)
        assert twin.legal_actions()[0]["type"] == "play"


# ---- the contract's promises -------------------------------------------------------------


def test_registered_and_bounded() -> None:
    assert get_game("elfer-raus") is GAME
    for num_players in range(2, 7):
        for options in ({}, {"number_swap": True}, {"rounds": 10}):
            validated = GAME.validate_options(options)
            cap = GAME.max_actions(num_players, validated)
            for seed in range(5):
                state = GAME.new_state(num_players, seed, options)
                assert len(random_playout(state, random.Random(seed), cap)) <= cap
