"""Clocks and verdicts a bot cannot game (issue 23), through the front door: `ladder submit`, then `ladder run`.

Each hostile bot behaves during `ladder submit` (its check runs with
``move_seconds = 1``) and turns hostile in the tournament, whose clock it
recognises (``move_seconds = 0.5``). Each test checks that the hostile bot loses (or is refused) with
a reason that names it, that the honest bot's record is untouched, that no
match is voided on the hostile bot's evidence, and that the tournament
completes:

1. a bot that stops itself (``SIGSTOP`` and friends, in ``act``, in ``start``)
   loses on time; one that fails while hearing the result (``end``) keeps the
   result it had, and is told so;
2. a match voided again on replay is recorded ``unplayable`` and the
   tournament completes (a real host fault: stopped from outside, twice);
3. a thread storm is a loss on time, never a host fault;
4. an executable bot that spins between turns cannot starve its opponent: it
   is stopped between turns, and loses on its own clock;
5. an executable bot's duplicate keys, extra lines and unasked lines are
   garbage;
6. names that pass for built-ins are refused.

And a real host fault still voids: CPU taken by outside processes pinned to the
bot's CPU.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import game_ids
from ladder.sandbox.layers import available_layers
from tests.ladder.front_door import LadderHome, assert_every_match_recorded, assert_one_clear_line
from tests.ladder.sandbox.test_front_door_clocks import Starver, bot_file

GAME = "elfer-raus"
pytestmark = [
    pytest.mark.needs_bot_sandbox,
    pytest.mark.skipif(GAME not in game_ids(), reason=f"{GAME} is not registered"),
    pytest.mark.skipif(
        not {"bubblewrap", "seccomp"} <= set(available_layers()),
        reason="needs the bubblewrap and seccomp sandbox layers",
    ),
]
LIMITS = {"move_seconds": 0.5, "move_wall_seconds": 1.5, "bench_after_failures": 1000}
# A bot that computes is judged on its CPU clock: a wall-clock cap this long is reached first only on a host whose
# other work takes over 97% of the bot's CPU (a real host fault, which this shared test machine can reach at 1.5 s).
CPU_LIMITS = {**LIMITS, "move_wall_seconds": 20.0}

HONEST = """
import time
from ladder.bot import Bot


class Honest(Bot):
    name = "honest"
    author = "the void tests"
    games = ("elfer-raus",)

    def start(self, match):
        super().start(match)
        self.moves = 0

    def act(self, observation, legal_actions):
        self.moves += 1
        if self.moves <= 3:  # 0.1 s of CPU on its first moves: measured, and starved if anyone took its CPU
            started = time.process_time()
            while time.process_time() - started < 0.1:
                pass
        return legal_actions[0]
"""

HOSTILE = """
import os, signal, sys, threading, time
from ladder.bot import Bot

HOSTILE_CLOCK = 0.5  # the tournament's move_seconds; the submission check's is 1
WHERE = "{where}"
HOW = "{how}"
_hostile_now = False


def _timer_stop():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    event = (ctypes.c_int * 16)()
    event[2], event[3] = signal.SIGSTOP, 0  # sigev_signo, sigev_notify = SIGEV_SIGNAL
    timer = ctypes.c_void_p()
    if libc.timer_create(1, event, ctypes.byref(timer)) != 0:
        raise OSError(ctypes.get_errno(), "timer_create")
    when = (ctypes.c_long * 4)(0, 0, 0, 1000)
    libc.timer_settime(timer, 0, when, None)
    time.sleep(0.1)


