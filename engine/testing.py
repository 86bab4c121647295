"""Reusable checks every game must pass (in the spirit of PettingZoo's api_test).

``tests/engine/test_contract.py`` runs each of these over every registered
game, player count and option variant. A game author can also call
:func:`check_game` directly while writing a new game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from typing import Any

from engine.core import ENVELOPE, WON_DETAIL, Game, GameFacts, IllegalActionError, State, WinRule
from engine.json_values import copy_json, find_legal


def configurations(game: Game) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every (player count, options) pair the generic tests cover for ``game``."""
    for variant in game.option_variants():
        for num_players in game.player_counts():
            try:
                options = game.validate_options(variant)
                game.check_options_for_players(num_players, options)
            except ValueError:
                continue
            yield num_players, variant


def random_playout(state: State, rng: random.Random, cap: int) -> list[dict[str, Any]]:
    """Play random legal actions until the end; return the actions. Fails past ``cap`` actions."""
    actions: list[dict[str, Any]] = []
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, f"{state.game.id}: a state that is not over offers no legal action"
        assert state.current_player is not None
        action = rng.choice(legal)
        state.apply(action)
        actions.append(action)
        assert len(actions) <= cap, f"{state.game.id}: match not over after its cap of {cap} actions"
    assert state.current_player is None
    assert state.legal_actions() == []
    return actions


def check_playouts(game: Game, num_players: int, options: Mapping[str, Any], seeds: range) -> None:
    """Random playouts end within the cap and give consistent results."""
    cap = game.max_actions(num_players, game.validate_options(options))
    for seed in seeds:
        state = game.new_state(num_players, seed, options)
        random_playout(state, random.Random(seed), cap)
        check_result(state)


def check_result(state: State) -> None:
    """Ranks agree with scores: 1-based, ties share a rank, a better rank never has a worse score order."""
    result = state.result()
    n = state.num_players
    assert len(result.scores) == n and len(result.ranks) == n
    assert min(result.ranks) == 1
    for seat in range(n):
        better = sum(1 for other in range(n) if result.ranks[other] < result.ranks[seat])
        assert result.ranks[seat] == better + 1, f"ranks {result.ranks} are not competition ranks"
    for detail, values in result.details.items():
        assert len(values) == n, f"detail {detail!r} must have one value per seat"
    json.dumps(result.to_json(), allow_nan=False)


def snapshot(state: State) -> str:
    """Every seat's observation plus the decision point, as canonical JSON text."""
    return json.dumps(
        {
            "current": state.current_player,
            "legal": state.legal_actions(),
            "obs": [state.observation(seat) for seat in range(state.num_players)],
            "over": state.is_over(),
        },
        sort_keys=True,
        allow_nan=False,
    )


