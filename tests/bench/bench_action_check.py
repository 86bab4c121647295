"""What the exact action check costs: ``find_legal`` against Python's ``action in legal``.

    python tests/bench/bench_action_check.py [--json]

``State.apply`` and the match runner accept an action only if it is one of the legal actions
with the same JSON types (``engine.core.find_legal``). Two cases, per game, over the legal
actions of positions from random playouts: the very object ``legal_actions()`` returned (what
searches, random playouts and ``ladder bench`` play) and an equal copy (what a bot's answer is
after a JSON round trip, or when a bot builds its own dict). Timings are the best of five
repeats, in microseconds per check, so they hold up fairly well on a busy machine.

It also times what handing a bot independent copies costs per decision (issue 15): copying the
legal actions (``State.offer`` hands a bot ``copy_json`` copies, never the state's own), and a
whole observation built with copies of its events against one that shared them; with
``--matches``, whole in-process matches of the built-in random bots, per decision, with the
copies and with the old sharing put back (interleaved, best of four).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cli.commands.bench import machine  # noqa: E402
from engine import all_games, find_legal  # noqa: E402
from engine.core import Action, EventLog, copy_json  # noqa: E402


def positions(game_id: str, num_players: int, count: int) -> list[tuple[list[Action], Action, Action]]:
    """(legal actions, one of them, an equal JSON copy of it) at ``count`` random positions."""
    from engine import get_game

    game = get_game(game_id)
    rng = random.Random(0)
    found: list[tuple[list[Action], Action, Action]] = []
    seed = 0
    while len(found) < count:
        state = game.new_state(num_players, seed)
        seed += 1
        while not state.is_over() and len(found) < count:
            legal = state.legal_actions()
            action = rng.choice(legal)
            found.append((legal, action, json.loads(json.dumps(action))))
            state.apply(action)
    return found


def per_check(check, cases: list[tuple[list[Action], Action, Action]], which: int) -> float:
    def run() -> None:
        for case in cases:
            check(case[which], case[0])

    return min(timeit.repeat(run, number=5, repeat=5)) / 5 / len(cases) * 1e6


def per_copy(cases: list[tuple[list[Action], Action, Action]]) -> float:
    """Microseconds to copy the legal actions of a position, as :meth:`State.offer` does."""

    def run() -> None:
        for case in cases:
            copy_json(case[0])

    return min(timeit.repeat(run, number=5, repeat=5)) / 5 / len(cases) * 1e6


def per_observation(game_id: str, num_players: int, count: int, shared_events: bool) -> float:
    """Microseconds per observation of the deciding seat at ``count`` random positions; with
    ``shared_events`` the event log hands out its own event dicts (the way it was before issue 15)."""
    from engine import get_game

    game = get_game(game_id)
    rng = random.Random(0)
    states: list[Any] = []
    seed = 0
    while len(states) < count:
        state = game.new_state(num_players, seed)
        seed += 1
        while not state.is_over() and len(states) < count:
            states.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    copying = EventLog.since_last_decision
    if shared_events:
        EventLog.since_last_decision = (
            lambda log, seat: [  # type: ignore[method-assign, assignment]
                event for witnesses, event in log.entries[log.marks[seat] :] if witnesses is None or seat in witnesses
            ]
        )
    try:

        def run() -> None:
            for state in states:
                state.observation(state.current_player)

        return min(timeit.repeat(run, number=3, repeat=5)) / 3 / len(states) * 1e6
    finally:
        EventLog.since_last_decision = copying  # type: ignore[method-assign]


def _shared_offer(state: Any) -> tuple[dict[str, Any], list[Action]]:
    return state.observation(state.current_player), state.legal_actions()


def _shared_events(log: EventLog, seat: int) -> list[dict[str, Any]]:
    return [event for witnesses, event in log.entries[log.marks[seat] :] if witnesses is None or seat in witnesses]


def per_match_decision(game_id: str, num_players: int, deals: int, repeats: int = 4) -> dict[str, float]:
    """Microseconds per decision of whole in-process random-bot matches: handing copies (now) and
    handing the state's own objects (before issue 15), interleaved, best of ``repeats``."""
    from engine.core import State
    from ladder.matches.match import MatchSpec, play_match
    from ladder.seats.players import PlayerPool

    copying = (State.offer, EventLog.since_last_decision)
    sharing = (_shared_offer, _shared_events)
    best = {"shared (us)": float("inf"), "copies (us)": float("inf")}
    try:
        for _ in range(repeats):
            for label, (offer, events) in (("shared (us)", sharing), ("copies (us)", copying)):
                State.offer, EventLog.since_last_decision = offer, events  # type: ignore[method-assign, assignment]
                actions = 0
                tick = time.perf_counter()
                with PlayerPool() as pool:
                    for seed in range(deals):
                        seats = [pool.player("random", game_id) for _ in range(num_players)]
                        actions += len(
                            play_match(MatchSpec(game_id, ("random",) * num_players, seed, {}), seats).actions
                        )
                best[label] = min(best[label], (time.perf_counter() - tick) / actions * 1e6)
    finally:
        State.offer, EventLog.since_last_decision = copying  # type: ignore[method-assign]
    return {key: round(value, 1) for key, value in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--matches", action="store_true", help="also time whole in-process random-bot matches")
    args = parser.parse_args()
    rows = []
    for game in all_games():
        cases = positions(game.id, game.min_players, 2000)
        rows.append(
            {
                "game": game.id,
                "players": game.min_players,
                "mean legal actions": round(sum(len(c[0]) for c in cases) / len(cases), 1),
                "same object: in (us)": round(per_check(lambda a, legal: a in legal, cases, 1), 2),
                "same object: find_legal (us)": round(per_check(find_legal, cases, 1), 2),
                "equal copy: in (us)": round(per_check(lambda a, legal: a in legal, cases, 2), 2),
                "equal copy: find_legal (us)": round(per_check(find_legal, cases, 2), 2),
                "offer: copy legal actions (us)": round(per_copy(cases), 2),
                "observation, shared events (us)": round(per_observation(game.id, game.min_players, 1000, True), 2),
                "observation, copied events (us)": round(per_observation(game.id, game.min_players, 1000, False), 2),
            }
        )
        if args.matches:
            rows[-1].update(
                {
                    f"random matches, {key}": value
                    for key, value in per_match_decision(
                        game.id, game.min_players, 25 if game.min_players > 1 else 150
                    ).items()
                }
            )
    if args.json:
        print(json.dumps({"machine": machine(), "rows": rows}, indent=2))
        return
    print(machine())
    for row in rows:
        print(", ".join(f"{key}: {value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