def _file_signal_stop():
    import fcntl
    read, write = os.pipe()
    fcntl.fcntl(read, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(read, 10, signal.SIGSTOP)  # F_SETSIG
    fcntl.fcntl(read, fcntl.F_SETFL, fcntl.fcntl(read, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(write, b"x")
    time.sleep(0.1)


def _stop_myself():
    tried = []
    attempts = (
        ("timer_create SIGSTOP", _timer_stop),
        ("F_SETSIG SIGSTOP", _file_signal_stop),
        ("kill SIGSTOP", lambda: os.kill(os.getpid(), signal.SIGSTOP)),
        ("kill SIGTSTP", lambda: os.kill(os.getpid(), signal.SIGTSTP)),
        ("kill SIGTTIN", lambda: os.kill(os.getpid(), signal.SIGTTIN)),
        ("raise_signal SIGSTOP", lambda: signal.raise_signal(signal.SIGSTOP)),
        ("pthread_kill SIGSTOP", lambda: signal.pthread_kill(threading.get_ident(), signal.SIGSTOP)),
        ("kill group SIGSTOP", lambda: os.killpg(0, signal.SIGSTOP)),
    )
    for what, attempt in attempts:
        try:
            attempt()
            tried.append(what + ": sent")
        except OSError as error:
            tried.append(what + ": " + type(error).__name__)
    print("self-stop attempts: " + "; ".join(tried), file=sys.stderr, flush=True)
    time.sleep(30)  # and if it could not stop itself, it sleeps: either way it hopes for a host fault


def _storm():
    def spin():
        while True:
            time.sleep(0.05)  # every thread wakes on the same tick and queues for the one CPU
            count = 0
            for _ in range(50000):
                count += 1
    started = 0
    for _ in range(300):
        try:
            threading.Thread(target=spin, daemon=True).start()
            started += 1
        except RuntimeError:
            break
    print(f"storm of {{started}} threads", file=sys.stderr, flush=True)
    time.sleep(30)


def _hostile(where):
    if _hostile_now and where == WHERE:
        (_storm if HOW == "storm" else _stop_myself)()


class Hostile(Bot):
    name = "{name}"
    author = "the void tests"
    games = ("elfer-raus",)

    def start(self, match):
        global _hostile_now
        super().start(match)
        _hostile_now = getattr(self.clock, "move_seconds", None) == HOSTILE_CLOCK
        _hostile("start")

    def act(self, observation, legal_actions):
        _hostile("act")
        return legal_actions[0]

    def end(self, result):
        _hostile("end")
"""

SHELL = """h=0
while read line; do
  case "$line" in
    *'"type":"start"'*)
      case "$line" in *'"move_seconds":0.5,'*) h=1;; *) h=0;; esac
      {on_start};;
    *'"type":"act"'*) if [ $h = 1 ]; then {hostile_act}; else echo 0; fi;;
  esac
done
"""


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[LadderHome]:
    ladder_home = LadderHome(tmp_path)
    yield ladder_home
    assert ladder_home.leftover_processes() == [], "processes of this test outlived it"


def python_bot(home: LadderHome, name: str, source: str) -> Path:
    path = home.root / f"{name.replace('-', '_')}.py"
    path.write_text(source)
    return path


def shell_bot(home: LadderHome, name: str, hostile_act: str, on_start: str = ":") -> Path:
    folder = home.root / name
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "{name}"\ngames = ["{GAME}"]\ncommand = ["sh", "bot.sh"]\n')
    (folder / "bot.sh").write_text(SHELL.format(hostile_act=hostile_act, on_start=on_start))
    return folder


def submit(home: LadderHome, *paths: Path) -> None:
    for path in paths:
        home.ladder_ok("submit", str(path), "--matches", "1", "--move-seconds", "1", timeout=900)


def run(
    home: LadderHome, name: str, bots: list[str], games: int = 2, limits: dict[str, Any] | None = None
) -> subprocess.CompletedProcess[str]:
    file = home.write_tournament(
        name,
        {
            "seed": 23,
            "games": [GAME],
            "bots": bots,
            "players": [2],
            "games_per_pairing": games,
            "workers": 1,
            "limits": limits or LIMITS,
        },
    )
    return home.ladder("run", str(file), "--no-progress", "--no-rankings", timeout=900)


def tournament(home: LadderHome, name: str) -> dict[str, Any]:
    found = [t for t in home.tournaments() if t["name"] == name]
    assert len(found) == 1, found
    return found[0]


def assert_hostile_lost(home: LadderHome, name: str, hostile: str, *said: str) -> list[dict[str, Any]]:
    """The tournament completed, nothing was voided, every failure is the hostile bot's (with ``said`` in its
    reason) and there is at least one; the honest bot never failed. The hostile seats that failed."""
    listed = tournament(home, name)
    assert listed["state"] == "complete" and listed["errors"] == 0, (listed, home.matches())
    stored = assert_every_match_recorded(home, listed["id"], listed["scheduled"])
    assert all(match["status"] == "played" for match in stored), [m["status"] for m in stored]
    failed = [seat for match in stored for seat in match["seats"] if seat["failure"]]
    assert failed, "the hostile bot never turned hostile: the test proves nothing"
    for seat in failed:
        assert seat["bot"] == hostile, seat
        for fragment in said:
            assert fragment in seat["detail"], seat
        assert "host fault" not in seat["detail"], seat
    honest = [seat for match in stored for seat in match["seats"] if seat["bot"] == "honest"]
    assert honest and all(seat["failure"] is None and seat["score"] is not None for seat in honest), honest
    return failed


@pytest.mark.slow
def test_a_bot_that_stops_itself_in_act_or_start_loses_on_time(home: LadderHome) -> None:
    """Point 1: SIGSTOP, SIGTSTP, SIGTTIN, raise(), pthread_kill, the group: all refused; the bot's wall-clock loss."""
    submit(
        home,
        python_bot(home, "honest", HONEST),
        python_bot(home, "stop-in-act", HOSTILE.format(where="act", how="stop", name="stop-in-act")),
        python_bot(home, "stop-in-start", HOSTILE.format(where="start", how="stop", name="stop-in-start")),
    )
    for hostile, what in (("stop-in-act", "choosing its action"), ("stop-in-start", "starting the match")):
        result = run(home, f"t-{hostile}", [hostile, "honest"])
        assert result.returncode == 0, result.stdout + result.stderr
        failed = assert_hostile_lost(home, f"t-{hostile}", hostile, "wall-clock limit", what, "did not starve it")
        assert all(seat["failure"] == "timeout" for seat in failed)
        assert all(
            "SIGSTOP: PermissionError" in seat["stderr"] and ": sent" not in seat["stderr"] for seat in failed
        ), failed
        assert "voided" not in result.stdout


