"""The Elevenses for One bots: legal play, and thumb clearly better than random.

Every bot sees the same seeded deals (solitaire duplicate play), so the
comparisons are paired and deterministic. Figures over 1,000 seeds are in the
module docstring of bots/elevenses_for_one/__init__.py.
"""

from __future__ import annotations

from statistics import mean

import pytest

from bots.base import Bot, MatchStart
from bots.elevenses_for_one import ElevensesForOneSearchBot, ElevensesForOneThumbBot
from bots.random_bot import RandomBot
from bots.registry import get_bot_class
from engine.elevenses_for_one import GAME


def play_match(bot: Bot, seed: int, options: dict | None = None) -> tuple[float, bool]:
    options = options or {}
    bot.start(MatchStart(game=GAME.id, seat=0, num_players=1, options=options, seed=seed))
    state = GAME.new_state(1, seed, options)
    while not state.is_over():
        legal = state.legal_actions()
        action = bot.act(state.observation(0), legal)
        assert action in legal
        state.apply(action)
    result = state.result()
    bot.end(result.to_json())
    return result.scores[0], result.details["won"][0]


def run(bot_class: type[Bot], seeds: range, options: dict | None = None) -> tuple[float, float]:
    outcomes = [play_match(bot_class(), seed, options) for seed in seeds]
    return mean(score for score, _ in outcomes), mean(1.0 if won else 0.0 for _, won in outcomes)


def test_registry_names() -> None:
    assert get_bot_class("thumb", GAME.id) is ElevensesForOneThumbBot
    assert get_bot_class("search", GAME.id) is ElevensesForOneSearchBot


@pytest.mark.parametrize(("discard_cap", "thumb_at_least"), [("game", 0.22), ("pile", 0.35)])
def test_thumb_is_clearly_better_than_random(discard_cap: str, thumb_at_least: float) -> None:
    """Over 300 seeds: random almost never wins; thumb wins a large share and scores far more, with both
    readings of the discard cap. (300 seeds: thumb wins 28.7% with "game", 1,000 seeds with "pile":
    random 0.0% wins, mean 1.68; thumb 50.3% wins, mean 10.66.)"""
    seeds = range(300)
    options = {"discard_cap": discard_cap}
    random_score, random_wins = run(RandomBot, seeds, options)
    thumb_score, thumb_wins = run(ElevensesForOneThumbBot, seeds, options)
    assert thumb_wins >= thumb_at_least
    assert random_wins <= 0.02
    assert thumb_score >= random_score + 6.0


def test_thumb_plays_the_variants() -> None:
    for options in ({"trolley_shuffled_in": True}, {"minutes": 12}):
        score, _ = run(ElevensesForOneThumbBot, range(40), options)
        random_score, _ = run(RandomBot, range(40), options)
        assert score > random_score + 2.0


class QuickSearchBot(ElevensesForOneSearchBot):
    """The search bot with a smaller budget, to keep the test short."""

    rollout_budget = 60
    min_rollouts = 6


@pytest.mark.parametrize("discard_cap", ["game", "pile"])
def test_search_beats_thumb(discard_cap: str) -> None:
    """Paired over the same 25 seeds, even a small look-ahead scores more than thumb, with both readings
    of the discard cap. (1,000 seeds, full budget, "pile": search 87.8% wins, mean 12.98; thumb 50.3%, 10.66.)"""
    seeds = range(25)
    options = {"discard_cap": discard_cap}
    thumb_score, thumb_wins = run(ElevensesForOneThumbBot, seeds, options)
    search_score, search_wins = run(QuickSearchBot, seeds, options)
    assert search_score >= thumb_score + 1.0
    assert search_wins >= thumb_wins
