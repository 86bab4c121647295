"""What an analysis takes and gives: frozen values, each with its JSON form (the cache stores that form).

Every number here is a pure function of (the match's record, the seat, the reference, the samples, the seed
and :data:`ANALYSIS_VERSION`): the cache is keyed by exactly these.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

ANALYSIS_VERSION = 2
"""The method's version: a change to how values are computed is a new version (cached results of another
version are not read). 2: the held-out loss, and the indistinguishable rule on it (Bonferroni)."""

DEFAULT_SAMPLES = 16
DEFAULT_SEARCH_SAMPLES = 12
DEFAULT_SEED = 0
Z_95 = 1.96
"""The normal quantile of the two-sided 95% intervals (of paired differences over at least a handful of worlds)."""


class AnalysisError(ValueError):
    """The match cannot be analysed (its log no longer replays, the seat does not exist)."""


class Reference(Enum):
    """How each action is valued: rollouts by ``thumb`` at every seat, or the ``search`` bot's own values."""

    THUMB = "thumb"
    SEARCH = "search"

    def default_samples(self) -> int:
        return DEFAULT_SAMPLES if self is Reference.THUMB else DEFAULT_SEARCH_SAMPLES


class Measure(Enum):
    """The unit of a value (and so of a loss)."""

    MARGIN = "score margin"
    """Multiplayer: the seat's final score less its rivals' mean, signed so that more is better (Elfer raus:
    the rivals' mean penalty total less the seat's; Elevenses: the seat's cubes less the rivals' mean)."""
    SCORE = "score"
    """Solitaires: the final score, signed so that more is better."""
    SEARCH_UTILITY = "search utility"
    """``--reference search``: the search bot's own utility (its rollouts' margin, or its expected score)."""


@dataclass(frozen=True)
class MatchLog:
    """What is needed to replay a finished match: the deal (game, options, players, seed) and the action log.

    ``bots`` names the bot of each seat (shown, and used to tell a ``thumb-50``'s decisions apart); ``match_id``
    is the database id, ``0`` for a match that was never stored.
    """

    game: str
    options: Mapping[str, Any]
    num_players: int
    seed: int
    actions: tuple[dict[str, Any], ...]
    bots: tuple[str, ...] = ()
    match_id: int = 0

    def fingerprint(self) -> str:
        """The deal and the log, as one text: two records with the same fingerprint give the same analyses."""
        return json.dumps(
            [self.game, dict(self.options), self.num_players, self.seed, list(self.actions)],
            sort_keys=True,
            separators=(",", ":"),
        )


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float], z: float = Z_95) -> Interval:
        """The mean of ``values`` with its interval (``z``: the normal quantile; 95% two-sided by default)."""
        count = len(values)
        if count == 0:
            return cls(0.0, 0.0, 0.0)
        mean = sum(values) / count
        if count == 1:
            return cls(mean, mean, mean)
        variance = sum((v - mean) ** 2 for v in values) / (count - 1)
        half = z * (variance / count) ** 0.5
        return cls(mean, mean - half, mean + half)

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0.0 or self.high < 0.0

    def to_json(self) -> list[float]:
        return [self.mean, self.low, self.high]

    @classmethod
    def from_json(cls, data: Sequence[float]) -> Interval:
        return cls(float(data[0]), float(data[1]), float(data[2]))


@dataclass(frozen=True)
class ActionValue:
    """One legal action at a decision: its expected value, and what it gives up against the best action.

    ``score``, ``rank`` and ``win`` are the rollouts' means of the seat's final score, rank and win (``None``
    where the game or the reference has none); ``behind_best`` is the paired difference best − this action.
    """

    action: dict[str, Any]
    value: float
    behind_best: Interval
    score: float | None = None
    rank: float | None = None
    win: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "value": self.value,
            "behind_best": self.behind_best.to_json(),
            "score": self.score,
            "rank": self.rank,
            "win": self.win,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ActionValue:
        return cls(
            dict(data["action"]),
            float(data["value"]),
            Interval.from_json(data["behind_best"]),
            data.get("score"),
            data.get("rank"),
            data.get("win"),
        )


