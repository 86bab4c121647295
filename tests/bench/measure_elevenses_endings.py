"""How Elevenses games end between built-in bots: the measurement behind rules decisions D13-D16.

    python tests/bench/measure_elevenses_endings.py [--players 4] [--games 100] [--bot thumb]
        [--first-seed 0] [--json] [OPTION=VALUE ...]

e.g. ``python tests/bench/measure_elevenses_endings.py edition=fr target=11`` (the issue's
case: 4 players, French target 11, 100 games of rule-of-thumb bots). Per game it reads the
``round_end`` events of the engine's own log and counts: rounds, rounds ended by the turn
cap, rounds whose cubes a limited bowl could not pay in full, games whose bowl ran out,
games won with fewer cubes than the target, shared wins (and those shared only because the
bowl ran out), rounds ending tied at the top under ``ties=play_on`` (D16), rounds after
which the starting server card's holder tied others for fewest cubes (D15), the longest
game, and how many turns per seat the rounds took (D13: a round reaching ``turn_cap`` ends
"as if eleven o'clock struck"; ``turn_cap=100`` shows how long rounds last uncut).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.base import MatchStart  # noqa: E402
from bots.registry import get_bot_class  # noqa: E402
from engine.elevenses import GAME  # noqa: E402
from engine.elevenses.cards import TEA_TROLLEY  # noqa: E402
from engine.elevenses.scoring import placing_cubes  # noqa: E402


def play(n: int, seed: int, options: dict[str, Any], bot_name: str) -> dict[str, Any]:
    state = GAME.new_state(n, seed, options)
    bot_class = get_bot_class(bot_name, GAME.id)
    bots = [bot_class() for _ in range(n)]
    for seat, bot in enumerate(bots):
        bot.start(MatchStart(GAME.id, seat, n, dict(state.options), 1000 * seed + seat))
    owed_rounds = 0
    short_rounds = 0
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        trolleys = sum(1 for s in range(n) if state.up[s][TEA_TROLLEY])
        rounds_before = state.round
        action = bots[seat].act(state.observation(seat), state.legal_actions())
        if action.get("type") == "play" and action["card"][0] == TEA_TROLLEY:
            trolleys += 1
        state.apply(action)
        if state.is_over() or state.round != rounds_before:
            end = [event for _, event in state.log.entries if event["type"] == "round_end"][-1]
            owed = sum(placing_cubes(end["values"])) + trolleys
            paid = sum(end["placing_cubes"]) + sum(end["trolley_cubes"])
            owed_rounds += 1
            short_rounds += paid < owed
    ends = [event for _, event in state.log.entries if event["type"] == "round_end"]
    holders = [0] + [end["server"] for end in ends[:-1]]
    holder_tied = 0  # rounds after which the server card's holder tied others for fewest cubes (D15)
    for holder, end in zip(holders, ends):
        fewest = min(end["cubes"])
        holder_tied += end["cubes"][holder] == fewest and end["cubes"].count(fewest) > 1
    winners = state.winners()
    top = max(state.cubes)
    bowl_out = state.bowl == 0
    return {
        "rounds": len(ends),
        "turn_cap_rounds": sum(1 for e in ends if e["reason"] == "turn_cap"),
        "turns_per_seat": [e["turns"] / n for e in ends],
        "short_rounds": short_rounds,
        "bowl_out": bowl_out,
        "below_target": top < state.target_cubes,
        "shared": len(winners) > 1,
        "shared_by_bowl": len(winners) > 1 and bowl_out and top < state.target_cubes,
        "tied_rounds": state.tied_rounds,  # counted under ties=play_on only
        "holder_tied": holder_tied,
        "top": top,
    }


def summarise(games: list[dict[str, Any]], cap: int) -> dict[str, Any]:
    turns = sorted(t for g in games for t in g["turns_per_seat"])
    rounds = [g["rounds"] for g in games]
    return {
        "games": len(games),
        "bowl ran out": sum(g["bowl_out"] for g in games),
        "winner below the target": sum(g["below_target"] for g in games),
        "shared wins": sum(g["shared"] for g in games),
        "shared only because the bowl ran out": sum(g["shared_by_bowl"] for g in games),
        "games with a round not paid in full": sum(g["short_rounds"] > 0 for g in games),
        "games with a round ending tied at the top at or above the target": sum(g["tied_rounds"] > 0 for g in games),
        "most such rounds in a game": max(g["tied_rounds"] for g in games),
        "rounds where the server card's holder tied for fewest cubes": sum(g["holder_tied"] for g in games),
        "rounds per game (mean)": round(statistics.mean(rounds), 2),
        "rounds per game (max)": max(rounds),
        "rounds ended by the turn cap": f"{sum(g['turn_cap_rounds'] for g in games)} of {sum(rounds)}",
        "turns per seat (median)": statistics.median(turns),
        "turns per seat (99th percentile)": turns[min(len(turns) - 1, int(0.99 * len(turns)))],
        "turns per seat (max)": turns[-1],
        "rounds over 12 turns per seat": sum(1 for t in turns if t > 12),
        "rounds over 24 turns per seat": sum(1 for t in turns if t > 24),
        "rounds within 2 turns per seat of the cap": sum(1 for t in turns if t > cap - 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("options", nargs="*", metavar="OPTION=VALUE")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bot", default="thumb")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options = GAME.parse_options(args.options)
    games = [play(args.players, args.first_seed + k, options, args.bot) for k in range(args.games)]
    summary = {
        "players": args.players,
        "options": options,
        "bot": args.bot,
        **summarise(games, options["turn_cap"]),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
