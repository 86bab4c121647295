"""Ground truth for the analysis: which of ``thumb-50``'s decisions were coin-random deviations from thumb.

``thumb-50`` (bots/handicapped.py) asks thumb for its choice at every decision, then throws a coin drawn from
its match seed: on heads it plays a uniformly random legal action instead. Replaying its coin and its thumb
beside the record tells, at each decision, whether the action played was thumb's or a deviation from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bots.base import MatchStart
from bots.handicapped import HandicappedBot
from bots.registry import get_bot_class
from ladder.analysis.core import DecisionTask, analyse_decision, new_state, seat_decisions
from ladder.analysis.model import MatchLog, Reference
from ladder.matches.match import seat_seed
from tests.analysis.helpers import played


@dataclass(frozen=True)
class Labels:
    deviations: frozenset[int]  # moves where the coin chose a random action other than thumb's
    thumb_moves: frozenset[int]  # moves where the coin let thumb's choice stand


def thumb_50_labels(match: MatchLog, seat: int) -> Labels:
    """Replays the ``thumb-50`` bot of ``seat`` (its seed: the match's, as :func:`ladder.matches.match.play_match`
    gives it when there are no secret bot seeds) beside the record."""
    cls = get_bot_class("thumb-50", match.game)
    bot = cls()
    assert isinstance(bot, HandicappedBot)
    bot.start(MatchStart(match.game, seat, match.num_players, dict(match.options), seat_seed(match.seed, seat)))
    state = new_state(match)
    deviations, thumb_moves = set(), set()
    for number, action in enumerate(match.actions, start=1):
        if state.current_player == seat:
            observation, offered = state.offer()
            choice = bot.inner.act(observation, offered)
            if bot.coin.random() < bot.random_share:
                random_action = bot.coin.choice(offered)
                assert random_action == action, f"move {number}: the replayed coin disagrees with the record"
                if random_action != choice:
                    deviations.add(number)
            else:
                assert choice == action, f"move {number}: the replayed thumb disagrees with the record"
                thumb_moves.add(number)
        state.apply(action)
    return Labels(frozenset(deviations), frozenset(thumb_moves))


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(a positive's loss > a negative's), ties counted half: the per-decision separation."""
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def mann_whitney_p(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """One-sided p-value that positives are no larger than negatives (normal approximation, tie-corrected)."""
    n1, n2 = len(positives), len(negatives)
    pooled = sorted([(v, 0) for v in positives] + [(v, 1) for v in negatives])
    ranks: list[float] = [0.0] * len(pooled)
    ties = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    r1 = sum(rank for rank, (_, group) in zip(ranks, pooled) if group == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = (u - n1 * n2 / 2) / math.sqrt(variance)
    return 0.5 * math.erfc(z / math.sqrt(2))


def labelled_losses(
    game: str,
    bots: Sequence[str],
    seeds: Sequence[int],
    options: Mapping[str, Any],
    samples: int,
    workers: int = 2,
) -> tuple[list[float], list[float]]:
    """The held-out losses of seat 0's (``thumb-50``'s) coin-random deviations and of its thumb moves, over
    matches of ``bots`` dealt from ``seeds``; only the labelled decisions are analysed (on ``workers``
    processes: the numbers do not depend on it)."""
    tasks: list[DecisionTask] = []
    labels: list[bool] = []
    for seed in seeds:
        match = played(game, bots, seed, options)
        found = thumb_50_labels(match, 0)
        for move in seat_decisions(match, 0):
            if move in found.deviations or move in found.thumb_moves:
                tasks.append(DecisionTask(match, 0, move, Reference.THUMB, samples, 1))
                labels.append(move in found.deviations)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        decisions = list(pool.map(analyse_decision, tasks, chunksize=4))
    deviations = [d.held_out.mean for d, deviated in zip(decisions, labels) if deviated]
    thumb_moves = [d.held_out.mean for d, deviated in zip(decisions, labels) if not deviated]
    return deviations, thumb_moves


def welch_p(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """One-sided p-value that the positives' mean is no larger than the negatives' (Welch, normal approximation:
    hundreds of decisions a side)."""
    n1, n2 = len(positives), len(negatives)
    m1, m2 = sum(positives) / n1, sum(negatives) / n2
    v1 = sum((v - m1) ** 2 for v in positives) / (n1 - 1)
    v2 = sum((v - m2) ** 2 for v in negatives) / (n2 - 1)
    z = (m1 - m2) / math.sqrt(v1 / n1 + v2 / n2)
    return 0.5 * math.erfc(z / math.sqrt(2))
