"""Suite-wide test settings.

``@pytest.mark.needs_bot_sandbox`` marks a test that runs a submitted (untrusted) bot. Where no
submitted bot can be sandboxed (as root without bubblewrap, and with an interpreter an unprivileged
user cannot read), the ladder refuses to run one, so such a test is skipped with that one-line
reason instead of failing: the README's test command must pass on a fresh machine without
bubblewrap. CI installs bubblewrap, so there they run.
"""

from __future__ import annotations

import pytest

from ladder.seats.players import sandbox_refusal


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
