"""`ladder play`'s score, win-rate and rank rows: Student's t over the deals, and no verdict on a few deals.

With the normal quantile and two deals that came out alike, `ladder play elevenses-for-one thumb random -n 2`
called random's lower score significant (-9.48 to -7.52), and two wins in two deals gave a win-rate interval of
100% to 100%: a coin's luck read as a verdict.
"""

from __future__ import annotations

import json

import pytest

from ladder.ratings.summary import APPROXIMATE_MIN_DEALS, Difference, t_quantile
from tests.cli.test_author_tools import ladder

# Student's t at 97.5% (a two-sided 95% interval), from the standard table
T_TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 29: 2.045, 30: 2.042, 120: 1.980}


@pytest.mark.parametrize(("df", "expected"), sorted(T_TABLE.items()))
def test_the_t_quantile_matches_the_table(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, rel=2e-3)


def test_the_t_quantile_is_symmetric_and_tends_to_the_normal() -> None:
    assert t_quantile(0.025, 7) == pytest.approx(-t_quantile(0.975, 7))
    assert t_quantile(0.975, 100_000) == pytest.approx(1.959964, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)


def test_an_approximate_row_gives_no_verdict_on_too_few_deals_however_narrow() -> None:
    few = Difference("random", "thumb", "win rate", APPROXIMATE_MIN_DEALS - 1, 1.0, 1.0, 1.0)
    enough = Difference("random", "thumb", "win rate", APPROXIMATE_MIN_DEALS, 1.0, 1.0, 1.0)
    paired = Difference("random", "thumb", "paired", 2, 0.9, 0.2, 1.0)  # anytime-valid: a verdict at any count
    assert not few.significant and enough.significant and paired.significant


def test_play_on_two_deals_calls_nothing_significant_but_the_paired_row_may() -> None:
    run = ladder("play", "elevenses-for-one", "thumb", "random", "-n", "2", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    rows = {row["measure"]: row for row in json.loads(run.stdout)["differences"]}
    assert rows["score"]["deals"] == 2 and not rows["score"]["significant"]
    # two deals: the half-width is t(1) = 12.7 standard errors, not 1.96
    assert rows["score"]["high"] - rows["score"]["low"] > 10
    human = ladder("play", "elevenses-for-one", "thumb", "random", "-n", "2", "--seed", "1")
    words = " ".join(human.stdout.split())
    assert f"too few deals for a verdict ({APPROXIMATE_MIN_DEALS} at least)" in words
    assert "random scores lower" not in words
