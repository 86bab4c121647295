"""The analysis of one seat of a finished match: every decision it made, every legal action valued.

At each decision of the seat with more than one legal action, ``samples`` worlds are drawn from the seat's
observation alone (:mod:`ladder.analysis.worlds`), and every legal action is played in every world and
valued: by default by rolling the world out to the end of the match with ``thumb`` at every seat
(:attr:`Reference.THUMB`), or by the search bot's own values (:attr:`Reference.SEARCH`,
:mod:`ladder.analysis.search_reference`). Every action of a sample sees the same world and the same luck
(common random numbers), so the paired differences best − chosen have a tight interval.

Each decision is one :class:`DecisionTask`, a pure function of its fields (the match record, the seat, the
move, the reference, the samples, the seed): the seeds of its worlds and its luck are drawn from those alone,
so the numbers do not depend on which process computes them, nor in what order.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from engine import get_game
from engine.core import Action, GameFacts, GameResult, State, find_legal
from ladder.analysis.model import (
    ActionValue,
    AnalysisError,
    AnalysisKey,
    DecisionAnalysis,
    Interval,
    MatchLog,
    Measure,
    Reference,
    SeatAnalysis,
)
from ladder.analysis.worlds import elfer_raus_totals, rollout_for, world_maker

# ---- replaying the record -------------------------------------------------------------------------------


def new_state(match: MatchLog) -> State:
    return get_game(match.game).new_state(match.num_players, match.seed, dict(match.options))


def replay_to(match: MatchLog, move: int) -> State:
    """The state just before action number ``move`` (1-based) of the log."""
    state = new_state(match)
    for number, action in enumerate(match.actions[: move - 1], start=1):
        _apply(state, action, number)
    return state


def _apply(state: State, action: dict[str, Any], number: int) -> None:
    try:
        state.apply(action)
    except ValueError as error:
        raise AnalysisError(f"move {number} does not replay: {error}") from None


def seat_decisions(match: MatchLog, seat: int) -> list[int]:
    """The moves (1-based) at which ``seat`` chose among more than one legal action."""
    if not 0 <= seat < match.num_players:
        raise AnalysisError(f"the match has seats 0 to {match.num_players - 1}, not {seat}")
    state = new_state(match)
    moves: list[int] = []
    for number, action in enumerate(match.actions, start=1):
        if state.current_player == seat and len(state.legal_actions()) > 1:
            moves.append(number)
        _apply(state, action, number)
    return moves


# ---- what the seat saw, in one line ------------------------------------------------------------------------

_SEEN_KEYS = ("phase", "hand", "rows", "kitchens", "pins", "ball_cards", "pantry", "current_card", "totals", "cubes")
_SEEN_LIMIT = 160


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def seen_summary(observation: dict[str, Any]) -> str:
    """A short picture of an observation: the fields a reader looks at first, each cut short."""
    seat = observation.get("seat")
    parts: list[str] = []
    for key in _SEEN_KEYS:
        if key not in observation:
            continue
        value = observation[key]
        if key == "kitchens" and isinstance(value, list) and isinstance(seat, int) and seat < len(value):
            value = value[seat]
        parts.append(f"{key} {_compact(value)[:60]}")
    text = "; ".join(parts) or _compact({k: v for k, v in observation.items() if k != "events"})
    return text if len(text) <= _SEEN_LIMIT else text[: _SEEN_LIMIT - 3] + "..."


def action_text(action: dict[str, Any]) -> str:
    """An action as a reader writes it: its type, then its other fields."""
    rest = {key: value for key, value in action.items() if key != "type"}
    return f"{action.get('type', '?')} {_compact(rest)}" if rest else str(action.get("type", "?"))


# ---- one decision -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionTask:
    """One decision to analyse: everything its numbers depend on (a task for any executor)."""

    match: MatchLog
    seat: int
    move: int
    reference: Reference
    samples: int
    seed: int


@dataclass(frozen=True)
class _Outcome:
    value: float
    score: float | None
    rank: float | None
    win: float | None


def measure_of(game_id: str, reference: Reference) -> Measure:
    if reference is Reference.SEARCH:
        return Measure.SEARCH_UTILITY
    return Measure.SCORE if get_game(game_id).facts.solitaire else Measure.MARGIN


def outcome_of(state: State, seat: int) -> _Outcome:
    """The seat's final result in a finished world: its signed score margin over the rivals' mean (its signed
    score in a solitaire), its score, rank and win."""
    return _outcome_of_result(state.game.facts, state.result(), seat)


def _outcome_of_result(facts: GameFacts, result: GameResult, seat: int) -> _Outcome:
    signed = [facts.score_sign * score for score in result.scores]
    mine = signed[seat]
    if facts.solitaire:
        value = mine
    else:
        value = mine - (sum(signed) - mine) / (len(signed) - 1)
    won = facts.seat_won(result, seat)
    return _Outcome(value, float(result.scores[seat]), float(result.ranks[seat]), None if won is None else float(won))


def _thumb_outcomes(
    game_id: str, state: State, seat: int, legal: Sequence[Action], samples: int, base: str
) -> list[list[_Outcome]]:
    make = world_maker(game_id)
    roll = rollout_for(game_id)
    outcomes: list[list[_Outcome]] = [[] for _ in legal]
    facts = state.game.facts
    for sample in range(samples):
        world = make(state, seat, random.Random(f"{base}/{sample}/world"))
        if game_id == "elfer-raus":  # the fast path: the rounds after the one in play are played once
            for index, totals in enumerate(elfer_raus_totals(world, legal)):
                result = GameResult(tuple(float(t) for t in totals), facts.ranks(totals))
                outcomes[index].append(_outcome_of_result(facts, result, seat))
            continue
        for index, action in enumerate(legal):
            trial = world.clone()
            trial.apply(action)
            roll(trial, random.Random(f"{base}/{sample}/luck"))  # the same luck for every action of the sample
            outcomes[index].append(outcome_of(trial, seat))
    return outcomes


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def _best(means: Sequence[float], chosen: int) -> int:
    """The highest mean; a tie goes to the chosen action, then to the first."""
    top = max(means)
    return chosen if means[chosen] == top else list(means).index(top)


def held_out_gaps(values: Sequence[Sequence[float]], chosen: int) -> list[list[float]]:
    """Per sample and action: the best action's value less this one's, the best picked *without* that sample.

    Each sample is left out in turn: the other samples pick the best action (:func:`_best`), the left-out
    sample measures the gap. No sample both picks the best and measures the gap, so the gaps are not biased
    upward by the pick (the best of several noisy means overstates the best): they estimate the value of a
    best picked on the other samples, a little below the true best, so a held-out loss errs low, not high.
    """
    count = len(values[0])
    sums = [sum(row) for row in values]
    gaps: list[list[float]] = [[] for _ in values]
    for sample in range(count):
        pick = _best([(total - row[sample]) / (count - 1) for total, row in zip(sums, values)], chosen)
        top = values[pick][sample]
        for index, row in enumerate(values):
            gaps[index].append(top - row[sample])
    return gaps


def judge(
    legal: Sequence[Action], outcomes: Sequence[Sequence[_Outcome]], chosen: int
) -> tuple[int, tuple[ActionValue, ...], bool, Interval]:
    """The best action (the highest mean value; a tie goes to the chosen one, then to the first), every
    action's value and paired difference to it, whether the samples tell any action from the best, and the
    chosen action's held-out loss (:func:`held_out_gaps`)."""
    means = [sum(o.value for o in row) / len(row) for row in outcomes]
    best = _best(means, chosen)
    values = []
    for index, action in enumerate(legal):
        row = outcomes[index]
        gaps = [b.value - o.value for b, o in zip(outcomes[best], row)]
        values.append(
            ActionValue(
                dict(action),
                means[index],
                Interval.of(gaps),
                _mean([o.score for o in row]),
                _mean([o.rank for o in row]),
                _mean([o.win for o in row]),
            )
        )
    held = held_out_gaps([[o.value for o in row] for row in outcomes], chosen)
    z = NormalDist().inv_cdf(1 - 0.025 / max(1, len(legal) - 1))  # 95% over the comparisons with the best
    indistinguishable = not any(Interval.of(row, z).low > 0.0 for row in held)
    return best, tuple(values), indistinguishable, Interval.of(held[chosen])


