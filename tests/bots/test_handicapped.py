"""The handicapped thumb bots: every game has the known-order field, and the coin does what it says."""

from __future__ import annotations

import pytest

from bots.base import MatchStart
from bots.handicapped import HandicappedBot
from bots.registry import bots_for_game, get_bot_class, is_handicapped
from engine import all_games
from ladder.matches.match import MatchSpec, play_match

FIELD = ("thumb", "thumb-25", "thumb-50", "thumb-75", "random")
GAMES = [game.id for game in all_games()]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_has_the_known_order_field(game_id: str) -> None:
    for name in FIELD:
        assert get_bot_class(name, game_id).plays(game_id)
    assert set(FIELD) <= set(bots_for_game(game_id, handicapped=True))
    # not entered by bots = "all": they are named in a tournament file
    assert not {"thumb-25", "thumb-50", "thumb-75"} & set(bots_for_game(game_id))
    assert is_handicapped("thumb-50") and not is_handicapped("thumb")


@pytest.mark.parametrize("game_id", GAMES)
def test_handicapped_bots_play_legal_games_to_the_end(game_id: str) -> None:
    game = next(g for g in all_games() if g.id == game_id)
    count = min(max(2, game.min_players), game.max_players)
    players = [get_bot_class(name, game_id)() for name in ("thumb-50", "thumb-75", "thumb-25")[:count]]
    outcome = play_match(MatchSpec(game_id, tuple(f"thumb-{i}" for i in range(count)), 7, {}), players)
    assert not outcome.failures and outcome.actions


def test_the_coin_replaces_about_its_share_of_the_thumbs_choices() -> None:
    offered = [{"type": "pick", "card": n} for n in range(10)]

    class Constant(HandicappedBot):
        name = "constant-test"
        random_share = 0.25

        class wrapped:  # noqa: N801  (a stand-in thumb: always the first action)
            def start(self, match: MatchStart) -> None: ...

            def act(self, observation: dict, legal_actions: list[dict]) -> dict:
                return legal_actions[0]

            def end(self, result: dict) -> None: ...

    bot = Constant()
    bot.start(MatchStart("g", 0, 2, {}, seed=5))
    changed = sum(bot.act({}, offered) != offered[0] for _ in range(4000))
    # replaced 25% of the time, and a replacement is the thumb's own choice 1 time in 10
    assert 0.25 * 0.9 * 4000 * 0.85 < changed < 0.25 * 0.9 * 4000 * 1.15
    again = Constant()
    again.start(MatchStart("g", 0, 2, {}, seed=5))
    bot.start(MatchStart("g", 0, 2, {}, seed=5))
    assert [bot.act({}, offered) for _ in range(50)] == [again.act({}, offered) for _ in range(50)]  # seeded
