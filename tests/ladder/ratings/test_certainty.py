"""How sure a leaderboard is: pair probabilities, rank intervals, and a verdict that is "settled" only when right."""

from __future__ import annotations

import random

import pytest

from engine import GameFacts, ScoreOrder, WinRule
from ladder.ratings import certainty
from ladder.ratings import trueskill_model as ratings
from ladder.ratings.certainty import PairState, Verdict, assess, p_equal, p_order, rank_intervals
from ladder.ratings.trueskill_model import MatchFact, SeatFact, Standing, compute


def standing(version: int, mu: float, sigma: float) -> Standing:
    return Standing("g/2p", "g", 2, version, mu, sigma)


def duels(skills: dict[int, float], count: int, rng: random.Random, start: int = 1) -> list[MatchFact]:
    """Two-player matches between random pairs of a field whose true skills are ``skills``
    (TrueSkill's own model: each performance is the skill plus Gaussian noise of deviation beta)."""
    matches = []
    for match_id in range(start, start + count):
        a, b = rng.sample(sorted(skills), 2)
        pa, pb = skills[a] + rng.gauss(0, ratings.BETA), skills[b] + rng.gauss(0, ratings.BETA)
        matches.append(
            MatchFact(
                match_id,
                1,
                "g",
                2,
                f"d{match_id}",
                (
                    SeatFact(a, None, 1 if pa > pb else 2, False, None),
                    SeatFact(b, None, 1 if pb > pa else 2, False, None),
                ),
            )
        )
    return matches


def test_pair_probabilities_follow_the_two_gaussians() -> None:
    assert p_order(standing(1, 25, 1), standing(2, 25, 1)) == pytest.approx(0.5)
    # a gap of two combined deviations: Phi(2)
    assert p_order(standing(1, 27, 0.5**0.5), standing(2, 25, 0.5**0.5)) == pytest.approx(0.97725, abs=1e-4)
    assert p_equal(standing(1, 25, 0.1), standing(2, 25.2, 0.1), margin=1.0) > 0.99
    assert p_equal(standing(1, 25, 0.1), standing(2, 28, 0.1), margin=1.0) < 1e-6


def test_rank_intervals_are_wide_when_close_and_narrow_when_apart() -> None:
    apart = rank_intervals([standing(1, 40, 0.5), standing(2, 30, 0.5), standing(3, 20, 0.5)])
    assert apart == {1: (1, 1), 2: (2, 2), 3: (3, 3)}
    close = rank_intervals([standing(1, 25.1, 3), standing(2, 25, 3), standing(3, 24.9, 3)])
    assert close == {1: (1, 3), 2: (1, 3), 3: (1, 3)}
    assert rank_intervals([standing(1, 25.1, 3), standing(2, 25, 3)]) == rank_intervals(
        [standing(1, 25.1, 3), standing(2, 25, 3)]
    )


def test_the_verdict_needs_every_adjacent_pair_ordered_or_equal_at_the_bonferroni_level() -> None:
    sure = assess([standing(1, 40, 0.5), standing(2, 30, 0.5), standing(3, 20, 0.5)], "g/2p")
    assert sure.verdict is Verdict.SETTLED and {p.state for p in sure.pairs} == {PairState.ORDERED}
    assert sure.pair_level == pytest.approx(0.975)
    equal = assess([standing(1, 40, 0.1), standing(2, 30, 0.1), standing(3, 30.05, 0.1)], "g/2p")
    assert equal.verdict is Verdict.SETTLED and equal.pairs[1].state is PairState.EQUAL
    open_ = assess([standing(1, 40, 0.5), standing(2, 30, 2), standing(3, 29, 2)], "g/2p", names={2: "b", 3: "c"})
    assert open_.verdict is Verdict.NOT_YET and open_.pairs[1].state is PairState.OPEN
    assert "b over c" in open_.reason and "needs 97.5%" in open_.reason
    # 96% for a pair is enough for one pair alone, not for two
    assert certainty.pair_level(0.95, 2) == pytest.approx(0.95) and certainty.pair_level(0.95, 3) == pytest.approx(
        0.975
    )


def test_a_planted_field_is_called_settled_only_in_its_true_order() -> None:
    """Five bots with known skills play duels; after each batch the verdict is read. Whenever it says
    settled, the order must be the true one (the verdict promises 95%: at most 5% of the calls may be
    wrong), and with enough matches it does settle."""
    skills = {1: 33.0, 2: 30.0, 3: 27.0, 4: 24.0, 5: 21.0}
    truth = [1, 2, 3, 4, 5]
    settled = wrong = 0
    for seed in range(30):
        rng = random.Random(seed)
        matches: list[MatchFact] = []
        for batch in (40, 80, 160, 160):
            matches += duels(skills, batch, rng, start=len(matches) + 1)
            rated = compute(
                matches, games={"g": GameFacts(2, 2, ScoreOrder.HIGHER_IS_BETTER, WinRule.FIRST_RANK, "first rank")}
            )
            sure = assess(rated.table("g/2p"), "g/2p")
            if sure.verdict is Verdict.SETTLED:
                settled += 1
                wrong += list(sure.order) != truth
    assert settled >= 15  # not vacuous: many checks do settle (20 of the 120 here)
    assert wrong <= 0.05 * settled