def value_actions(task: DecisionTask, state: State) -> DecisionAnalysis:
    """Value every legal action of ``state`` (the seat's decision at ``task.move``).

    Reads of ``state`` only what ``task.seat`` observes (its worlds come from the observation), so two states
    the seat cannot tell apart give the same numbers: the hidden-information test swaps the hidden cards here.
    """
    if state.current_player != task.seat:
        raise AnalysisError(f"move {task.move} is not seat {task.seat}'s decision")
    legal = list(state.legal_actions())
    played = find_legal(task.match.actions[task.move - 1], legal)
    if played is None:
        raise AnalysisError(f"move {task.move} does not replay: not a legal action")
    chosen = next(index for index, action in enumerate(legal) if action is played)
    seen = seen_summary(state.observation(task.seat))
    base = f"analysis/{task.seed}/{task.move}"
    if task.reference is Reference.SEARCH:
        from ladder.analysis.search_reference import search_values

        rows = search_values(task, state, legal, base)
        outcomes = [[_Outcome(v, None, None, None) for v in row] for row in rows]
    else:
        outcomes = _thumb_outcomes(task.match.game, state, task.seat, legal, task.samples, base)
    best, values, indistinguishable, held_out = judge(legal, outcomes, chosen)
    return DecisionAnalysis(task.move, seen, chosen, best, values, indistinguishable, held_out)


def analyse_decision(task: DecisionTask) -> DecisionAnalysis:
    """Value every legal action of the seat at move ``task.move``; a pure function of ``task``."""
    if task.samples < 2:
        raise AnalysisError(f"an interval needs at least 2 samples, not {task.samples}")
    return value_actions(task, replay_to(task.match, task.move))


# ---- one seat -----------------------------------------------------------------------------------------------


def analyse_seat(
    match: MatchLog,
    seat: int,
    reference: Reference = Reference.THUMB,
    samples: int | None = None,
    seed: int = 0,
    workers: int = 1,
) -> SeatAnalysis:
    """Every decision of ``seat`` in ``match`` analysed; the same numbers whatever ``workers`` is."""
    count = reference.default_samples() if samples is None else samples
    tasks = [DecisionTask(match, seat, move, reference, count, seed) for move in seat_decisions(match, seat)]
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
            decisions = tuple(pool.map(analyse_decision, tasks))
    else:
        decisions = tuple(analyse_decision(task) for task in tasks)
    bot = match.bots[seat] if seat < len(match.bots) else ""
    key = AnalysisKey(seat, reference, count, seed)
    return SeatAnalysis(match.match_id, match.game, bot, key, measure_of(match.game, reference), decisions)
