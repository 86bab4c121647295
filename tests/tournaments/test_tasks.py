"""The typed messages between coordinator and worker: a round trip keeps every field; another version is refused."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime

import pytest

from ladder.matches.match import SeatFailure
from ladder.matches.statuses import FailureReason
from tournaments.executors.tasks import SCHEMA_VERSION, MatchTask, SchemaMismatch, WorkerRecord
from tournaments.executors.worker import play_task


def test_a_task_and_a_record_survive_the_wire_unchanged() -> None:
    task = MatchTask(
        key="c0/g/o0/2p/d0/a+b",
        game="g",
        seats=("a", "store:" + "0" * 64),
        seed=7,
        options={"coins": 3},
        limits={"move_seconds": 1.0},
        bot_seeds=(1, 2),
        deal="c0/g/o0/2p/d0",
        hashes=("x", "y"),
        retire=("z",),
    )
    assert MatchTask.from_wire(task.to_wire()) == task
    assert task.to_wire() == {"schema": SCHEMA_VERSION, **asdict(task)}  # the wire of any ladder of this schema
    record = WorkerRecord(
        key=task.key,
        scores=(1.0, 0.0),
        ranks=(1, 2),
        details={"won": True},
        actions_z=b"\x00",
        action_count=3,
        failures={1: SeatFailure(FailureReason.TIMEOUT, "slow", "tail", 2)},
        seconds=0.5,
        cpu_seconds=0.25,
        think=(0.1, 0.2),
        stderr=("", "oops"),
        started_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        worker="host:1",
    )
    wire = record.to_wire()
    assert wire["schema"] == SCHEMA_VERSION and wire["failures"][1]["reason"] == "timeout"
    assert WorkerRecord.from_wire(wire) == record


@pytest.mark.parametrize("schema", [None, SCHEMA_VERSION + 1])
def test_a_message_of_another_schema_version_is_refused_with_what_to_do(schema: int | None) -> None:
    wire = MatchTask(key="k", game="g", seats=("a",), seed=1).to_wire()
    wire.pop("schema") if schema is None else wire.update(schema=schema)
    with pytest.raises(SchemaMismatch, match=rf"schema version {schema!r} arrived .* install the same version"):
        play_task(wire)
    with pytest.raises(SchemaMismatch, match="match record"):
        WorkerRecord.from_wire({"schema": schema})
