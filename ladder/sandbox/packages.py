"""The packages an operator allows inside the sandbox, and where the host keeps them."""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import sys
from collections.abc import Iterable

from ladder.errors import UserError
from ladder.sandbox.host_facts import RESERVED_PACKAGES


def allowed_packages(names: Iterable[str]) -> tuple[str, ...]:
    """The operator's allow-list, checked: sorted top-level import names of installed packages.

    Raises :class:`UserError` (one line) for a name that is not a top-level
    module name, one of the bot API's own packages, or not installed here.
    """
    chosen = []
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise UserError(f"allowed package {name!r} is not a top-level module name (e.g. numpy)")
        if name in RESERVED_PACKAGES:
            raise UserError(f"allowed package {name!r} is part of the bot API and always there; leave it out")
        if name in sys.stdlib_module_names:
            raise UserError(f"allowed package {name!r} is in the standard library and always there; leave it out")
        if _package_paths(name) is None:
            raise UserError(f"allowed package {name!r} is not installed here (pip install it next to the ladder)")
        chosen.append(name)
    return tuple(sorted(set(chosen)))


@functools.lru_cache(maxsize=64)
def _package_paths(name: str) -> tuple[str, ...] | None:
    """The host paths a bot needs to import the installed package ``name``, or ``None`` if it is not installed.

    Its package folder (or module file) and every other top-level entry its
    distribution installs next to it (e.g. ``numpy.libs`` with its bundled
    shared libraries); standard-library modules are refused (they are there anyway).
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return None
    if spec.submodule_search_locations:
        locations = [os.path.realpath(location) for location in spec.submodule_search_locations]
    else:
        locations = [os.path.realpath(spec.origin)]
    parent = os.path.dirname(locations[0])
    if parent == os.path.realpath(os.path.dirname(os.__file__)):
        return None  # the standard library
    return tuple(sorted(set(locations) | _distribution_entries(name, parent)))


def _distribution_entries(name: str, parent: str) -> set[str]:
    """The top-level entries in ``parent`` that the distributions providing ``name`` install (e.g. ``numpy.libs``)."""
    paths: set[str] = set()
    for distribution in importlib.metadata.packages_distributions().get(name, []):
        try:
            files = importlib.metadata.distribution(distribution).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in files:
            top = file.parts[0] if file.parts else ""
            candidate = os.path.join(parent, top)
            if (
                top
                and top not in ("..", "__pycache__")
                and not top.endswith((".dist-info", ".pth"))
                and os.path.exists(candidate)
            ):
                paths.add(os.path.realpath(candidate))
    return paths


def _library_folders(bound: Iterable[str]) -> list[str]:
    """The ``lib*`` folders of the folders shown to a bot (Python packages live under them, not in share/ or bin/)."""
    found = []
    for root in bound:
        if root == "/" or not os.path.isdir(root) or os.path.islink(root):
            continue
        if os.path.basename(root).startswith("lib"):
            found.append(root)
            continue
        for parent in (root, os.path.join(root, "local")):
            try:
                names = sorted(os.listdir(parent))
            except OSError:
                continue
            found.extend(
                os.path.join(parent, name)
                for name in names
                if name.startswith("lib")
                and os.path.isdir(os.path.join(parent, name))
                and not os.path.islink(os.path.join(parent, name))
            )
    return found


@functools.lru_cache(maxsize=8)
def installed_package_folders(bound: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``site-packages``/``dist-packages`` folder inside the folders shown to a bot (bubblewrap hides them).

    A full walk (once per ladder process): besides the interpreter's own,
    other programs bring Python installations of their own under ``/usr/lib``.
    """
    found: set[str] = set()
    for root in dict.fromkeys(_library_folders(bound)):
        for folder, subfolders, files in os.walk(root):
            if "__init__.py" in files:  # a Python package: no packages folder inside
                subfolders[:] = []
                continue
            if re.fullmatch(r"python\d(\.\d+)?", os.path.basename(folder)):
                # a Python installation's library: its packages folder is right here, the rest is its stdlib
                found.update(
                    os.path.join(folder, name)
                    for name in subfolders
                    if name in ("site-packages", "dist-packages") and not os.path.islink(os.path.join(folder, name))
                )
                subfolders[:] = []
                continue
            kept = []
            for name in subfolders:
                path = os.path.join(folder, name)
                if name in ("site-packages", "dist-packages") and not os.path.islink(path):
                    found.add(path)
                elif name != "__pycache__":
                    kept.append(name)
            subfolders[:] = kept
    return tuple(sorted(found))
