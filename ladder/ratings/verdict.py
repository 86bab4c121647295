"""The paired sequential verdict: is one bot better than another on the same deals, and how sure is that?

Pure functions and small accumulators over plain data (:class:`ladder.ratings.trueskill_model.MatchFact`); no database here.
The method, and why it is this one, is in docs/verdict.md. In short:

- **One number per deal and pair.** Every deal is played with each bot of its table in each seat (every
  seating, or the adaptive format's drawn rotations; in a solitaire, by every bot), so two bots that met on a
  deal are compared on the same cards. Per seating where both sat,
  the pair's *outcome* is ``(rank part + margin part) / 2`` in [-1, 1]: the rank part is +1, 0 or -1 (ahead,
  level, behind; a failed seat is behind), the margin part the score margin relative to the two scores,
  ``(a - b) / (|a| + |b|)`` in the game's score order (a solitaire's rank part is its score comparison).
  A deal's value is the mean over the seatings where both sat. A deal id played by several tables that hold
  the pair in one batch gives one value (the mean over those tables); one already counted in an earlier batch is
  skipped, so the values of different deals are independent.
- **Sequential tests that may be read at any time.** For each pair, four one-sided tests by betting
  (Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", 2023): the mean
  deal value ``m`` is <= 0, >= 0, >= delta, <= -delta. Each is a wealth process: a stake on the next deal,
  sized from the deals before it only, that can only be expected to shrink while its hypothesis holds.
  By Ville's inequality its running maximum reaches ``1/alpha`` with probability at most ``alpha`` however
  often it is read and whenever play stops, so the tests may be looked at after every deal.
- **The whole order.** Each pair of the pool gets ``(1 - confidence) / pairs`` of error: each margin test
  80% of it, each strict test 20% (the true hypotheses of a pair never carry more), so every claim made from
  them together (an adjacent pair ordered, equal within delta, or not worse by delta: the claim a pool settles
  on; a rank interval) holds at ``confidence``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from engine import GameFacts
from ladder.ratings.trueskill_model import BETA, UNKNOWN_GAME_FACTS, MatchFact, SeatFact, pool_key

CAP = 0.9  # the largest stake, as a share of what the worst deal could lose (any cap below 1 keeps the test valid)
PRIOR_VARIANCE = 0.25  # the spread assumed before the first deal (one pseudo-deal, at the test's prior mean)
STRICT_SHARE = 0.2  # of each pair's error, the share of each strict test; each margin test has the rest
STRENGTH_SWEEPS = 60  # Gauss-Seidel sweeps of the least-squares strengths that order a pool
_normal = NormalDist()


def indifference_in_outcomes(mu_points: float) -> float:
    """An indifference margin in TrueSkill mu points, as a mean deal value: the expected outcome of a duel
    between two bots that far apart, ``2 Phi(margin / (sqrt(2) beta)) - 1`` (1 mu point: 0.134)."""
    return 2 * _normal.cdf(mu_points / (math.sqrt(2) * BETA)) - 1


def test_level(confidence: float, bots: int) -> float:
    """The level each *strict* test ("the mean is at most 0", "at least 0") must reach so that every claim about a
    pool of ``bots`` holds together at ``confidence``: ``1 - STRICT_SHARE * (1 - confidence) / pairs``."""
    pairs = max(1, bots * (bots - 1) // 2)
    return 1 - STRICT_SHARE * (1 - confidence) / pairs


def margin_level(confidence: float, bots: int) -> float:
    """The level each *margin* test ("at least delta", "at most -delta") must reach:
    ``1 - (1 - STRICT_SHARE) * (1 - confidence) / pairs``. Of a pair's four hypotheses at most two hold at once,
    and never both margin ones nor a margin one with the wrong strict one, so a pair's true hypotheses carry at most
    ``(1 - confidence) / pairs`` of error between them, the pool's at most ``1 - confidence`` (docs/verdict.md)."""
    pairs = max(1, bots * (bots - 1) // 2)
    return 1 - (1 - STRICT_SHARE) * (1 - confidence) / pairs


# ---- one number per deal and pair ---------------------------------------------------------------------------

DealOrder = tuple[int, int, int, int, str]
"""Where a deal comes in a pair's sequence: (tournament, cycle, deal number, option set, deal id)."""

_DEAL_ID = re.compile(r"^c(\d+)/[^/]+/o(\d+)/\d+p/d(\d+)$")


def deal_order(tournament: int, deal: str, first_match: int) -> DealOrder:
    """A deal's place in a pair's sequence: by tournament, then cycle and deal number, which grow as a tournament
    plays (so a later look only appends); a deal id of another shape by its first match id."""
    found = _DEAL_ID.match(deal)
    if found is None:
        return tournament, 0, first_match, 0, deal
    return tournament, int(found[1]), int(found[3]), int(found[2]), deal


def seat_outcome(mine: SeatFact, theirs: SeatFact, facts: GameFacts, table: bool) -> float:
    """One seating's outcome for the first bot against the second, in [-1, 1] (see the module docstring)."""
    if mine.failed or theirs.failed:
        return 0.0 if mine.failed and theirs.failed else -1.0 if mine.failed else 1.0
    a, b = mine.score or 0.0, theirs.score or 0.0
    margin = facts.score_sign * (a - b)
    relative = margin / (abs(a) + abs(b)) if abs(a) + abs(b) > 0 else 0.0
    if table and mine.rank is not None and theirs.rank is not None:
        ahead = (theirs.rank > mine.rank) - (theirs.rank < mine.rank)
    else:
        ahead = (margin > 0) - (margin < 0)
    return (ahead + relative) / 2


@dataclass(frozen=True)
class Deal:
    """One deal of one pool as the verdict reads it: who played it and their seats, per seating."""

    order: DealOrder
    pool: str
    seatings: tuple[tuple[SeatFact, ...], ...]  # a table: one per match; a solitaire: one holding every bot's seat
    table: bool  # False in a solitaire
    bots: tuple[int, ...]  # sorted: which table of the deal this is (a solitaire: every bot that played it)


def deals_of(matches: Iterable[MatchFact], games: Mapping[str, GameFacts]) -> list[Deal]:
    """The deals of ``matches``, one per (tournament, deal id, table), each with its seatings, in deal order.

    A match where a bot sits twice says nothing about a pair and is left out. A solitaire deal gathers every
    bot's match on it (one seat each, its first if it played the deal twice).
    """
    groups: dict[tuple[int, str, tuple[int, ...]], list[MatchFact]] = defaultdict(list)
    for fact in matches:
        facts = games.get(fact.game, UNKNOWN_GAME_FACTS)
        versions = tuple(seat.bot_version_id for seat in fact.seats)
        if facts.solitaire:
            groups[(fact.tournament_id, fact.deal, ())].append(fact)
        elif len(set(versions)) == len(versions) > 1:
            groups[(fact.tournament_id, fact.deal, tuple(sorted(versions)))].append(fact)
    found = []
    for (tournament, deal, bots), facts_ in groups.items():
        first = min(fact.match_id for fact in facts_)
        pool = pool_key(facts_[0].game, facts_[0].num_players)
        if bots:
            seatings = tuple(fact.seats for fact in sorted(facts_, key=lambda f: f.match_id))
            found.append(Deal(deal_order(tournament, deal, first), pool, seatings, True, bots))
            continue
        seats: dict[int, SeatFact] = {}
        for fact in sorted(facts_, key=lambda f: f.match_id):
            seats.setdefault(fact.seats[0].bot_version_id, fact.seats[0])
        found.append(
            Deal(deal_order(tournament, deal, first), pool, (tuple(seats.values()),), False, tuple(sorted(seats)))
        )
    found.sort(key=lambda d: (d.order, d.bots))
    return found


def deal_value(deal: Deal, first: int, second: int, facts: GameFacts) -> float | None:
    """The deal's value for ``first`` against ``second``: the mean outcome over the seatings where both sat
    (None if they never sat together on it)."""
    outcomes = []
    for seating in deal.seatings:
        mine = next((s for s in seating if s.bot_version_id == first), None)
        theirs = next((s for s in seating if s.bot_version_id == second), None)
        if mine is not None and theirs is not None:
            outcomes.append(seat_outcome(mine, theirs, facts, deal.table))
    return sum(outcomes) / len(outcomes) if outcomes else None


# ---- one sequential test ----------------------------------------------------------------------------------


@dataclass
class Bettor:
    """A one-sided test of "the mean of y is at most 0" for y >= ``low`` (< 0), by betting: wealth starts at 1
    and is multiplied by ``1 + stake * y`` each deal. The stake (a Kelly fraction, ``mean / (variance + mean^2)``
    of the earlier values, capped at ``CAP / -low``) is fixed before the deal is seen, so while the hypothesis
    holds the wealth is a nonnegative supermartingale and ``P(max wealth >= 1/alpha) <= alpha`` (Ville)."""

    low: float
    prior: float = 0.0  # the mean of the pseudo-deal: what the test bets on before any deal (fixed in advance)
    count: int = 0
    total: float = 0.0
    squares: float = 0.0
    log_wealth: float = 0.0
    best: float = 0.0  # the largest log wealth so far: once a hypothesis is rejected it stays rejected

    def stake(self) -> float:
        mean = (self.total + self.prior) / (self.count + 1)
        spread = (
            self.squares - 2 * mean * self.total + self.count * mean * mean + PRIOR_VARIANCE + (self.prior - mean) ** 2
        ) / (self.count + 1)
        if mean <= 0:
            return 0.0
        return min(mean / (spread + mean * mean), CAP / -self.low)

    def add(self, y: float) -> None:
        self.log_wealth += math.log1p(self.stake() * y)
        self.best = max(self.best, self.log_wealth)
        self.count += 1
        self.total += y
        self.squares += y * y

    def confidence(self) -> float:
        """``1 - 1 / max wealth``: the hypothesis is rejected at level alpha once this reaches ``1 - alpha``."""
        return 1 - math.exp(-self.best)


@dataclass
class PairTests:
    """The four tests of one pair (``first`` against ``second``), fed one deal value at a time."""

    first: int
    second: int
    delta: float
    deals: int = 0
    total: float = 0.0
    counted: set[DealOrder] = field(default_factory=set)
    better: Bettor = field(init=False)  # rejects "mean <= 0": first is better
    worse: Bettor = field(init=False)  # rejects "mean >= 0": second is better
    not_above: Bettor = field(init=False)  # rejects "mean >= delta"
    not_below: Bettor = field(init=False)  # rejects "mean <= -delta"

    def __post_init__(self) -> None:
        # each bets first on the alternative one margin away from its hypothesis
        self.better, self.worse = Bettor(-1.0, self.delta), Bettor(-1.0, self.delta)
        self.not_above, self.not_below = Bettor(self.delta - 1.0, self.delta), Bettor(self.delta - 1.0, self.delta)

    def add(self, value: float, order: DealOrder) -> None:
        self.deals += 1
        self.total += value
        self.counted.add(order)
        self.better.add(value)
        self.worse.add(-value)
        self.not_above.add(self.delta - value)
        self.not_below.add(value + self.delta)

    @property
    def mean(self) -> float:
        return self.total / self.deals if self.deals else 0.0

    def view(self, flipped: bool = False) -> PairEvidence:
        """What the tests say, for ``first`` over ``second`` (or the other way round when ``flipped``)."""
        above, below = (self.worse, self.better) if flipped else (self.better, self.worse)
        not_worse = self.not_above if flipped else self.not_below
        equal = min(self.not_above.confidence(), self.not_below.confidence())
        upper, lower = (self.second, self.first) if flipped else (self.first, self.second)
        return PairEvidence(
            upper,
            lower,
            self.deals,
            -self.mean if flipped else self.mean,
            above.confidence(),
            below.confidence(),
            equal,
            not_worse.confidence(),
        )


@dataclass(frozen=True)
class PairEvidence:
    """What the paired deals say about ``upper`` against ``lower``."""

    upper: int
    lower: int
    deals: int  # deals both played (at one table, each counted once)
    mean: float  # the mean deal value, upper against lower, in [-1, 1]
    above: float  # confidence that upper is better (1 - 1/max wealth of the test of "mean <= 0")
    below: float  # confidence that lower is better
    equal: float  # confidence that they are within the indifference margin
    within: float = 0.0  # confidence that upper is not worse than lower by the margin or more


# ---- a pool's evidence ------------------------------------------------------------------------------------


@dataclass
class PoolEvidence:
    """Every pair's tests in one pool, fed deal by deal as the deals arrive (see :class:`Ledger`)."""

    pool: str
    facts: GameFacts
    delta: float
    tests: dict[tuple[int, int], PairTests] = field(default_factory=dict)
    bots: set[int] = field(default_factory=set)

    def add(self, deal: Deal) -> None:
        """Take one more deal at one table (see :meth:`add_tables`)."""
        self.add_tables([deal])

    def add_tables(self, tables: Sequence[Deal]) -> None:
        """Take one deal id played at one or more tables (the same cards, one batch): each pair that sat together
        at any of them gets one value, the mean of its values over those tables, unless it already counted this
        deal id in an earlier batch (then the values would not be independent, so it is skipped)."""
        values: dict[tuple[int, int], list[float]] = defaultdict(list)
        for deal in tables:
            self.bots.update(deal.bots)
            for first, second in itertools.combinations(deal.bots, 2):
                value = deal_value(deal, first, second, self.facts)
                if value is not None:
                    values[(first, second)].append(value)
        order = tables[0].order
        for (first, second), found in values.items():
            tests = self.tests.get((first, second))
            if tests is None:
                tests = self.tests[(first, second)] = PairTests(first, second, self.delta)
            if order not in tests.counted:
                tests.add(sum(found) / len(found), order)

    def pair(self, upper: int, lower: int) -> PairEvidence:
        """The evidence for ``upper`` over ``lower`` (none yet: zero deals, no confidence either way)."""
        if (upper, lower) in self.tests:
            return self.tests[(upper, lower)].view()
        if (lower, upper) in self.tests:
            return self.tests[(lower, upper)].view(flipped=True)
        return PairEvidence(upper, lower, 0, 0.0, 0.0, 0.0, 0.0, 0.0)

    def order(self, bots: Sequence[int]) -> list[int]:
        """``bots`` best first by strengths fitted to every pair's mean deal value, each pair weighted by its deals
        (least squares: a pair met on 1,000 deals outweighs one met once in the first round; ties: version id)."""
        met: dict[int, list[tuple[int, int, float]]] = {bot: [] for bot in bots}  # bot -> (other, deals, mean)
        for bot in bots:
            for other in bots:
                seen = self.pair(bot, other) if other != bot else None
                if seen is not None and seen.deals:
                    met[bot].append((other, seen.deals, seen.mean))
        strength = dict.fromkeys(bots, 0.0)
        for _ in range(STRENGTH_SWEEPS):
            for bot, others in met.items():
                if others:
                    strength[bot] = sum(deals * (mean + strength[other]) for other, deals, mean in others) / sum(
                        deals for _, deals, _ in others
                    )
        return sorted(bots, key=lambda bot: (-round(strength[bot], 12), bot))

    def rank_intervals(self, bots: Sequence[int], level: float) -> dict[int, tuple[int, int]]:
        """Each bot's rank range (1 = top) that the tests leave open: from one more than the bots shown better
        to the number not shown worse, at ``level`` per test."""
        found = {}
        for bot in bots:
            over = sum(self.pair(other, bot).above >= level for other in bots if other != bot)
            under = sum(self.pair(bot, other).above >= level for other in bots if other != bot)
            found[bot] = (1 + over, len(bots) - under)
        return found


@dataclass
class Ledger:
    """Every pool's paired evidence, built from recorded matches and kept up to date as more arrive.

    Deals are read in the order they arrive: batch after batch (the adaptive format's rounds), and within a
    batch in deal order (tournament, cycle, deal number), which is where a tournament's play appends them; so
    however the matches were spread over workers, the same batches give the same tests. A deal's matches
    must arrive in one batch (:meth:`add` takes whole deals).
    """

    games: Mapping[str, GameFacts]
    delta: float
    pools: dict[str, PoolEvidence] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)

    def add(self, matches: Iterable[MatchFact]) -> None:
        """Add the matches not seen before (by match id); each of their deals must be complete."""
        fresh = [fact for fact in matches if fact.match_id not in self.seen]
        self.seen.update(fact.match_id for fact in fresh)
        same: dict[tuple[str, DealOrder], list[Deal]] = defaultdict(list)
        for deal in deals_of(fresh, self.games):
            same[(deal.pool, deal.order)].append(deal)
        for (pool, _), tables in same.items():
            evidence = self.pools.get(pool)
            if evidence is None:
                game = pool.partition("/")[0]
                evidence = self.pools[pool] = PoolEvidence(pool, self.games.get(game, UNKNOWN_GAME_FACTS), self.delta)
            evidence.add_tables(tables)

    def pool(self, pool: str) -> PoolEvidence:
        """A pool's evidence (empty if none of its deals was seen)."""
        game = pool.partition("/")[0]
        return self.pools.get(pool) or PoolEvidence(pool, self.games.get(game, UNKNOWN_GAME_FACTS), self.delta)


