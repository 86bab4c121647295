"""Rules of Elfer raus! (elfer-raus-eleven-starts.txt): the deal, who starts and a turn, each test quoting the rulebook.

Choices where the rulebook is silent are in docs/rules-decisions.md (elfer-raus).
"""

from __future__ import annotations

import pytest

from engine import DealError, IllegalActionError, OptionError, PlayerCountError
from engine.elfer_raus import (
    COLOURS,
    GAME,
    card_id,
    deck_cards,
)
from engine.rng import stream
from tests.engine.elfer_raus_helpers import DRAW, END, all_deck, c, fresh_deal, hand_of, play, plays_in, position

# ---- the deal -----------------------------------------------------------------


@pytest.mark.parametrize(("num_players", "size"), [(2, 20), (3, 20), (4, 15), (5, 12), (6, 10)])
def test_deal_sizes_and_pack(num_players: int, size: int) -> None:
    """ "Shuffle the 80 cards well and deal them face down to the players as follows: 2-3 players:
    20 cards each, 4 players: 15 cards each, 5 players: 12 cards each, 6 players: 10 cards each.
    The rest of the cards should remain face down in the pack." """
    # number swap lays nothing automatically, so the hands are exactly as dealt
    state = GAME.new_state(num_players, 7, {"number_swap": True})
    obs = state.observation(0)
    assert obs["hand_sizes"] == [size] * num_players
    assert obs["pack_size"] == 80 - size * num_players
    everything = [card for hand in state.hands for card in hand] + state.pack
    assert sorted(everything) == list(range(80))
    # base game: the opening eleven left one hand for the table
    base = GAME.new_state(num_players, 7)
    assert sum(base.observation(0)["hand_sizes"]) == size * num_players - 1
    assert base.observation(0)["pack_size"] == 80 - size * num_players


def test_the_deal_comes_from_its_own_stream() -> None:
    """All chance from the seed: the deal of round r is stream(seed, "deal", r, attempt)."""
    state = GAME.new_state(4, 123, {"number_swap": True})
    shuffled = list(deck_cards(False))
    stream(123, "deal", 1, 0).shuffle(shuffled)
    assert [sorted(hand) for hand in state.hands] == [sorted(shuffled[s * 15 : (s + 1) * 15]) for s in range(4)]
    assert state.pack == shuffled[60:]


