"""The Elevenses bots: legal play, thumb clearly better than random, search better than thumb.

Every match is seeded (deal, draws and the bots' own randomness), so these tests are
deterministic; the margins leave room for a different but equally strong bot. Win rates over
1,000 games are in the module docstring of bots/elevenses/__init__.py.
"""

from __future__ import annotations

import json
import random

import pytest

from bots.base import Bot, MatchStart
from bots.elevenses import ElevensesSearchBot, ElevensesThumbBot
from bots.random_bot import RandomBot
from bots.registry import get_bot_class
from engine.elevenses import GAME


def play_match(bots: list[Bot], seed: int, options: dict | None = None) -> tuple[float, ...]:
    """One match; each bot gets a JSON copy of its observation, as through the sandbox.
    Returns each seat's share of the win (1, 1/k for k tied winners, or 0)."""
    n = len(bots)
    options = dict(options or {})
    state = GAME.new_state(n, seed, options)
    for seat, bot in enumerate(bots):
        bot.start(MatchStart(game=GAME.id, seat=seat, num_players=n, options=options, seed=seed))
    while not state.is_over():
        seat = state.current_player
        legal = state.legal_actions()
        action = bots[seat].act(json.loads(json.dumps(state.observation(seat))), json.loads(json.dumps(legal)))
        assert action in legal, f"{type(bots[seat]).__name__} answered {action!r}"
        state.apply(action)
    result = state.result()
    for bot in bots:
        bot.end(result.to_json())
    winners = result.details["won"]
    return tuple((1.0 / sum(winners)) if won else 0.0 for won in winners)


def win_rate(hero: type[Bot], others: type[Bot], n: int, games: int, first_seed: int = 0) -> float:
    """The hero's share of wins against ``n - 1`` copies of ``others``, seats rotated."""
    total = 0.0
    for game in range(games):
        seat = game % n
        bots: list[Bot] = [others() for _ in range(n)]
        bots[seat] = hero()
        total += play_match(bots, first_seed + game)[seat]
    return total / games


def test_registry_names() -> None:
    assert get_bot_class("thumb", GAME.id) is ElevensesThumbBot
    assert get_bot_class("search", GAME.id) is ElevensesSearchBot


def test_bots_answer_legal_actions_at_every_table_size_and_option() -> None:
    variants = [{}, {"edition": "fr", "special_guests": True}, {"target": 9, "special_guests": True}]
    for n in (2, 3, 4):
        for index, options in enumerate(variants):
            bots: list[Bot] = [ElevensesThumbBot() for _ in range(n)]
            bots[index % n] = RandomBot()
            play_match(bots, 100 * n + index, options)
    # the search bot is slower: one game at each size
    for n in (2, 3, 4):
        bots = [ElevensesThumbBot() for _ in range(n)]
        bots[n - 1] = ElevensesSearchBot()
        play_match(bots, 7 + n, {"special_guests": n == 3})


def test_search_decides_from_the_observation_only() -> None:
    """Two states a seat cannot tell apart (one resampled from the other) get the same answer."""
    rng = random.Random(3)
    state = GAME.new_state(3, 21)
    checked = 0
    while not state.is_over() and checked < 6:
        seat = state.current_player
        legal = state.legal_actions()
        if state.phase == 0 and len(legal) > 2:
            twin = state.resample_hidden(seat, rng)
            answers = []
            for world in (state, twin):
                bot = ElevensesSearchBot()
                bot.determinizations = 4
                bot.start(MatchStart(game=GAME.id, seat=seat, num_players=3, options={}, seed=5))
                answers.append(bot.act(world.observation(seat), world.legal_actions()))
            assert answers[0] == answers[1]
            checked += 1
        state.apply(rng.choice(legal))
    assert checked == 6


def test_thumb_is_clearly_better_than_random() -> None:
    """Thumb wins nearly every game against random players (1,000 games: 100% at 2, 3 and 4)."""
    assert win_rate(ElevensesThumbBot, RandomBot, 2, 60) >= 0.9
    assert win_rate(ElevensesThumbBot, RandomBot, 3, 45) >= 0.8
    assert win_rate(ElevensesThumbBot, RandomBot, 4, 40) >= 0.7


@pytest.mark.slow
def test_search_beats_thumb_head_to_head() -> None:
    """Search wins most two-player games against thumb (see the module docstring for 1,000 games)."""
    assert win_rate(ElevensesSearchBot, ElevensesThumbBot, 2, 40) > 0.55


def test_thumb_ends_the_round_when_ahead_and_not_when_behind() -> None:
    """The rule of thumb plays its Elevenses when ending the round gains it more cubes than any rival."""
    from tests.engine.elevenses_helpers import BISCUITS, CAKES, CHINA, ELEVEN, MILK, SANDWICHES, TEA, C, position

    ahead = position(
        2,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)}},
    )
    bot = ElevensesThumbBot()
    bot.start(MatchStart(game=GAME.id, seat=0, num_players=2, options={}, seed=1))
    assert bot.act(ahead.observation(0), ahead.legal_actions()) == {"type": "play", "card": C(ELEVEN, 0)}
    behind = position(
        2,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0), C(MILK, 0)]},
        up={
            0: {6: C(CHINA, 0), 7: C(BISCUITS, 0), 8: C(SANDWICHES, 0), 9: C(CAKES, 0)},
            1: {6: C(CHINA, 1), 7: C(BISCUITS, 1), 8: C(SANDWICHES, 1), 9: C(CAKES, 1), 10: C(10, 1)},
        },
    )
    bot = ElevensesThumbBot()
    bot.start(MatchStart(game=GAME.id, seat=0, num_players=2, options={}, seed=1))
    assert bot.act(behind.observation(0), behind.legal_actions()) != {"type": "play", "card": C(ELEVEN, 0)}
