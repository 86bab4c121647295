"""`ladder doctor`, `submit`, `validate`, `bots` and `play` with a bot file, as a user meets them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine import game_ids
from ladder.sandbox.layers import available_layers

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
GAME = "elfer-raus"
pytestmark = pytest.mark.skipif(GAME not in game_ids(), reason=f"{GAME} is not registered")


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "LADDER_RESULTS": str(tmp_path / "results"),
        "LADDER_DB": f"sqlite:///{tmp_path / 'results' / 'ladder.db'}",
    }


def ladder(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )


def assert_one_clear_line(run: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr
    text = run.stderr.strip()
    assert text.startswith("error:"), text
    assert len(text.replace("\n", " ").split("error:")) == 2, text
    flat = " ".join(text.split())
    for fragment in fragments:
        assert fragment in flat, flat


@pytest.mark.needs_bot_sandbox
def test_doctor_reports_every_layer(env: dict[str, str]) -> None:
    run = ladder(env, "doctor", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [layer["name"] for layer in data["layers"]] == ["process", "bubblewrap", "seccomp"]
    assert data["active"] == list(available_layers())
    human = ladder(env, "doctor")
    assert "Submitted bots run with" in human.stdout


@pytest.mark.needs_bot_sandbox
def test_submit_an_example_then_list_it_then_play_it_by_name(env: dict[str, str]) -> None:
    example = str(EXAMPLES / "elfer_raus_bot.py")
    first = ladder(env, "submit", example)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "registered example-elfer-raus" in " ".join(first.stdout.split())
    again = ladder(env, "submit", example)
    assert again.returncode == 0 and "unchanged" in again.stdout
    listed = ladder(env, "bots", "--json")
    names = [row["name"] for row in json.loads(listed.stdout)["registered"]]
    assert names == ["example-elfer-raus"]
    assert "random" in [row["name"] for row in json.loads(listed.stdout)["builtin"]]
    played = ladder(env, "play", GAME, "example-elfer-raus", "random", "-n", "4", "--json")
    assert played.returncode == 0, played.stderr
    rows = json.loads(played.stdout)["bots"]
    assert (
        rows[0]["bot"] == "example-elfer-raus" and rows[0]["games"] == 8 and rows[0]["failures"] == {}
    )  # 4 deals x 2 seatings


@pytest.mark.needs_bot_sandbox
def test_play_runs_a_bot_file_sandboxed(env: dict[str, str]) -> None:
    run = ladder(env, "play", GAME, str(EXAMPLES / "random_bot.py"), "random", "-n", "3", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["bots"][0]["failures"] == {}


@pytest.mark.needs_bot_sandbox
def test_play_shares_a_bot_file_among_workers_with_the_same_results(env: dict[str, str], tmp_path: Path) -> None:
    """The workers play the copy of the bot file that the main process checked, and leave no copy behind."""
    # a short folder of its own: the fork server's socket lives under TMPDIR, and a socket's path may not be
    # longer than 107 bytes (pytest-xdist's tmp_path under /tmp/pytest-of-root/... can be)
    temporary = Path(tempfile.mkdtemp(prefix="lt-", dir="/tmp"))
    try:
        env = {**env, "TMPDIR": str(temporary)}
        command = ("play", GAME, str(EXAMPLES / "random_bot.py"), "random", "-n", "4", "--seed", "3", "--json")
        alone, shared = ladder(env, *command), ladder(env, *command, "--workers", "2")
        assert alone.returncode == 0 and shared.returncode == 0, alone.stderr + shared.stderr
        assert json.loads(shared.stdout)["bots"][0]["failures"] == {}
        assert shared.stdout == alone.stdout
        assert not list(temporary.glob("ladder-bots-*"))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


@pytest.mark.needs_bot_sandbox
def test_validate_explains_a_failure_with_the_bots_traceback(env: dict[str, str], tmp_path: Path) -> None:
    bot = tmp_path / "buggy.py"
    bot.write_text(
        "from ladder.bot import Bot\n\nclass Buggy(Bot):\n    name = 'buggy'\n    games = ('elfer-raus',)\n\n"
        "    def act(self, observation, legal_actions):\n        return legal_actions[len(observation['hand']) * 100]\n"
    )
    run = ladder(env, "validate", str(bot))
    assert_one_clear_line(run, "failed the check", "IndexError", "elfer-raus")
    assert "legal_actions[len(observation['hand']) * 100]" in run.stdout  # the bot's own traceback, shown as a report


@pytest.mark.needs_bot_sandbox
def test_validate_of_a_bot_that_spins_quotes_its_own_last_words_not_the_stack(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A timed-out bot's stderr ends with the stack the ladder had it write: the sentence names where it was stuck
    (`stopped in ...`) and quotes the last line the bot wrote itself, not the stack's outermost frame."""
    bot = tmp_path / "spinner.py"
    bot.write_text(
        "import sys\nfrom ladder.bot import Bot\n\nclass Spinner(Bot):\n    name = 'spinner'\n"
        "    games = ('elfer-raus',)\n\n    def act(self, observation, legal_actions):\n"
        "        print('spinning now', file=sys.stderr, flush=True)\n        while True:\n            pass\n"
    )
    run = ladder(env, "validate", str(bot), "--move-seconds", "0.3")
    assert_one_clear_line(run, "lost by timeout", 'stopped in File "/bot/bot.py"', "(its last words: spinning now)")
    assert "bot_host.py" not in run.stderr
    assert "most recent call first" in run.stdout  # the whole stack is still shown, under the sentence


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("submit", "no/such/bot.py"), ("no such file",)),
        (("validate", "pyproject.toml"), ("not a Python file",)),
        (("play", GAME, "no/such/bot.py", "random"), ("no such file",)),
        (("play", GAME, "random", "random", "--require-layer", "chroot"), ("no sandbox layer 'chroot'",)),
    ],
)
def test_user_mistakes_are_one_clear_line(
    env: dict[str, str], args: tuple[str, ...], fragments: tuple[str, ...]
) -> None:
    assert_one_clear_line(ladder(env, *args), *fragments)


@pytest.mark.needs_bot_sandbox
def test_play_with_a_bot_that_does_not_load_is_one_clear_line(env: dict[str, str], tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("import definitely_not_installed\n")
    assert_one_clear_line(ladder(env, "play", GAME, str(bot), "random"), "cannot play", "ModuleNotFoundError")