def check_determinism(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """The same seed and actions give the same states and observations, step by step."""
    first = game.new_state(num_players, seed, options)
    second = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    while not first.is_over():
        assert snapshot(first) == snapshot(second)
        action = rng.choice(first.legal_actions())
        first.apply(action)
        second.apply(json.loads(json.dumps(action)))
    assert snapshot(first) == snapshot(second)
    assert first.result() == second.result()


def check_json_round_trip(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """Observations and actions are plain JSON: they survive a round trip unchanged,
    and the round-tripped action is accepted by the state."""
    state = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    while not state.is_over():
        for seat in range(num_players):
            obs = state.observation(seat)
            assert json.loads(json.dumps(obs, allow_nan=False)) == obs
        legal = state.legal_actions()
        for action in legal:
            assert isinstance(action, dict) and isinstance(action.get("type"), str)
            assert json.loads(json.dumps(action, allow_nan=False)) == action
        state.apply(json.loads(json.dumps(rng.choice(legal))))


def type_confusions(value: Any) -> list[Any]:
    """Values Python's ``==`` takes for ``value`` but JSON tells apart.

    ``2`` -> ``2.0``, ``"2"`` (and ``True`` for 0 and 1); ``True`` -> ``1``, ``1.0``,
    ``"true"``; a float -> its integer and text; a list -> a tuple, and each element
    confused in place (``[5, 0]`` -> ``[5.0, 0]``, ``[5, False]`` ...); a dict -> each value
    confused in place. Every result is ``==``-equal or nearly so to ``value`` and must
    be refused wherever ``value`` is expected.
    """
    kind = type(value)
    if kind is bool:
        return [int(value), float(value), str(value).lower()]
    if kind is int:
        confused: list[Any] = [float(value), str(value)]
        if value in (0, 1):
            confused.append(bool(value))
        return confused
    if kind is float:
        return [int(value), str(value)] if value.is_integer() else [str(value)]
    if kind is str:
        return [value.encode()] if value else []
    if kind is list:
        variants: list[Any] = [tuple(value)]
        for index, element in enumerate(value):
            for other in type_confusions(element):
                variants.append([*value[:index], other, *value[index + 1 :]])
        return variants
    if kind is dict:
        variants = []
        for key, element in value.items():
            for other in type_confusions(element):
                variants.append({**value, key: other})
        return variants
    return []


def check_illegal_actions(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """Illegal actions raise :class:`IllegalActionError` and leave the state unchanged.

    Besides nonsense and near misses (a legal action with one field corrupted), the
    type-confused twins of legal actions (:func:`type_confusions`: ``[5.0, 0]`` for
    ``[5, 0]``, ``true`` for ``1``, ``"2"`` for ``2``, a tuple for a list) are played at
    every step and must be refused the same way, and so must the same actions once
    the match is over.
    """
    state = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    bad_actions: list[Any] = [{"type": "no-such-action"}, {}, {"type": 42}]
    last: list[Any] = []
    while not state.is_over():
        before = snapshot(state)
        legal = state.legal_actions()
        candidates = list(bad_actions)
        # a legal action with one field corrupted is a near miss the engine must also refuse
        for action in legal[:3]:
            for key in action:
                if key != "type":
                    mutated = dict(action)
                    mutated[key] = "not-a-real-value"
                    candidates.append(mutated)
        # and so is a legal action written with other JSON types (2.0 for 2, true for 1...)
        for action in (legal[0], rng.choice(legal), legal[-1]):
            candidates.extend(type_confusions(action))
        last = candidates
        _refuse_all(state, candidates, before)
        state.apply(rng.choice(legal))
    _refuse_all(state, [{"type": "anything"}, *last], snapshot(state))


def _refuse_all(state: State, candidates: list[Any], before: str) -> None:
    legal = state.legal_actions()
    game_id = state.game.id
    for bad in candidates:
        if find_legal(bad, legal) is not None:
            continue
        try:
            state.apply(bad)
        except IllegalActionError:
            pass
        else:
            where = "after the end" if not legal else "as legal"
            raise AssertionError(f"{game_id}: illegal action {bad!r} was accepted {where}")
        assert snapshot(state) == before, f"{game_id}: the rejected action {bad!r} changed the state"


def check_clone_independent(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """A clone plays on without touching the original."""
    state = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    cap = game.max_actions(num_players, game.validate_options(options))
    steps = 0
    while not state.is_over():
        if steps % 7 == 0:
            before = snapshot(state)
            twin = state.clone()
            assert snapshot(twin) == before
            random_playout(twin, random.Random(seed + steps), cap)
            assert snapshot(state) == before, f"{game.id}: playing a clone changed the original"
        state.apply(rng.choice(state.legal_actions()))
        steps += 1


def check_hidden_information(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """Redrawing what a seat cannot see never changes that seat's observation.

    At every step of a random playout and at its finished state, for every seat,
    the state is resampled (:meth:`State.resample_hidden`) and the copy must look
    the same to that seat: :func:`check_resampled`.
    """
    state = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    resample_rng = random.Random(seed ^ 0x5EED)
    while True:
        check_resampled(state, resample_rng)
        if state.is_over():
            return
        state.apply(rng.choice(state.legal_actions()))


def check_resampled(state: State, rng: random.Random, draws: int = 2) -> None:
    """For every seat, copies redrawn by :meth:`State.resample_hidden` look the same to it.

    Holds at every state, finished ones included: the copy shows the seat the same
    observation, offers the same decision (whose turn, the same legal actions when it is
    the seat's own), is over exactly when the state is, and then has the same result.
    """
    game_id = state.game.id
    over = state.is_over()
    for seat in range(state.num_players):
        mine = json.dumps(state.observation(seat), sort_keys=True)
        for _ in range(draws):
            twin = state.resample_hidden(seat, rng)
            theirs = json.dumps(twin.observation(seat), sort_keys=True)
            assert theirs == mine, (
                f"{game_id}: seat {seat}'s observation depends on something it cannot see\n"
                f"true:      {mine}\nresampled: {theirs}"
            )
            assert twin.is_over() == over, (
                f"{game_id}: a resampled copy of a {'finished' if over else 'live'} state is not"
            )
            assert twin.current_player == state.current_player, (
                f"{game_id}: a resampled copy changed whose decision it is"
            )
            if over:
                assert twin.legal_actions() == [], f"{game_id}: a resampled finished state offers actions"
                assert twin.result() == state.result(), f"{game_id}: a resampled finished state has another result"
            elif state.current_player == seat:
                assert twin.legal_actions() == state.legal_actions(), (
                    f"{game_id}: seat {seat}'s legal actions depend on something it cannot see"
                )
            else:
                assert twin.legal_actions(), f"{game_id}: a resampled copy that is not over offers no action"


def check_game(game: Game, seeds: int = 20) -> None:
    """Every generic check over every configuration of ``game``: for a game author's quick run."""
    for num_players, options in configurations(game):
        check_playouts(game, num_players, options, range(seeds))
        for seed in range(3):
            check_determinism(game, num_players, options, seed)
            check_json_round_trip(game, num_players, options, seed)
            check_illegal_actions(game, num_players, options, seed)
            check_clone_independent(game, num_players, options, seed)
            check_hidden_information(game, num_players, options, seed)
            check_offers_are_independent(game, num_players, options, seed)
            check_envelope(game, num_players, options, seed)
    check_facts(game)


def vandalise(value: Any) -> None:
    """Change every dict and list inside ``value`` in place (what a careless or hostile bot might do)."""
    if type(value) is dict:
        for key in list(value):
            vandalise(value[key])
            value[key] = "vandalised"
        value["vandalised"] = True
    elif type(value) is list:
        for item in value:
            vandalise(item)
        value[:] = ["vandalised"]


def check_offers_are_independent(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """Observations and the legal actions a bot is handed (:meth:`State.offer`) share nothing with the state.

    Two copies of a match play the same random actions; in one, at every step, every seat's observation
    and the offered legal actions are vandalised (:func:`vandalise`). The two must stay identical, step
    by step and in their results: what a bot does to what it was handed never reaches the match.
    """
    touched = game.new_state(num_players, seed, options)
    untouched = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    steps = 0
    while not touched.is_over():
        observation, offered = touched.offer()
        choice = rng.randrange(len(offered))
        action = copy_json(offered[choice])
        vandalise(observation)
        vandalise(offered)
        for seat in range(num_players):
            vandalise(touched.observation(seat))
        assert snapshot(touched) == snapshot(untouched), (
            f"{game.id}: changing an observation or an offered action changed the match (step {steps})"
        )
        touched.apply(action)
        untouched.apply(copy_json(action))
        steps += 1
    assert snapshot(touched) == snapshot(untouched), f"{game.id}: changing what a bot was handed changed the end"
    assert touched.result() == untouched.result()


def check_envelope(game: Game, num_players: int, options: Mapping[str, Any], seed: int) -> None:
    """Every observation starts with the one envelope (:data:`engine.core.ENVELOPE`), with true values."""
    state = game.new_state(num_players, seed, options)
    rng = random.Random(seed)
    while True:
        for seat in range(num_players):
            observation = state.observation(seat)
            assert tuple(observation)[: len(ENVELOPE)] == ENVELOPE, (
                f"{game.id}: an observation starts {tuple(observation)[:5]}"
            )
            expected = (game.id, num_players, seat, state.current_player, state.is_over())
            assert tuple(observation[key] for key in ENVELOPE) == expected, f"{game.id}: a wrong envelope {observation}"
        if state.is_over():
            return
        state.apply(rng.choice(state.legal_actions()))


def check_facts(game: Game) -> None:
    """A game's declared facts agree with its results: player range, score order and how a match is won."""
    facts = game.facts
    assert isinstance(facts, GameFacts), f"{game.id} declares no GameFacts"
    assert game.player_counts() == range(facts.min_players, facts.max_players + 1)
    for num_players, options in configurations(game):
        for seed in range(5):
            state = game.new_state(num_players, seed, options)
            random_playout(state, random.Random(seed), game.max_actions(num_players, game.validate_options(options)))
            result = state.result()
            assert result.ranks == facts.ranks(result.scores), (
                f"{game.id}: ranks {result.ranks} do not follow the declared score order for scores {result.scores}"
            )
            has_goal = WON_DETAIL in result.details
            assert has_goal == (facts.win_rule is WinRule.GOAL_MET) or facts.win_rule is WinRule.FIRST_RANK, (
                f"{game.id}: a {facts.win_rule.value} game must {'' if facts.win_rule is WinRule.GOAL_MET else 'not '}"
                f"report a {WON_DETAIL!r} detail"
            )
            wins = [facts.seat_won(result, seat) for seat in range(num_players)]
            assert (None in wins) == (not facts.can_win)
