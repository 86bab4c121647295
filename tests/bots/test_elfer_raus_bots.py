"""The rule-of-thumb bot of Elfer raus!: its rules of thumb, and that it clearly beats random play."""

from __future__ import annotations

from typing import Any

import pytest

from bots import get_bot_class
from bots.base import Bot, MatchStart
from bots.elfer_raus import ElferRausThumbBot
from bots.random_bot import RandomBot
from engine.core import GameResult
from engine.elfer_raus import GAME


def _observation(hand: str, rows: dict[str, list[int]], num_players: int = 2, awaiting: bool = False) -> dict[str, Any]:
    letters = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
    return {
        "num_players": num_players,
        "hand": [[letters[text[0]], int(text[1:])] for text in hand.split()],
        "rows": {colour: rows.get(colour) for colour in ("red", "yellow", "green", "blue")},
        "opening_numbers": [11],
        "turn": {"awaiting_drawn_card": awaiting},
    }


def _play(text: str) -> dict[str, Any]:
    letters = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
    return {"type": "play", "colour": letters[text[0]], "number": int(text[1:])}


END = {"type": "end_turn"}


def _bot(num_players: int = 2) -> ElferRausThumbBot:
    bot = ElferRausThumbBot()
    bot.start(MatchStart("elfer-raus", 0, num_players, {}, 0))
    return bot


def test_thumb_is_the_registered_thumb_bot() -> None:
    assert get_bot_class("thumb", "elfer-raus") is ElferRausThumbBot


def test_lays_out_the_whole_hand_when_it_can() -> None:
    obs = _observation("r10 r9 r8", {"red": [11, 12]})
    legal = [_play("r10"), END]
    assert _bot().act(obs, legal) == _play("r10")
    obs = _observation("r9 r8", {"red": [10, 12]})
    assert _bot().act(obs, [_play("r9"), END]) == _play("r9")


def test_lays_a_card_that_frees_nothing_for_the_others() -> None:
    obs = _observation("r20 r10 y3", {"red": [11, 19]})
    assert _bot().act(obs, [_play("r10"), _play("r20")]) == _play("r20")
    obs = _observation("r10 r9 y3", {"red": [11, 19]})
    assert _bot().act(obs, [_play("r10")]) == _play("r10")


def test_holds_back_a_blocker_once_a_card_is_laid() -> None:
    obs = _observation("r10 y3", {"red": [11, 11]})
    assert _bot().act(obs, [_play("r10"), END]) == END


def test_forced_to_lay_it_frees_the_fewest_cards_for_the_others() -> None:
    # the red 18 frees two cards behind it (19, 20), the red 10 frees nine (9 down to 1)
    obs = _observation("r10 r18 y3", {"red": [11, 17]})
    assert _bot().act(obs, [_play("r10"), _play("r18")]) == _play("r18")


def test_with_more_players_it_heads_for_its_own_cards() -> None:
    obs = _observation("r10 r8 y3", {"red": [11, 11]}, num_players=4)
    assert _bot(4).act(obs, [_play("r10"), END]) == _play("r10")
    assert _bot(2).act(_observation("r10 r8 y3", {"red": [11, 11]}), [_play("r10"), END]) == END


def test_keeps_a_drawn_blocker() -> None:
    obs = _observation("r10 y3", {"red": [11, 11]}, awaiting=True)
    assert _bot().act(obs, [_play("r10"), END]) == END


def _match(num_players: int, seed: int, hero: int, options: dict[str, Any]) -> GameResult:
    bots: list[Bot] = [ElferRausThumbBot() if seat == hero else RandomBot() for seat in range(num_players)]
    for seat, bot in enumerate(bots):
        bot.start(MatchStart("elfer-raus", seat, num_players, dict(options), seed))
    state = GAME.new_state(num_players, seed, options)
    cap = GAME.max_actions(num_players, GAME.validate_options(options))
    steps = 0
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), legal)
        assert action in legal
        state.apply(action)
        steps += 1
        assert steps <= cap
    return state.result()


def _win_rate(num_players: int, games: int, options: dict[str, Any]) -> float:
    wins = 0
    for game in range(games):
        hero = game % num_players  # seats rotated
        wins += _match(num_players, 500 + game, hero, options).ranks[hero] == 1
    return wins / games


@pytest.mark.parametrize(
    ("num_players", "games", "at_least", "options"),
    [
        # measured over 1,000 games: 0.69, 0.62, 0.60, 0.47 (random alone would win 1/n)
        (2, 240, 0.58, {}),
        (4, 120, 0.40, {}),
        (5, 120, 0.36, {}),
        (6, 120, 0.30, {}),
        (2, 120, 0.56, {"without_blues": True}),
        (4, 120, 0.36, {"number_swap": True}),
    ],
)
def test_thumb_clearly_beats_random(num_players: int, games: int, at_least: float, options: dict[str, Any]) -> None:
    assert _win_rate(num_players, games, options) >= at_least
