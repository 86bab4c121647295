"""How sure a leaderboard is: adjacent-pair probabilities, rank intervals, and a settled verdict.

Everything here reads the order-free ratings (:mod:`ladder.ratings`): each
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
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TypeVar

from ladder.ratings.trueskill_model import RatingSet, Standing

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
    OPEN = "open"  # neither yet


@dataclass(frozen=True)
class AdjacentPair:
    upper: int  # bot version ids, the upper one first on the leaderboard
    lower: int
    p_order: float  # probability that the upper one's skill is the higher
    p_equal: float  # probability that their skills differ by less than the indifference margin
    state: PairState

    def certainty(self) -> float:
        """How close the pair is to being decided (the larger of its two probabilities)."""
        return max(self.p_order, self.p_equal)


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


def assess(
    table: Sequence[Standing],
    pool: str,
    confidence: float = CONFIDENCE,
    indifference: float = INDIFFERENCE,
    names: dict[int, str] | None = None,
) -> PoolCertainty:
    """The certainty of a pool's leaderboard ``table`` (in leaderboard order)."""
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
    """The central ``interval`` of each bot's overall score (mean share of a pool's others it is above, over
    the pools it played, as :func:`ladder.ratings.across_pools.overall` counts it) when every pool's skills are drawn from
    its ratings."""
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
    """One sample: every pool's skills drawn from its ratings (in version order, so a seed gives the same
    draws), and each bot's sum over the pools of the share of that pool's others it is above, ties counting
    half (alone in a pool: 1)."""
    total = dict.fromkeys(versions, 0.0)
    for pool in pools:
        table = sorted(rated.standings[pool].values(), key=lambda s: s.bot_version_id)
        if len(table) == 1:
            total[table[0].bot_version_id] += 1.0
            continue
        drawn = [(rng.gauss(s.mu, s.sigma), s.bot_version_id) for s in table]
        for skill, version in drawn:
            above = sum(1.0 if skill > other else 0.5 if skill == other else 0.0 for other, v in drawn if v != version)
            total[version] += above / (len(drawn) - 1)
    return total