@pytest.mark.slow
def test_a_failure_while_hearing_the_result_never_changes_it(home: LadderHome) -> None:
    """Point 1 (end): the game is over; the result stands, and the author is told in the bot's stderr and the log."""
    submit(
        home,
        python_bot(home, "honest", HONEST),
        python_bot(home, "stop-in-end", HOSTILE.format(where="end", how="stop", name="stop-in-end")),
    )
    result = run(home, "t-end", ["stop-in-end", "honest"])
    assert result.returncode == 0, result.stdout + result.stderr
    listed = tournament(home, "t-end")
    assert listed["state"] == "complete", listed
    stored = assert_every_match_recorded(home, listed["id"], listed["scheduled"])
    assert all(m["status"] == "played" for m in stored)
    assert all(seat["failure"] is None and seat["rank"] is not None for m in stored for seat in m["seats"]), stored
    told = [seat for m in stored for seat in m["seats"] if "after the game was over" in str(seat["stderr"])]
    assert told and all(seat["bot"] == "stop-in-end" for seat in told), told
    assert all(
        "the result of the match stands" in seat["stderr"] and "hearing the result" in seat["stderr"] for seat in told
    )
    assert "after the game was over" in home.run_log()


@pytest.mark.slow
def test_a_thread_storm_is_a_loss_on_time_not_a_host_fault(home: LadderHome) -> None:
    """Point 3: hundreds of threads waking on one tick: its run-queue delay is its own, the match counts."""
    submit(
        home,
        python_bot(home, "honest", HONEST),
        python_bot(home, "storm", HOSTILE.format(where="act", how="storm", name="storm")),
    )
    result = run(home, "t-storm", ["storm", "honest"], limits=CPU_LIMITS)
    assert result.returncode == 0, result.stdout + result.stderr
    failed = assert_hostile_lost(home, "t-storm", "storm")
    assert all(seat["failure"] == "timeout" for seat in failed), failed
    for seat in failed:  # a CPU loss, or a wall-clock one whose evidence is bounded by the wall time
        detail = seat["detail"]
        assert "of CPU time on one move" in detail or "did not starve it" in detail, detail
        waited = re.search(r"thread waited ([\d.]+) s", detail)
        wall = re.search(r"in ([\d.]+) s of wall time", detail)
        if waited and wall:
            assert float(waited[1]) <= float(wall[1]), detail


@pytest.mark.slow
def test_an_executable_bot_spinning_between_turns_cannot_starve_its_opponent(home: LadderHome) -> None:
    """Point 4: it is stopped between turns; its spin runs on its own clock and it loses, the honest bot never."""
    spinner = shell_bot(home, "spinner", "echo 0; while :; do :; done")
    submit(home, python_bot(home, "honest", HONEST), spinner)
    result = run(home, "t-spin", ["spinner", "honest"], limits=CPU_LIMITS)
    assert result.returncode == 0, result.stdout + result.stderr
    failed = assert_hostile_lost(home, "t-spin", "spinner")
    assert all(seat["failure"] == "timeout" for seat in failed), failed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("hostile_act", "on_start", "said"),
    [
        ('echo \'{"index": 999, "index": 0}\'', ":", "appears twice"),
        ("printf '0\\n0\\n'", ":", "a line the ladder did not ask for"),
        ("echo 0", "if [ $h = 1 ]; then echo 0; fi", "a line the ladder did not ask for"),
    ],
    ids=["duplicate-keys", "two-lines", "unasked-line"],
)
def test_executable_bot_protocol_slack_is_garbage(home: LadderHome, hostile_act: str, on_start: str, said: str) -> None:
    """Point 5: strict JSON lines."""
    submit(home, python_bot(home, "honest", HONEST), shell_bot(home, "slack", hostile_act, on_start))
    result = run(home, "t-slack", ["slack", "honest"], limits=CPU_LIMITS)
    assert result.returncode == 0, result.stdout + result.stderr
    failed = assert_hostile_lost(home, "t-slack", "slack", said)
    assert all(seat["failure"] == "garbage" for seat in failed), failed


