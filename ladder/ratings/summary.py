"""Summaries of a batch of matches, per bot: what `ladder play` prints."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine import get_game
from engine.core import WON_DETAIL
from ladder.matches.match import MatchOutcome
from ladder.ratings import verdict
from ladder.ratings.trueskill_model import SeatFact


@dataclass
class BotTally:
    """Everything counted for one bot label over a batch of matches."""

    label: str
    games: int = 0
    wins: int = 0
    scores: list[float] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    details: dict[str, list[Any]] = field(default_factory=dict)
    can_win: bool = True

    def add(self, outcome: MatchOutcome, seat: int) -> None:
        self.games += 1
        result = outcome.result
        self.scores.append(result.scores[seat])
        self.ranks.append(result.ranks[seat])
        won = get_game(outcome.spec.game).facts.seat_won(result, seat, failed=seat in outcome.failures)
        if won is None:
            self.can_win = False  # a game with no notion of winning (bowling): no win to count
        else:
            self.wins += won
        if seat in outcome.failures:
            self.failures[outcome.failures[seat].reason] += 1
        for name, values in result.details.items():
            self.details.setdefault(name, []).append(values[seat])

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "bot": self.label,
            "games": self.games,
            "wins": self.wins if self.can_win else None,
            "win_rate": (self.wins / self.games if self.games else 0.0) if self.can_win else None,
            "mean_score": statistics.fmean(self.scores) if self.scores else 0.0,
            "mean_rank": statistics.fmean(self.ranks) if self.ranks else 0.0,
            "failures": dict(self.failures),
        }
        data.update(self._score_spread())
        data.update(self._detail_figures())
        return data

    def _score_spread(self) -> dict[str, float]:
        """How the scores spread (none when there are no scores)."""
        if not self.scores:
            return {}
        return {
            "score_stdev": statistics.pstdev(self.scores),
            "score_min": min(self.scores),
            "score_median": statistics.median(self.scores),
            "score_max": max(self.scores),
        }

    def _detail_figures(self) -> dict[str, Any]:
        """One figure per detail the game reports, by the kind of its values: the rate of a yes/no detail, the
        mean of a number, the counts of a text (most common first); a detail of mixed kinds is left out."""
        data: dict[str, Any] = {}
        for name, values in self.details.items():
            if name == WON_DETAIL:
                continue
            if all(isinstance(v, bool) for v in values):
                data[f"{name}_rate"] = sum(values) / len(values)
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                data[f"mean_{name}"] = statistics.fmean(values)
            elif all(isinstance(v, str) for v in values):
                data[f"{name}_counts"] = dict(Counter(values).most_common())
        return data


def tally(outcomes: Iterable[tuple[MatchOutcome, list[str]]]) -> list[BotTally]:
    """Tallies per label, in order of first appearance; each outcome comes with its seat labels."""
    tallies: dict[str, BotTally] = {}
    for outcome, labels in outcomes:
        for seat, label in enumerate(labels):
            tallies.setdefault(label, BotTally(label)).add(outcome, seat)
    return list(tallies.values())


def score_histogram(scores: list[float], buckets: int = 8) -> list[tuple[str, int]]:
    """Scores grouped into at most ``buckets`` equal-width integer ranges: [("10-14", 31), ...]."""
    if not scores:
        return []
    low, high = int(min(scores)), int(max(scores))
    width = max(1, -(-(high - low + 1) // buckets))
    counts = Counter((int(s) - low) // width for s in scores)
    rows = []
    for index in range(0, (high - low) // width + 1):
        start = low + index * width
        end = start + width - 1
        rows.append((str(start) if width == 1 else f"{start}-{end}", counts.get(index, 0)))
    return rows


@dataclass(frozen=True)
class Difference:
    """``bot`` minus ``baseline`` in one measure, paired by deal: every bot played each deal in every seating,
    so the luck of the cards and of the seat cancels out of each deal's difference."""

    bot: str
    baseline: str
    measure: str  # "paired" (the ladder's verdict statistic), "score", "win rate" or "rank" (at a table; 1 is first)
    deals: int
    mean: float
    low: float  # the 95% confidence interval of the mean: "paired" anytime-valid (docs/verdict.md), else
    high: float  # Student's t over the deals

    @property
    def significant(self) -> bool:
        """The interval leaves out 0, on enough deals for its measure (:data:`APPROXIMATE_MIN_DEALS`)."""
        enough = self.deals >= (2 if self.measure == "paired" else APPROXIMATE_MIN_DEALS)
        return enough and not self.low <= 0.0 <= self.high

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "baseline": self.baseline,
            "measure": self.measure,
            "deals": self.deals,
            "mean": self.mean,
            "low": self.low,
            "high": self.high,
            "significant": self.significant,
        }


CONFIDENCE = 0.95
APPROXIMATE_MIN_DEALS = 10
"""Below this many deals the score, win-rate and rank rows give an interval but no verdict. Their interval is
Student's t over the deals, which assumes the deal differences are near normal; on a few deals that all came out
alike (two wins in two deals) it is as narrow as it gets and would call a coin's luck significant. The paired row
holds at any count."""


