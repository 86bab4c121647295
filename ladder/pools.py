"""Pool identity: which matches are compared with which.

Two granularities share one value type:

- a **rating pool**, ``elevenses/3p``: a game at one table size. Ratings,
  leaderboards and the adaptive format's stopping rule work per rating pool
  (:func:`ladder.ratings.trueskill_model.pool_key`);
- a **bench pool**, ``elevenses/o0/3p``: a rating pool at one option set. A
  bot that keeps failing is benched in one bench pool only (``BenchRow.pool``),
  since an option set may be what breaks it.

Both are written as text in the database and in logs; :class:`PoolKey` is
the one place that writes and reads that text, and the one that says which
rating pool a bench pool belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class PoolKey:
    """A game at a table size, at one option set (``variant``) or at every one (``variant`` None)."""

    game: str
    players: int
    variant: int | None = None  # the option set's index in the game's entry of the tournament file

    @classmethod
    def parse(cls, text: str) -> PoolKey:
        """``game/Kp`` or ``game/oN/Kp`` (``ValueError`` for anything else)."""
        parts = text.split("/")
        if len(parts) == 2 and parts[1].endswith("p"):
            return cls(parts[0], int(parts[1][:-1]))
        if len(parts) == 3 and parts[1].startswith("o") and parts[2].endswith("p"):
            return cls(parts[0], int(parts[2][:-1]), int(parts[1][1:]))
        raise ValueError(f"not a pool: {text!r} (game/<players>p or game/o<option set>/<players>p)")

    @classmethod
    def of_deal(cls, deal_id: str) -> PoolKey:
        """The bench pool of a deal named ``c<cycle>/<game>/o<option set>/<players>p/d<deal>``."""
        return cls.parse("/".join(deal_id.split("/")[1:4]))

    @property
    def rating_pool(self) -> PoolKey:
        """The pool without its option set: what ratings and the adaptive format compare in."""
        return PoolKey(self.game, self.players)

    def __str__(self) -> str:
        if self.variant is None:
            return f"{self.game}/{self.players}p"
        return f"{self.game}/o{self.variant}/{self.players}p"
