"""The sandbox limits travel as typed values (issue 34): to a worker in a match task, to a sandbox's host in its config."""

from __future__ import annotations

import json

import pytest

from ladder.guest.rlimits import ProcessLimits
from ladder.sandbox.build import BuildLimits
from ladder.sandbox.limits import SandboxLimits
from tournaments.executors.tasks import MatchTask


def test_a_tasks_limits_are_the_one_limits_type_on_both_sides_of_the_wire() -> None:
    limits = SandboxLimits(move_seconds=0.5, packages=("numpy",), move_wall_seconds=None, clock_builtin_bots=True)
    task = MatchTask(key="k", game="g", seats=("a",), seed=1, limits=limits)
    wire = json.loads(json.dumps(task.to_wire()))  # what any executor could carry
    back = MatchTask.from_wire(wire)
    assert isinstance(back.limits, SandboxLimits) and back.limits == limits
    assert MatchTask(key="k", game="g", seats=("a",), seed=1, limits={"move_seconds": 0.5}).limits == SandboxLimits(
        move_seconds=0.5
    )


def test_the_hosts_read_the_process_limits_the_ladder_sends() -> None:
    for limits in (SandboxLimits(memory_mb=300, threads=7).process_limits(), BuildLimits(seconds=9).process_limits()):
        assert ProcessLimits.from_json(json.loads(json.dumps(limits.to_json()))) == limits
    bot = SandboxLimits(memory_mb=300, threads=7, file_mb=2).process_limits()
    assert (bot.memory_bytes, bot.processes, bot.file_bytes, bot.core_bytes) == (300 << 20, 7, 2 << 20, 0)
    assert BuildLimits(seconds=9).process_limits().cpu_seconds == 10
    with pytest.raises(ValueError, match="unknown process limits: stack_bytes"):
        ProcessLimits.from_json({**bot.to_json(), "stack_bytes": 1})
