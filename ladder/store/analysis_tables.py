"""The cache of decision analyses (:mod:`ladder.analysis`): derived data, like the ratings.

One row per analysed seat of a match and per set of inputs its numbers depend on (the reference, the
samples, the seed and the method's version): the same key always holds the same numbers, so a row is
written once and read ever after; deleting the table loses nothing that cannot be recomputed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, LargeBinary, UniqueConstraint
from sqlmodel import Column, Field, SQLModel

from ladder.store.tables import utcnow


class AnalysisRow(SQLModel, table=True):
    """One seat of one match analysed: the summary figures, and every decision as compressed JSON."""

    __tablename__ = "analysis"
    __table_args__ = (
        UniqueConstraint("match_id", "seat", "reference", "samples", "seed", "version", name="uq_analysis_key"),
    )
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    reference: str  # ladder.analysis.model.Reference's value: "thumb" or "search"
    samples: int
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))  # 64-bit on every backend
    version: int  # ladder.analysis.model.ANALYSIS_VERSION
    bot_version_id: int | None = Field(default=None, foreign_key="bot_version.id", index=True)
    measure: str = ""  # the unit of the values and losses (Measure's value)
    decisions: int = 0  # decisions analysed (forced moves left out)
    ranked: int = 0  # of which the samples could tell the actions apart
    total_loss: float = 0.0
    seconds: float = 0.0  # how long the analysis took
    created_at: datetime = Field(default_factory=utcnow)
    result_z: bytes = Field(default=b"", sa_column=Column(LargeBinary, nullable=False, default=b""))