@pytest.mark.slow
def test_names_that_pass_for_built_ins_are_refused(home: LadderHome) -> None:
    """Point 6: case, look-alikes, separators, a handicap's number, a trailing dot."""
    honest = python_bot(home, "honest", HONEST)
    for name, said in (
        ("Search", "passes for the built-in bot 'search'"),
        ("THUMB", "passes for the built-in bot 'thumb'"),
        ("random.", "ends in punctuation"),
        ("thumb-90", "passes for the built-in bot 'thumb'"),
        ("rand0m", "passes for the built-in bot 'random'"),
    ):
        refused = home.ladder("submit", str(honest), "--name", name, "--matches", "1")
        assert_one_clear_line(refused, said)
    if home.query("select name from sqlite_master where name = 'bot'"):
        assert not home.query("select name from bot")


@pytest.mark.slow
def test_a_match_voided_twice_is_recorded_unplayable_and_the_tournament_completes(home: LadderHome) -> None:
    """Point 2: a real host fault (stopped from outside) on two runs: voided, then unplayable; no third run needed."""
    bowling = "bowling-solitaire"
    home.ladder_ok("submit", str(bot_file(home, "starved", burn=0.4, moves=4)), "--matches", "1", timeout=900)
    file = home.write_tournament(
        "twice",
        {
            "seed": 9,
            "games": [bowling],
            "bots": ["starved"],
            "games_per_pairing": 1,
            "workers": 1,
            "limits": {"move_seconds": 1.0, "move_wall_seconds": 2.0},
        },
    )
    outputs = []
    for _ in range(2):
        starver = Starver(f"clock-test-bot starved of {home.root}", hold_seconds=8.0)
        starver.start()
        try:
            outputs.append(home.ladder("run", str(file), "--no-progress", "--no-rankings", timeout=900))
        finally:
            starver.finish.set()
            starver.join()
        assert outputs[-1].returncode == 0, outputs[-1].stdout + outputs[-1].stderr
        assert starver.stopped, "the bot was never caught thinking"
    assert "1 voided for a host fault" in " ".join(outputs[0].stdout.split())
    second = " ".join(outputs[1].stdout.split())
    assert "1 unplayable" in second and "complete" in second, second
    assert "this run finished 1 " in second, second  # the unplayable match counted, as the progress bar counts it
    stored = home.matches()
    assert [m["status"] for m in stored] == ["unplayable"], stored
    assert "voided 2 times for a host fault" in stored[0]["error"] and "stopped by someone else" in stored[0]["error"]
    listed = tournament(home, "twice")
    assert listed["state"] == "complete" and listed["unplayable"] == 1, listed
    # every count agrees (issue 24): done <= scheduled, and what the run says is recorded is what is listed
    done = listed["played"] + listed["skipped"] + listed["errors"] + listed["unplayable"]
    recorded = re.search(r"(\d+) of (\d+) matches recorded", second)
    assert (
        recorded and (int(recorded[1]), int(recorded[2])) == (done, listed["scheduled"]) and done <= listed["scheduled"]
    )
    shown = " ".join(home.ladder_ok("tournaments").stdout.split())
    assert "1 unplayable" in shown, shown
    third = home.ladder_ok("run", str(file), "--no-progress", "--no-rankings", timeout=900)
    assert "played 0" in third.stdout and len(home.matches()) == 1


@pytest.mark.slow
def test_cpu_taken_by_outside_processes_pinned_to_the_bots_cpu_voids_the_match(home: LadderHome) -> None:
    """A real host fault still works: three CPU hogs pinned to the worker's CPU starve a bot that computes."""
    bowling = "bowling-solitaire"
    home.ladder_ok("submit", str(bot_file(home, "crowded", burn=0.6, moves=2)), "--matches", "1", timeout=900)
    file = home.write_tournament(
        "crowded",
        {
            "seed": 3,
            "games": [bowling],
            "bots": ["crowded"],
            "games_per_pairing": 1,
            "workers": 1,
            "limits": {"move_seconds": 1.0, "move_wall_seconds": 1.2},
        },
    )
    cpu = min(os.sched_getaffinity(0))  # the first usable CPU: where a one-worker run pins its worker and bots
    pin = f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"
    # each hog in a session of its own: with the kernel's autogroups a session shares the CPU as one, so three
    # hogs in the test's session would take only half of it from the bot; three sessions take three quarters
    hogs = [subprocess.Popen([sys.executable, "-c", pin], start_new_session=True) for _ in range(3)]
    try:
        result = home.ladder("run", str(file), "--no-progress", "--no-rankings", timeout=900)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert result.returncode == 0, result.stdout + result.stderr
    stored = home.matches()
    assert [m["status"] for m in stored] == ["voided"], stored
    assert "host fault" in stored[0]["error"] and "processes outside the match took" in stored[0]["error"], stored[0]
