"""No function of any of the project's packages is more complex than :data:`LIMIT` (issues 15 and 29).

Measured as radon measures it (McCabe's cyclomatic complexity: one plus each branch, loop, boolean
operator, comprehension and except clause; see docs/complexity.md), the same figure that
``radon cc -s -n D --show-closures engine bots ladder tournaments cli`` prints. A function above the limit is one that cannot be read
in one sitting: split it into named steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

complexity = pytest.importorskip("radon.complexity", reason="needs radon (pip install radon)")
visitors = pytest.importorskip("radon.visitors", reason="needs radon (pip install radon)")

LIMIT = 15
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bots", "ladder", "tournaments", "service", "cli")


def function_complexities() -> dict[tuple[str, str], int]:
    """Every function and method of :data:`PACKAGES` (file relative to the repository, qualified name) with its
    cyclomatic complexity; a nested function is measured on its own (``radon cc --show-closures`` lists it)."""
    found: dict[tuple[str, str], int] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            pending = [
                (block.fullname, block)
                for block in complexity.cc_visit(path.read_text(encoding="utf-8"))
                if isinstance(block, visitors.Function)
            ]
            while pending:
                name, block = pending.pop()
                found[(where, name)] = block.complexity
                pending += [(f"{name}.{inner.name}", inner) for inner in block.closures]
    return found


def test_no_function_is_more_complex_than_the_limit() -> None:
    found = function_complexities()
    assert found, "no function found: the packages moved?"
    assert {path.split("/")[0] for path, _ in found} == set(PACKAGES), "a package has no function measured"
    too_complex = sorted(
        f"{path}: {name} has complexity {value} (the limit is {LIMIT})"
        for (path, name), value in found.items()
        if value > LIMIT
    )
    assert not too_complex, "\n".join(too_complex)
