"""Fair clocks through the real front door (issue 13): `ladder submit` and `ladder run` into a temporary database.

- A bot that uses 0.6 s of CPU per move under ``move_seconds = 1`` never
  loses on time while four extra CPU-bound processes run beside the
  tournament on this (2-core, shared) machine; a bot that uses 1.5 s per move
  still loses on time, with a CPU-time reason.
- A bot whose process is stopped (``SIGSTOP``) from outside while it thinks
  is starved by the host: its wall-clock timeout voids the match (recorded
  as ``voided``, shown so by ``ladder matches``, counted for nothing), and the
  next ``ladder run`` plays it again from its key.
- A bot that sleeps past the wall-clock cap loses on time with a wall-clock
  reason (it was not starved: it was not runnable).

The bots play Bowling Solitaire against nobody: each match is one bot alone,
so a seat's fate is its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import game_ids
from ladder.sandbox.layers import available_layers
from tests.ladder.front_door import LadderHome

GAME = "bowling-solitaire"
pytestmark = [
    pytest.mark.needs_bot_sandbox,
    pytest.mark.skipif(GAME not in game_ids(), reason=f"{GAME} is not registered"),
    pytest.mark.skipif("bubblewrap" not in available_layers(), reason="needs the bubblewrap sandbox layer"),
]

BOT = """
# {marker}
import sys, time
from ladder.bot import Bot

BURN_SECONDS = {burn}  # CPU seconds burnt on each of the first BURN_MOVES moves of a match
BURN_MOVES = {moves}
SLEEP_SECONDS = {sleep}  # wall-clock seconds slept on the first move of a match (not runnable meanwhile)


def _burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


class ClockBot(Bot):
    name = "{name}"
    author = "the clock tests"
    games = ("{game}",)

    def start(self, match):
        super().start(match)
        self.moves = 0

    def act(self, observation, legal_actions):
        self.moves += 1
        if self.moves == 1:
            print(f"clock {{self.clock}}", file=sys.stderr)
        if self.moves <= BURN_MOVES:
            _burn(BURN_SECONDS)
        if self.moves == 1 and SLEEP_SECONDS:
            time.sleep(SLEEP_SECONDS)
        return legal_actions[0]
"""


def bot_file(home: LadderHome, name: str, burn: float = 0.0, moves: int = 0, sleep: float = 0.0) -> Path:
    marker = f"clock-test-bot {name} of {home.root}"
    path = home.root / f"{name.replace('-', '_')}.py"
    path.write_text(BOT.format(marker=marker, burn=burn, moves=moves, sleep=sleep, name=name, game=GAME))
    return path


def submit(home: LadderHome, path: Path) -> None:
    home.ladder_ok("submit", str(path), "--matches", "1", timeout=900)


def bot_pids(marker: str) -> list[int]:
    """Bot processes (the Python bot host, not bubblewrap) whose bot file holds ``marker``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            if b"bot_host.py" not in b" ".join(argv) or b"bwrap" in argv[0]:
                continue
            source = Path(f"/proc/{entry.name}/root/bot/bot.py").read_text(errors="replace")
        except OSError:
            continue
        if marker in source:
            found.append(int(entry.name))
    return found


def state_of(pid: int) -> str:
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return ""
    return text[text.rfind(b")") + 2 :].split()[0].decode()


class Starver(threading.Thread):
    """Stops (SIGSTOP) a bot's process from outside while it thinks, once, and keeps it stopped until the ladder
    has killed it: the host starving a bot, as an overloaded machine or a misbehaving neighbour would."""

    def __init__(self, marker: str, hold_seconds: float) -> None:
        super().__init__(daemon=True)
        self.marker = marker
        self.hold_seconds = hold_seconds
        self.stopped: list[int] = []  # pids stopped and then killed by the ladder
        self.finish = threading.Event()

    def run(self) -> None:
        while not self.finish.is_set() and not self.stopped:
            for pid in bot_pids(self.marker):
                if state_of(pid) != "R":  # stopped by the ladder between turns, or waiting: not thinking
                    continue
                os.kill(pid, signal.SIGSTOP)
                deadline = time.monotonic() + self.hold_seconds
                while time.monotonic() < deadline and state_of(pid):
                    time.sleep(0.05)
                if state_of(pid):  # the ladder answered and stopped it first (a race): let it go, try again
                    os.kill(pid, signal.SIGCONT)
                else:
                    self.stopped.append(pid)
                break
            time.sleep(0.01)


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[LadderHome]:
    ladder_home = LadderHome(tmp_path)
    yield ladder_home
    assert ladder_home.leftover_processes() == [], "processes of this test outlived it"


def seats_of(home: LadderHome, bot: str) -> list[tuple[dict[str, object], dict[str, object]]]:
    return [(match, seat) for match in home.matches() for seat in match["seats"] if seat["bot"] == bot]


