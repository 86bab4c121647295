"""The generic suite: every registered game, every player count, every option variant.

A new game registered in ``engine/registry.py`` is picked up automatically.
"""

from __future__ import annotations

import pytest

from engine import all_games
from engine import testing as contract

CONFIGS = [
    pytest.param(game, n, options, id=f"{game.id}-{n}p-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}")
    for game in all_games()
    for n, options in contract.configurations(game)
]


def test_every_game_has_configurations() -> None:
    for game in all_games():
        assert list(contract.configurations(game)), f"{game.id} has no playable configuration"


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_random_playouts_end_within_cap_with_consistent_results(game, num_players, options) -> None:
    contract.check_playouts(game, num_players, options, range(40))


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_same_seed_same_actions_same_game(game, num_players, options) -> None:
    for seed in range(3):
        contract.check_determinism(game, num_players, options, seed)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_observations_and_actions_survive_json(game, num_players, options) -> None:
    for seed in range(3):
        contract.check_json_round_trip(game, num_players, options, seed)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_illegal_actions_rejected_without_change(game, num_players, options) -> None:
    for seed in range(2):
        contract.check_illegal_actions(game, num_players, options, seed)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_clones_are_independent(game, num_players, options) -> None:
    contract.check_clone_independent(game, num_players, options, 0)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_hidden_information_does_not_leak(game, num_players, options) -> None:
    for seed in range(3):
        contract.check_hidden_information(game, num_players, options, seed)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_options_are_validated(game) -> None:
    from engine import OptionError, PlayerCountError

    with pytest.raises(OptionError):
        game.validate_options({"no_such_option": 1})
    with pytest.raises(PlayerCountError):
        game.new_state(game.max_players + 1, 0)
    with pytest.raises(PlayerCountError):
        game.new_state(game.min_players - 1, 0)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_what_a_bot_is_handed_shares_nothing_with_the_match(game, num_players, options) -> None:
    for seed in range(3):
        contract.check_offers_are_independent(game, num_players, options, seed)


@pytest.mark.parametrize(("game", "num_players", "options"), CONFIGS)
def test_every_observation_starts_with_the_one_envelope(game, num_players, options) -> None:
    contract.check_envelope(game, num_players, options, 0)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_declared_facts_agree_with_the_results(game) -> None:
    contract.check_facts(game)
