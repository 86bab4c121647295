"""How sure a leaderboard is: adjacent-pair probabilities, rank intervals, and a settled verdict.

Where the matches are at hand (``ladder rankings``, the adaptive format), the verdict, ``P>next`` and the
rank intervals come from the paired sequential tests of :mod:`ladder.ratings.verdict` (:func:`assess` with
``evidence``; docs/verdict.md): ``P>next`` is then the tests' confidence that the upper bot is better on the
deals both played, and the error guarantee holds however often the verdict is read.

Without the matches (``evidence`` None) everything here reads the order-free ratings (:mod:`ladder.ratings`): each
bot version's skill in a pool is a Gaussian, mean ``mu`` and deviation
``sigma``. From those:

- **P(order right)** of two neighbours on the leaderboard: the probability
  that the upper one's skill is higher, ``Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2))``.
- **P(equal)**: the probability that their skills differ by less than the
  indifference margin (the smallest difference worth telling apart).
- **Rank interval**: the central 95% of a bot's rank when skills are drawn
  from the ratings (a fixed-seed sample, so the same ratings always give the
  same intervals).
- **Verdict**: a pool is *settled* when every adjacent pair is either ordered
  or shown equal at the pair level ``1 - (1 - confidence) / (pairs)``: with
  that Bonferroni share, the whole order (equal pairs counted as equal) is
  right with probability at least ``confidence`` (95% by default), which is
  stronger than asking each pair alone for 95%. Otherwise it is *not yet*,
  and the reason names the least certain pair.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TypeVar

from ladder.ratings import verdict
from ladder.ratings.trueskill_model import MatchFact, RatingSet, Standing, game_facts
from ladder.ratings.verdict import PairEvidence, PoolEvidence, margin_level, test_level

CONFIDENCE = 0.95
INDIFFERENCE = 1.0  # in mu points: beta is 25/6, so a gap of 1 is about a 57% chance of winning a duel
INTERVAL = 0.95
SAMPLES = 2000
SAMPLE_SEED = 20240611

_normal = NormalDist()


class Verdict(enum.StrEnum):
    SETTLED = "settled"
    NOT_YET = "not yet"


class PairState(enum.StrEnum):
    ORDERED = "ordered"  # the upper one is better, at the pair level
    EQUAL = "equal"  # closer than the indifference margin, at the pair level
    WITHIN = "within"  # the upper one is not worse by the indifference margin or more, at the pair level
    OPEN = "open"  # none yet


@dataclass(frozen=True)
class AdjacentPair:
    upper: int  # bot version ids, the upper one first on the leaderboard
    lower: int
    p_order: float  # probability that the upper one's skill is the higher
    p_equal: float  # probability that their skills differ by less than the indifference margin
    state: PairState
    p_within: float = 0.0  # paired verdict: confidence that the upper one is not worse by the margin or more

    def certainty(self) -> float:
        """How close the pair is to being decided (the largest of its probabilities)."""
        return max(self.p_order, self.p_equal, self.p_within)


@dataclass(frozen=True)
class PoolCertainty:
    """What is known, and how surely, about one pool's order."""

    pool: str
    order: tuple[int, ...]  # bot version ids, leaderboard order
    pairs: tuple[AdjacentPair, ...]
    rank_intervals: dict[int, tuple[int, int]]
    verdict: Verdict
    reason: str
    confidence: float
    indifference: float
    pair_level: float  # what each pair needs

    @property
    def settled(self) -> bool:
        return self.verdict is Verdict.SETTLED

    def open_pairs(self) -> list[AdjacentPair]:
        return [pair for pair in self.pairs if pair.state is PairState.OPEN]


def p_order(upper: Standing | tuple[float, float], lower: Standing | tuple[float, float]) -> float:
    """The probability that ``upper``'s skill is higher than ``lower``'s."""
    (mu_a, sigma_a), (mu_b, sigma_b) = _mu_sigma(upper), _mu_sigma(lower)
    spread = math.hypot(sigma_a, sigma_b)
    if spread == 0:
        return 1.0 if mu_a > mu_b else 0.5 if mu_a == mu_b else 0.0
    return _normal.cdf((mu_a - mu_b) / spread)


