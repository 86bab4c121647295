"""Batched writes of results (tournaments.coordinator.write_buffer): a kill -9 in the middle of a batch loses nothing for good.

The coordinator keeps finished matches for a moment and writes them in one
transaction. A ``kill -9`` while results wait to be written, or in the
middle of writing a batch (rows inserted, not committed), must leave a
database that a second run completes with exactly the schedule: nothing
lost, nothing recorded twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlmodel import Session, select

from ladder.matches.statuses import MatchStatus
from ladder.store.database import open_database
from ladder.store.tables import MatchRow, SeatResultRow
from tournaments.coordinator.recorder import Finished
from tournaments.coordinator.write_buffer import WriteBuffer, WritePolicy
from tournaments.formats.round_robin import ScheduledMatch

ROOT = Path(__file__).resolve().parents[2]

# The coordinator kills itself (SIGKILL, no clean-up) at a chosen point of its third write:
# "waiting": results have arrived and wait in the buffer, not written; "writing": the batch's match rows are
# inserted, its seat rows and the commit are not.
SCRIPT = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {root!r})
    from tests.tournaments import toygames
    toygames.install()
    from tournaments.formats.config import parse_tournament
    from tournaments.coordinator.recorder import Recorder
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament
    from tournaments.coordinator.write_buffer import WriteBuffer, WritePolicy

    KILL = os.environ.get("KILL_AT", "")
    writes = []

    def die():
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    real_record, real_insert, real_add = Recorder.record, Recorder._insert_matches, WriteBuffer.add

    def record(self, batch, benches):
        writes.append(len(batch))
        return real_record(self, batch, benches)

    def insert(self, values):
        ids = real_insert(self, values)
        if KILL == "writing" and len(writes) == 3:
            print("KILLED WRITING", len(values), flush=True)
            die()
        return ids

    def add(self, batch, benches):
        real_add(self, batch, benches)
        if KILL == "waiting" and len(writes) >= 2 and len(self) >= 3:
            print("KILLED WAITING", len(self), flush=True)
            die()

    Recorder.record, Recorder._insert_matches, WriteBuffer.add = record, insert, add

    if __name__ == "__main__":  # workers start from a fork server and import this file
        cfg = parse_tournament({{"seed": 9, "games": ["toy-coins", "toy-solo"], "bots": ["random", "greedy", "slow"],
                                "games_per_pairing": 6, "game": {{"toy-coins": {{"players": [2, 3]}}}}}}, "crash.toml", "crash")
        report = run_tournament(cfg, RunOptions(db_url={db!r}, workers=2, progress=False,
                                                worker_setup="tests.tournaments.toygames:install",
                                                write_policy=WritePolicy(seconds=0.3, size=1000)))
        print("STATE", report.state, report.played_now, report.scheduled, report.db_batches)
""")


def run_coordinator(db_url: str, tmp_path: Path, kill_at: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "coordinator.py"
    script.write_text(SCRIPT.format(root=str(ROOT), db=db_url))
    env = dict(os.environ, TOY_SLOW_SECONDS="0.01", LADDER_RESULTS=str(tmp_path / "results"), KILL_AT=kill_at)
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)


def stored(db_url: str) -> tuple[list[str], int, int]:
    """The recorded keys, the seat rows, and the seats the recorded matches should have."""
    engine = open_database(db_url)
    with Session(engine) as session:
        matches = session.exec(select(MatchRow)).all()
        seats = len(session.exec(select(SeatResultRow)).all())
    engine.dispose()
    return [m.key for m in matches], seats, sum(m.num_players for m in matches)


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", ["waiting", "writing"])
def test_a_kill_minus_9_mid_batch_loses_nothing_for_good_and_duplicates_nothing(
    toy, db_url: str, tmp_path: Path, kill_at: str
) -> None:
    killed = run_coordinator(db_url, tmp_path, kill_at)
    assert killed.returncode == -9, killed.stderr
    assert f"KILLED {kill_at.upper()}" in killed.stdout
    before, seats, expected_seats = stored(db_url)
    assert before and seats == expected_seats  # two batches committed whole; the third left no trace
    finished = run_coordinator(db_url, tmp_path, "")
    assert finished.returncode == 0, finished.stderr
    state, played, scheduled, batches = finished.stdout.split("STATE ")[1].split()
    after, seats, expected_seats = stored(db_url)
    assert state == "complete"
    assert len(after) == len(set(after)) == int(scheduled)  # exactly the schedule, nothing twice
    assert seats == expected_seats  # every match with all its seat rows
    assert int(played) == int(scheduled) - len(before)  # the killed batch was played again, nothing else
    assert set(before) <= set(after)
    assert int(batches) < int(played)  # written in batches, not one transaction per match


def finished(status: MatchStatus = MatchStatus.PLAYED) -> Finished:
    return Finished(ScheduledMatch.__new__(ScheduledMatch), status)  # the buffer never looks inside the match


def test_the_buffer_falls_due_on_its_timer_or_its_size_and_hands_everything_over() -> None:
    buffer = WriteBuffer(WritePolicy(seconds=0.2, size=3))
    assert not buffer.due() and buffer.wait_limit(0.5) == 0.5  # nothing waiting: the coordinator may wait long
    buffer.add([finished()], {})
    assert not buffer.due() and 0 < buffer.wait_limit(0.5) <= 0.2  # it wakes up in time for the timer
    time.sleep(0.25)
    assert buffer.due() and buffer.wait_limit(0.5) == 0.0
    items, benches = buffer.take()
    assert len(items) == 1 and benches == {} and len(buffer) == 0 and not buffer.due()
    buffer.add([finished(), finished(MatchStatus.SKIPPED), finished()], {})
    assert buffer.due()  # three results: the size, without waiting for the timer
    assert [item.status for item in buffer.take()[0]] == [MatchStatus.PLAYED, MatchStatus.SKIPPED, MatchStatus.PLAYED]
