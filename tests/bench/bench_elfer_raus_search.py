"""Elfer raus: does ``search`` beat ``thumb``? Duplicate deals, seat by seat, with a sign test.

    python tests/bench/bench_elfer_raus_search.py PLAYERS DEALS [--seed S] [--option key=value ...] [--random-field [--duplicate] [--jobs N]]

Every deal (seed ``S + i``) is played once with ``thumb`` in every seat (the
baseline) and then once per seat with ``search`` in that seat and ``thumb`` in
the others. Each (deal, seat) pair compares search with thumb in the same seat
of the same deal: "better" when search won (rank 1) and thumb did not, "worse"
the other way round. The p-value is the one-sided sign test (binomial, 1/2)
on those pairs: the chance of at least that many "better" if search were no
stronger than thumb. Also printed: win rates, the mean difference in penalty
points (negative: search scores fewer), and search's CPU time per decision
(``time.process_time``, every decision, including those with one legal
action). Not collected by pytest (no test functions).

With ``--random-field`` the table is the one of ``ladder play elfer-raus search
thumb random ...``: search, thumb and PLAYERS - 2 random players, every deal
played in every rotation of the seats. Each match compares search with thumb
at the same table: "better" when search finished ahead of thumb (a lower
rank), "worse" behind; the sign test is on those matches, and the mean rank
difference (thumb's minus search's, per deal) is given with its z score.

With ``--random-field --duplicate`` each of those matches is played a second
time with ``thumb`` in search's seat (the same deal, seats and bot seeds), and
search's rank is compared with the rank thumb got in the same seat: "better" /
"worse" with the one-sided sign test, and the mean rank gain per match with
its z score over the deals. The deal and the field are the same on both sides,
so this design tells the bots apart in far fewer deals than the table of
``ladder play``. ``--jobs N`` plays the deals in N processes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from math import comb
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots.base import Bot, MatchStart  # noqa: E402
from bots.elfer_raus import ElferRausSearchBot, ElferRausThumbBot  # noqa: E402
from bots.random_bot import RandomBot  # noqa: E402
from engine.core import GameResult  # noqa: E402
from engine.elfer_raus import GAME  # noqa: E402


def play(seed: int, bots: list[Bot], options: dict[str, Any], search_times: list[float]) -> GameResult:
    num_players = len(bots)
    for seat, bot in enumerate(bots):
        bot.start(MatchStart(GAME.id, seat, num_players, dict(options), seed * 7 + 1))
    state = GAME.new_state(num_players, seed, options)
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        bot = bots[seat]
        started = time.process_time()
        action = bot.act(state.observation(seat), state.legal_actions())
        if isinstance(bot, ElferRausSearchBot):
            search_times.append(time.process_time() - started)
        state.apply(action)
    return state.result()


def sign_test(better: int, worse: int) -> float:
    """One-sided: P(X >= better) for X ~ Binomial(better + worse, 1/2)."""
    pairs = better + worse
    return sum(comb(pairs, k) for k in range(better, pairs + 1)) / 2**pairs if pairs else 1.0


def measure(num_players: int, deals: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    better = worse = search_wins = thumb_wins = 0
    points_difference = 0.0
    times: list[float] = []
    for deal in range(deals):
        baseline = play(seed + deal, [ElferRausThumbBot() for _ in range(num_players)], options, [])
        for hero in range(num_players):
            bots: list[Bot] = [ElferRausThumbBot() for _ in range(num_players)]
            bots[hero] = ElferRausSearchBot()
            result = play(seed + deal, bots, options, times)
            won, thumb_won = result.ranks[hero] == 1, baseline.ranks[hero] == 1
            search_wins += won
            thumb_wins += thumb_won
            better += won and not thumb_won
            worse += thumb_won and not won
            points_difference += result.scores[hero] - baseline.scores[hero]
    games = deals * num_players
    times.sort()
    return {
        "players": num_players,
        "deals": deals,
        "games": games,
        "seeds": [seed, seed + deals - 1],
        "options": options,
        "search_win_rate": search_wins / games,
        "thumb_win_rate_same_seats": thumb_wins / games,
        "better": better,
        "worse": worse,
        "sign_test_p": sign_test(better, worse),
        "mean_points_difference": points_difference / games,
        "search_ms_per_decision_mean": 1000 * sum(times) / len(times) if times else 0.0,
        "search_ms_per_decision_p99": 1000 * times[int(0.99 * (len(times) - 1))] if times else 0.0,
        "search_ms_per_decision_max": 1000 * times[-1] if times else 0.0,
        "search_decisions": len(times),
    }


def measure_random_field(num_players: int, deals: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """Search, thumb and random fillers, every rotation of every deal: does search finish ahead of thumb?"""
    names = ["search", "thumb"] + ["random"] * (num_players - 2)
    better = worse = search_wins = thumb_wins = 0
    rank_differences: list[float] = []
    times: list[float] = []
    for deal in range(deals):
        difference = 0.0
        for shift in range(num_players):
            order = [names[(seat + shift) % num_players] for seat in range(num_players)]
            makers = {"search": ElferRausSearchBot, "thumb": ElferRausThumbBot, "random": RandomBot}
            bots: list[Bot] = [makers[name]() for name in order]
            result = play(seed + deal, bots, options, times)
            search_rank, thumb_rank = result.ranks[order.index("search")], result.ranks[order.index("thumb")]
            better += search_rank < thumb_rank
            worse += search_rank > thumb_rank
            search_wins += search_rank == 1
            thumb_wins += thumb_rank == 1
            difference += (thumb_rank - search_rank) / num_players
        rank_differences.append(difference)
    games = deals * num_players
    mean = statistics.fmean(rank_differences)
    spread = statistics.stdev(rank_differences) if deals > 1 else 0.0
    times.sort()
    return {
        "players": num_players,
        "field": names,
        "deals": deals,
        "games": games,
        "seeds": [seed, seed + deals - 1],
        "options": options,
        "search_win_rate": search_wins / games,
        "thumb_win_rate": thumb_wins / games,
        "search_ahead_of_thumb": better,
        "search_behind_thumb": worse,
        "sign_test_p": sign_test(better, worse),
        "mean_rank_advantage": mean,
        "rank_advantage_z": mean / (spread / deals**0.5) if spread > 0 else 0.0,
        "search_ms_per_decision_mean": 1000 * sum(times) / len(times) if times else 0.0,
        "search_ms_per_decision_p99": 1000 * times[int(0.99 * (len(times) - 1))] if times else 0.0,
        "search_ms_per_decision_max": 1000 * times[-1] if times else 0.0,
        "search_decisions": len(times),
    }


def _duplicate_deal(job: tuple[int, int, dict[str, Any]]) -> tuple[list[tuple[int, int, int]], list[float]]:
    """One deal of the duplicate random field: per rotation, (search's rank, thumb's rank in search's
    seat when thumb plays it, the other thumb's rank beside search)."""
    num_players, seed, options = job
    names = ["search", "thumb"] + ["random"] * (num_players - 2)
    makers = {"search": ElferRausSearchBot, "thumb": ElferRausThumbBot, "random": RandomBot}
    ranks: list[tuple[int, int, int]] = []
    times: list[float] = []
    for shift in range(num_players):
        order = [names[(seat + shift) % num_players] for seat in range(num_players)]
        hero = order.index("search")
        with_search = play(seed, [makers[name]() for name in order], options, times)
        with_thumb = play(
            seed, [makers["thumb" if seat == hero else name]() for seat, name in enumerate(order)], options, []
        )
        ranks.append((with_search.ranks[hero], with_thumb.ranks[hero], with_search.ranks[order.index("thumb")]))
    return ranks, times


def measure_duplicate_field(
    num_players: int, deals: int, seed: int, options: dict[str, Any], jobs: int
) -> dict[str, Any]:
    """The random field, each match played again with thumb in search's seat: does search rank better there?"""
    work = [(num_players, seed + deal, options) for deal in range(deals)]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            played = pool.map(_duplicate_deal, work, chunksize=1)
    else:
        played = [_duplicate_deal(job) for job in work]
    better = worse = ahead = behind = 0
    gains: list[float] = []
    times: list[float] = []
    for ranks, deal_times in played:
        times += deal_times
        better += sum(search < thumb for search, thumb, _ in ranks)
        worse += sum(search > thumb for search, thumb, _ in ranks)
        ahead += sum(search < beside for search, _, beside in ranks)
        behind += sum(search > beside for search, _, beside in ranks)
        gains.append(statistics.fmean(thumb - search for search, thumb, _ in ranks))
    mean = statistics.fmean(gains)
    spread = statistics.stdev(gains) if deals > 1 else 0.0
    times.sort()
    return {
        "players": num_players,
        "design": "duplicate random field",
        "deals": deals,
        "games": 2 * deals * num_players,
        "seeds": [seed, seed + deals - 1],
        "options": options,
        "better_than_thumb_in_its_seat": better,
        "worse_than_thumb_in_its_seat": worse,
        "sign_test_p": sign_test(better, worse),
        "mean_rank_gain": mean,
        "rank_gain_z": mean / (spread / deals**0.5) if spread > 0 else 0.0,
        "ahead_of_the_other_thumb": ahead,
        "behind_the_other_thumb": behind,
        "search_ms_per_decision_mean": 1000 * sum(times) / len(times) if times else 0.0,
        "search_ms_per_decision_p99": 1000 * times[int(0.99 * (len(times) - 1))] if times else 0.0,
        "search_ms_per_decision_max": 1000 * times[-1] if times else 0.0,
        "search_decisions": len(times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", type=int, help="table size, 2 to 6")
    parser.add_argument("deals", type=int, help="deals; each is played 1 + PLAYERS times")
    parser.add_argument("--seed", type=int, default=10000, help="deal i uses seed SEED + i")
    parser.add_argument("--option", "-o", action="append", default=[], help="game option key=value; repeatable")
    parser.add_argument("--random-field", action="store_true", help="search, thumb and random players at each table")
    parser.add_argument(
        "--duplicate", action="store_true", help="with --random-field: replay each match with thumb in search's seat"
    )
    parser.add_argument("--jobs", type=int, default=1, help="with --duplicate: deals played in this many processes")
    args = parser.parse_args()
    options = GAME.parse_options(args.option)
    if args.duplicate and not args.random_field:
        parser.error("--duplicate needs --random-field")
    if args.jobs != 1 and not args.duplicate:
        parser.error("--jobs needs --duplicate")
    if args.duplicate:
        summary = measure_duplicate_field(args.players, args.deals, args.seed, options, args.jobs)
    else:
        summary = (measure_random_field if args.random_field else measure)(args.players, args.deals, args.seed, options)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