def p_equal(first: Standing | tuple[float, float], second: Standing | tuple[float, float], margin: float) -> float:
    """The probability that the two skills differ by less than ``margin``."""
    (mu_a, sigma_a), (mu_b, sigma_b) = _mu_sigma(first), _mu_sigma(second)
    spread = math.hypot(sigma_a, sigma_b)
    gap = mu_a - mu_b
    if spread == 0:
        return 1.0 if abs(gap) < margin else 0.0
    return max(0.0, _normal.cdf((margin - gap) / spread) - _normal.cdf((-margin - gap) / spread))


def _mu_sigma(value: Standing | tuple[float, float]) -> tuple[float, float]:
    return (value.mu, value.sigma) if isinstance(value, Standing) else value


def pair_level(confidence: float, bots: int) -> float:
    """What each adjacent pair needs so that the whole order holds at ``confidence`` (Bonferroni)."""
    return 1 - (1 - confidence) / max(1, bots - 1)


Quantity = TypeVar("Quantity", int, float)


def rank_intervals(
    table: Sequence[Standing], samples: int = SAMPLES, seed: int = SAMPLE_SEED, interval: float = INTERVAL
) -> dict[int, tuple[int, int]]:
    """Each bot's central ``interval`` of ranks (1 = top) when skills are drawn from the ratings."""
    rng = random.Random(seed)
    seen: dict[int, list[int]] = {s.bot_version_id: [] for s in table}
    for _ in range(samples):
        drawn = sorted(((rng.gauss(s.mu, s.sigma), -s.bot_version_id) for s in table), reverse=True)
        for rank, (_, negative) in enumerate(drawn, start=1):
            seen[-negative].append(rank)
    return {version: _central(ranks, interval) for version, ranks in seen.items()}


def _central(values: list[Quantity], interval: float) -> tuple[Quantity, Quantity]:
    """The central ``interval`` of ``values`` (sorted in place) by its sample quantiles: the lowest and the
    highest value kept once ``(1 - interval) / 2`` of the values are cut from each end."""
    tail = (1 - interval) / 2
    values.sort()
    low = values[min(len(values) - 1, int(math.floor(tail * len(values))))]
    high = values[min(len(values) - 1, int(math.ceil((1 - tail) * len(values))) - 1)]
    return low, high


def paired_evidence(facts: Sequence[MatchFact], indifference: float = INDIFFERENCE) -> verdict.Ledger:
    """The paired evidence of every pool in ``facts`` (the matches the ratings were computed from)."""
    return verdict.ledger(facts, game_facts(), verdict.indifference_in_outcomes(indifference))


def assess_pools(
    rated: RatingSet,
    pools: Iterable[str],
    facts: Sequence[MatchFact],
    names: dict[int, str] | None = None,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
) -> dict[str, PoolCertainty]:
    """Each pool's verdict, ``P>next`` and rank intervals for its TrueSkill leaderboard, by the paired sequential
    tests on ``facts``: the one computation ``ladder rankings``, the report and ``ladder serve`` show."""
    evidence = paired_evidence(facts, indifference)
    return {
        pool: assess(rated.table(pool), pool, confidence, indifference, names, evidence.pool(pool)) for pool in pools
    }


def assess(
    table: Sequence[Standing],
    pool: str,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
    names: dict[int, str] | None = None,
    evidence: PoolEvidence | None = None,
) -> PoolCertainty:
    """The certainty of a pool's leaderboard ``table`` (in leaderboard order): from the paired sequential tests
    of ``evidence`` where given, else from the ratings' posteriors."""
    if evidence is not None:
        return assess_paired([s.bot_version_id for s in table], pool, evidence, confidence, indifference, names)
    return assess_posterior(table, pool, confidence, indifference, names)


