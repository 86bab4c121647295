"""A bot that keeps its channel busy while it thinks is still held to its CPU limit (through the front door).

Played as the hostile author (redteam3): the ladder looked at a thinking
bot's CPU time only when its wait for the reply ran out with nothing
written. A bot that wrote *something* every few milliseconds while it
thought (a stale frame ``{"seq": 0}``, which the ladder skips, from a
Python bot; an empty line, which the ladder skips, from an executable bot)
was therefore never looked at: it used four times its ``move_seconds`` on a
decision, up to the wall-clock cap, lost nothing, and the move was not even
measured (no bank drawn). Now the ladder looks whenever a look is due,
whether or not the bot wrote meanwhile.

The bots play Bowling Solitaire alone (a seat's fate is its own), under
``move_seconds = 0.1`` (a wall-clock cap of 0.5 s), and burn 0.35 s of CPU on
their first decision.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import game_ids
from ladder.sandbox.layers import available_layers
from tests.ladder.front_door import LadderHome

GAME = "bowling-solitaire"
pytestmark = [
    pytest.mark.needs_bot_sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(GAME not in game_ids(), reason=f"{GAME} is not registered"),
    pytest.mark.skipif("bubblewrap" not in available_layers(), reason="needs the bubblewrap sandbox layer"),
]

BURN = 0.35  # CPU seconds on the first decision: 3.5 times move_seconds, inside the 0.5 s wall-clock cap

PYTHON_BOT = """
import os, threading, time
import __main__  # the bot host: its channel to the ladder is __main__._OUT
from ladder.bot import Bot


class Chatter(Bot):
    name = "{name}"
    author = "the busy-channel test"
    games = ("{game}",)

    def start(self, match):
        super().start(match)
        self.moves = 0

    def act(self, observation, legal_actions):
        self.moves += 1
        if self.moves == 1:
            stop = threading.Event()

            def chatter():  # a stale reply every 2 ms: the ladder skips it, and used to look at nothing else
                body = b'{{"seq":0}}'
                frame = len(body).to_bytes(4, "big") + body
                while not stop.is_set():
                    os.write(__main__._OUT, frame)
                    time.sleep(0.002)

            thread = threading.Thread(target=chatter, daemon=True)
            if {chatter}:
                thread.start()
            start = time.thread_time()
            while time.thread_time() - start < {burn}:
                pass
            stop.set()
            if {chatter}:
                thread.join()
        return legal_actions[0]
"""

C_BOT = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *chatter(void *arg) {  /* an empty line every 2 ms: the ladder skips it */
    struct timespec pause = {0, 2000000};
    (void)arg;
    while (!stop) {
        if (write(1, "\n", 1) < 0) break;
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static double cpu(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    int moves = 0;
    while (getline(&line, &size, stdin) > 0) {
        if (strncmp(line, "{\"type\":\"act\"", 13) != 0) continue;
        if (++moves == 1) {
            pthread_t thread;
            stop = 0;
            pthread_create(&thread, NULL, chatter, NULL);
            double start = cpu();
            while (cpu() - start < BURN) {}
            stop = 1;
            pthread_join(thread, NULL);
        }
        if (write(1, "0\n", 2) < 0) return 1;
    }
    return 0;
}
"""


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[LadderHome]:
    ladder_home = LadderHome(tmp_path)
    yield ladder_home
    assert ladder_home.leftover_processes() == [], "processes of this test outlived it"


def python_bot(home: LadderHome, name: str, chatter: bool) -> Path:
    path = home.root / f"{name}.py"
    path.write_text(PYTHON_BOT.format(name=name, game=GAME, burn=BURN, chatter=chatter))
    return path


def c_bot(home: LadderHome, name: str) -> Path:
    folder = home.root / name
    folder.mkdir()
    (folder / "bot.c").write_text(C_BOT)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ngames = ["{GAME}"]\n'
        f'build = ["cc", "-O2", "-pthread", "-DBURN={BURN}", "-o", "bot", "bot.c"]\ncommand = ["./bot"]\n'
    )
    return folder


def first_move_failures(home: LadderHome, bots: list[str]) -> dict[str, tuple[str | None, str]]:
    """Run a one-deal tournament of ``bots`` (submitted) under move_seconds = 0.1: each bot's failure and detail."""
    home.write_tournament(
        "busy-channel",
        {
            "seed": 3,
            "games": [GAME],
            "bots": bots,
            "games_per_pairing": 1,
            "workers": 1,
            "limits": {"move_seconds": 0.1, "bench_after_failures": 1000},
        },
    )
    run = home.ladder("run", str(home.root / "busy-channel.toml"), "--no-progress", "--no-rankings", timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    found: dict[str, tuple[str | None, str]] = {}
    for match in home.matches():
        assert match["status"] == "played", match  # a loss, never a void (the host did not starve anyone)
        for seat in match["seats"]:
            found[str(seat["bot"])] = (seat["failure"], str(seat["detail"]))
    return found


def test_a_python_bot_writing_stale_replies_while_it_thinks_loses_on_cpu_time(home: LadderHome) -> None:
    """Over its CPU limit with stale replies flowing: a CPU timeout on its first decision, like the same bot silent."""
    for name, chatter in (("chatter", True), ("silent", False)):
        home.ladder_ok("submit", str(python_bot(home, name, chatter)), "--matches", "1", timeout=300)
    failures = first_move_failures(home, ["chatter", "silent"])
    for name in ("chatter", "silent"):
        failure, detail = failures[name]
        assert failure == "timeout", (name, failures)
        assert "of CPU time on one move" in detail and "choosing its action #1" in detail, (name, detail)


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_an_executable_bot_writing_empty_lines_while_it_thinks_loses_on_cpu_time(home: LadderHome) -> None:
    """The same with a C program that writes an empty line every 2 ms while it burns 3.5 times its CPU limit."""
    home.ladder_ok("submit", str(c_bot(home, "cchatter")), "--matches", "1", timeout=300)
    failure, detail = first_move_failures(home, ["cchatter"])["cchatter"]
    assert failure == "timeout", detail
    assert "of CPU time on one move" in detail and "choosing its action #1" in detail, detail
