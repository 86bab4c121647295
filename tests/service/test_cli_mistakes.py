"""The served ladder's commands: a user's mistake is one clear line and exit status 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import author_env, free_port, ladder_as

pytestmark = pytest.mark.slow  # a few `ladder` processes each: over 3 s on a busy machine


@pytest.fixture
def home(tmp_path: Path) -> LadderHome:
    return LadderHome(tmp_path)


def one_line_error(run: object, fragment: str) -> None:
    assert run.returncode == 2, (run.stdout, run.stderr)  # type: ignore[attr-defined]
    err = run.stderr.strip()  # type: ignore[attr-defined]
    assert "Traceback" not in err and len(err.splitlines()) == 1 and fragment in err, err


def test_author_names_and_duplicates(home: LadderHome) -> None:
    one_line_error(home.ladder("author", "add", "../../etc"), "is not usable")
    home.ladder_ok("author", "add", "alice")
    one_line_error(home.ladder("author", "add", "alice"), "there is already an author 'alice'")
    one_line_error(home.ladder("author", "revoke", "nobody"), "there is no author 'nobody'")
    one_line_error(home.ladder("author", "add"), "needs the author's name")


@pytest.mark.parametrize(
    ("server", "fragment"),
    [("ftp://x", "is not a server address"), ("http://127.0.0.1:{port}", "cannot reach the server")],
)
def test_submitting_to_a_wrong_or_absent_server(home: LadderHome, tmp_path: Path, server: str, fragment: str) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("x = 1\n")
    env = author_env(home, tmp_path / "author", "some-token")
    one_line_error(ladder_as(env, "submit", str(bot), "--server", server.format(port=free_port())), fragment)


def test_serve_refuses_an_unknown_house_bot(home: LadderHome) -> None:
    one_line_error(
        home.ladder("serve", "--house", "nobody", "--port", str(free_port())), "no built-in bot of that name"
    )
