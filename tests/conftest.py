"""Suite-wide test settings.

``@pytest.mark.needs_bot_sandbox`` marks a test that runs a submitted (untrusted) bot. Where no
submitted bot can be sandboxed (as root without bubblewrap, and with an interpreter an unprivileged
user cannot read), the ladder refuses to run one, so such a test is skipped with that one-line
reason instead of failing: the README's test command must pass on a fresh machine without
bubblewrap. CI installs bubblewrap, so there they run.

``db_url`` gives a test a fresh, empty database on each backend the ladder supports: an SQLite file, and
a new database on a throwaway PostgreSQL cluster (:mod:`tests.postgres_cluster`, started once per test
process when first needed). Where PostgreSQL cannot run, its cases skip with the reason; ``-m "not
postgres"`` leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ladder.seats.players import sandbox_refusal
from tests import postgres_cluster


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_bot_sandbox: runs a submitted bot; skipped where none can be sandboxed")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    refusal = sandbox_refusal()
    if refusal is None:
        return
    skip = pytest.mark.skip(reason=refusal.split(";")[0])
    for item in items:
        if item.get_closest_marker("needs_bot_sandbox") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[postgres_cluster.PostgresServer]:
    """A PostgreSQL server for this test process (its own throwaway cluster, or ``$LADDER_TEST_POSTGRES_URL``)."""
    reason = postgres_cluster.why_not()
    if reason is not None:
        pytest.skip(reason)
    server = postgres_cluster.start()
    try:
        yield server
    finally:
        postgres_cluster.stop(server)


BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh, empty database's URL, once per backend: an SQLite file, a new PostgreSQL database (and a results
    folder of the test's own)."""
    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ladder.db'}"
    server: postgres_cluster.PostgresServer = request.getfixturevalue("postgres_server")
    return server.fresh_url()
