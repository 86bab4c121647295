"""A bot's mistakes over many matches: its mean loss per decision, and its costliest habits by situation.

A *situation* is the type of the action the bot chose and the type of the better one (``draw -> play``):
what a bot gets wrong again and again shows there, where one match's costliest decision may be bad luck.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ladder.analysis.model import DecisionAnalysis, Interval, SeatAnalysis


@dataclass(frozen=True)
class Blunder:
    """One decision, where to find it: the match, the seat, the move."""

    match_id: int
    seat: int
    decision: DecisionAnalysis


@dataclass(frozen=True)
class Situation:
    """The decisions of one kind the bot got wrong (chosen type -> better type), worst first."""

    chosen_type: str
    better_type: str
    count: int
    total_loss: float
    worst: tuple[Blunder, ...]


@dataclass(frozen=True)
class BlunderReport:
    """Over the analysed seats: the mean loss per decision (95% interval over decisions) and the situations.

    ``mean_loss`` averages the decisions' held-out losses (:attr:`DecisionAnalysis.held_out`): the best of
    noisy means would charge a bot more where it has more actions to choose from, whatever it chose."""

    seats: int
    decisions: int
    ranked: int
    mean_loss: Interval
    situations: tuple[Situation, ...]


def _type(decision: DecisionAnalysis, index: int) -> str:
    return str(decision.actions[index].action.get("type", "?"))


def blunder_report(analyses: Sequence[SeatAnalysis], worst_per_situation: int = 3) -> BlunderReport:
    """Group the ranked decisions with a loss whose interval lies above zero by situation, costliest first."""
    losses = [d.held_out.mean for a in analyses for d in a.decisions]
    groups: dict[tuple[str, str], list[Blunder]] = {}
    for analysis in analyses:
        for decision in analysis.decisions:
            if decision.indistinguishable or decision.loss.low <= 0.0:
                continue
            kind = (_type(decision, decision.chosen), _type(decision, decision.best))
            groups.setdefault(kind, []).append(Blunder(analysis.match_id, analysis.seat, decision))
    situations = []
    for (chosen, better), blunders in groups.items():
        blunders.sort(key=lambda b: (-b.decision.loss.mean, b.match_id, b.decision.move))
        total = sum(b.decision.loss.mean for b in blunders)
        situations.append(Situation(chosen, better, len(blunders), total, tuple(blunders[:worst_per_situation])))
    situations.sort(key=lambda s: (-s.total_loss, s.chosen_type, s.better_type))
    ranked = sum(1 for a in analyses for d in a.decisions if not d.indistinguishable)
    return BlunderReport(len(analyses), len(losses), ranked, Interval.of(losses), tuple(situations))
