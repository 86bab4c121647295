"""Summaries of a batch of matches, per bot: what `ladder play` prints."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine import get_game
from engine.core import WON_DETAIL
from ladder.matches.match import MatchOutcome


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
    measure: str  # "score", "win rate" or "rank" (at a table; 1 is first)
    deals: int
    mean: float
    low: float  # the 95% confidence interval of the mean (normal approximation over the deals)
    high: float

    @property
    def significant(self) -> bool:
        return self.deals >= 2 and not self.low <= 0.0 <= self.high

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


class DealMeans(NamedTuple):
    """One bot's means over one deal's seatings: the paired differences are taken between these."""

    score: float
    win_rate: float | None  # None where the game has no win to count
    rank: float | None  # None in a solitaire (no table to be ranked at)


MEASURES = (("score", 0), ("win rate", 1), ("rank", 2))  # (name, index in DealMeans)


def paired_differences(
    deals: Iterable[Sequence[tuple[MatchOutcome, list[str]]]], labels: list[str]
) -> list[Difference]:
    """Each bot after the first against the first (``labels[0]``), in mean score and in win rate.

    ``deals`` holds, per deal, its matches: ``[(outcome, seat labels), ...]``. A bot's value on a deal is
    its mean over that deal's seatings; the difference of the two bots' values is one sample per deal.
    """
    per_deal = [_deal_means(matches) for matches in deals]
    z = statistics.NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)
    found = []
    for bot in labels[1:]:
        for measure, index in MEASURES:
            samples = _paired_samples(per_deal, bot, labels[0], index)
            if not samples:
                continue
            mean = statistics.fmean(samples)
            half = z * statistics.stdev(samples) / len(samples) ** 0.5 if len(samples) >= 2 else float("inf")
            found.append(Difference(bot, labels[0], measure, len(samples), mean, mean - half, mean + half))
    return found


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
