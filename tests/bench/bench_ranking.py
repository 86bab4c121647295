"""Matches needed to settle a known-order field: the adaptive format's stopping rule before and after issue 27.

    python tests/bench/bench_ranking.py --bank B.db [--bank B2.db ...] [--rows elfer-raus/3p ...]
                                        [--tournaments 200] [--before-tournaments 200] [--jobs 2] [--json]
    python tests/bench/bench_ranking.py --build-bank B.db --players 3 --bank-deals 100 --games elfer-raus
    python tests/bench/bench_ranking.py --bank B.db --round-robin   # the round-robin ladder of issue 12 (2p)

The field is the known-order one (thumb > thumb-25 > thumb-50 > thumb-75 >
random, :mod:`bots.handicapped`), at 2, 3 and 4 players and in the solitaires.
Playing thousands of whole tournaments is out of reach on two cores, so real
matches are played once into *outcome banks* (a stored round-robin of the
field at one table size: ``--bank-deals`` deals per table, each in every
seating of its table, or per bot in a solitaire) and tournaments are replayed
by drawing, for every deal a tournament schedules, one of the bank's real
deals of that table: all its seatings together (the same cards in every
seating, as the ladder plays them), or in a solitaire that deal's scores of
the bots asked for; seeded by the tournament's seed. This keeps exactly what
the paired verdict feeds on: whole deals of the real bots, with their rank and
score in every seating. The choices and the stopping are the ladder's own code
(:class:`tournaments.sources.adaptive.AdaptivePlanner`, :mod:`ladder.ratings.verdict`,
:mod:`ladder.ratings.certainty`).

Rows, per game and table size: **before**, today's rule until issue 27 (the
TrueSkill posteriors of :func:`ladder.ratings.trueskill_model.compute`, each adjacent pair at
``1 - 0.05 / (bots - 1)``, the pool ordered by mu - 3 sigma), and **after**,
the paired sequential verdict (every test at ``1 - 0.05 / (2 * pairs)``, the
pool ordered by the deal values). Both at confidence 95%, indifference 1 mu
point, budget ``--max-matches`` per pool. Per row: mean and 95th percentile of
the matches played until the pool stopped, the share settled, the share in
the true order, and **wrong settled**: the share that stopped *settled* with
an adjacent pair called ordered the wrong way round, or (after) called equal
though the bank shows them further apart than the margin.

The truth is the bank's: before, the order of the whole bank rated at once;
after, each pair's mean deal value over every deal of the bank where both sat
(what the replayed tournaments' deal values are drawn from). The report says
where it is not the construction order.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine import all_games  # noqa: E402
from ladder.ratings import certainty, verdict  # noqa: E402
from ladder.ratings import trueskill_model as ratings  # noqa: E402
from ladder.ratings.trueskill_model import MatchFact, SeatFact, Standing  # noqa: E402
from ladder.seats.roster import Entrant  # noqa: E402
from tournaments.formats.config import AdaptiveSettings, Seatings, parse_tournament  # noqa: E402
from tournaments.formats.round_robin import GamePlan, ScheduledMatch, round_robin_groups  # noqa: E402
from tournaments.sources.adaptive import AdaptivePlanner, StopReason, _next_deals  # noqa: E402

FIELD = ("thumb", "thumb-25", "thumb-50", "thumb-75", "random")  # the true order, best first
RR_DEALS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
SOLITAIRES = {game.id for game in all_games() if game.facts.solitaire}
GAME_FACTS = ratings.game_facts()
ROWS = (
    "elevenses/2p",
    "elevenses/3p",
    "elfer-raus/2p",
    "elfer-raus/3p",
    "elfer-raus/4p",
    "elevenses-for-one/1p",
    "bowling-solitaire/1p",
)


# ---- the outcome banks -----------------------------------------------------------------------------------


def build_bank(path: Path, deals: int, games: list[str], players: int) -> None:
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament

    config = parse_tournament(
        {"seed": 777 + players, "games": games, "bots": list(FIELD), "players": [players], "games_per_pairing": deals},
        "ranking-bank.toml",
        "ranking-bank",
    )
    report = run_tournament(config, RunOptions(db_url=f"sqlite:///{path}", progress=True, rate_at_end=False))
    print(f"bank: {report.played_now} matches played in {report.seconds:.0f} s", file=sys.stderr)


Seating = tuple[str, ...]
BankDeal = dict[
    Seating, list[tuple[float, int, bool]]
]  # a seating (names by seat) -> each seat's (score, rank, failed)


@dataclass
class Bank:
    """Real results by pool (``game/Kp``) and table (set of bot names; a solitaire: the empty set): whole deals."""

    tables: dict[str, dict[frozenset[str], list[BankDeal]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )


def load_bank(paths: list[Path]) -> Bank:
    import sqlite3

    bank = Bank()
    for path in paths:
        with sqlite3.connect(path) as connection:
            rows = connection.execute(
                "select m.id, m.game, m.deal, m.num_players, s.seat, b.name, s.score, s.rank, s.failure_reason from match m "
                "join seat_result s on s.match_id = m.id join bot_version v on v.id = s.bot_version_id "
                "join bot b on b.id = v.bot_id where m.status = 'played' order by m.id, s.seat"
            ).fetchall()
        matches: dict[int, list[Any]] = defaultdict(list)
        for row in rows:
            matches[row[0]].append(row)
        deals: dict[tuple[str, str, frozenset[str]], BankDeal] = defaultdict(dict)
        for seats in matches.values():
            game, deal, players = seats[0][1], seats[0][2], seats[0][3]
            names = tuple(seat[5] for seat in seats)
            table = frozenset() if game in SOLITAIRES else frozenset(names)
            deals[(f"{game}/{players}p", deal, table)][names] = [
                (seat[6] or 0.0, seat[7] or 0, seat[8] is not None) for seat in seats
            ]
        for (pool, _, table), seatings in sorted(
            deals.items(), key=lambda item: (item[0][0], item[0][1], sorted(item[0][2]))
        ):
            whole = len(FIELD) if not table else math.factorial(len(table))  # a bank stopped mid-deal: whole deals only
            if len(seatings) == whole:
                bank.tables[pool][table].append(seatings)
    return bank


# ---- replaying tournaments from a bank ------------------------------------------------------------------


def field_entrants() -> tuple[Entrant, ...]:
    return tuple(Entrant(name, "1", f"{index + 1:064x}", index + 1, name, ("*",)) for index, name in enumerate(FIELD))


def split(pool: str) -> tuple[str, int]:
    game, _, players = pool.partition("/")
    return game, int(players.removesuffix("p"))


class Replay:
    """Turns scheduled matches into rated facts by drawing real deals from the bank."""

    def __init__(self, bank: Bank, pool: str, seed: int) -> None:
        self.bank, self.pool, self.seed = bank, pool, seed
        self.game, _ = split(pool)
        self.facts: list[MatchFact] = []
        self.solitaire = self.game in SOLITAIRES

    def play(self, matches: list[ScheduledMatch]) -> list[MatchFact]:
        """Record ``matches`` (whole deals); return their facts."""
        start = len(self.facts)
        groups: dict[tuple[str, frozenset[str]], list[ScheduledMatch]] = defaultdict(list)
        for match in matches:
            names = frozenset() if self.solitaire else frozenset(e.name for e in match.seats)
            groups[(match.deal, names)].append(match)
        for (deal, names), group in groups.items():
            choices = self.bank.tables[self.pool][names]
            # the same bank deal index at every table of a deal id: the bank's tables played the same cards under
            # the same deal number, so a deal id replayed at several tables keeps its cards (and their correlation)
            drawn = choices[random.Random(f"{self.seed}/{deal}").randrange(1 << 30) % len(choices)]
            for match in group:
                seating = tuple(e.name for e in match.seats)
                result = drawn[seating]
                seats = tuple(
                    SeatFact(e.version_id, score, rank, failed, None)
                    for e, (score, rank, failed) in zip(match.seats, result)
                )
                self.facts.append(MatchFact(len(self.facts) + 1, 1, self.game, len(seats), deal, seats))
        return self.facts[start:]

    def whole_bank(self) -> list[MatchFact]:
        """Every deal of the bank once (its own deal id per table and deal)."""
        entrants = {e.name: e for e in field_entrants()}
        facts: list[MatchFact] = []
        for number, (_table, deals) in enumerate(
            sorted(self.bank.tables[self.pool].items(), key=lambda item: sorted(item[0]))
        ):
            for index, seatings in enumerate(deals):
                for seating, result in seatings.items():
                    seats = tuple(
                        SeatFact(entrants[name].version_id, score, rank, failed, None)
                        for name, (score, rank, failed) in zip(seating, result)
                    )
                    facts.append(MatchFact(len(facts) + 1, 1, self.game, len(seats), f"bank/{number}/{index}", seats))
        return facts


@dataclass(frozen=True)
class Truth:
    """What the replayed tournaments of one pool converge to."""

    order: list[int]  # before: the whole bank rated at once, best first
    means: dict[tuple[int, int], float]  # after: (a, b) -> a's mean deal value against b over the whole bank
    paired_order: list[int]  # after: the whole bank ordered by the deal values
    whole_bank: str  # the posterior verdict on the whole bank


def truth_of(bank: Bank, pool: str, delta: float) -> Truth:
    facts = Replay(bank, pool, 0).whole_bank()
    rated = ratings.compute(facts, GAME_FACTS, history=False)
    table = rated.table(pool)
    whole = certainty.assess(table, pool)
    evidence = verdict.ledger(facts, GAME_FACTS, delta).pool(pool)
    ids = [e.version_id for e in field_entrants()]
    means = {(a, b): evidence.pair(a, b).mean for a in ids for b in ids if a != b}
    return Truth(
        [s.bot_version_id for s in table], means, evidence.order(ids), f"{whole.verdict.value}: {whole.reason}"
    )


# ---- the adaptive format, before and after ----------------------------------------------------------------


@dataclass(frozen=True)
class AdaptiveRun:
    matches: int
    stop: str
    right: bool  # the final order is the true one
    wrong_settled: bool  # settled with an adjacent pair called ordered the wrong way round (or equal though far apart)
    equal_pairs: int
    settled_reversed: bool  # settled with some adjacent pair the wrong way round, even within the margin


def no_bench(entrant: Entrant, game: str, players: int) -> bool:
    return False


class NextDeals:
    """:func:`tournaments.sources.adaptive._next_deals` kept up to date round by round (not recomputed from every key)."""

    def __init__(self) -> None:
        self.deals: dict[tuple[str, frozenset[str]], int] = defaultdict(int)

    def add(self, keys: set[str]) -> dict[tuple[str, frozenset[str]], int]:
        for where, number in _next_deals(keys).items():
            self.deals[where] = max(self.deals[where], number)
        return self.deals


def before_choose(
    planner: AdaptivePlanner, facts: list[MatchFact], deals: dict[tuple[str, frozenset[str]], int]
) -> tuple[list[ScheduledMatch], certainty.PoolCertainty]:
    """The choice of the adaptive format until issue 27: TrueSkill's posteriors, ordered by mu - 3 sigma."""
    pool = planner.pools[0]
    rated = ratings.compute(facts, GAME_FACTS, history=False)
    known = rated.standings.get(pool.key, {})
    by_version = {e.version_id: e for e in pool.plan.entrants}
    table = sorted(
        (known.get(v) or Standing(pool.key, pool.plan.game, pool.count, v) for v in by_version),
        key=lambda s: (-s.conservative, -s.mu, s.bot_version_id),
    )
    sure = certainty.assess(table, pool.key, planner.settings.confidence, planner.settings.indifference)
    if sure.settled or len(facts) >= planner.settings.max_matches:
        return [], sure
    pairs = [(by_version[pair.upper], by_version[pair.lower]) for pair in sure.open_pairs()]
    if pool.count == 1:
        return planner._solitaire_deal(pool, pairs, deals), sure
    return planner._table_deals(pool, [by_version[s.bot_version_id] for s in table], pairs, deals), sure


