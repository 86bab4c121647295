"""A failure shows the stderr of its own match, not what the same bot process printed in earlier ones (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ladder.test_author_tools import ladder, needs_elfer_raus, sandbox_or_skip

THIRD = """import sys

from ladder.bot import Bot


class Third(Bot):
    name = "third"
    games = ("elfer-raus",)
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