def test_two_players_may_remove_the_blues() -> None:
    """ "For two players it is a good idea to remove the 20 blue cards at the start and play with
    just 60 cards." """
    state = GAME.new_state(2, 3, {"without_blues": True, "number_swap": True})
    obs = state.observation(0)
    assert obs["hand_sizes"] == [20, 20] and obs["pack_size"] == 20
    assert set(obs["rows"]) == {"red", "yellow", "green"}
    everything = [card for hand in state.hands for card in hand] + state.pack
    assert sorted(everything) == deck_cards(True)
    assert all(card // 20 != COLOURS.index("blue") for card in everything)


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_the_sixty_card_deck_is_for_two_players_only(num_players: int) -> None:
    """ "For two players it is a good idea to remove the 20 blue cards": not offered to more players."""
    with pytest.raises(OptionError, match="2 players only"):
        GAME.new_state(num_players, 0, {"without_blues": True})
    with pytest.raises(OptionError, match="2 players only"):
        GAME.check_options_for_players(num_players, GAME.validate_options({"without_blues": True}))


def test_a_blue_card_is_refused_in_the_sixty_card_deck() -> None:
    hands = [all_deck(True)[:20], all_deck(True)[20:40]]
    pack = all_deck(True)[40:]
    pack[-1] = c("b5")
    with pytest.raises(DealError, match="blue 5"):
        GAME.from_deal({"hands": hands, "pack": pack}, {"without_blues": True})


def test_explicit_deals_are_checked() -> None:
    deck = all_deck()
    with pytest.raises(DealError, match="20 cards"):
        GAME.from_deal({"hands": [deck[:19], deck[19:40]], "pack": deck[40:]})
    with pytest.raises(DealError, match="duplicated"):
        GAME.from_deal({"hands": [deck[:20], deck[20:40]], "pack": deck[40:79] + [deck[0]]})
    with pytest.raises(DealError, match="not a card"):
        GAME.from_deal({"hands": [deck[:20], deck[20:39] + [["red", 21]]], "pack": deck[40:]})
    with pytest.raises(PlayerCountError):
        GAME.from_deal({"hands": [deck[:20]], "pack": deck[20:]})
    with pytest.raises(DealError, match="start with"):
        position(2, {"red": [12, 14]}, {0: "r15", 1: "r10"})


# ---- who starts ---------------------------------------------------------------------


def test_the_red_eleven_opens_and_the_next_player_on_the_right_goes() -> None:
    """ "The player with the red eleven goes first. This card should be placed face up in the middle
    of the table." ... "It is now the turn of the next player on the right"."""
    state = fresh_deal(3, {1: "r11 y11"})
    obs = state.observation(0)
    assert obs["rows"]["red"] == [11, 11]
    assert obs["rows"]["yellow"] is None
    assert obs["starter"] == 1
    assert "r11" not in hand_of(state, 1) and "y11" in hand_of(state, 1)
    assert obs["hand_sizes"] == [20, 19, 20]
    assert state.current_player == 2
    assert {"type": "open", "seat": 1, "colour": "red", "number": 11} in obs["events"]


@pytest.mark.parametrize(
    ("hands", "in_pack", "opener", "colour"),
    [
        ({0: "g11", 2: "y11"}, "r11 b11", 2, "yellow"),
        ({0: "b11", 1: "g11"}, "r11 y11", 1, "green"),
        ({3: "b11"}, "r11 y11 g11", 3, "blue"),
    ],
)
def test_elevens_of_other_colours_open_in_order_yellow_green_blue(
    hands: dict[int, str], in_pack: str, opener: int, colour: str
) -> None:
    """ "If there is no red eleven among the dealt cards, then the player with the eleven in another
    colour goes first. The order of precedence is yellow, green, blue." """
    state = fresh_deal(4, hands, in_pack=in_pack)
    obs = state.observation(0)
    assert obs["starter"] == opener
    assert [name for name, row in obs["rows"].items() if row] == [colour]
    assert state.current_player == (opener + 1) % 4


def _seed_without_dealt_eleven() -> int:
    deck = deck_cards(True)
    elevens = {card_id(colour, 11) for colour in (0, 1, 2)}
    for seed in range(10_000):
        shuffled = list(deck)
        stream(seed, "deal", 1, 0).shuffle(shuffled)
        if not elevens & set(shuffled[:40]):
            return seed
    raise AssertionError("no such seed found")


def test_no_eleven_dealt_means_a_fresh_deal() -> None:
    """ "If there is no eleven among the dealt cards at all, the cards must be reshuffled and dealt
    once more." """
    seed = _seed_without_dealt_eleven()
    state = GAME.new_state(2, seed, {"without_blues": True})
    deal_event = next(e for e in state.observation(0)["events"] if e["type"] == "deal")
    attempt = deal_event["redeals"]
    assert attempt >= 1
    shuffled = list(deck_cards(True))
    stream(seed, "deal", 1, attempt).shuffle(shuffled)
    opener = state.observation(0)["starter"]
    dealt = [set(shuffled[:20]), set(shuffled[20:40])]
    opened = [card_id(colour, 11) for colour in (0, 1, 2) if state.low[colour]]
    assert len(opened) == 1 and opened[0] in dealt[opener]
    assert state.hands[opener] | {opened[0]} == dealt[opener]


def test_an_explicit_deal_without_eleven_is_refused() -> None:
    with pytest.raises(DealError, match="no eleven"):
        fresh_deal(2, {}, in_pack="r11 y11 g11 b11")


# ---- a turn ---------------------------------------------------------------------------


def test_a_ten_goes_left_of_the_eleven_and_a_twelve_right_building_to_1_and_20() -> None:
    """ "He/she lays a 10 of the same colour to the left of the eleven already played or a 12 to the
    right. Cards of the same colour should be placed on top of each other in the sequence 10-1 or
    12-20 in each case." """
    state = position(2, {"red": [11, 11]}, {0: "r10 r12 r9 r13 y10 y12", 1: "r1"}, rest_to=1)
    assert plays_in(state.legal_actions()) == {"r10", "r12"}
    state.apply(play("r10"))
    assert plays_in(state.legal_actions()) == {"r9", "r12"}
    state.apply(play("r12"))
    assert plays_in(state.legal_actions()) == {"r9", "r13"}
    assert state.observation(0)["rows"]["red"] == [10, 12]
    with pytest.raises(IllegalActionError):
        state.apply(play("y10"))  # no yellow row yet


def test_another_eleven_starts_a_new_row_in_any_colour_order() -> None:
    """ "He/she lays another eleven above or below the eleven already played and thus starts a new
    row." (Any eleven, in any order: see the rules decisions.)"""
    state = position(3, {"red": [11, 11]}, {0: "b11 b10 b12 g11", 1: "r1", 2: "r2"}, rest_to=1)
    assert plays_in(state.legal_actions()) == {"b11", "g11"}
    state.apply(play("b11"))
    assert state.observation(0)["rows"]["blue"] == [11, 11]
    assert plays_in(state.legal_actions()) == {"b10", "b12", "g11"}


def test_as_many_matching_cards_as_the_player_likes() -> None:
    """ "Each player can play not just one card but as many matching cards as he/she likes when it
    is his/her turn." """
    state = position(2, {"red": [11, 11]}, {0: "r10 r9 r8 r12 y5", 1: "r1"}, rest_to=1)
    for text in ("r10", "r9", "r8", "r12"):
        state.apply(play(text))
        assert state.current_player == 0
    assert state.observation(0)["rows"]["red"] == [8, 12]


def test_matching_cards_may_be_held_back() -> None:
    """ "Matching cards do not have to be played however. It is a favourite trick to hold back
    certain cards as long as possible." """
    state = position(2, {"red": [11, 11]}, {0: "r10 r9 r12 y5", 1: "r1"}, rest_to=1)
    assert END not in state.legal_actions()  # a turn lays at least one card if it can
    state.apply(play("r10"))
    assert END in state.legal_actions()
    state.apply(END)
    assert state.current_player == 1
    assert {"r9", "r12"} <= hand_of(state, 0)


def test_a_player_who_can_lay_a_card_may_not_draw() -> None:
    """ "He/she is unable to go and must take a card from the pack": drawing is for a player who
    cannot lay a card (rules decision 5, the default ``hold_back="some"``)."""
    state = position(2, {"red": [11, 11]}, {0: "r10 y5", 1: "r1"}, rest_to=1)
    assert DRAW not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(DRAW)


HOLD_BACK_ALL = {"hold_back": "all"}


def test_hold_back_all_lets_a_player_draw_instead_of_laying() -> None:
    """ "Matching cards do not have to be played however. It is a favourite trick to hold back certain
    cards as long as possible." Option ``hold_back="all"``: a player may hold back every matching card
    and take a card from the pack instead; the draw goes on as usual (up to three, stopping at a match)."""
    state = position(
        2, {"red": [10, 11]}, {0: "r9 b5", 1: "r1"}, pack_top="y1 g3 y2 r12", rest_to=1, options=HOLD_BACK_ALL
    )
    assert state.legal_actions() == [play("r9"), DRAW]
    state.apply(DRAW)
    assert hand_of(state, 0) == {"r9", "b5", "y1", "g3", "y2"}  # three cards, none matching
    assert state.current_player == 1
    assert state.result().details["cards_drawn"] == [3, 0]


def test_hold_back_all_stops_at_a_matching_card_drawn() -> None:
    state = position(2, {"red": [10, 11]}, {0: "r9 b5", 1: "r1"}, pack_top="r12 y3", rest_to=1, options=HOLD_BACK_ALL)
    state.apply(DRAW)
    assert state.legal_actions() == [play("r12"), END]


def test_hold_back_all_with_the_pack_empty_a_player_who_can_lay_a_card_must() -> None:
    """ "as long as possible": with ``hold_back="all"``, once the pack is empty there is nothing to draw,
    and a player who can lay a card must lay one (so every round still ends)."""
    state = position(2, {"red": [10, 11]}, {0: "r9 b5", 1: "r1"}, rest_to=1, options=HOLD_BACK_ALL)
    assert state.observation(0)["pack_size"] == 0
    assert state.legal_actions() == [play("r9")]


def test_hold_back_some_is_the_default_and_options_are_checked() -> None:
    """The default reading (decision 5): a player who can lay a card lays one; only one unable to go draws.
    A bad value is refused with the list of readings."""
    assert GAME.validate_options({})["hold_back"] == "some"
    state = position(2, {"red": [10, 11]}, {0: "r9 b5", 1: "r1"}, pack_top="y1", rest_to=1)
    assert state.legal_actions() == [play("r9")]
    with pytest.raises(OptionError, match="'some', 'all'"):
        GAME.validate_options({"hold_back": "none"})


def test_unable_to_go_draws_up_to_three_then_the_next_player() -> None:
    """ "He/she is unable to go and must take a card from the pack, which is face down. ... If the
    card does not match, he/she must take another card, but up to a maximum of three cards. Then it
    is the turn of the next player." """
    state = position(3, {"red": [11, 11]}, {0: "y5", 1: "r1", 2: "r2"}, pack_top="y1 y2 y3 r10", rest_to=1)
    assert state.legal_actions() == [DRAW]
    state.apply(DRAW)
    assert hand_of(state, 0) == {"y5", "y1", "y2", "y3"}
    assert state.observation(0)["pack_size"] == 1
    assert state.current_player == 1


def test_a_drawn_card_that_matches_may_be_played_at_once() -> None:
    """ "If the card matches, he/she can play it at once." """
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "r1"}, pack_top="y1 r12 y3", rest_to=1)
    state.apply(DRAW)
    assert hand_of(state, 0) == {"y5", "y1", "r12"}  # stopped at the matching card
    assert state.current_player == 0
    assert state.legal_actions() == [play("r12"), END]
    assert state.observation(0)["turn"]["drawn_card"] == c("r12")
    state.apply(play("r12"))
    assert state.observation(0)["rows"]["red"] == [11, 12]


