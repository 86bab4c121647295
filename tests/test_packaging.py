"""What the wheel promises: every package it imports is declared, and every package ships ``py.typed`` (issue 29).

An import of a package that only arrives as another's dependency (pydantic through sqlmodel) works until that
other package changes its own requirements; these tests name the module and the declaration to add.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bots", "ladder", "tournaments", "service", "cli")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _distribution_name(requirement: str) -> str:
    """``"dask[distributed]>=2024.1"`` -> ``"dask"``, normalised as PEP 503 does."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def _declared() -> set[str]:
    project = _pyproject()["project"]
    requirements = list(project["dependencies"])
    for group in project.get("optional-dependencies", {}).values():
        requirements += group
    declared = {_distribution_name(requirement) for requirement in requirements}
    # An extra brings its own distributions: dask[distributed] installs `distributed`.
    declared |= {extra.lower() for requirement in requirements for extra in re.findall(r"\[([^\]]+)\]", requirement)}
    return declared


@cache
def _imported_top_level_modules() -> dict[str, str]:
    """Every top-level module imported by the packages (not the standard library, not their own), with one file."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in PACKAGES and top != "__future__":
                        found.setdefault(top, path.relative_to(ROOT).as_posix())
    return found


def test_every_imported_package_is_declared() -> None:
    declared = _declared()
    distributions = packages_distributions()
    undeclared = []
    for module, where in sorted(_imported_top_level_modules().items()):
        names = {_distribution_name(dist) for dist in distributions.get(module, [module])}
        if not names & declared:
            undeclared.append(f"{module} (imported in {where}; distribution {', '.join(sorted(names))})")
    assert not undeclared, "imported but not declared in pyproject.toml: " + "; ".join(undeclared)


def test_the_declaration_check_sees_a_direct_import() -> None:
    """The check is not vacuous: it finds the direct imports this issue declared."""
    modules = _imported_top_level_modules()
    assert {"pydantic", "sqlalchemy", "sqlmodel", "trueskill"} <= set(modules), sorted(modules)
    assert {"pydantic", "sqlalchemy"} <= _declared()


def test_every_package_ships_py_typed() -> None:
    missing = [package for package in PACKAGES if not (ROOT / package / "py.typed").is_file()]
    assert not missing, f"no py.typed in {missing} (PEP 561: mypy ignores the hints of a package without it)"
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data.get("*", []), "py.typed must be package data, or the wheel leaves it out"
