"""Fixtures for the tournament tests: toy games registered, a fresh database and results folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments import toygames


@pytest.fixture
def toy() -> Iterator[None]:
    toygames.install()
    yield
    toygames.uninstall()


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    return f"sqlite:///{tmp_path / 'ladder.db'}"
