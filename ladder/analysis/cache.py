"""Analyses in the database: a stored match read as a :class:`MatchLog`, and the cache of results.

A cached row is keyed by every input its numbers depend on (match, seat, reference, samples, seed, the
method's version), so reading it gives exactly what recomputing would.
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass

from sqlmodel import Session

from ladder.analysis.core import AnalysisError, analyse_seat
from ladder.analysis.model import ANALYSIS_VERSION, AnalysisKey, MatchLog, SeatAnalysis
from ladder.matches.statuses import MatchStatus
from ladder.store import analyses
from ladder.store.analysis_tables import AnalysisRow
from ladder.store.tables import MatchRow


def seat_versions(session: Session, match_id: int) -> dict[int, tuple[int, str]]:
    """Each seat's bot version id and bot name."""
    return analyses.seat_bot_versions(session, match_id)


def match_log(session: Session, row: MatchRow) -> MatchLog:
    """The stored match as the analysis reads it; :class:`AnalysisError` unless it was played."""
    if row.status != MatchStatus.PLAYED or row.id is None:
        raise AnalysisError(f"match {row.id} was not played ({row.status}): there is nothing to analyse")
    names = seat_versions(session, row.id)
    bots = tuple(names.get(seat, (0, ""))[1] for seat in range(row.num_players))
    return MatchLog(row.game, row.options, row.num_players, row.seed, tuple(row.actions), bots, row.id)


def _pack(analysis: SeatAnalysis) -> bytes:
    return zlib.compress(json.dumps(analysis.to_json(), separators=(",", ":")).encode(), 6)


def _unpack(blob: bytes) -> SeatAnalysis:
    return SeatAnalysis.from_json(json.loads(zlib.decompress(blob)))


def cached(session: Session, match_id: int, key: AnalysisKey) -> SeatAnalysis | None:
    row = analyses.analysis_row(session, match_id, key.seat, key.reference.value, key.samples, key.seed, key.version)
    return None if row is None else _unpack(row.result_z)


def store(session: Session, analysis: SeatAnalysis, seconds: float, bot_version_id: int | None = None) -> None:
    """Write ``analysis`` to the cache (once: a key already there is left as it is)."""
    if cached(session, analysis.match_id, analysis.key) is not None:
        return
    key = analysis.key
    session.add(
        AnalysisRow(
            match_id=analysis.match_id,
            seat=key.seat,
            reference=key.reference.value,
            samples=key.samples,
            seed=key.seed,
            version=key.version,
            bot_version_id=bot_version_id,
            measure=analysis.measure.value,
            decisions=len(analysis.decisions),
            ranked=sum(1 for d in analysis.decisions if not d.indistinguishable),
            total_loss=analysis.total_loss.mean,
            seconds=seconds,
            result_z=_pack(analysis),
        )
    )
    session.commit()


@dataclass(frozen=True)
class Analysed:
    """An analysis and where it came from."""

    analysis: SeatAnalysis
    from_cache: bool
    seconds: float


def analyse_stored(session: Session, row: MatchRow, key: AnalysisKey, workers: int = 1) -> Analysed:
    """The cached analysis of ``key`` for the stored match ``row``, computed and cached if it is not there yet."""
    assert row.id is not None
    found = cached(session, row.id, key)
    if found is not None:
        return Analysed(found, True, 0.0)
    match = match_log(session, row)
    started = time.perf_counter()
    analysis = analyse_seat(match, key.seat, key.reference, key.samples, key.seed, workers)
    seconds = time.perf_counter() - started
    version = seat_versions(session, row.id).get(key.seat, (None, ""))[0]
    store(session, analysis, seconds, version)
    return Analysed(analysis, False, seconds)


def cached_for_match(session: Session, match_id: int) -> list[SeatAnalysis]:
    """Every cached analysis of a match of this method's version, one per seat (the most samples, then the
    thumb reference, then the lowest seed): what the report shows."""
    rows = analyses.analysis_rows_for_match(session, match_id, ANALYSIS_VERSION)
    chosen: dict[int, AnalysisRow] = {}
    for row in rows:
        rank = (-row.samples, row.reference != "thumb", row.seed)
        known = chosen.get(row.seat)
        if known is None or rank < (-known.samples, known.reference != "thumb", known.seed):
            chosen[row.seat] = row
    return [_unpack(chosen[seat].result_z) for seat in sorted(chosen)]


def analysed_match_ids(session: Session) -> set[int]:
    """The matches with at least one cached analysis of this method's version."""
    return analyses.analysed_match_ids(session, ANALYSIS_VERSION)