def t_quantile(probability: float, df: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, else the Cornish-Fisher expansion in 1/df
    (within 0.2% of the table from 3 degrees of freedom on at 95%, exact in the limit)."""
    if df < 1:
        raise ValueError("Student's t needs at least one degree of freedom")
    if df == 1:
        return math.tan(math.pi * (probability - 0.5))
    if df == 2:
        return (2 * probability - 1) / math.sqrt(2 * probability * (1 - probability))
    z = statistics.NormalDist().inv_cdf(probability)
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(term / df ** (power + 1) for power, term in enumerate(terms))


class DealMeans(NamedTuple):
    """One bot's means over one deal's seatings: the paired differences are taken between these."""

    score: float
    win_rate: float | None  # None where the game has no win to count
    rank: float | None  # None in a solitaire (no table to be ranked at)


MEASURES = (("score", 0), ("win rate", 1), ("rank", 2))  # (name, index in DealMeans)


def paired_differences(
    deals: Iterable[Sequence[tuple[MatchOutcome, list[str]]]], labels: list[str]
) -> list[Difference]:
    """Each bot after the first against the first (``labels[0]``): first by the ladder's own verdict statistic
    (``paired``: the mean deal value of :mod:`ladder.ratings.verdict`, with its interval that holds however many deals
    are played), then in mean score, win rate and rank.

    ``deals`` holds, per deal, its matches: ``[(outcome, seat labels), ...]``. A bot's value on a deal is
    its mean over that deal's seatings; the difference of the two bots' values is one sample per deal.
    """
    deals = [list(matches) for matches in deals]
    per_deal = [_deal_means(matches) for matches in deals]
    found = []
    for bot in labels[1:]:
        values = [v for v in (_deal_value(matches, bot, labels[0]) for matches in deals) if v is not None]
        if values:
            low, high = verdict.mean_interval(values, CONFIDENCE)
            found.append(Difference(bot, labels[0], "paired", len(values), statistics.fmean(values), low, high))
        for measure, index in MEASURES:
            samples = _paired_samples(per_deal, bot, labels[0], index)
            if not samples:
                continue
            mean = statistics.fmean(samples)
            n = len(samples)
            half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * statistics.stdev(samples) / n**0.5 if n >= 2 else math.inf
            found.append(Difference(bot, labels[0], measure, len(samples), mean, mean - half, mean + half))
    return found


def _deal_value(matches: Sequence[tuple[MatchOutcome, list[str]]], bot: str, baseline: str) -> float | None:
    """The verdict's value of one deal for ``bot`` against ``baseline``: the mean seat outcome over the deal's
    matches where both sat (:func:`ladder.ratings.verdict.seat_outcome`), or None."""
    outcomes = []
    for outcome, seat_labels in matches:
        if bot in seat_labels and baseline in seat_labels:
            mine, theirs = seat_labels.index(bot), seat_labels.index(baseline)
            outcomes.append(
                verdict.seat_outcome(
                    _seat(outcome, mine), _seat(outcome, theirs), get_game(outcome.spec.game).facts, table=True
                )
            )
    if not outcomes and matches and all(len(labels) == 1 for _, labels in matches):
        seats = {labels[0]: _seat(outcome, 0) for outcome, labels in matches}  # a solitaire: one match per bot
        if bot in seats and baseline in seats:
            outcomes.append(
                verdict.seat_outcome(seats[bot], seats[baseline], get_game(matches[0][0].spec.game).facts, table=False)
            )
    return sum(outcomes) / len(outcomes) if outcomes else None


def _seat(outcome: MatchOutcome, seat: int) -> SeatFact:
    result = outcome.result
    return SeatFact(0, result.scores[seat], result.ranks[seat], seat in outcome.failures, None)


def _deal_means(matches: Sequence[tuple[MatchOutcome, list[str]]]) -> dict[str, DealMeans]:
    """Every bot's means over one deal's matches (its seatings), by label."""
    tallies = {t.label: t for t in tally(matches)}
    at_table = any(len(seat_labels) > 1 for _, seat_labels in matches)
    return {
        label: DealMeans(
            statistics.fmean(t.scores),
            (t.wins / t.games) if t.can_win else None,
            statistics.fmean(t.ranks) if at_table else None,
        )
        for label, t in tallies.items()
    }


def _paired_samples(per_deal: list[dict[str, DealMeans]], bot: str, baseline: str, index: int) -> list[float]:
    """``bot`` minus ``baseline`` in measure ``index``, one sample per deal that both played and where both
    have the measure."""
    samples = []
    for values in per_deal:
        if bot not in values or baseline not in values:
            continue
        mine, theirs = values[bot][index], values[baseline][index]
        if mine is not None and theirs is not None:
            samples.append(mine - theirs)
    return samples


def ordinal(rank: int | None) -> str:
    """1st, 2nd, 3rd, 11th... (``-`` for no rank)."""
    if rank is None:
        return "-"
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"