def adaptive(
    bank: Bank,
    pool_name: str,
    seed: int,
    settings: AdaptiveSettings,
    truth: Truth,
    after: bool,
) -> AdaptiveRun:
    game, count = split(pool_name)
    plan = GamePlan(game, (count,), ({},), 1, field_entrants())
    planner = AdaptivePlanner([plan], seed, settings)
    replay = Replay(bank, pool_name, seed)
    next_deals = NextDeals()
    matches = planner.warm_up()
    pool = planner.pools[0]
    while matches:
        deals = next_deals.add({m.key for m in matches})
        played = replay.play(matches)
        if after:
            planner.ledger.add(played)
            matches = planner._choose(pool, planner.ledger.pool(pool.key), len(replay.facts), deals, no_bench)
        else:
            matches, sure = before_choose(planner, replay.facts, deals)
    if after:
        evidence = planner.ledger.pool(pool.key)
        sure = certainty.assess_paired(
            evidence.order([e.version_id for e in field_entrants()]),
            pool.key,
            evidence,
            settings.confidence,
            settings.indifference,
        )
        delta = verdict.indifference_in_outcomes(settings.indifference)
        wrong = sure.settled and any(
            (p.state is certainty.PairState.ORDERED and truth.means[(p.upper, p.lower)] <= 0)
            or (p.state is certainty.PairState.EQUAL and abs(truth.means[(p.upper, p.lower)]) >= delta)
            or (p.state is certainty.PairState.WITHIN and truth.means[(p.upper, p.lower)] <= -delta)
            for p in sure.pairs
        )
        reversed_ = sure.settled and any(truth.means[(p.upper, p.lower)] < 0 for p in sure.pairs)
        stop = StopReason.SETTLED.value if sure.settled else StopReason.BUDGET.value
        right = list(sure.order) == truth.paired_order
    else:
        wrong = sure.settled and any(
            p.state is certainty.PairState.ORDERED and truth.order.index(p.upper) > truth.order.index(p.lower)
            for p in sure.pairs
        )
        reversed_ = sure.settled and any(truth.order.index(p.upper) > truth.order.index(p.lower) for p in sure.pairs)
        stop = StopReason.SETTLED.value if sure.settled else StopReason.BUDGET.value
        right = list(sure.order) == truth.order
    return AdaptiveRun(
        len(replay.facts), stop, right, wrong, sum(p.state is certainty.PairState.EQUAL for p in sure.pairs), reversed_
    )


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


