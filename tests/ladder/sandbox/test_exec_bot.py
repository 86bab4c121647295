"""Bots in any language: a folder with a `bot.toml` and a program speaking JSON lines, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import game_ids
from ladder.errors import UserError
from ladder.sandbox.host_facts import is_root, process_layer_can_drop_root
from ladder.sandbox.layers import available_layers
from ladder.sandbox.submission import read_files

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "javascript_bot"
CAN_RUN_SUBMITTED = not is_root() or "bubblewrap" in available_layers() or process_layer_can_drop_root()
needs_sandbox = pytest.mark.skipif(
    not CAN_RUN_SUBMITTED, reason="submitted bots cannot run here as root without bubblewrap"
)
needs_node = pytest.mark.skipif(
    shutil.which("node") is None, reason="needs Node.js for the example (apt-get install nodejs)"
)
needs_game = pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")


def ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env={
            **os.environ,
            "COLUMNS": "200",
            "LADDER_RESULTS": str(where / "results"),
            "LADDER_DB": f"sqlite:///{where / 'l.db'}",
        },
    )


def shell_bot(where: Path, script: str, games: str = '["elfer-raus"]') -> Path:
    folder = where / "shbot"
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "sh-bot"\ngames = {games}\ncommand = ["sh", "bot.sh"]\n')
    (folder / "bot.sh").write_text(script)
    return folder


@pytest.mark.slow
@needs_sandbox
@needs_node
@needs_game
def test_the_javascript_example_is_validated_submitted_and_rated_in_a_tournament(tmp_path: Path) -> None:
    checked = ladder(tmp_path, "validate", str(EXAMPLE), "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] and report["bot"]["name"] == "example-js" and set(report["games"]) == set(game_ids())
    submitted = ladder(tmp_path, "submit", str(EXAMPLE))
    assert submitted.returncode == 0, submitted.stderr
    (tmp_path / "t.toml").write_text(
        'name = "js"\nseed = 5\ngames = ["elfer-raus"]\nbots = ["example-js", "random", "thumb"]\n'
        "players = [2]\ngames_per_pairing = 2\nworkers = 2\n"
    )
    run = ladder(tmp_path, "run", "t.toml", "--no-progress")
    assert run.returncode == 0, run.stderr
    rankings = json.loads(ladder(tmp_path, "rankings", "elfer-raus", "--json").stdout)
    row = next(r for r in rankings["pools"]["elfer-raus/2p"]["table"] if r["bot"] == "example-js")
    assert row["matches"] == 8 and row["failures"] == 0  # 2 opponents x 2 deals x 2 seatings, none lost by failure
    logs = json.loads(ladder(tmp_path, "logs", "example-js", "--json").stdout)
    assert logs and all("example-js: elfer-raus, seat" in entry["stderr"] for entry in logs)


@needs_sandbox
@needs_game
@pytest.mark.parametrize(
    ("script", "reason", "said"),
    [
        ('while read line; do case "$line" in *\'"act"\'*) echo "hello there";; esac; done\n', "garbage", "not JSON"),
        ('while read line; do case "$line" in *\'"act"\'*) echo 999;; esac; done\n', "illegal", "index 999"),
        (
            'while read line; do case "$line" in *\'"act"\'*) echo \'{"type": "no-such-move"}\';; esac; done\n',
            "illegal",
            "no-such-move",
        ),
        ('read line; echo "giving up" >&2; exit 3\n', "crash", "exited with status 3"),
        ("while read line; do :; done\n", "timeout", "no answer within"),
    ],
)
def test_a_program_that_breaks_the_protocol_fails_the_check(
    tmp_path: Path, script: str, reason: str, said: str
) -> None:
    folder = shell_bot(tmp_path, script)
    run = ladder(tmp_path, "validate", str(folder), "--json", "--move-seconds", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    failure = report["matches"][-1]["failure"]
    assert failure["reason"] == reason and said in failure["detail"], failure
    if reason == "crash":
        assert "giving up" in failure["stderr_tail"]


@needs_sandbox
@needs_game
@pytest.mark.skipif("seccomp" not in available_layers(), reason="needs the seccomp layer, not available here")
def test_an_executable_bot_cannot_start_another_program(tmp_path: Path) -> None:
    # The shell must fork to run /usr/bin/true; had it run, the bot would answer "ran" (garbage).
    folder = shell_bot(
        tmp_path,
        'while read line; do case "$line" in *\'"act"\'*)\n'
        "  if /usr/bin/true; then echo ran; else echo 0; fi;; esac; done\n",
    )
    run = ladder(tmp_path, "validate", str(folder), "--json", "--matches", "1")
    failure = json.loads(run.stdout)["matches"][-1]["failure"]
    assert failure["reason"] == "crash" and "fork" in failure["stderr_tail"].lower(), failure


def test_manifest_mistakes_are_one_clear_sentence(tmp_path: Path) -> None:
    cases = {
        'games = ["elfer-raus"]\ncommand = "node bot.js"\n': "command must be a list of strings",
        'command = ["node", "bot.js"]\n': "games must be a list of game ids",
        'games = ["elfer-raus"]\ncommand = ["./missing"]\n': "which is not one of the bot's files",
        'games = ["elfer-raus"]\ncommand = ["./bot"]\nbuild = "make"\n': "build must be a list of strings",
        'games = ["elfer-raus"]\ncommand = ["./bot"]\nbuild = ["./make.sh"]\n': "build runs './make.sh', which is not one",
        'games = ["elfer-raus"]\ncommand = ["./bot"]\n': "command runs './bot', which is not one of the bot's files",
        'games = ["elfer-raus"]\ncommand = ["node"]\ncolour = 1\n': "unknown key 'colour'",
        "games = [\n": "is not valid TOML",
    }
    for number, (text, said) in enumerate(cases.items()):
        folder = tmp_path / f"b{number}"
        folder.mkdir()
        (folder / "bot.toml").write_text(text)
        with pytest.raises(UserError, match=said.replace("(", r"\(")):
            read_files(folder)


# The first legal action, its "number" written as a float (10 as 10.0); a legal action without one as it is.
FLOAT_NUMBERS = r"""while read line; do
  case "$line" in
    *'"type":"act"'*)
      rest=${line#*\"legal\":[}
      first=${rest%%\}*}\}
      case "$first" in
        *'"number":'*)
          head=${first%%\"number\":*}
          tail=${first#*\"number\":}
          digits=${tail%%[,\}]*}
          echo "$head\"number\":$digits.0${tail#"$digits"}";;
        *) echo "$first";;
      esac;;
  esac
