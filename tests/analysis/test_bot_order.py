"""random's mean loss per decision > thumb's > search's (issue 37): the analysis ranks bots whose order is known.

Each bot plays seat 0 (against thumb at a table); every number is a pure function of the seeds below, so the
test is exact, not flaky. Multiplayer games: see docs/benchmarks.md ("Decision analysis") for what was measured.
"""

from __future__ import annotations

import pytest

from ladder.analysis.core import analyse_seat
from tests.analysis.helpers import played

pytestmark = pytest.mark.slow


def _mean_loss(game: str, bot: str, players: int, matches: int, samples: int) -> float:
    losses: list[float] = []
    for number in range(matches):
        match = played(game, [bot, *["thumb"] * (players - 1)], 200 + number)
        losses += [d.loss.mean for d in analyse_seat(match, 0, samples=samples, seed=2, workers=2).decisions]
    return sum(losses) / len(losses)


@pytest.mark.parametrize(("game", "matches"), [("bowling-solitaire", 2), ("elevenses-for-one", 3)])
def test_random_loses_more_than_thumb_and_thumb_more_than_search(game: str, matches: int) -> None:
    random_loss, thumb_loss, search_loss = (
        _mean_loss(game, bot, 1, matches, 8) for bot in ("random", "thumb", "search")
    )
    assert random_loss > thumb_loss > search_loss