_BANK: Bank | None = None


def _init(paths: list[Path]) -> None:
    global _BANK
    _BANK = load_bank(paths)


def _run(job: tuple[str, int, AdaptiveSettings, Truth, bool]) -> AdaptiveRun:
    assert _BANK is not None
    pool, seed, settings, truth, after = job
    return adaptive(_BANK, pool, seed, settings, truth, after)


def bench_row(
    paths: list[Path],
    bank: Bank,
    pool: str,
    tournaments: int,
    settings: AdaptiveSettings,
    after: bool,
    jobs: int,
) -> dict[str, Any]:
    tick = time.process_time()
    wall = time.perf_counter()
    truth = truth_of(bank, pool, verdict.indifference_in_outcomes(settings.indifference))
    work = [(pool, 1000 + seed, settings, truth, after) for seed in range(tournaments)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs, initializer=_init, initargs=(paths,)) as executor:
            runs = list(executor.map(_run, work, chunksize=4))
    else:
        _init(paths)
        runs = [_run(job) for job in work]
    counts = [run.matches for run in runs]
    row = {
        "pool": pool,
        "rule": ("after" if after else "before") + (f" ({settings.seatings.value} seatings)" if after else ""),
        "tournaments": tournaments,
        "bank_matches": sum(len(d) for deals in bank.tables[pool].values() for d in deals),
        "bank_order": [FIELD[v - 1] for v in (truth.paired_order if after else truth.order)],
        "bank_verdict": truth.whole_bank,
        "bank_pair_means": {
            f"{FIELD[a - 1]}>{FIELD[b - 1]}": round(m, 4) for (a, b), m in truth.means.items() if a < b
        },
        "mean_matches": statistics.mean(counts),
        "median_matches": statistics.median(counts),
        "p95_matches": percentile(counts, 0.95),
        "max_matches": max(counts),
        "true_order": sum(r.right for r in runs) / len(runs),
        "settled": sum(r.stop == "settled" for r in runs) / len(runs),
        "settled_with_equal_pairs": sum(r.stop == "settled" and r.equal_pairs > 0 for r in runs) / len(runs),
        "wrong_settled": sum(r.wrong_settled for r in runs) / len(runs),
        "settled_reversed": sum(r.settled_reversed for r in runs) / len(runs),
        "budget_spent": sum(r.stop == "budget spent" for r in runs) / len(runs),
        "cpu_seconds_main": time.process_time() - tick,
        "wall_seconds": time.perf_counter() - wall,
    }
    print(
        f"  {pool} {row['rule']}: mean {row['mean_matches']:.0f} matches (p95 {row['p95_matches']}), settled "
        f"{row['settled']:.0%}, true order {row['true_order']:.0%}, wrong settled {row['wrong_settled']:.1%}, reversed {row['settled_reversed']:.1%} "
        f"({tournaments} tournaments, {row['wall_seconds']:.0f} s)",
        file=sys.stderr,
        flush=True,
    )
    return row


