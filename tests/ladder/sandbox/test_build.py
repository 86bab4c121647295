"""A bot.toml `build`: run once at submission in the build sandbox, kept with the version, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from engine import game_ids
from ladder.sandbox.build import build_refusal
from ladder.seats.botstore import check_submitted_bot
from tests.ladder.front_door import ROOT, LadderHome

EXAMPLE = ROOT / "docs" / "examples" / "c_bot"
BUILD_REFUSAL = build_refusal()
needs_build_sandbox = pytest.mark.skipif(
    BUILD_REFUSAL is not None, reason="builds run only inside bubblewrap, not available here"
)
needs_gcc = pytest.mark.skipif(
    shutil.which("cc") is None, reason="needs a C compiler for the example (apt-get install gcc)"
)
needs_game = pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")

# A bot in shell that answers 0 to every decision and says what its build left (built.txt) on stderr;
# built.txt is made by each test's build (the failing builds never get that far).
SHELL_BOT = (
    'read built < built.txt; echo "built: $built" >&2\n'  # no $(...): a bot may not fork
    'while read line; do case "$line" in *\'"act"\'*) echo 0;; esac; done\n'
)


def shell_bot(where: Path, build: list[str], name: str = "built-sh") -> Path:
    folder = where / name
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ngames = ["elfer-raus"]\nbuild = {json.dumps(build)}\ncommand = ["sh", "bot.sh"]\n'
    )
    (folder / "bot.sh").write_text(SHELL_BOT)
    return folder


def stored_versions(home: LadderHome) -> int:
    if not home.db_path.exists():
        return 0
    with sqlite3.connect(home.db_path) as db:
        return db.execute("select count(*) from bot_version where source = 'submitted'").fetchone()[0]


def store_entries(home: LadderHome) -> list[str]:
    store = home.results / "bots"
    return sorted(p.name for p in store.iterdir()) if store.exists() else []


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
@needs_build_sandbox
@needs_gcc
@needs_game
def test_the_c_example_is_built_once_validated_submitted_and_rated_in_a_tournament(tmp_path: Path) -> None:
    home = LadderHome(tmp_path)
    checked = home.ladder("validate", str(EXAMPLE), "--json", "--matches", "1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] and report["bot"]["name"] == "example-c" and report["games"] == ["elfer-raus"]
    assert not (EXAMPLE / "bot").exists()  # built in the sandbox's copy, never in the submitted folder

    submitted = home.ladder_ok("submit", str(EXAMPLE), "--json", "--matches", "1")
    registered = json.loads(submitted.stdout)["registered"]
    assert registered["new"] and registered["content_hash"] == report["content_hash"]
    stored = home.results / registered["store_path"]
    assert sorted(p.name for p in stored.iterdir()) == ["bot", "bot.c", "bot.toml"]
    assert stored.joinpath("bot").read_bytes().startswith(b"\x7fELF") and os.stat(stored / "bot").st_mode & 0o111

    again = home.ladder_ok("submit", str(EXAMPLE), "--json", "--matches", "1")  # gcc builds the same bytes
    assert json.loads(again.stdout)["registered"]["new"] is False and stored_versions(home) == 1

    tournament = home.write_tournament(
        "c",
        {
            "seed": 5,
            "games": ["elfer-raus"],
            "bots": ["example-c", "random", "thumb"],
            "players": [2],
            "games_per_pairing": 2,
            "workers": 2,
        },
    )
    home.ladder_ok("run", str(tournament), "--no-progress")
    rankings = json.loads(home.ladder_ok("rankings", "elfer-raus", "--json").stdout)
    row = next(r for r in rankings["pools"]["elfer-raus/2p"]["table"] if r["bot"] == "example-c")
    assert row["matches"] == 8 and row["failures"] == 0  # 2 opponents x 2 deals x 2 seatings, none lost by failure
    logs = json.loads(home.ladder_ok("logs", "example-c", "--json").stdout)
    assert logs and all("example-c: elfer-raus, a new match" in entry["stderr"] for entry in logs)


@pytest.mark.slow
@pytest.mark.needs_bot_sandbox
@needs_build_sandbox
@needs_game
def test_matches_play_the_stored_build_and_never_build_again(tmp_path: Path) -> None:
    # The build writes 16 random bytes: a second build would leave other bytes than the stored ones.
    folder = shell_bot(tmp_path, ["sh", "-c", "od -An -N16 -tx1 /dev/urandom | tr -d ' \\n' > built.txt"])
    home = LadderHome(tmp_path)
    registered = json.loads(home.ladder_ok("submit", str(folder), "--json", "--matches", "1").stdout)["registered"]
    built = (home.results / registered["store_path"] / "built.txt").read_text()
    assert len(built) == 32 and not (folder / "built.txt").exists()
    tournament = home.write_tournament(
        "sh",
        {
            "seed": 3,
            "games": ["elfer-raus"],
            "bots": ["built-sh", "random"],
            "players": [2],
            "games_per_pairing": 1,
            "workers": 1,
        },
    )
    home.ladder_ok("run", str(tournament), "--no-progress")
    logs = json.loads(home.ladder_ok("logs", "built-sh", "--json").stdout)
    assert logs and all(f"built: {built}" in entry["stderr"] for entry in logs)


@needs_build_sandbox
@pytest.mark.parametrize(
    ("build", "problem", "printed"),
    [
        (
            ["sh", "-c", "echo 'bot.c:3:5: error: expected ; before }' >&2; exit 2"],
            "failed with exit status 2",
            "error: expected ; before }",
        ),
        (["sh", "-c", "cat '{secret}'"], "failed with exit status 1", "No such file"),
        (["touch", "/usr/ladder-build-was-here"], "failed with exit status 1", "Read-only file system"),
        (["sh", "-c", "yes 'a long build log'"], "printed more than 1 MB of messages", "a long build log"),
        (["ln", "-s", "/etc/passwd", "leak"], "which is not a plain file", ""),
        (["sh", "-c", "head -c 21000000 /dev/zero > big"], "left more than 20 MB of files", ""),
    ],
)
def test_a_failing_build_is_refused_with_one_sentence_and_its_output_and_nothing_is_stored(
    tmp_path: Path, build: list[str], problem: str, printed: str
) -> None:
    secret = tmp_path / "secret.txt"  # a host file the build must not see
    secret.write_text("the ladder's secrets")
    folder = shell_bot(tmp_path, [part.replace("{secret}", str(secret)) for part in build])
    home = LadderHome(tmp_path)
    run = home.ladder("submit", str(folder), "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert not report["ok"] and problem in report["problem"] and report["problem"].startswith("the build (")
    assert "\n" not in report["problem"] and printed in report["explanation"]
    assert "the ladder's secrets" not in report["explanation"]
    assert stored_versions(home) == 0 and store_entries(home) == []
    assert not Path("/usr/ladder-build-was-here").exists()

    shown = home.ladder("validate", str(folder))  # the same refusal for a person: the sentence, then the output
    assert shown.returncode != 0 and problem in shown.stderr.replace("\n", " ") + shown.stdout.replace("\n", " ")
    assert "Traceback" not in shown.stderr


@needs_build_sandbox
def test_a_build_cannot_reach_the_network(tmp_path: Path) -> None:
    # A server on this machine's loopback: reachable from here, not from the build's network namespace.
    accepted: list[object] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(20)
        port = server.getsockname()[1]

        def accept() -> None:
            try:
                accepted.append(server.accept())
            except OSError:
                pass

        waiter = threading.Thread(target=accept, daemon=True)
        waiter.start()
        script = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('reached the host')"
        folder = shell_bot(tmp_path, ["python3", "-c", script])
        run = LadderHome(tmp_path).ladder("validate", str(folder), "--json")
        report = json.loads(run.stdout)
        assert run.returncode == 1 and "failed with exit status 1" in report["problem"], report
        assert "ConnectionRefusedError" in report["explanation"] or "unreachable" in report["explanation"]
        assert "reached the host" not in report["explanation"]
        server.close()
        waiter.join(5)
    assert accepted == []


@needs_build_sandbox
def test_a_build_that_runs_too_long_is_stopped_and_refused(tmp_path: Path) -> None:
    folder = shell_bot(tmp_path, ["sh", "-c", "echo compiling >&2; sleep 61.25"])
    started = time.monotonic()
    run = LadderHome(tmp_path).ladder("validate", str(folder), "--json", "--build-seconds", "2")
    took = time.monotonic() - started
    report = json.loads(run.stdout)
    assert run.returncode == 1 and "did not finish within 2 s (--build-seconds)" in report["problem"], report
    assert "compiling" in report["explanation"] and took < 40
    leftovers = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == b"sleep\x0061.25\x00":
                leftovers.append(entry.name)
        except OSError:
            continue
    assert leftovers == []  # the whole build went with the sandbox


def test_without_bubblewrap_a_build_is_refused_in_one_sentence(tmp_path: Path) -> None:
    folder = shell_bot(tmp_path, ["sh", "-c", "true"])
    report = check_submitted_bot(str(folder), layers=("process",), allow_root=True)
    assert not report.ok and report.info is None and report.matches == []
    assert "has a build command, but a build runs only inside bubblewrap" in report.problem
    assert "apt-get install bubblewrap" in report.problem and "\n" not in report.problem
    # The front door, on a machine where bwrap is not installed (not on the PATH):
    home = LadderHome(tmp_path)
    home.env["PATH"] = str(tmp_path / "no-programs-here")
    run = home.ladder("submit", str(folder), "--json")
    assert run.returncode == 1 and "a build runs only inside bubblewrap" in json.loads(run.stdout)["problem"]
    assert stored_versions(home) == 0 and store_entries(home) == []


@pytest.mark.needs_bot_sandbox
@needs_game
def test_a_program_of_the_bots_own_runs_from_its_folder_without_a_build(tmp_path: Path) -> None:
    # command = ["./bot"]: the program is one of the submitted files, made executable in the copy the sandbox shows.
    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "own-program"\ngames = ["elfer-raus"]\ncommand = ["./bot"]\n')
    (folder / "bot").write_text('#!/bin/sh\nwhile read line; do case "$line" in *\'"act"\'*) echo 0;; esac; done\n')
    run = LadderHome(tmp_path).ladder("validate", str(folder), "--json", "--matches", "1")
    report = json.loads(run.stdout)
    assert run.returncode == 0 and report["ok"], report["problem"]
    assert len(report["matches"]) == 2 + 3 + 4 + 5 + 6 and not any("failure" in match for match in report["matches"])