def assess_posterior(
    table: Sequence[Standing],
    pool: str,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
    names: dict[int, str] | None = None,
) -> PoolCertainty:
    """The certainty of ``table`` by the ratings' posteriors alone (the rule until the paired verdict; it ignores
    which deals the matches shared, and reading it again and again is not covered by its probabilities)."""
    level = pair_level(confidence, len(table))
    pairs = []
    for upper, lower in zip(table, table[1:]):
        ordered, equal = p_order(upper, lower), p_equal(upper, lower, indifference)
        state = PairState.ORDERED if ordered >= level else PairState.EQUAL if equal >= level else PairState.OPEN
        pairs.append(AdjacentPair(upper.bot_version_id, lower.bot_version_id, ordered, equal, state))
    name = (names or {}).get
    open_pairs = [pair for pair in pairs if pair.state is PairState.OPEN]
    if len(table) < 2:
        verdict, reason = Verdict.SETTLED, "one bot: nothing to order"
    elif not open_pairs:
        equal = sum(pair.state is PairState.EQUAL for pair in pairs)
        verdict = Verdict.SETTLED
        reason = (
            f"every adjacent pair is ordered{' or equal within ' + format(indifference, 'g') if equal else ''} "
            f"at >= {level:.1%} each (the whole order at >= {confidence:.0%})"
        )
    else:
        worst = min(open_pairs, key=AdjacentPair.certainty)
        who = f"{name(worst.upper) or f'#{worst.upper}'} over {name(worst.lower) or f'#{worst.lower}'}"
        verdict = Verdict.NOT_YET
        reason = (
            f"{len(open_pairs)} of {len(pairs)} adjacent pairs open; least certain: {who} at "
            f"{worst.p_order:.1%} (needs {level:.1%}, or {level:.1%} that they are within {indifference:g})"
        )
    return PoolCertainty(
        pool,
        tuple(s.bot_version_id for s in table),
        tuple(pairs),
        rank_intervals(table),
        verdict,
        reason,
        confidence,
        indifference,
        level,
    )


def assess_all(
    rated: RatingSet,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
    names: dict[int, str] | None = None,
) -> dict[str, PoolCertainty]:
    return {pool: assess(rated.table(pool), pool, confidence, indifference, names) for pool in rated.pools()}


@dataclass(frozen=True)
class OverallInterval:
    bot_version_id: int
    low: float
    high: float


def overall_intervals(
    rated: RatingSet, samples: int = SAMPLES // 4, seed: int = SAMPLE_SEED, interval: float = INTERVAL
) -> dict[int, OverallInterval]:
    """The central ``interval`` of each bot's overall score (mean share of a pool's others it is above by
    mu - 3 sigma, over the pools it played, as :func:`ladder.ratings.across_pools.overall` counts it) when every
    rating's mean is drawn from its posterior: each bot is judged, as the score judges it, by its drawn mean less
    the same 3 sigma. (Drawn skills compared bare measured another quantity: a bot with a high mu and a wide sigma
    came out above its interval or below it; 4 of 8 scores of a real database lay outside their intervals.)"""
    rng = random.Random(seed)
    pools = rated.pools()
    versions = sorted({v for table in rated.standings.values() for v in table})
    played = {v: sum(1 for pool in pools if v in rated.standings[pool]) for v in versions}
    scores: dict[int, list[float]] = {v: [] for v in versions}
    for _ in range(samples):
        total = _drawn_share_totals(rng, rated, pools, versions)
        for version in versions:
            scores[version].append(total[version] / played[version] if played[version] else 0.0)
    return {version: OverallInterval(version, *_central(values, interval)) for version, values in scores.items()}


