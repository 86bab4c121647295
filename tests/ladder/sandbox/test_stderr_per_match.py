"""A failure shows the stderr of its own match, not what the same bot process printed in earlier ones (issue 24)."""

from __future__ import annotations

import json
import os
import time
import types
from pathlib import Path

import pytest

from tests.cli.test_author_tools import ladder, needs_elfer_raus, sandbox_or_skip

THIRD = """import sys

from ladder.bot import Bot


class Third(Bot):
    name = "third"
    games = ("elfer-raus",)
    every_decision = True  # asked at every decision, forced ones too: its first is action #1
    started = 0

    def start(self, match):
        super().start(match)
        type(self).started += 1
        print(f"start of match {type(self).started} of this process", file=sys.stderr)

    def act(self, observation, legal_actions):
        if type(self).started == 3:
            raise RuntimeError("the third match of this process")
        return legal_actions[0]
"""


@needs_elfer_raus
def test_the_failure_of_a_reused_process_shows_only_its_own_matchs_stderr(tmp_path: Path) -> None:
    (tmp_path / "third.py").write_text(THIRD)
    run = ladder("play", "elfer-raus", "third.py", "random", "-n", "4", "-o", "rounds=1", "--json", cwd=tmp_path)
    if run.returncode != 0:
        sandbox_or_skip(run)
    failure = json.loads(run.stdout)["first_failure"]
    assert failure["detail"].startswith("RuntimeError while choosing its action #1"), failure
    tail = failure["stderr_tail"]
    assert "RuntimeError: the third match of this process" in tail and "start of match 3 of this process" in tail
    assert "start of match 1" not in tail and "start of match 2" not in tail, tail


def test_a_line_out_of_the_pipe_but_not_yet_kept_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The drain thread may be descheduled between reading a chunk and keeping it; what the bot wrote just before
    its failure must still be in the failure's stderr (it was missing from one match in a CI run). Here every read
    is followed by 50 ms before the chunk is kept."""
    from ladder.sandbox import stderr_tail

    real_read = os.read

    def slow_read(fd: int, size: int) -> bytes:
        chunk = real_read(fd, size)
        time.sleep(0.05)  # out of the pipe, not yet in the buffer
        return chunk

    monkeypatch.setattr(stderr_tail, "os", types.SimpleNamespace(read=slow_read, close=os.close))
    read_end, write_end = os.pipe()
    tail = stderr_tail.StderrTail(read_end)
    try:
        os.write(write_end, b"crowd: seat 1 of 3\n")
        time.sleep(0.08)  # the first chunk is kept
        mark = tail.total
        os.write(write_end, b"crowd gives up\n")
        time.sleep(0.01)  # the drain has read it and sleeps before keeping it
        assert tail.since(mark) == "crowd gives up\n"
    finally:
        os.close(write_end)
        tail.wait(1.0)
