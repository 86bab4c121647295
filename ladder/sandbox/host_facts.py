"""Facts about this host that every sandbox is built from: the interpreter, where the bot API lives, root or not.

``API_LADDER_FILES`` are the only ``ladder/`` files mounted into a sandbox (``ladder/guest/``, see its
``__init__``): that is why ``ladder/__init__.py`` stays empty and the guest imports nothing of the host side.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import ladder
from ladder.guest import protocol

SANDBOX_API = "/ladder-api"
SANDBOX_PACKAGES = "/ladder-packages"  # where bubblewrap shows the packages the operator allows
RESERVED_PACKAGES = ("ladder", "bots", "engine")  # the bot API: always there, never from the host's site-packages
SANDBOX_BOT = "/bot"
# The only ladder/ files mounted into every sandbox (read-only): the guest side. Whatever they import must be here
# too, so ladder/__init__.py stays empty and ladder/guest/ imports nothing of the host side (lint-imports checks it).
API_LADDER_FILES = (
    "__init__.py",
    "bot.py",
    "guest/__init__.py",
    "guest/bot_host.py",
    "guest/protocol.py",
    "guest/rlimits.py",
    "guest/seccomp.py",
)
GUEST_HOST = "ladder/guest/bot_host.py"  # the program the sandbox runs, relative to the API root
SANDBOX_CODEC = f"{SANDBOX_API}/codec"  # where bubblewrap shows the ladder's orjson extension (read-only)
BOT_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONUNBUFFERED": "1",
}


def interpreter() -> tuple[str, list[str]]:
    """The real interpreter binary (not a virtualenv's link) and the folders it needs."""
    binary = os.path.realpath(sys.executable)
    folders = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    if not any(binary.startswith(folder + os.sep) for folder in folders):
        folders.add(os.path.dirname(binary))
    return binary, sorted(folders)


def api_root() -> Path:
    """The folder holding the ``ladder``, ``bots`` and ``engine`` packages."""
    return Path(ladder.__file__).resolve().parent.parent


def _readable_by_others(path: str) -> bool:
    """Whether a user other than the owner (e.g. ``nobody``) can reach ``path`` and read it.

    Every folder on the way must let others through (``o+x``); the target must
    let them read (``o+r``, and ``o+x`` for a folder).
    """
    target = Path(path)
    try:
        if any(not folder.stat().st_mode & 0o001 for folder in target.parents):
            return False
        mode = target.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o004) and (not target.is_dir() or bool(mode & 0o001))


def is_root() -> bool:
    return os.geteuid() == 0


@functools.lru_cache(maxsize=1)
def orjson_extension() -> str | None:
    """The file of the ladder's orjson extension module, which a bot's host may load to read requests fast.

    ``None`` when the ladder does not use orjson (not installed) or it is not a
    single extension file. The host loads it before the bot's code; if it
    cannot (e.g. unreadable by the bot's user), requests are read with the
    standard library.
    """
    module = getattr(protocol.orjson, "orjson", None)
    path = getattr(module, "__file__", None)
    if not path or not os.path.isfile(path) or not path.endswith(".so"):
        return None
    return os.path.realpath(path)


def process_layer_can_drop_root() -> bool:
    """Whether, without bubblewrap, a bot could run as ``nobody`` (it must read the interpreter and the API)."""
    _, folders = interpreter()
    return all(_readable_by_others(folder) for folder in [*folders, str(api_root())])
