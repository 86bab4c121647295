"""Only the store (``ladder/store/``) and the read model (``ladder/views/``) write database queries: every other
module reads through :mod:`ladder.views` and writes through :mod:`ladder.store` (issue 34, docs/architecture.md).

A query is a use of ``select`` imported from ``sqlmodel`` or ``sqlalchemy`` (under any name, or as
``sqlmodel.select``); the modules are parsed, not imported, so a query hidden in a function is found too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERY_LIBRARIES = ("sqlmodel", "sqlalchemy")
ALLOWED = ("ladder/store/", "ladder/views/")

CHECKED = ("engine", "bots", "ladder", "tournaments", "service", "cli")
EXEMPT: tuple[str, ...] = ()  # none: every query is the store's or the read model's


def _selects(tree: ast.AST) -> list[int]:
    """The lines where ``tree`` uses a ``select`` of the query libraries."""
    names: set[str] = set()  # local names bound to a library's select
    modules: set[str] = set()  # local names bound to a query library (``import sqlmodel``)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in QUERY_LIBRARIES:
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "select"}
        elif isinstance(node, ast.Import):
            modules |= {
                alias.asname or alias.name.split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] in QUERY_LIBRARIES
            }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            found.append(node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "select"
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append(node.lineno)
    return found


def _modules() -> list[Path]:
    return sorted(path for package in CHECKED for path in (ROOT / package).rglob("*.py"))


def test_queries_live_in_the_store_and_the_read_model() -> None:
    outside = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _modules()
        if not path.relative_to(ROOT).as_posix().startswith(ALLOWED + EXEMPT)
        for line in _selects(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not outside, f"a database query outside ladder/store and ladder/views (read through ladder.views): {outside}"


def test_the_check_sees_each_way_a_query_is_written() -> None:
    """The check itself: it finds ``select`` imported under its name, renamed, or reached through the module."""
    written = {
        "from sqlmodel import select\nselect(A)\n": [2],
        "from sqlalchemy import select as sa_select\nsa_select(A.b)\n": [2],
        "import sqlmodel\nsqlmodel.select(A)\n": [2],
        "from sqlalchemy.future import select\nq = select\n": [2],
        "from jinja2 import select_autoescape\nselect_autoescape(['html'])\n": [],
        "def select(x): ...\nselect(1)\n": [],
    }
    for source, lines in written.items():
        assert _selects(ast.parse(source)) == lines, source
    assert any(path.as_posix().endswith("ladder/views/served.py") for path in _modules())  # it looks where it says
