"""No module of ``ladder/`` above 600 lines: a room holds modules a reader can take in (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

LADDER = Path(__file__).resolve().parents[1] / "ladder"
MAX_LINES = 600


def test_no_ladder_module_is_above_600_lines() -> None:
    sizes = {
        path.relative_to(LADDER.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(LADDER.rglob("*.py"))
    }
    assert len(sizes) > 40  # the walk found the rooms, not an empty folder
    too_long = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not too_long, f"split these by job (docs/architecture.md, The rooms of ladder/): {too_long}"


def test_the_ladder_package_itself_stays_empty() -> None:
    # ladder/__init__.py is mounted into every sandbox (ladder.sandbox.host_facts.API_LADDER_FILES): code here would
    # run inside each bot's sandbox, and anything it imported would be missing there.
    assert (LADDER / "__init__.py").read_text(encoding="utf-8") == ""
