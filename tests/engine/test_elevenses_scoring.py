"""Rules of Elevenses: scoring, the server card, the end of the game and its caps, each quoting the rulebook.

Quotes are from ``elevenses-rules-en.txt`` unless marked (fr), from
``elevenses-rules-fr.txt``. Positions are built with :func:`position`, which
fills every card not named; guest tests read the guest table from the state,
so they hold for any table of guests.
"""

from __future__ import annotations

import pytest

from engine import DealError, OptionError
from engine.elevenses import GAME
from engine.elevenses.phases import PLAYOFF_ROUND_CAP, TURN_CAP_PER_SEAT
from engine.elevenses.scoring import next_server, placing_cubes
from tests.engine.elevenses_helpers import (
    BISCUITS,
    CAKES,
    CHINA,
    ELEVEN,
    MILK,
    SANDWICHES,
    TEA,
    TROLLEY,
    C,
    check_conservation,
    ending_position,
    events_of,
    play,
    position,
    where_is,
)


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


def test_next_round_starts_with_the_new_server():
    """ "A new round now begins!" -- the holder of the starting server card takes the first turn."""
    state = ending_position(3, [0, 0, 0])
    play(state, C(ELEVEN, 0))
    # cubes [2, 0, 0]: seats 1 and 2 tie for fewest; seat 1 is closest clockwise to the holder 0
    assert state.cubes == [2, 0, 0] and state.server == 1 and state.current_player == 1
    assert state.round == 2
    check_conservation(state)
    assert sorted(state.kitchen[0] + state.card_at[0][2:10]) == list(range(11))


def test_the_game_ends_when_a_seat_reaches_the_target_alone():
    """ "If after scoring a round, any player has at least 5 sugar cubes and has more than anyone
    else, she wins the game!\""""
    state = ending_position(2, [3, 4])
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
    state = ending_position(2, [1, 2])
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
        state = ending_position(2, [0, 0], options=options)
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
        ending_position(2, [0, 0], options={"turn_cap": 5}, turn=11)


def test_max_actions_bounds_a_passing_game():
    """Every round pays at least one cube, so rounds are at most the bowl; the bound holds."""
    state = GAME.new_state(2, 0)
    count = 0
    while not state.is_over():
        state.apply({"type": "pass"} if {"type": "pass"} in state.legal_actions() else state.legal_actions()[0])
        count += 1
    assert count <= GAME.max_actions(2, {})