@dataclass(frozen=True)
class DecisionAnalysis:
    """One decision of the seat: what it saw, every action's value, the chosen one's loss.

    ``move`` is the 1-based number of the action in the match's log (``ladder replay`` counts the same way);
    ``held_out``: the chosen action's loss measured on samples that did not pick the best action (each sample
    left out in turn, the others pick the best): free of the upward bias of the best of several noisy
    means, so it may come out below zero; means over many decisions (``ladder blunders``, the tests) use it.
    ``indistinguishable``: no action's held-out gap to the best lies above zero at 95% with the comparisons
    counted (Bonferroni over the other actions), so the decision is not ranked.
    """

    move: int
    seen: str
    chosen: int
    best: int
    actions: tuple[ActionValue, ...]
    indistinguishable: bool
    held_out: Interval

    @property
    def loss(self) -> Interval:
        return self.actions[self.chosen].behind_best

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "seen": self.seen,
            "chosen": self.chosen,
            "best": self.best,
            "indistinguishable": self.indistinguishable,
            "loss": self.loss.to_json(),
            "held_out": self.held_out.to_json(),
            "actions": [value.to_json() for value in self.actions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DecisionAnalysis:
        return cls(
            int(data["move"]),
            str(data["seen"]),
            int(data["chosen"]),
            int(data["best"]),
            tuple(ActionValue.from_json(value) for value in data["actions"]),
            bool(data["indistinguishable"]),
            Interval.from_json(data["held_out"]),
        )


@dataclass(frozen=True)
class AnalysisKey:
    """What a cached analysis is keyed by (with the match id): every input its numbers depend on."""

    seat: int
    reference: Reference
    samples: int
    seed: int
    version: int = ANALYSIS_VERSION


@dataclass(frozen=True)
class SeatAnalysis:
    """Every non-forced decision of one seat of one match, in move order, with the match's total loss."""

    match_id: int
    game: str
    bot: str
    key: AnalysisKey
    measure: Measure
    decisions: tuple[DecisionAnalysis, ...] = field(default_factory=tuple)

    @property
    def seat(self) -> int:
        return self.key.seat

    @property
    def total_loss(self) -> Interval:
        """The sum of the losses; the decisions' samples are independent, so their variances add."""
        mean = sum(d.loss.mean for d in self.decisions)
        half = sum(((d.loss.high - d.loss.low) / 2) ** 2 for d in self.decisions) ** 0.5
        return Interval(mean, mean - half, mean + half)

    def cumulative(self) -> list[float]:
        """The running total of the losses, decision by decision."""
        running, totals = 0.0, []
        for decision in self.decisions:
            running += decision.loss.mean
            totals.append(running)
        return totals

    def costliest(self) -> list[DecisionAnalysis]:
        """The ranked decisions (not indistinguishable) that lost something, costliest first (ties: earliest first)."""
        ranked = [d for d in self.decisions if not d.indistinguishable and d.loss.mean > 0.0]
        return sorted(ranked, key=lambda d: (-d.loss.mean, d.move))

    def to_json(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "game": self.game,
            "bot": self.bot,
            "seat": self.key.seat,
            "reference": self.key.reference.value,
            "samples": self.key.samples,
            "seed": self.key.seed,
            "version": self.key.version,
            "measure": self.measure.value,
            "total_loss": self.total_loss.to_json(),
            "decisions": [d.to_json() for d in self.decisions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatAnalysis:
        key = AnalysisKey(
            int(data["seat"]),
            Reference(data["reference"]),
            int(data["samples"]),
            int(data["seed"]),
            int(data["version"]),
        )
        decisions = tuple(DecisionAnalysis.from_json(d) for d in data["decisions"])
        return cls(int(data["match"]), str(data["game"]), str(data["bot"]), key, Measure(data["measure"]), decisions)
