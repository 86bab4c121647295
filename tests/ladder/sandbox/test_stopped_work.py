"""CPU a stopped bot uses during another bot's move is seen, given back to the mover, and marked on the worker."""

from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace

from ladder.sandbox.host_evidence import CpuTheft, _stat_fields, _ticks, worked_while_stopped
from ladder.sandbox.process import GIVE_BACK_LIMIT, BotProcess


def test_cpu_of_another_party_bot_during_a_move_is_given_back_and_marked() -> None:
    spinner = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 5\nwhile time.time() < end: pass"]
    )
    try:
        time.sleep(0.1)
        theft = CpuTheft((0,), None, 0, {spinner.pid: _ticks(_stat_fields(spinner.pid))})
        started = time.process_time()
        while _ticks(_stat_fields(spinner.pid)) - theft.mains[spinner.pid] < 30 and time.process_time() - started < 4:
            time.sleep(0.05)
        mover = SimpleNamespace(_watch=SimpleNamespace(theft=theft), bot_pid=-1, _move_limit=1.0, _given_back=0.0)
        assert BotProcess._give_back(mover)  # type: ignore[arg-type]
        assert 0.25 <= mover._given_back <= GIVE_BACK_LIMIT * mover._move_limit
        assert worked_while_stopped(spinner.pid) >= 0.25
        assert worked_while_stopped(spinner.pid) == 0.0  # told once
        own = SimpleNamespace(
            _watch=SimpleNamespace(theft=theft), bot_pid=spinner.pid, _move_limit=1.0, _given_back=0.0
        )
        assert not BotProcess._give_back(own)  # type: ignore[arg-type]  # a bot's own CPU is never given back to it
    finally:
        spinner.kill()
        spinner.wait()
