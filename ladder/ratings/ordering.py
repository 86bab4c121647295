"""How ratings are compared: one rule for a leaderboard's order and the overall score's ties.

Ratings are computed by expectation propagation to within its tolerance
(:data:`ladder.ratings.trueskill_model.CONVERGED`), so two bots with the same
record come out differing in the seventh or eighth digit, either way. Compared
bare, that noise ordered them on the leaderboard and gave one of them the whole
overall point; compared as :func:`compared` says, they are equal and go by
version id.
"""

from __future__ import annotations

from typing import Protocol

RATING_DECIMALS = 4
"""Ratings are compared to this many decimals. Rounded to four, the propagation's noise straddles a rounding step
about once in two thousand pairs of equal bots (rounded to six it did in 1 of 60 mirrored pools), and ratings that
differ only in the fourth decimal are no different to anyone reading them to two."""


class Rated(Protocol):
    """What a leaderboard sorts by (a :class:`~ladder.ratings.trueskill_model.Standing`)."""

    @property
    def conservative(self) -> float: ...

    @property
    def mu(self) -> float: ...

    @property
    def bot_version_id(self) -> int: ...


def compared(rating: float) -> float:
    """``rating`` as ratings are compared (:data:`RATING_DECIMALS`)."""
    return round(rating, RATING_DECIMALS)


def leaderboard_key(standing: Rated) -> tuple[float, float, int]:
    """Where ``standing`` sorts on its pool's leaderboard (``RatingSet.table``); the one order every view and the
    served planner use, so their adjacent pairs are the same. Equal ratings (:func:`compared`) go by version id."""
    return (-compared(standing.conservative), -compared(standing.mu), standing.bot_version_id)