done
"""


@needs_sandbox
@needs_game
def test_an_answer_equal_only_by_pythons_rules_is_an_illegal_move(tmp_path: Path) -> None:
    """``{"number": 10.0}`` for ``{"number": 10}``: JSON tells them apart, and so does the ladder (issue 35), as it
    does for a Python bot's answer."""
    folder = shell_bot(tmp_path, FLOAT_NUMBERS)
    run = ladder(tmp_path, "validate", str(folder), "--json", "--move-seconds", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    failure = json.loads(run.stdout)["matches"][-1]["failure"]
    assert failure["reason"] == "illegal" and '"number": ' in failure["detail"] and ".0" in failure["detail"], failure


def test_an_executable_bots_answer_is_compared_as_json_with_types() -> None:
    from ladder.sandbox.exec_bot import legal_index

    legal = [{"type": "draw"}, {"type": "play", "number": 10}, {"type": "pick", "cards": [1, {"up": False}]}]
    assert legal_index({"type": "play", "number": 10}, legal) == 1
    assert legal_index({"number": 10, "type": "play"}, legal) == 1  # key order is not a type
    assert legal_index({"type": "play", "number": 10.0}, legal) is None
    assert legal_index({"type": "pick", "cards": [1, {"up": False}]}, legal) == 2
    assert legal_index({"type": "pick", "cards": [True, {"up": False}]}, legal) is None
    assert legal_index({"type": "pick", "cards": [1, {"up": 0}]}, legal) is None
    assert legal_index({"type": "pick", "cards": [1.0, {"up": False}]}, legal) is None