@pytest.mark.slow
def test_cpu_clock_ignores_a_busy_host_but_stops_a_bot_over_its_cpu_time(home: LadderHome) -> None:
    """0.6 s of CPU a move under move_seconds = 1 with four CPU hogs beside the run: never a loss on time;
    1.5 s a move: a loss on time, for CPU time.

    The wall-clock cap is set high here (30 s): this machine is shared with other work besides the four hogs,
    and what is tested is the CPU clock (a wall-clock timeout would be a host fault and void the match anyway).
    """
    submit(home, bot_file(home, "thinker", burn=0.6, moves=3))
    submit(home, bot_file(home, "overthinker", burn=1.5, moves=1))
    home.write_tournament(
        "busy-host",
        {
            "seed": 5,
            "games": [GAME],
            "bots": ["thinker", "overthinker"],
            "games_per_pairing": 3,
            "workers": 1,
            "limits": {"move_seconds": 1.0, "move_wall_seconds": 30.0, "bench_after_failures": 1000},
        },
    )
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        run = home.ladder("run", str(home.root / "busy-host.toml"), "--no-progress", "--no-rankings", timeout=900)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    thinker = seats_of(home, "thinker")
    assert len(thinker) == 3 and all(match["status"] == "played" for match, _ in thinker), thinker
    assert [seat["failure"] for _, seat in thinker] == [None] * 3, thinker
    assert all("clock Clock(move_seconds=1.0, bank_seconds=0.0)" in str(seat["stderr"]) for _, seat in thinker), thinker
    overthinker = seats_of(home, "overthinker")
    assert len(overthinker) == 3, overthinker
    for match, seat in overthinker:
        assert match["status"] == "played", match
        assert seat["failure"] == "timeout", seat
        assert "of CPU time on one move" in str(seat["detail"]) and "its limit: 1 s" in str(seat["detail"]), seat


@pytest.mark.slow
def test_a_starved_bot_voids_the_match_and_a_sleeping_bot_loses_on_wall_time(home: LadderHome) -> None:
    """SIGSTOP from outside while the bot thinks: voided (shown by `ladder matches`), never counted, replayed by
    the next run. A bot that sleeps past the wall-clock cap: a loss on time, for wall-clock time."""
    submit(home, bot_file(home, "starved", burn=0.4, moves=4))
    submit(home, bot_file(home, "sleeper", sleep=4.0))
    home.write_tournament(
        "starved",
        {
            "seed": 9,
            "games": [GAME],
            "bots": ["starved", "sleeper"],
            "games_per_pairing": 2,
            "workers": 1,
            "limits": {"move_seconds": 1.0, "move_wall_seconds": 2.0, "bench_after_failures": 1},
        },
    )
    starver = Starver(f"clock-test-bot starved of {home.root}", hold_seconds=8.0)
    starver.start()
    try:
        first = home.ladder("run", str(home.root / "starved.toml"), "--no-progress", "--no-rankings", timeout=900)
    finally:
        starver.finish.set()
        starver.join()
    assert first.returncode == 0, first.stdout + first.stderr
    assert starver.stopped, "the starved bot was never caught thinking"
    voided = [m for m in home.matches() if m["status"] == "voided"]
    assert len(voided) == 1, home.matches()
    assert "host fault" in voided[0]["error"] and "stopped by someone else" in voided[0]["error"], voided[0]
    listed = json.loads(home.ladder_ok("matches", "--status", "voided", "--json").stdout)
    assert [m["key"] for m in listed] == [voided[0]["key"]]
    assert "host fault" in listed[0]["error"]
    shown = home.ladder_ok("matches").stdout
    assert "voided: host fault" in " ".join(shown.split()), shown
    # never counted: the starved bot is not benched (one failure would bench it) and its other match was played
    starved_seats = seats_of(home, "starved")
    assert any(m["status"] == "played" and s["failure"] is None for m, s in starved_seats), starved_seats
    assert not home.query(
        "select * from bench_pool where bot_version_id in "
        "(select v.id from bot_version v join bot b on b.id = v.bot_id where b.name = 'starved')"
    )
    # the sleeper was not starved: it was asleep. It loses on time, for wall-clock time, and is benched
    sleeper = [(m, s) for m, s in seats_of(home, "sleeper") if s["failure"] == "timeout"]
    assert sleeper, seats_of(home, "sleeper")
    match, seat = sleeper[0]
    assert match["status"] == "played" and seat["failure"] == "timeout", (match, seat)
    assert "wall-clock limit of 2 s" in str(seat["detail"]) and "did not starve" in str(seat["detail"]), seat

    second = home.ladder("run", str(home.root / "starved.toml"), "--no-progress", "--no-rankings", timeout=900)
    assert second.returncode == 0, second.stdout + second.stderr
    replayed = [m for m in home.matches() if m["key"] == voided[0]["key"]]
    assert len(replayed) == 1 and replayed[0]["status"] == "played", replayed
    assert replayed[0]["seed"] == voided[0]["seed"], "the replay deals the same cards"
    assert all(seat["failure"] is None for seat in replayed[0]["seats"]), replayed
