"""Names that pass for a built-in bot, beyond issue 23's first fold (found playing the hostile author): through
`ladder submit`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ladder.front_door import LadderHome, assert_one_clear_line
from tests.ladder.sandbox.test_front_door_voids import HONEST, python_bot


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[LadderHome]:
    yield LadderHome(tmp_path)


def test_a_name_with_cl_for_d_is_refused(home: LadderHome) -> None:
    """UTS #39's confusables give ``d`` the skeleton ``cl`` (as ``m`` has ``rn``): ``ranclom`` passes for ``random``.
    A name given with ``--name`` is refused before the sandbox starts (so also where there is none)."""
    honest = python_bot(home, "honest", HONEST)
    for name in ("ranclom", "RANCLOM-2"):
        refused = home.ladder("submit", str(honest), "--name", name, "--matches", "1")
        assert_one_clear_line(refused, "passes for the built-in bot 'random'")
    if home.query("select name from sqlite_master where name = 'bot'"):
        assert not home.query("select name from bot")
