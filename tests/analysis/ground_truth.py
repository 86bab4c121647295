"""Ground truth for the analysis: which of ``thumb-50``'s decisions were coin-random deviations from thumb.

``thumb-50`` (bots/handicapped.py) asks thumb for its choice at every decision, then throws a coin drawn from
its match seed: on heads it plays a uniformly random legal action instead. Replaying its coin and its thumb
beside the record tells, at each decision, whether the action played was thumb's or a deviation from it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bots.base import MatchStart
from bots.handicapped import HandicappedBot
from bots.registry import get_bot_class
from ladder.analysis.core import new_state
from ladder.analysis.model import MatchLog
from ladder.matches.match import seat_seed


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
