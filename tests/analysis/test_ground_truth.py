"""The analysis tells thumb-50's coin-random deviations from its thumb moves (issue 37's ground truth).

Real matches of ``thumb-50`` against ``thumb`` (and ``random``) are played in-process; its coin is replayed to
label each decision, and the loss the analysis gives each label is compared with a one-sided Mann-Whitney test.
The per-decision separation (AUC) is stated in docs/benchmarks.md ("Decision analysis").
"""

from __future__ import annotations

import pytest

from ladder.analysis.core import analyse_seat
from tests.analysis.ground_truth import auc, mann_whitney_p, thumb_50_labels
from tests.analysis.helpers import played

pytestmark = pytest.mark.slow


def _losses(
    game: str, players: int, matches: int, samples: int, options: dict[str, object]
) -> tuple[list[float], list[float]]:
    deviations: list[float] = []
    thumb_moves: list[float] = []
    for number in range(matches):
        bots = ["thumb-50", *["thumb", "random", "thumb"][: players - 1]]
        match = played(game, bots, 100 + number, options)
        labels = thumb_50_labels(match, 0)
        for decision in analyse_seat(match, 0, samples=samples, seed=1, workers=2).decisions:
            if decision.move in labels.deviations:
                deviations.append(decision.loss.mean)
            elif decision.move in labels.thumb_moves:
                thumb_moves.append(decision.loss.mean)
    return deviations, thumb_moves


def test_elevenses_deviations_lose_more_than_thumb_moves() -> None:
    deviations, thumb_moves = _losses("elevenses", 2, 2, 8, {"target": 5})
    assert len(deviations) >= 10 and len(thumb_moves) >= 10
    assert sum(deviations) / len(deviations) > sum(thumb_moves) / len(thumb_moves)
    assert mann_whitney_p(deviations, thumb_moves) < 0.05
    assert auc(deviations, thumb_moves) > 0.6


@pytest.mark.xfail(
    strict=True,
    reason="issue 37 not met for Elfer raus: under thumb rollouts thumb-50's deviations are not told apart from its "
    "thumb moves (AUC about 0.45-0.5 over 3 matches at 32 samples; docs/benchmarks.md)",
)
def test_elfer_raus_deviations_lose_more_than_thumb_moves() -> None:
    deviations, thumb_moves = _losses("elfer-raus", 3, 3, 16, {"rounds": 1})
    assert mann_whitney_p(deviations, thumb_moves) < 0.05