def _drawn_share_totals(
    rng: random.Random, rated: RatingSet, pools: list[str], versions: list[int]
) -> dict[int, float]:
    """One sample: every pool's rating means drawn from their posteriors (in version order, so a seed gives the
    same draws), each less its own 3 sigma as the score's mu - 3 sigma is, and each bot's sum over the pools of
    the share of that pool's others it is above, ties counting half (alone in a pool: 1)."""
    total = dict.fromkeys(versions, 0.0)
    for pool in pools:
        table = sorted(rated.standings[pool].values(), key=lambda s: s.bot_version_id)
        if len(table) == 1:
            total[table[0].bot_version_id] += 1.0
            continue
        drawn = [(s.conservative + rng.gauss(0.0, s.sigma), s.bot_version_id) for s in table]
        for skill, version in drawn:
            above = sum(1.0 if skill > other else 0.5 if skill == other else 0.0 for other, v in drawn if v != version)
            total[version] += above / (len(drawn) - 1)
    return total


def _paired_state(seen: PairEvidence, strict: float, margin: float) -> PairState:
    """Ordered (at the ``strict`` level), equal or within the margin (at the ``margin`` level), else open."""
    if seen.above >= strict:
        return PairState.ORDERED
    if seen.equal >= margin:
        return PairState.EQUAL
    return PairState.WITHIN if seen.within >= margin else PairState.OPEN


def assess_paired(
    order: Sequence[int],
    pool: str,
    evidence: PoolEvidence,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
    names: dict[int, str] | None = None,
) -> PoolCertainty:
    """The certainty of ``order`` (bot version ids, best first) by the paired sequential tests (docs/verdict.md):
    an adjacent pair is ordered once the test of "the upper is not better" is rejected at the strict level, equal
    once both "they differ by the margin or more" tests are at the margin level, within the margin once "the
    upper is worse by the margin or more" is; the pool is settled when none is open. ``P>next`` is the first
    test's confidence; ``pair_level`` is the margin level (what a pair needs to settle)."""
    strict, level = test_level(confidence, len(order)), margin_level(confidence, len(order))
    pairs = []
    for upper, lower in zip(order, order[1:]):
        seen = evidence.pair(upper, lower)
        pairs.append(
            AdjacentPair(upper, lower, seen.above, seen.equal, _paired_state(seen, strict, level), seen.within)
        )
    name = (names or {}).get
    open_pairs = [pair for pair in pairs if pair.state is PairState.OPEN]
    margin = format(indifference, "g")
    if len(order) < 2:
        verdict, reason = Verdict.SETTLED, "one bot: nothing to order"
    elif not open_pairs:
        loose = {pair.state for pair in pairs} - {PairState.ORDERED}
        verdict = Verdict.SETTLED
        claim = (
            "ordered"
            + (", equal within " + margin + " mu" if PairState.EQUAL in loose else "")
            + (", or not worse by " + margin + " mu or more" if PairState.WITHIN in loose else "")
        )
        reason = (
            f"every adjacent pair is {claim} by the paired sequential tests at >= {level:.2%} each "
            f"(the whole order at >= {confidence:.0%}, however often read)"
        )
    else:
        worst = min(open_pairs, key=AdjacentPair.certainty)
        seen = evidence.pair(worst.upper, worst.lower)
        above, below = name(worst.upper) or f"#{worst.upper}", name(worst.lower) or f"#{worst.lower}"
        verdict = Verdict.NOT_YET
        if seen.below >= strict:
            detail = f"the paired deals put {below} above {above} ({seen.below:.2%} after {seen.deals} deals)"
        else:
            detail = (
                f"least certain: {above} not worse than {below} by {margin} mu at {seen.within:.1%} after "
                f"{seen.deals} shared deals (needs {level:.2%})"
            )
        reason = f"{len(open_pairs)} of {len(pairs)} adjacent pairs open; {detail}"
    return PoolCertainty(
        pool,
        tuple(order),
        tuple(pairs),
        evidence.rank_intervals(order, strict),
        verdict,
        reason,
        confidence,
        indifference,
        level,
    )
