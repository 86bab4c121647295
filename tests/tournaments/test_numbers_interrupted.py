"""Every count agrees over a real database that was interrupted, killed and resumed, with a benched bot (issue 24,
point 7), through the real CLI in a terminal (so the progress bar is drawn and can be read back).

A tournament of Elfer raus with a submitted bot that crashes at every tournament table (it passed its check,
which plays the default options) is stopped with Ctrl-C, resumed and killed with kill -9, then resumed to the end.
After each step: done <= scheduled in `ladder tournaments`, its counts equal the run's summary and the database,
the progress bar's count equals the summary's, the dry run's count equals what the next run plays, every overall
score lies inside its interval, and (at the end) the report's "N of M" equals the run's.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from engine import game_ids

pytestmark = pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")

CRASHER = """from ladder.bot import Bot


class Crasher(Bot):
    name = "crashes-at-every-tournament-table"
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        if self.match.options.get("rounds") == 1:  # the check plays the default 3 rounds: only tournaments crash
            raise RuntimeError("boom")
        return legal_actions[0]
"""

TOURNAMENT = """name = "numbers"
seed = 11
games = ["elfer-raus"]
bots = ["random", "thumb", "search", "crashes-at-every-tournament-table"]
players = [2]
games_per_pairing = 3
workers = 1

[game.elfer-raus]
options = { rounds = 1 }

[limits]
bench_after_failures = 2
"""
SCHEDULED = 36  # 6 pairings x 2 seatings x 3 deals
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def env(where: Path) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200", "LADDER_RESULTS": str(where / "results")}


def ladder(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env(cwd)
    )


class Terminal:
    """`ladder run` in a pseudo-terminal of its own session (its progress bar drawn, Ctrl-C sent to its group)."""

    def __init__(self, where: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a terminal 120 columns wide
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cli", "run", "numbers.toml", "--db", "ladder.db"],
            cwd=where,
            env=env(where),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._read, args=(master,), daemon=True)
        self.reader.start()

    def _read(self, master: int) -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            self.chunks.append(chunk)
        os.close(master)

    def signal(self, number: signal.Signals) -> None:
        os.killpg(self.process.pid, number)

    def finish(self) -> str:
        self.process.wait(timeout=600)
        self.reader.join(timeout=30)
        return ANSI.sub("", b"".join(self.chunks).decode(errors="replace"))


def rows(where: Path) -> int:
    try:
        with sqlite3.connect(where / "ladder.db", timeout=10) as db:
            return int(db.execute("select count(*) from match").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def wait_for_rows(where: Path, at_least: int, terminal: Terminal) -> None:
    deadline = time.monotonic() + 300
    while rows(where) < at_least:
        assert terminal.process.poll() is None, terminal.finish()
        assert time.monotonic() < deadline, "too few matches recorded in time"
        time.sleep(0.05)


def summary_of(text: str) -> tuple[int, int, int]:
    """The run's summary: recorded, scheduled, and how many matches this run finished."""
    found = re.search(r"(\d+) of (\d+) matches recorded; this run finished (\d+)", " ".join(text.split()))
    assert found, text
    recorded, scheduled, finished = map(int, found.groups())
    return recorded, scheduled, finished


def bar_of(text: str) -> tuple[int, int, int]:
    """The progress bar: its first count (where this run began), its last count, and its total."""
    counts = [(int(n), int(total)) for n, total in re.findall(r"(\d+)/(\d+) \[", text)]
    assert counts, text
    return counts[0][0], counts[-1][0], counts[-1][1]


def listed(where: Path) -> dict:
    (tournament,) = json.loads(ladder("tournaments", "--json", "--db", "ladder.db", cwd=where).stdout)
    return tournament


def check_numbers(where: Path) -> dict:
    """What holds after any run, interrupted or not; the tournament as `ladder tournaments` lists it."""
    tournament = listed(where)
    done = tournament["played"] + tournament["skipped"] + tournament["errors"] + tournament["unplayable"]
    assert done <= tournament["scheduled"] == SCHEDULED, tournament
    assert done + tournament["voided"] + tournament["older_versions"] == rows(where), tournament
    rankings = json.loads(ladder("rankings", "--json", "--db", "ladder.db", cwd=where).stdout)
    for row in rankings["overall"]:
        low, high = row["score_interval"]
        assert low <= row["score"] <= high, row
    return tournament


def check_run(text: str, before: int, tournament: dict) -> int:
    """A run that printed its summary: the bar counted what the summary says, and the summary what is stored."""
    recorded, scheduled, finished = summary_of(text)
    first, last, total = bar_of(text)
    assert (first, last, total) == (before, recorded, scheduled), (first, last, total, text)
    assert recorded - before == finished, text
    assert recorded == tournament["played"] + tournament["skipped"] + tournament["errors"] + tournament["unplayable"]
    return recorded


def dry_run_count(where: Path) -> int:
    plan = json.loads(ladder("run", "numbers.toml", "--dry-run", "--json", "--db", "ladder.db", cwd=where).stdout)
    return int(plan["to_play"])


@pytest.mark.slow
def test_interrupted_killed_and_resumed_with_a_benched_bot_every_count_agrees(tmp_path: Path) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    submitted = ladder("submit", "crasher.py", "--db", "ladder.db", "--matches", "1", cwd=tmp_path)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    (tmp_path / "numbers.toml").write_text(TOURNAMENT)

    # Ctrl-C mid-run: the run stops, says what it finished, and the bar agrees
    terminal = Terminal(tmp_path)
    wait_for_rows(tmp_path, 6, terminal)
    terminal.signal(signal.SIGINT)
    text = terminal.finish()
    assert terminal.process.returncode == 128 + signal.SIGINT and "Traceback" not in text, text  # as a shell expects
    tournament = check_numbers(tmp_path)
    assert tournament["state"] == "stopped", tournament
    recorded = check_run(text, 0, tournament)
    assert 0 < recorded < SCHEDULED, text

    # resumed, then kill -9 (the whole process group: no clean-up at all)
    assert dry_run_count(tmp_path) == SCHEDULED - recorded
    terminal = Terminal(tmp_path)
    wait_for_rows(tmp_path, recorded + 4, terminal)
    terminal.signal(signal.SIGKILL)
    terminal.finish()
    tournament = check_numbers(tmp_path)
    killed_at = tournament["played"] + tournament["skipped"] + tournament["errors"] + tournament["unplayable"]
    assert recorded < killed_at < SCHEDULED, tournament

    # resumed to the end: exactly what the dry run said is played, and every count agrees
    to_play = dry_run_count(tmp_path)
    assert to_play == SCHEDULED - killed_at
    terminal = Terminal(tmp_path)
    text = terminal.finish()
    assert terminal.process.returncode == 0, text
    tournament = check_numbers(tmp_path)
    assert tournament["state"] == "complete" and tournament["benched"] == 1 and tournament["skipped"] > 0, tournament
    assert check_run(text, killed_at, tournament) == SCHEDULED
    assert summary_of(text)[2] == to_play
    assert dry_run_count(tmp_path) == 0

    report = ladder("report", "--db", "ladder.db", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = next((tmp_path / "results" / "report" / "tournaments").glob("*.html")).read_text()
    found = re.search(r"(\d+) of (\d+) scheduled matches done", page)
    assert found, page
    done, scheduled = map(int, found.groups())
    assert (done, scheduled) == (SCHEDULED, SCHEDULED), (done, scheduled)
