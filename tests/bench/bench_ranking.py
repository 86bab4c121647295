"""Matches needed to put a known-order field in its true order: round-robin against the adaptive format.

    python tests/bench/bench_ranking.py [--bank results/ranking-bank.db] [--bank-deals 60]
                                        [--tournaments 100] [--solitaire-tournaments 10] [--games G ...] [--json]

The field is the known-order one (thumb > thumb-25 > thumb-50 > thumb-75 >
random, :mod:`bots.handicapped`), at two players in the multiplayer games and
in the solitaires. Playing hundreds of whole tournaments per game is out of
reach on two cores, so the benchmark plays real matches once into an
*outcome bank* (a stored round-robin: ``--bank-deals`` deals per pair, in both
seatings, or per bot in a solitaire; built if the bank file is missing) and
then replays tournaments by drawing, for every deal a tournament schedules,
one of the bank's real deals of that table (both seatings of it together;
in a solitaire, that deal's scores of the bots asked for), seeded by the
tournament's seed. The rating and the adaptive choices are the ladder's own
code (:func:`ladder.ratings.trueskill_model.compute`, :class:`tournaments.adaptive.AdaptivePlanner`).

Round-robin: for a ladder of deals per pair, the share of ``--tournaments``
tournaments whose final table (by mu - 3 sigma) is the true order; the
figure is the smallest number of matches reaching 95%. The same is measured
for one-pass TrueSkill in a random arrival order (the old estimate) to show
which estimate orders the field better.

Adaptive (confidence 95%, indifference 1.0, budget ``--max-matches``): per
tournament, the matches played until every pool stopped, whether the final
table is the true order, and whether it stopped *settled with a wrong order*
(some adjacent pair called ordered the wrong way round: the error the verdict
promises to keep under 5%). Pairs called equal are not errors.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine import all_games  # noqa: E402
from ladder.ratings import certainty  # noqa: E402
from ladder.ratings import trueskill_model as ratings  # noqa: E402
from ladder.ratings.trueskill_model import MatchFact, SeatFact  # noqa: E402
from ladder.seats.roster import Entrant  # noqa: E402
from tournaments.adaptive import AdaptivePlanner, _next_deals  # noqa: E402
from tournaments.config import AdaptiveSettings, parse_tournament  # noqa: E402
from tournaments.formats import GamePlan, ScheduledMatch, round_robin_groups  # noqa: E402

FIELD = ("thumb", "thumb-25", "thumb-50", "thumb-75", "random")  # the true order, best first
RR_DEALS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
SOLITAIRES = {game.id for game in all_games() if game.facts.solitaire}
GAME_FACTS = ratings.game_facts()


# ---- the outcome bank ------------------------------------------------------------------------------------


def build_bank(path: Path, deals: int, games: list[str]) -> None:
    from tournaments.runner import RunOptions, run_tournament

    config = parse_tournament(
        {"seed": 777, "games": games, "bots": list(FIELD), "players": [2], "games_per_pairing": deals},
        "ranking-bank.toml",
        "ranking-bank",
    )
    report = run_tournament(config, RunOptions(db_url=f"sqlite:///{path}", progress=True, rate_at_end=False))
    print(f"bank: {report.played_now} matches played in {report.seconds:.0f} s", file=sys.stderr)


@dataclass
class Bank:
    """Real results by table: per game, per set of bot names, a list of deals; each deal maps a seating
    (names by seat) to the seats' (score, rank, failed)."""

    tables: dict[str, dict[frozenset[str], list[dict[tuple[str, ...], list[tuple[float, int, bool]]]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )


def load_bank(path: Path) -> Bank:
    import sqlite3

    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "select m.id, m.game, m.deal, s.seat, b.name, s.score, s.rank, s.failure_reason from match m "
            "join seat_result s on s.match_id = m.id join bot_version v on v.id = s.bot_version_id "
            "join bot b on b.id = v.bot_id where m.status = 'played' order by m.id, s.seat"
        ).fetchall()
    matches: dict[int, list[Any]] = defaultdict(list)
    for row in rows:
        matches[row[0]].append(row)
    deals: dict[tuple[str, str, frozenset[str]], dict[tuple[str, ...], list[tuple[float, int, bool]]]] = defaultdict(
        dict
    )
    for seats in matches.values():
        game, deal = seats[0][1], seats[0][2]
        names = tuple(seat[4] for seat in seats)
        table = frozenset() if game in SOLITAIRES else frozenset(names)
        deals[(game, deal, table)][names] = [(seat[5] or 0.0, seat[6] or 0, seat[7] is not None) for seat in seats]
    bank = Bank()
    complete = {
        (game, deal, table): seatings
        for (game, deal, table), seatings in deals.items()
        if len(seatings) == (len(FIELD) if game in SOLITAIRES else 2)
    }  # a bank stopped mid-deal: whole deals only
    for (game, _, table), seatings in sorted(
        complete.items(), key=lambda item: (item[0][0], item[0][1], sorted(item[0][2]))
    ):
        bank.tables[game][table].append(seatings)
    return bank


# ---- replaying tournaments from the bank ------------------------------------------------------------------


def field_entrants() -> tuple[Entrant, ...]:
    return tuple(Entrant(name, "1", f"{index + 1:064x}", index + 1, name, ("*",)) for index, name in enumerate(FIELD))


class Replay:
    """Turns scheduled matches into rated facts by drawing real deals from the bank."""

    def __init__(self, bank: Bank, game: str, seed: int) -> None:
        self.bank, self.game, self.seed = bank, game, seed
        self.facts: list[MatchFact] = []
        self.solitaire = game in SOLITAIRES

    def play(self, matches: list[ScheduledMatch]) -> None:
        groups: dict[tuple[str, frozenset[str]], list[ScheduledMatch]] = defaultdict(list)
        for match in matches:
            names = frozenset() if self.solitaire else frozenset(e.name for e in match.seats)
            groups[(match.deal, names)].append(match)
        for (deal, names), group in groups.items():
            choices = self.bank.tables[self.game][names]
            drawn = choices[random.Random(f"{self.seed}/{deal}/{sorted(names)}").randrange(len(choices))]
            for match in group:
                seating = tuple(e.name for e in match.seats)
                result = drawn[seating]
                seats = tuple(
                    SeatFact(e.version_id, score, rank, failed, None)
                    for e, (score, rank, failed) in zip(match.seats, result)
                )
                self.facts.append(MatchFact(len(self.facts) + 1, 1, self.game, len(seats), deal, seats))


TRUTH: dict[str, list[int]] = {}  # per game: the order the replayed tournaments converge to (see bank_order)


def bank_order(bank: Bank, game: str) -> tuple[list[int], certainty.PoolCertainty]:
    """The field's order in the whole bank (every deal once): what tournaments drawn from it converge to.

    It is the construction order where the bank is big enough to show it; where two handicaps are
    too close for the bank to tell apart, the replayed tournaments can only find the bank's order,
    so that is the truth they are scored against (and the report says where it differs)."""
    replay = Replay(bank, game, 0)
    entrants = {e.name: e for e in field_entrants()}
    for number, (_table, deals) in enumerate(sorted(bank.tables[game].items(), key=lambda item: sorted(item[0]))):
        for index, seatings in enumerate(deals):
            for seating, result in seatings.items():
                seats = tuple(
                    SeatFact(entrants[name].version_id, score, rank, failed, None)
                    for name, (score, rank, failed) in zip(seating, result)
                )
                replay.facts.append(
                    MatchFact(len(replay.facts) + 1, 1, game, len(seats), f"bank/{number}/{index}", seats)
                )
    rated = ratings.compute(replay.facts, GAME_FACTS, history=False)
    table = rated.table(pool_of(game))
    return [s.bot_version_id for s in table], certainty.assess(
        table, pool_of(game), names={e.version_id: e.name for e in entrants.values()}
    )


def true_order(table: list[ratings.Standing]) -> bool:
    return [s.bot_version_id for s in table] == TRUTH[table[0].game]


def pool_of(game: str) -> str:
    return f"{game}/{1 if game in SOLITAIRES else 2}p"


def round_robin(bank: Bank, game: str, seed: int, deals: int) -> tuple[int, bool, bool, bool]:
    """(matches, true order by the order-free estimate, true order by one-pass TrueSkill in a random order,
    the verdict says settled)."""
    plan = GamePlan(game, (1 if game in SOLITAIRES else 2,), ({},), deals, field_entrants())
    replay = Replay(bank, game, seed)
    replay.play([m for group in round_robin_groups(plan, seed, 0) for m in group])
    rated = ratings.compute(replay.facts, GAME_FACTS, history=False)
    shuffled = list(replay.facts)
    random.Random(seed).shuffle(shuffled)
    renumbered = [
        MatchFact(i, f.tournament_id, f.game, f.num_players, f.deal, f.seats) for i, f in enumerate(shuffled, 1)
    ]
    events, standings = ratings.build_events(renumbered, GAME_FACTS)
    env = ratings.environment(rated.draw_probability[pool_of(game)])
    last: dict[int, tuple[float, float]] = {}
    for point in ratings.online_history(env, pool_of(game), events, standings[pool_of(game)]):
        last[point.bot_version_id] = (point.mu, point.sigma)
    online = sorted(last, key=lambda v: -(last[v][0] - 3 * last[v][1]))
    settled = certainty.assess(rated.table(pool_of(game)), pool_of(game)).settled
    return len(replay.facts), true_order(rated.table(pool_of(game))), online == TRUTH[game], settled


@dataclass(frozen=True)
class AdaptiveRun:
    matches: int
    stop: str
    right: bool  # the final table is the true order
    wrong_settled: bool  # settled with an adjacent pair ordered the wrong way round
    equal_pairs: int


def adaptive(bank: Bank, game: str, seed: int, settings: AdaptiveSettings) -> AdaptiveRun:
    count = 1 if game in SOLITAIRES else 2
    plan = GamePlan(game, (count,), ({},), 1, field_entrants())
    planner = AdaptivePlanner([plan], seed, settings)
    replay = Replay(bank, game, seed)
    planned: set[str] = set()
    matches = planner.warm_up()
    pool = planner.pools[0]
    while matches:
        planned |= {m.key for m in matches}
        replay.play(matches)
        rated = ratings.compute(replay.facts, GAME_FACTS, history=False)
        matches = planner._choose(
            pool, rated, len(replay.facts), _next_deals(planned), lambda entrant, game, players: False
        )
    rated = ratings.compute(replay.facts, GAME_FACTS, history=False)
    table = rated.table(pool.key)
    sure = certainty.assess(table, pool.key, settings.confidence, settings.indifference)
    truth = TRUTH[game]
    wrong = sure.settled and any(
        p.state is certainty.PairState.ORDERED and truth.index(p.upper) > truth.index(p.lower) for p in sure.pairs
    )
    status = planner.status[pool.key]
    return AdaptiveRun(
        len(replay.facts),
        status.stop.value if status.stop else "open",
        true_order(table),
        wrong,
        sum(p.state is certainty.PairState.EQUAL for p in sure.pairs),
    )


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_game(bank: Bank, game: str, tournaments: int, settings: AdaptiveSettings) -> dict[str, Any]:
    tick = time.perf_counter()
    TRUTH[game], whole = bank_order(bank, game)
    construction = list(range(1, len(FIELD) + 1))
    names = [FIELD[v - 1] for v in TRUTH[game]]
    print(
        f"  {game}: the bank's order {' > '.join(names)} ({whole.verdict.value} on the whole bank: {whole.reason})"
        + ("" if TRUTH[game] == construction else "; NOT the construction order"),
        file=sys.stderr,
    )
    rr: list[dict[str, Any]] = []
    needed = settled_at = None
    for deals in RR_DEALS:
        results = [round_robin(bank, game, seed, deals) for seed in range(tournaments)]
        share = sum(r[1] for r in results) / tournaments
        online = sum(r[2] for r in results) / tournaments
        settled = sum(r[3] for r in results) / tournaments
        rr.append(
            {
                "deals": deals,
                "matches": results[0][0],
                "true_order": share,
                "true_order_one_pass": online,
                "settled": settled,
            }
        )
        print(
            f"  {game} round-robin {deals:>3} deals/pair, {results[0][0]:>5} matches: true order {share:.0%} "
            f"(one-pass TrueSkill {online:.0%}), verdict settled {settled:.0%}",
            file=sys.stderr,
        )
        if share >= 0.95 and needed is None:
            needed = results[0][0]
        if settled >= 0.95 and settled_at is None:
            settled_at = results[0][0]
        if needed is not None and settled_at is not None:
            break
    runs = [adaptive(bank, game, 1000 + seed, settings) for seed in range(tournaments)]
    counts = [run.matches for run in runs]
    summary = {
        "game": game,
        "tournaments": tournaments,
        "bank_order": names,
        "bank_order_is_construction_order": TRUTH[game] == construction,
        "bank_verdict": f"{whole.verdict.value}: {whole.reason}",
        "bank_matches": sum(len(d) for deals in bank.tables[game].values() for d in deals),
        "round_robin": rr,
        "round_robin_matches_for_95": needed,
        "round_robin_matches_settled_95": settled_at,
        "adaptive": {
            "mean_matches": statistics.mean(counts),
            "median_matches": statistics.median(counts),
            "p95_matches": percentile(counts, 0.95),
            "max_matches": max(counts),
            "true_order": sum(r.right for r in runs) / len(runs),
            "settled": sum(r.stop == "settled" for r in runs) / len(runs),
            "settled_with_equal_pairs": sum(r.stop == "settled" and r.equal_pairs > 0 for r in runs) / len(runs),
            "wrong_order_called_settled": sum(r.wrong_settled for r in runs) / len(runs),
            "budget_spent": sum(r.stop == "budget spent" for r in runs) / len(runs),
        },
        "seconds": time.perf_counter() - tick,
    }
    a = summary["adaptive"]
    print(
        f"  {game} adaptive: mean {a['mean_matches']:.0f} matches (p95 {a['p95_matches']}), true order "
        f"{a['true_order']:.0%}, settled {a['settled']:.0%}, wrong order called settled "
        f"{a['wrong_order_called_settled']:.0%}",
        file=sys.stderr,
    )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", type=Path, default=ROOT / "results" / "ranking-bank.db")
    parser.add_argument("--bank-deals", type=int, default=60)
    parser.add_argument("--tournaments", type=int, default=100)
    parser.add_argument("--solitaire-tournaments", type=int, default=10)
    parser.add_argument("--max-matches", type=int, default=5000)
    parser.add_argument(
        "--games", nargs="*", default=["elevenses", "elfer-raus", "bowling-solitaire", "elevenses-for-one"]
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.bank.exists():
        args.bank.parent.mkdir(parents=True, exist_ok=True)
        build_bank(args.bank, args.bank_deals, args.games)
    bank = load_bank(args.bank)
    settings = AdaptiveSettings(max_matches=args.max_matches)
    results = []
    for game in args.games:
        runs = args.solitaire_tournaments if game in SOLITAIRES else args.tournaments
        results.append(bench_game(bank, game, runs, settings))
    report = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "bank": str(args.bank),
        "field": list(FIELD),
        "games": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{'game':<18} {'RR right 95%':>12} {'RR settled 95%':>14} {'adaptive mean':>13} {'p95':>5} {'true order':>10} "
        f"{'wrong settled':>13}"
    )
    for r in results:
        a = r["adaptive"]
        most = ">" + str(r["round_robin"][-1]["matches"])
        print(
            f"{r['game']:<18} {str(r['round_robin_matches_for_95'] or most):>12} {str(r['round_robin_matches_settled_95'] or most):>14} "
            f"{a['mean_matches']:>13.0f} {a['p95_matches']:>5} {a['true_order']:>10.0%} {a['wrong_order_called_settled']:>13.0%}"
        )


if __name__ == "__main__":
    main()
