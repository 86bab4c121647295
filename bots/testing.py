"""Reusable checks every bot must pass (in the spirit of PettingZoo's ``api_test`` and ``seed_test``).

``tests/bots/test_bot_contract.py`` runs :func:`check_bot` over every registered built-in bot and every
Python example bot in ``docs/examples`` for every game each declares. A bot author can call it too:

    from bots.testing import check_bot
    check_bot(MyBot, "elfer-raus", num_players=2)

A bot is checked the way the ladder plays it: each seat has its own instance, started with a
:class:`MatchStart`, then asked to act on what :meth:`State.offer` hands it. At every decision:

- **only legal actions**: the answer is exactly (same JSON types) one of the legal actions;
- **JSON copy**: a twin instance of the bot, started the same, is handed the same observation and
  legal actions after a JSON round trip (what a sandboxed bot receives) and must answer the same;
- **same seed, same actions**: the whole match played again with fresh instances gives the same
  actions.

Bots may import the engine, never the ladder: this module uses only ``bots`` and ``engine``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot, MatchStart
from engine import get_game
from engine.core import Action
from engine.json_values import find_legal, same_json

BotFactory = Callable[[], Bot]
"""Something that makes a fresh bot: a bot class, or a function (an example bot loaded from a file)."""


def json_copy(value: Any) -> Any:
    """``value`` after a JSON round trip: what a bot in another process receives."""
    return json.loads(json.dumps(value))


def bot_seed(match_seed: int, seat: int) -> int:
    """A seed per seat for the check (the ladder derives its own from a secret; any fixed one will do)."""
    return (match_seed * 1_000_003 + seat * 7919) % (2**63)


def play_checked(
    make_bot: BotFactory,
    game_id: str,
    num_players: int,
    options: Mapping[str, Any] | None,
    seed: int,
    max_decisions: int | None = None,
) -> list[Action]:
    """One match with ``make_bot`` in every seat, checking each answer (see the module docstring).

    Returns the actions played. ``max_decisions`` stops early (slow search bots); ``None`` plays to the end.
    """
    game = get_game(game_id)
    state = game.new_state(num_players, seed, options)
    started = dict(state.options)
    seats = [make_bot() for _ in range(num_players)]
    twins = [make_bot() for _ in range(num_players)]
    name = type(seats[0]).__name__
    for sitting in range(num_players):
        for bot in (seats[sitting], twins[sitting]):
            bot.start(MatchStart(game_id, sitting, num_players, dict(started), bot_seed(seed, sitting)))
    actions: list[Action] = []
    while not state.is_over() and (max_decisions is None or len(actions) < max_decisions):
        seat = state.current_player
        assert seat is not None
        observation, offered = state.offer()
        answer = seats[seat].act(observation, offered)
        chosen = find_legal(answer, state.legal_actions())
        assert chosen is not None, (
            f"{name} in {game_id} (seed {seed}, seat {seat}, decision {len(actions)}) answered {answer!r}, "
            f"which is not one of its {len(offered)} legal actions"
        )
        observation, offered = state.offer()
        twin_answer = twins[seat].act(json_copy(observation), json_copy(offered))
        assert same_json(json_copy(twin_answer), json_copy(chosen)), (
            f"{name} in {game_id} (seed {seed}, seat {seat}, decision {len(actions)}) answered {chosen!r}, "
            f"but {twin_answer!r} on a JSON copy of the same observation and legal actions"
        )
        state.apply(chosen)
        actions.append(chosen)
    if state.is_over():
        result = state.result().to_json()
        for bot in (*seats, *twins):
            bot.end(json_copy(result))
    return actions


def check_bot(
    make_bot: BotFactory,
    game_id: str,
    num_players: int | None = None,
    options: Mapping[str, Any] | None = None,
    seeds: tuple[int, ...] = (0,),
    max_decisions: int | None = None,
) -> None:
    """Every check of the module docstring, for each seed: legal answers, the same answer on a JSON copy,
    and the same actions when the match is played again from the same seed.

    ``num_players`` defaults to the game's smallest table (2 where it allows, so there is an opponent).
    """
    game = get_game(game_id)
    players = (
        num_players
        if num_players is not None
        else game.min_players
        if game.facts.solitaire
        else max(game.min_players, 2)
    )
    for seed in seeds:
        first = play_checked(make_bot, game_id, players, options, seed, max_decisions)
        again = play_checked(make_bot, game_id, players, options, seed, max_decisions)
        assert first == again, (
            f"{game_id} (seed {seed}): the same seeds gave other actions the second time, from decision "
            f"{next(i for i, (a, b) in enumerate(zip(first + [None], again + [None])) if a != b)}"
        )
