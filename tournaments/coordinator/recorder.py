"""The recorder: the only writer of a tournament's matches to the database.

Every result is written as soon as it arrives: the results that completed
together are written in one transaction (commits are batched by arrival), so
a crash or ``kill -9`` loses only the matches still in flight. Storing is
atomic: a batch's matches are written with all their seat rows, or not at
all. If a batch cannot be written (say, text a database refuses), it is
rolled back and each match is written alone; a match that still cannot be
written is recorded as an error with the reason (and retried by the next
run), and the tournament goes on.

The recorder also keeps which keys are recorded (``done``: played or
skipped; ``errors``; ``now``: recorded by this run), which the schedule and
the adaptive format read live.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col

from ladder.matches.statuses import REPLAYED_STATUSES, FailureReason, MatchStatus
from ladder.ratings.pools import PoolKey
from ladder.store import tournament_queries
from ladder.store.action_log import pack_actions
from ladder.store.tables import BenchRow, MatchRow, SeatResultRow, TournamentRow, utcnow
from ladder.text import clean_text
from tournaments.executors.tasks import WorkerRecord
from tournaments.formats.round_robin import ScheduledMatch

log = logging.getLogger("ladder.tournament")

# what a database may refuse in a result (text it cannot encode, a number too large): the batch is rolled back
STORING_ERRORS = (SQLAlchemyError, ValueError, TypeError, OverflowError)


VOID_LIMIT = 2
"""A match voided for a host fault this many times is recorded ``unplayable`` instead (not played again): a host that
starves the same match run after run, or evidence the ladder misreads, must not keep a tournament from ending."""


@dataclass
class Finished:
    """A match that is over for this run: played (with its record), skipped (benched seats) or an error."""

    match: ScheduledMatch
    status: MatchStatus
    record: WorkerRecord | None = None
    error: str = ""
    attempts: int = 1
    benched_seats: dict[int, str] = field(default_factory=dict)
    voids: int = 0  # how many times this match has been voided, this time included (kept in its host_json)


def to_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def error_line(error: BaseException) -> str:
    """An exception in one clean line (a database error's first line: not its SQL and parameters)."""
    text = str(getattr(error, "orig", None) or error).strip().splitlines()
    return clean_text(f"{type(error).__name__}: {text[0] if text else ''}", one_line=True)[:300]


class Recorder:
    """Writes the finished matches of one tournament (``tournament``, a row of ``session``)."""

    def __init__(self, session: Session, tournament: TournamentRow) -> None:
        assert tournament.id is not None
        self.session = session
        self.tournament = tournament
        self.tournament_id: int = tournament.id
        bind = session.get_bind()
        self._bulk_returning = bool(
            getattr(bind.dialect, "insert_executemany_returning_sort_by_parameter_order", False)
        )
        self._touched = 0.0
        self.done: set[str] = set()  # keys recorded as played or skipped
        self.errors: set[str] = set()  # keys recorded as errors or voided (played again by a new run)
        self.now: set[str] = set()  # keys recorded by this run, errors included
        self.voids: dict[str, int] = {}  # keys recorded as voided: how many times they were voided
        self.unstored = 0  # matches whose result could not be written (recorded as errors with the reason)
        self.seconds = 0.0  # spent writing
        self.batches = 0

    def load_keys(self) -> None:
        """Read which keys the tournament has recorded."""
        for key, status, host_json in tournament_queries.recorded_states(self.session, self.tournament_id):
            (self.errors if status in REPLAYED_STATUSES else self.done).add(key)
            if status == MatchStatus.VOIDED:
                self.voids[key] = _void_count(host_json)

    def _limit_voids(self, batch: Iterable[Finished]) -> None:
        """A match voided :data:`VOID_LIMIT` times is recorded ``unplayable`` with the reason, not voided again."""
        for item in batch:
            if item.status is not MatchStatus.VOIDED:
                continue
            item.voids = self.voids.get(item.match.key, 0) + 1
            if item.voids >= VOID_LIMIT:
                item.status = MatchStatus.UNPLAYABLE
                item.error = (
                    f"voided {item.voids} times for a host fault, so not played again and counted for "
                    f"nothing (run it on a quieter machine with a new tournament to play it); last time: {item.error}"
                )
                log.warning("match %s: %s", item.match.key, clean_text(item.error, one_line=True))

    def repair(self) -> int:
        """Drop matches stored without all their seat rows (by a ladder before atomic storing): they are played
        again. How many were dropped."""
        broken = tournament_queries.matches_missing_seats(self.session, self.tournament_id)
        if broken:
            self._delete_matches(broken)
            self.session.commit()
        return len(broken)

    def record(self, batch: list[Finished], new_benches: Mapping[tuple[int, PoolKey], str]) -> None:
        """Write ``batch`` atomically; what cannot be written is recorded as an error, the run goes on."""
        tick = time.perf_counter()
        self._limit_voids(batch)
        try:
            self._write(batch, new_benches)
        except STORING_ERRORS as error:
            self.session.rollback()
            log.warning(
                "a batch of %d match(es) could not be stored (%s): storing them one by one",
                len(batch),
                error_line(error),
            )
            if new_benches:
                self._write([], new_benches)
            for item in batch:
                self._record_alone(item)
        for item in batch:
            self.now.add(item.match.key)
            if item.status is MatchStatus.VOIDED:
                self.voids[item.match.key] = item.voids
            if item.status in REPLAYED_STATUSES:
                self.errors.add(item.match.key)
            else:
                self.errors.discard(item.match.key)
                self.done.add(item.match.key)
        self.seconds += time.perf_counter() - tick
        self.batches += 1

    def _record_alone(self, item: Finished) -> None:
        """Write one match; if the database refuses it, record it as an error with the reason instead (in place)."""
        try:
            self._write([item], {})
            return
        except STORING_ERRORS as error:
            self.session.rollback()
            reason = f"its result could not be stored: {error_line(error)}"
        log.error("match %s: %s; recorded as an error (a new run plays it again)", item.match.key, reason)
        self.unstored += 1
        item.status, item.record, item.error, item.benched_seats = MatchStatus.ERROR, None, reason[:2000], {}
        self._write([item], {})  # plain ladder values only: if even this fails the database is unusable: stop

    def _delete_matches(self, ids: Iterable[int | None]) -> None:
        ids = list(ids)
        self.session.execute(delete(SeatResultRow).where(col(SeatResultRow.match_id).in_(ids)))
        self.session.execute(delete(MatchRow).where(col(MatchRow.id).in_(ids)))

    def _insert_matches(self, values: list[dict[str, Any]]) -> list[int]:
        """Insert the match rows; their ids, in order."""
        if not values:
            return []
        if self._bulk_returning:  # one INSERT ... RETURNING for the matches (Core: fast)
            table = MatchRow.__table__  # type: ignore[attr-defined]
            return list(
                self.session.execute(
                    insert(table).returning(table.c.id, sort_by_parameter_order=True), values
                ).scalars()
            )
        rows = [MatchRow(**v) for v in values]  # a database without multi-row RETURNING: let the ORM fetch the ids
        self.session.add_all(rows)
        self.session.flush()
        return [row.id for row in rows if row.id is not None]

    def _write(self, batch: list[Finished], new_benches: Mapping[tuple[int, PoolKey], str]) -> None:
        """One transaction: the matches of ``batch`` with all their seat rows, and the new benches; or nothing."""
        retried = [item.match.key for item in batch if item.match.key in self.errors]
        if retried:
            old = tournament_queries.match_ids_of_keys(self.session, self.tournament_id, retried)
            self._delete_matches(old)
        ids = self._insert_matches([self.match_values(item) for item in batch])
        seats = [seat for item, match_id in zip(batch, ids) for seat in self.seat_values(item, match_id)]
        if seats:
            self.session.execute(insert(SeatResultRow.__table__), seats)  # type: ignore[attr-defined]
        for (version, pool), reason in new_benches.items():
            self.session.add(
                BenchRow(tournament_id=self.tournament_id, bot_version_id=version, pool=str(pool), reason=reason)
            )
        if new_benches or time.monotonic() - self._touched > 10:
            self.tournament.updated_at = utcnow()  # "last activity", refreshed every ten seconds
            self.session.add(self.tournament)
            self._touched = time.monotonic()
        self.session.commit()
        self.session.expunge_all()
        self.session.add(self.tournament)

    def match_values(self, item: Finished) -> dict[str, Any]:
        """The column values of a match row (plain values: inserted in bulk, no ORM object per match)."""
        match, record = item.match, item.record
        values: dict[str, Any] = {
            "tournament_id": self.tournament_id,
            "key": match.key,
            "cycle": match.cycle,
            "deal": match.deal,
            "game": match.game,
            "options_json": to_json(dict(match.options)),
            "num_players": len(match.seats),
            "seed": match.seed,
            "seats_json": to_json([e.ref for e in match.seats]),
            "status": item.status.value,
            "error": clean_text(item.error),
            "attempts": item.attempts,
            "started_at": None,
            "finished_at": datetime.now(UTC),
            "seconds": 0.0,
            "think_json": "[]",
            "details_json": "{}",
            "action_count": 0,
            "actions_z": b"",
            "move_us_z": b"",
            "worker": "",
        }
        if record is not None:
            started = record.started_at
            values.update(
                started_at=started,
                finished_at=started + timedelta(seconds=record.seconds),
                seconds=record.seconds,
                think_json=to_json(list(record.think)),
                details_json=to_json(record.details),
                actions_z=record.actions_z,
                action_count=record.action_count,
                worker=record.worker,
                host_json=to_json({**record.host, **({"voids": item.voids} if item.voids else {})}),
                move_us_z=pack_actions(record.move_us) if record.move_us else b"",
            )
        return values

    def seat_values(self, item: Finished, match_id: int) -> list[dict[str, Any]]:
        """The column values of the match's seat rows: score, rank, and the failure if any."""
        failures = item.record.failures if item.record is not None else {}
        seats = []
        for seat, entrant in enumerate(item.match.seats):
            values: dict[str, Any] = {
                "match_id": match_id,
                "seat": seat,
                "bot_version_id": entrant.version_id,
                "score": None,
                "rank": None,
                "failure_reason": None,
                "failure_detail": "",
                "stderr_tail": "",
                "at_action": None,
            }
            if item.record is not None:
                values["score"] = float(item.record.scores[seat])
                values["rank"] = int(item.record.ranks[seat])
                stderr = item.record.stderr
                values["stderr_tail"] = str(stderr[seat])[-4000:] if seat < len(stderr) else ""
            failure = failures.get(seat)
            if failure is not None:
                values.update(
                    failure_reason=failure.reason,
                    failure_detail=clean_text(failure.detail)[:2000],
                    stderr_tail=clean_text(failure.stderr_tail)[-4000:],
                    at_action=failure.at_action,
                )
            elif seat in item.benched_seats:
                values.update(
                    failure_reason=FailureReason.BENCHED.value,
                    failure_detail=clean_text(item.benched_seats[seat])[:2000],
                )
            seats.append(values)
        return seats


def _void_count(host_json: str) -> int:
    """How many times a voided match was voided (kept in its ``host_json``; 1 for one stored before the count)."""
    try:
        count = json.loads(host_json or "{}").get("voids", 1)
    except (ValueError, AttributeError):
        return 1
    return count if isinstance(count, int) and count >= 1 else 1


def recorded_keys(session: Session, tournament_id: int) -> set[str]:
    """The keys a tournament has recorded as played or skipped (an error or a voided match is played again)."""
    return tournament_queries.recorded_keys(session, tournament_id)