def test_the_third_card_drawn_may_be_played_if_it_matches() -> None:
    """ "he/she must take another card, but up to a maximum of three cards": the third may match."""
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "r1"}, pack_top="y1 y2 r10 y3", rest_to=1)
    state.apply(DRAW)
    assert state.legal_actions() == [play("r10"), END]


def test_a_matching_drawn_card_may_be_kept() -> None:
    """ "he/she can play it at once" is a may: the player may keep it and end the turn."""
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "r1"}, pack_top="r10 y3", rest_to=1)
    state.apply(DRAW)
    state.apply(END)
    assert state.current_player == 1
    assert "r10" in hand_of(state, 0)
    assert state.observation(0)["rows"]["red"] == [11, 11]


def test_after_playing_the_drawn_card_the_turn_goes_on() -> None:
    """ "Each player can play not just one card but as many matching cards as he/she likes when it
    is his/her turn": a drawn card played lets the turn go on (rules decision)."""
    state = position(2, {"red": [11, 11]}, {0: "r9 r8 y5", 1: "r1"}, pack_top="r10 y3", rest_to=1)
    state.apply(DRAW)
    state.apply(play("r10"))
    assert state.current_player == 0
    assert state.legal_actions() == [play("r9"), END]
    state.apply(play("r9"))
    state.apply(play("r8"))
    assert state.observation(0)["rows"]["red"] == [8, 11]