def ledger(matches: Sequence[MatchFact], games: Mapping[str, GameFacts], delta: float) -> Ledger:
    """The paired evidence of ``matches`` (every pool), with the indifference margin ``delta`` in deal values."""
    built = Ledger(games, delta)
    built.add(matches)
    return built


# ---- an interval for one pair (``ladder play``) -------------------------------------------------------------


def _rejected(values: Sequence[float], at: float, above: bool, alpha: float) -> bool:
    """Whether the test of "the mean is at most ``at``" (or, ``above``, at least ``at``) is rejected at ``alpha``."""
    bettor = Bettor(at - 1.0 if above else -1.0 - at)
    for value in values:
        bettor.add(at - value if above else value - at)
    return bettor.confidence() >= 1 - alpha


def mean_interval(values: Sequence[float], confidence: float) -> tuple[float, float]:
    """An interval for the mean deal value that holds at ``confidence`` however often it is computed while deals
    are added: the means that neither one-sided test rejects (each at half the error), found by bisection."""
    if not values:
        return -1.0, 1.0
    alpha = (1 - confidence) / 2
    centre = min(max(sum(values) / len(values), -1.0), 1.0)
    low, high = _edge(values, centre, -1.0, False, alpha), _edge(values, centre, 1.0, True, alpha)
    return low, high


def _edge(values: Sequence[float], inside: float, outside: float, above: bool, alpha: float, steps: int = 30) -> float:
    """The boundary between the means a test keeps (at ``inside``) and those it rejects (towards ``outside``)."""
    if not _rejected(values, outside * 0.999999, above, alpha):
        return outside
    for _ in range(steps):
        middle = (inside + outside) / 2
        if _rejected(values, middle, above, alpha):
            outside = middle
        else:
            inside = middle
    return inside
