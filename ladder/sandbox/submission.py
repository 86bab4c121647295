"""What a submitted bot is on disk: its files, its entry file, its content hash.

A submission is either

- a single ``.py`` file: that file is the bot (it is stored as ``bot.py``, so
  renaming the file does not make a new version), or
- a directory: its entry file is ``bot.py`` if there is one, else the only
  ``.py`` file at its top level; the other files (helper modules, data) come
  along and the bot may import or open them;
- a directory with a ``bot.toml`` manifest: a program in any language
  (``command = [...]``) that speaks JSON lines on stdin/stdout
  (docs/writing-a-bot.md; the ladder's side is :mod:`ladder.sandbox.exec_bot`),
  optionally built once at submission (``build = [...]``, run by
  :mod:`ladder.sandbox.build`): then the folder the build leaves is the bot, and its
  hash the version's.

The entry file must define exactly one subclass of :class:`ladder.bot.Bot`
(or set ``BOT = TheClass`` when it defines several).

Nothing here imports or runs the bot: the parent process only reads bytes.
The bot's metadata (name, games, ...) is discovered inside the sandbox.

The content hash is the SHA-256 of a canonical manifest: for every file in
sorted relative POSIX path order, its path, its size and its bytes. Same
files, same hash; one changed byte, a new version.

Installed packages may also offer bots through the entry point group
``ladder.bots`` (``name = "package.module:BotClass"``); such a bot runs
sandboxed with only its own top-level package visible.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from ladder.errors import UserError

ENTRY_POINT_GROUP = "ladder.bots"
ENTRY_FILE = "bot.py"
MANIFEST_FILE = "bot.toml"
MANIFEST_KEYS = ("name", "author", "version", "games", "command", "build")
MAX_FILES = 500
MAX_TOTAL_BYTES = 20 * 1024 * 1024
SKIPPED_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".venv", "venv"}
SKIPPED_SUFFIXES = (".pyc", ".pyo")


@dataclass(frozen=True)
class Manifest:
    """An executable bot's ``bot.toml``: what it says about itself, the command that runs it, and its build.

    ``build`` (may be empty) runs once at submission in the build sandbox (:mod:`ladder.sandbox.build`); the
    folder it leaves (the bot's files and what the build made) is what is stored and run.
    """

    name: str
    author: str
    version: str
    games: tuple[str, ...]
    command: tuple[str, ...]
    build: tuple[str, ...] = ()


def _load_manifest(files: dict[str, bytes], where: str) -> dict[str, object]:
    """The ``bot.toml`` as a table, refusing invalid TOML and keys the ladder does not know."""
    try:
        data = tomllib.loads(files[MANIFEST_FILE].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UserError(f"{where} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(MANIFEST_KEYS))
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (the keys: {', '.join(MANIFEST_KEYS)})")
    for key in ("name", "author", "version"):
        if not isinstance(data.get(key, ""), str):
            raise UserError(f"{where}: {key} must be a string")
    return data


def _manifest_games(value: object, where: str) -> tuple[str, ...]:
    games = [value] if isinstance(value, str) else value
    if not isinstance(games, list) or not games or not all(isinstance(g, str) for g in games):
        raise UserError(
            f'{where}: games must be a list of game ids, e.g. games = ["elfer-raus"] (or ["*"] for every game)'
        )
    return tuple(games)


def _manifest_program(value: object, key: str, example: str, where: str) -> tuple[str, ...]:
    """A ``command`` or ``build``: a non-empty list of non-empty strings whose program is a name or ``./file``."""
    if not isinstance(value, list) or not value or not all(isinstance(c, str) and c for c in value):
        raise UserError(f"{where}: {key} must be a list of strings, e.g. {key} = {example}")
    if "/" in value[0] and not value[0].startswith(("./", "/")):
        raise UserError(f"{where}: write the program as ./{value[0]} (one of the bot's files) or a program name")
    return tuple(value)


def _check_own_program(program: str, key: str, files: dict[str, bytes], where: str) -> None:
    if program.startswith("./") and program[2:] not in files:
        raise UserError(f"{where}: {key} runs {program!r}, which is not one of the bot's files")


def read_manifest(files: dict[str, bytes], shown: str) -> Manifest:
    """The checked ``bot.toml`` of a submission; :class:`UserError` with one sentence on any mistake.

    With a ``build``, the command's program may be one the build makes: it is looked for after the build.
    """
    where = f"{shown}/{MANIFEST_FILE}"
    data = _load_manifest(files, where)
    games = _manifest_games(data.get("games"), where)
    command = _manifest_program(data.get("command"), "command", '["node", "bot.js"] or ["./bot"]', where)
    build: tuple[str, ...] = ()
    if "build" in data:
        build = _manifest_program(data["build"], "build", '["cc", "-O2", "-o", "bot", "bot.c"]', where)
        _check_own_program(build[0], "build", files, where)
    else:
        _check_own_program(command[0], "command", files, where)
    return Manifest(
        str(data.get("name", "")), str(data.get("author", "")), str(data.get("version", "1")), games, command, build
    )


@dataclass(frozen=True)
class Submission:
    """A bot's code, ready to be shown read-only to a sandbox.

    ``binds`` maps host paths to paths under the sandbox's ``/bot`` folder;
    ``entry`` is the entry file relative to that folder, or ``module`` (with
    ``attribute``) names an importable module for entry-point bots.
    """

    label: str
    content_hash: str
    binds: tuple[tuple[str, str], ...]
    entry: str = ENTRY_FILE
    module: str = ""
    attribute: str = ""
    host_dir: str = ""  # the folder the bot's files live in on the host (what /bot shows)
    manifest: Manifest | None = None  # an executable bot (bot.toml); None for a Python bot


def is_skipped(relative: str) -> bool:
    """Whether a file at ``relative`` (a posix path in a bot's folder) is left out, as :func:`_walk` leaves it out."""
    *folders, name = relative.split("/")
    return name.endswith(SKIPPED_SUFFIXES) or any(folder in SKIPPED_DIRS for folder in folders)


def _walk(root: Path) -> list[tuple[str, Path]]:
    """Every file of a submission folder as (relative posix path, absolute path), refusing oddities."""
    found: list[tuple[str, Path]] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for dirname in dirnames:
            if (Path(dirpath) / dirname).is_symlink():
                raise UserError(
                    f"{Path(dirpath) / dirname} is a symbolic link; a bot's folder must hold plain files only"
                )
        for filename in sorted(filenames):
            path = Path(dirpath) / filename
            if filename.endswith(SKIPPED_SUFFIXES):
                continue
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise UserError(f"{path} is a symbolic link; a bot's folder must hold plain files only")
            if not stat.S_ISREG(info.st_mode):
                raise UserError(f"{path} is not a regular file; a bot's folder must hold plain files only")
            total += info.st_size
            found.append((path.relative_to(root).as_posix(), path))
            if len(found) > MAX_FILES:
                raise UserError(f"{root} holds more than {MAX_FILES} files; a bot may have at most {MAX_FILES}")
            if total > MAX_TOTAL_BYTES:
                raise UserError(
                    f"{root} holds more than {MAX_TOTAL_BYTES // (1024 * 1024)} MB; that is the most a bot may bring"
                )
    return sorted(found)


def read_files(path: str | Path) -> dict[str, bytes]:
    """The files of a submission (a ``.py`` file or a folder) by their stored relative path.

    Raises :class:`UserError` with one sentence for a missing path, a file
    that is not Python, a folder with no clear entry file, symbolic links,
    or a submission that is too big.
    """
    source = Path(path)
    if not source.exists():
        raise UserError(f"no such file or folder: {path}")
    if source.is_file():
        if source.suffix != ".py":
            raise UserError(f"{path} is not a Python file (a bot is a .py file or a folder with bot.py)")
        data = source.read_bytes()
        if len(data) > MAX_TOTAL_BYTES:
            raise UserError(f"{path} is larger than {MAX_TOTAL_BYTES // (1024 * 1024)} MB")
        return {ENTRY_FILE: data}
    if not source.is_dir():
        raise UserError(f"{path} is neither a file nor a folder")
    files = {relative: absolute.read_bytes() for relative, absolute in _walk(source)}
    if MANIFEST_FILE in files:
        read_manifest(files, str(path))
    else:
        find_entry(files, str(path))
    return files


def find_entry(files: dict[str, bytes], shown: str) -> str:
    """The entry file of a folder submission: ``bot.py``, else its only top-level ``.py`` file."""
    if ENTRY_FILE in files:
        return ENTRY_FILE
    top = sorted(name for name in files if "/" not in name and name.endswith(".py"))
    if len(top) == 1:
        return top[0]
    if not top:
        raise UserError(f"{shown} holds no .py file at its top level; put the bot in {shown}/bot.py")
    raise UserError(
        f"{shown} holds {len(top)} .py files ({', '.join(top[:5])}) and no bot.py: name the entry file bot.py"
    )


def content_hash(files: dict[str, bytes]) -> str:
    """SHA-256 of the canonical manifest of ``files`` (see the module docstring)."""
    digest = hashlib.sha256()
    for relative in sorted(files):
        data = files[relative]
        digest.update(relative.encode("utf-8") + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.hexdigest()


def write_tree(files: dict[str, bytes], target: Path) -> None:
    """Write ``files`` under ``target`` (created), readable by every user, written by none but the owner."""
    target.mkdir(parents=True, exist_ok=True)
    target.chmod(0o755)
    for relative, data in files.items():
        path = target / relative
        for parent in reversed(path.relative_to(target).parents):
            folder = target / parent
            if not folder.exists():
                folder.mkdir()
            folder.chmod(0o755)
        path.write_bytes(data)
        path.chmod(0o644)
    if MANIFEST_FILE in files:  # an executable bot's program must stay executable (modes are not in the hash)
        program = read_manifest(files, str(target)).command[0]
        if program.startswith("./"):
            (target / program[2:]).chmod(0o755)


def stored_submission(label: str, folder: Path, expected_hash: str | None = None) -> Submission:
    """A submission from a folder of the bot store (or any staged copy), checked against its hash."""
    if not folder.is_dir():
        raise UserError(f"bot {label}: its files are missing from the bot store ({folder})")
    files = {relative: absolute.read_bytes() for relative, absolute in _walk(folder)}
    found_hash = content_hash(files)
    if expected_hash is not None and found_hash != expected_hash:
        raise UserError(
            f"bot {label}: the files in {folder} do not match their hash {expected_hash[:12]} (changed after submission?)"
        )
    if MANIFEST_FILE in files:
        return Submission(
            label,
            found_hash,
            ((str(folder), ""),),
            entry="",
            host_dir=str(folder),
            manifest=read_manifest(files, str(folder)),
        )
    entry = find_entry(files, str(folder))
    return Submission(label, found_hash, ((str(folder), ""),), entry=entry, host_dir=str(folder))


_staging_root: Path | None = None


def staging_root() -> Path:
    """A private folder for copies of bots run straight from a path (removed at exit of the process)."""
    global _staging_root
    if _staging_root is None or not _staging_root.exists():
        _staging_root = Path(tempfile.mkdtemp(prefix="ladder-bots-"))
        _staging_root.chmod(0o755)  # bots run as another user must reach their own copy
        import atexit

        atexit.register(shutil.rmtree, _staging_root, True)
    return _staging_root


def stage(path: str | Path) -> Submission:
    """Copy a bot from ``path`` to a private folder and describe it (the copy cannot change under the match).

    A bot with a ``build`` is staged by :func:`ladder.sandbox.build.stage_bot`, which builds it first.
    """
    return stage_files(str(path), read_files(path))


def stage_files(label: str, files: dict[str, bytes]) -> Submission:
    """Write ``files`` (a submission's, or what its build left) to a private folder named by their hash."""
    digest = content_hash(files)
    target = staging_root() / digest
    if not target.exists():
        partial = staging_root() / f".{digest}.{os.getpid()}"
        write_tree(files, partial)
        os.replace(partial, target)
    if MANIFEST_FILE in files:
        return Submission(
            label, digest, ((str(target), ""),), entry="", host_dir=str(target), manifest=read_manifest(files, label)
        )
    return Submission(label, digest, ((str(target), ""),), entry=find_entry(files, label), host_dir=str(target))


@dataclass(frozen=True)
class EntryPointBot:
    """A bot offered by an installed package (entry point group ``ladder.bots``)."""

    name: str
    value: str  # "package.module:Class"
    distribution: str


def entry_point_bots() -> list[EntryPointBot]:
    """The installed packages' bots, read from their metadata without importing them."""
    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(point, "dist", None)
        found.append(EntryPointBot(point.name, point.value, getattr(dist, "name", "") or ""))
    return sorted(found, key=lambda bot: bot.name)


def entry_point_submission(bot: EntryPointBot) -> Submission:
    """The sandbox view of an entry-point bot: its top-level package (or module) only.

    The location is found with :func:`importlib.util.find_spec` on the
    top-level name, which reads the file system and runs none of its code.
    """
    module, _, attribute = bot.value.partition(":")
    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        raise UserError(f"entry point {bot.name} = {bot.value!r}: no installed module {top!r}")
    if spec.submodule_search_locations:
        folder = Path(list(spec.submodule_search_locations)[0])
        files = {f"{top}/{rel}": p.read_bytes() for rel, p in _walk(folder)}
        binds = ((str(folder), top),)
        host_dir = str(folder.parent)
    elif spec.origin and spec.origin.endswith(".py"):
        origin = Path(spec.origin)
        files = {origin.name: origin.read_bytes()}
        binds = ((str(origin), origin.name),)
        host_dir = str(origin.parent)
    else:
        raise UserError(f"entry point {bot.name} = {bot.value!r}: {top} is not a pure-Python module or package")
    return Submission(
        f"ep:{bot.name}", content_hash(files), binds, entry="", module=module, attribute=attribute, host_dir=host_dir
    )
