"""The contract's own pieces: options, ranks, seeded streams, the event log."""

from __future__ import annotations

import pytest

from engine import GameResult, OptionError, OptionSpec, ranks_from_scores
from engine.core import EventLog
from engine.rng import derive_seed, stream


def test_ranks_ties_share_the_best_rank_of_their_group() -> None:
    assert ranks_from_scores([10, 30, 30, 5]) == (3, 1, 1, 4)
    assert ranks_from_scores([7]) == (1,)
    assert ranks_from_scores([2, 2, 2]) == (1, 1, 1)


def test_ranks_lower_is_better() -> None:
    assert ranks_from_scores([10, 30, 10, 5], higher_is_better=False) == (2, 4, 2, 1)


def test_int_option_bounds_and_types() -> None:
    spec = OptionSpec("minutes", "int", 15, "start minutes", minimum=1, maximum=15)
    assert spec.validate(10) == 10
    with pytest.raises(OptionError, match="at most 15"):
        spec.validate(16)
    with pytest.raises(OptionError, match="at least 1"):
        spec.validate(0)
    with pytest.raises(OptionError, match="integer"):
        spec.validate(True)
    with pytest.raises(OptionError, match="integer"):
        spec.parse("ten")
    assert spec.parse("7") == 7


def test_bool_and_choice_options() -> None:
    flag = OptionSpec("trolley", "bool", False, "x")
    assert flag.parse("yes") is True and flag.parse("off") is False
    with pytest.raises(OptionError, match="true or false"):
        flag.parse("maybe")
    choice = OptionSpec("edition", "choice", "en", "x", choices=("en", "fr"))
    assert choice.validate(choice.parse("fr")) == "fr"
    with pytest.raises(OptionError, match="one of 'en', 'fr'"):
        choice.validate(choice.parse("de"))
    with pytest.raises(OptionError):
        choice.validate(5)


def test_streams_depend_only_on_their_keys() -> None:
    assert stream(1, "deal").random() == stream(1, "deal").random()
    assert stream(1, "deal").random() != stream(2, "deal").random()
    assert stream(1, "reshuffle", 1).random() != stream(1, "reshuffle", 2).random()
    # stable across processes and Python versions: blake2b, not hash()
    assert derive_seed(1, "deal") == derive_seed(1, "deal")
    assert isinstance(derive_seed(1, "x"), int) and 0 <= derive_seed(1, "x") < 2**64


def test_event_log_shows_each_seat_what_it_witnessed_since_its_last_decision() -> None:
    log = EventLog(2)
    log.add({"type": "public"})
    log.add({"type": "secret"}, witnesses=[1])
    assert log.since_last_decision(0) == [{"type": "public"}]
    assert log.since_last_decision(1) == [{"type": "public"}, {"type": "secret"}]
    log.mark(0)
    log.add({"type": "later"})
    assert log.since_last_decision(0) == [{"type": "later"}]
    twin = log.copy()
    twin.add({"type": "only-in-twin"})
    assert log.since_last_decision(0) == [{"type": "later"}]


def test_result_json_round_trip() -> None:
    result = GameResult((3.0, 1.0), (1, 2), {"won": [True, False]})
    assert GameResult.from_json(result.to_json()) == result


def test_same_json_tells_apart_what_python_equality_confuses() -> None:
    from engine import same_json

    assert same_json({"type": "play", "card": [5, 0]}, {"card": [5, 0], "type": "play"})
    for left, right in [
        (2, 2.0),
        (1, True),
        (0, False),
        (2, "2"),
        ([5, 0], [5.0, 0]),
        ([5, 0], (5, 0)),
        ({"seat": 1}, {"seat": True}),
        ({"a": [1, [2]]}, {"a": [1, [2.0]]}),
        ({"seat": 1}, {"seat": 1, "extra": 0}),
        ({"seat": 1}, {1: 1}),
    ]:
        assert not same_json(left, right), (left, right)
        assert not same_json(right, left), (right, left)


def test_find_legal_returns_the_engines_own_action_only_for_an_exact_match() -> None:
    from engine import find_legal

    legal = [{"type": "choose", "seat": 1}, {"type": "choose", "seat": 2}]
    assert find_legal(legal[1], legal) is legal[1]
    copy = {"type": "choose", "seat": 2}
    assert find_legal(copy, legal) is legal[1]
    assert find_legal({"type": "choose", "seat": True}, legal) is None
    assert find_legal({"type": "choose", "seat": 2.0}, legal) is None
    assert find_legal({"type": "choose", "seat": 3}, legal) is None
    # a differently typed twin that Python's == would match first does not hide the exact one
    mixed = [{"type": "x", "v": 1.0}, {"type": "x", "v": 1}]
    assert find_legal({"type": "x", "v": 1}, mixed) is mixed[1]


def test_a_game_can_be_registered_and_unregistered_through_the_public_api() -> None:
    from engine import UnknownGameError, get_game, register_game, unregister_game
    from engine.registry import game_ids
    from tests.ladder.toy_game import GAME, GAME_ID

    assert GAME_ID not in game_ids()
    register_game(GAME)
    try:
        assert get_game(GAME_ID) is GAME
        register_game(GAME)  # the same game again: nothing happens
        impostor = type(GAME)()
        with pytest.raises(ValueError, match="already registered"):
            register_game(impostor)
        register_game(impostor, replace=True)
        assert get_game(GAME_ID) is impostor
    finally:
        unregister_game(GAME_ID)
    with pytest.raises(UnknownGameError):
        get_game(GAME_ID)


def test_game_facts_say_who_won_once_for_every_kind_of_game() -> None:
    from engine import GameFacts, ScoreOrder, WinRule, get_game

    table = get_game("elfer-raus").facts
    assert (
        not table.solitaire
        and table.score_order is ScoreOrder.LOWER_IS_BETTER
        and table.ranks([40, 12, 12]) == (3, 1, 1)
    )
    assert table.won(1, None) is True and table.won(2, None) is False
    assert table.won(1, None, failed=True) is False  # a failed seat never wins
    goal = get_game("elevenses-for-one").facts
    assert goal.solitaire and goal.win_rule is WinRule.GOAL_MET
    assert goal.seat_won(GameResult((16.0,), (1,), {"won": [True]}), 0) is True
    assert goal.seat_won(GameResult((11.0,), (1,), {"won": [False]}), 0) is False
    scored = get_game("bowling-solitaire").facts
    assert scored.won(1, None) is None and not scored.can_win  # no notion of winning
    assert get_game("elevenses").facts.won(1, False) is True  # tied leaders share victory: first rank wins
    with pytest.raises(ValueError, match="solitaire has no rank"):
        GameFacts(1, 1, ScoreOrder.HIGHER_IS_BETTER, WinRule.FIRST_RANK, "")
    with pytest.raises(ValueError, match="player range"):
        GameFacts(3, 2, ScoreOrder.HIGHER_IS_BETTER, WinRule.FIRST_RANK, "")
    assert get_game("elfer-raus").describe()["facts"]["score_order"] == "lower is better"


def test_bots_can_be_registered_through_the_public_api() -> None:
    from bots.base import Bot
    from bots.registry import bot_names, get_bot_class, register_bot, unregister_bot

    class Mine(Bot):
        name = "test-only-mine"
        games = ("elfer-raus",)

    register_bot(Mine)
    register_bot(Mine)
    try:
        assert get_bot_class("test-only-mine", "elfer-raus") is Mine and bot_names().count("test-only-mine") == 1
    finally:
        unregister_bot("test-only-mine")
    assert "test-only-mine" not in bot_names()