# ---- the round-robin ladder (issue 12, two players and solitaires) ----------------------------------------


def round_robin(bank: Bank, pool: str, seed: int, deals: int, truth: Truth) -> tuple[int, bool, bool]:
    """(matches, true order by the order-free estimate, the posterior verdict says settled)."""
    game, count = split(pool)
    plan = GamePlan(game, (count,), ({},), deals, field_entrants())
    replay = Replay(bank, pool, seed)
    replay.play([m for group in round_robin_groups(plan, seed.to_bytes(8, "big"), 0) for m in group])
    rated = ratings.compute(replay.facts, GAME_FACTS, history=False)
    table = rated.table(pool)
    return len(replay.facts), [s.bot_version_id for s in table] == truth.order, certainty.assess(table, pool).settled


def round_robin_ladder(bank: Bank, pool: str, tournaments: int) -> list[dict[str, Any]]:
    truth = truth_of(bank, pool, verdict.indifference_in_outcomes(1.0))
    found = []
    for deals in RR_DEALS:
        results = [round_robin(bank, pool, seed, deals, truth) for seed in range(tournaments)]
        share = sum(r[1] for r in results) / tournaments
        settled = sum(r[2] for r in results) / tournaments
        found.append({"pool": pool, "deals": deals, "matches": results[0][0], "true_order": share, "settled": settled})
        print(
            f"  {pool} round-robin {deals:>3} deals/table, {results[0][0]:>5} matches: true order {share:.0%}, "
            f"verdict settled {settled:.0%}",
            file=sys.stderr,
            flush=True,
        )
        if share >= 0.95 and settled >= 0.95:
            break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", type=Path, action="append", default=[], help="an outcome bank (repeatable)")
    parser.add_argument("--build-bank", type=Path, help="play a bank into this file and stop")
    parser.add_argument("--players", type=int, default=2, help="the bank's table size (--build-bank)")
    parser.add_argument("--bank-deals", type=int, default=60, help="deals per table (--build-bank)")
    parser.add_argument(
        "--games", nargs="*", default=["elevenses", "elfer-raus"], help="the bank's games (--build-bank)"
    )
    parser.add_argument("--rows", nargs="*", default=list(ROWS), help="pools to benchmark (those in the banks)")
    parser.add_argument("--tournaments", type=int, default=200, help="replayed tournaments per after row (0: none)")
    parser.add_argument(
        "--before-tournaments", type=int, default=200, help="replayed tournaments per before row (0: none)"
    )
    parser.add_argument("--max-matches", type=int, default=5000)
    parser.add_argument("--jobs", type=int, default=1, help="processes replaying tournaments")
    parser.add_argument("--round-robin", action="store_true", help="the round-robin ladder instead (issue 12)")
    parser.add_argument(
        "--seatings",
        choices=[s.value for s in Seatings],
        default=Seatings.ROTATIONS.value,
        help="the after rule's seatings per chosen deal (the ladder's [adaptive] seatings; the before rule "
        "always plays every seating, as the ladder did)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.build_bank:
        build_bank(args.build_bank, args.bank_deals, args.games, args.players)
        return
    bank = load_bank(args.bank)
    rows = [row for row in args.rows if bank.tables.get(row)]
    before = AdaptiveSettings(max_matches=args.max_matches, seatings=Seatings.ALL)
    after = AdaptiveSettings(max_matches=args.max_matches, seatings=Seatings(args.seatings))
    if args.round_robin:
        print(json.dumps([step for row in rows for step in round_robin_ladder(bank, row, args.tournaments)], indent=2))
        return
    results = []
    for row in rows:
        if args.before_tournaments:
            results.append(bench_row(args.bank, bank, row, args.before_tournaments, before, False, args.jobs))
        if args.tournaments:
            results.append(bench_row(args.bank, bank, row, args.tournaments, after, True, args.jobs))
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "load": os.getloadavg(),
        "banks": [str(p) for p in args.bank],
        "field": list(FIELD),
        "rows": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print_table(results)


def print_table(results: list[dict[str, Any]]) -> None:
    print(
        f"{'pool':<22} {'rule':<7} {'runs':>5} {'mean':>7} {'p95':>6} {'settled':>8} {'true order':>10} {'wrong settled':>13}"
    )
    for r in results:
        print(
            f"{r['pool']:<22} {r['rule']:<7} {r['tournaments']:>5} {r['mean_matches']:>7.0f} {r['p95_matches']:>6} "
            f"{r['settled']:>8.0%} {r['true_order']:>10.0%} {r['wrong_settled']:>13.1%}"
        )


if __name__ == "__main__":
    main()