def test_a_short_pack_gives_what_it_has() -> None:
    """Up to three cards: with two left, the player takes both and the turn passes."""
    state = position(2, {"red": [11, 11]}, {0: "y5", 1: "r1"}, pack_top="y1 y2", rest_to=1)
    assert state.observation(0)["pack_size"] == 2
    state.apply(DRAW)
    assert hand_of(state, 0) == {"y5", "y1", "y2"}
    assert state.observation(0)["pack_size"] == 0
    assert state.current_player == 1


def test_with_the_pack_empty_a_player_who_cannot_go_is_passed() -> None:
    """With nothing to lay and nothing to draw, the turn passes (rules decision: no action)."""
    state = position(3, {"red": [11, 11]}, {0: "r10 y4", 1: "y5", 2: "r9"}, rest_to=2, current=0)
    state.apply(play("r10"))
    state.apply(END)
    assert state.current_player == 2  # seat 1 holds nothing that fits
    assert {"type": "pass", "seat": 1} in state.observation(2)["events"]


def test_turn_order_is_seat_after_seat_to_the_right() -> None:
    """ "It is now the turn of the next player on the right": seat s + 1 sits on the right of s."""
    state = position(3, {"red": [11, 11]}, {0: "r10", 1: "r12 y5", 2: "r13 y6"}, rest_to=0, current=1)
    state.apply(play("r12"))
    state.apply(END)
    assert state.current_player == 2
    state.apply(play("r13"))
    state.apply(END)
    assert state.current_player == 0
