"""Unpacking an upload safely: a ``.py`` file, or a bot folder as a ``.tar.gz`` or ``.zip``.

Everything in an upload is hostile. It is read into memory entry by entry, never extracted by a library onto
disk, and refused with one sentence (:class:`UploadRefused`) for: too many bytes sent, too many files, too
many bytes once unpacked (counted while decompressing, so an archive bomb stops at the limit, whatever its
headers claim), a compression ratio no bot needs, an absolute path or ``..``, a symbolic or hard link, a device
file or FIFO, an encrypted zip entry, or a file that is not a bot (no ``bot.py``, ``bot.toml`` or single
top-level ``.py``). What passes is a plain mapping of relative paths to bytes, written by
:func:`ladder.sandbox.submission.write_tree`.
"""

from __future__ import annotations

import io
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from typing import IO

from ladder.errors import Refused, UserError
from ladder.sandbox.submission import MANIFEST_FILE, find_entry, is_skipped, read_manifest
from service.settings import UploadLimits

CHUNK = 64 * 1024


class UploadRefused(Refused, ValueError):
    """An upload the server will not take; the message is the one sentence the author sees."""


def _mb(count: int) -> str:
    return f"{count / (1024 * 1024):g} MB"


class _Budget:
    """The unpacked bytes and files so far, against the limits."""

    def __init__(self, limits: UploadLimits, sent: int) -> None:
        self.limits = limits
        self.cap = min(limits.max_unpacked_bytes, max(sent, 1) * limits.max_ratio)
        self.total = 0
        self.files = 0

    def add_file(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UploadRefused(
                f"the archive holds more than {self.limits.max_files} files; a bot may have at most that many"
            )

    def add_bytes(self, count: int) -> None:
        self.total += count
        if self.total > self.cap:
            if self.cap < self.limits.max_unpacked_bytes:
                raise UploadRefused(
                    f"the archive unpacks to more than {self.limits.max_ratio} times its size "
                    f"({_mb(self.total)} so far): refused as an archive bomb"
                )
            raise UploadRefused(
                f"the archive unpacks to more than {_mb(self.limits.max_unpacked_bytes)}; that is the "
                "most a bot may bring"
            )

    def read(self, chunks: Iterator[bytes]) -> bytes:
        parts = []
        for chunk in chunks:
            self.add_bytes(len(chunk))
            parts.append(chunk)
        return b"".join(parts)


def safe_path(name: str) -> str | None:
    """The entry's relative posix path, None for a folder entry; refuses absolute paths, ``..`` and oddities."""
    if "\x00" in name or "\\" in name:
        raise UploadRefused(
            f"the archive entry {name[:80]!r} has a backslash or NUL in its name; use plain relative paths"
        )
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadRefused(
            f"the archive entry {name[:80]!r} is an absolute path; a bot's files must be relative to its folder"
        )
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadRefused(f"the archive entry {name[:80]!r} climbs out of the folder with '..'; refused")
    if not parts:
        return None
    return posixpath.join(*parts)


def _chunks(stream: IO[bytes] | None) -> Iterator[bytes]:
    if stream is None:
        return
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            return
        yield chunk


def _from_tar(data: bytes, budget: _Budget) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|*") as archive:
            for member in archive:
                budget.add_file()
                if member.issym() or member.islnk():
                    raise UploadRefused(
                        f"the archive entry {member.name[:80]!r} is a link; a bot's folder must hold plain files only"
                    )
                if member.isdir():
                    safe_path(member.name)
                    continue
                if not member.isreg():
                    raise UploadRefused(
                        f"the archive entry {member.name[:80]!r} is a device, FIFO or other special "
                        "file; a bot's folder must hold plain files only"
                    )
                path = safe_path(member.name)
                if path is None:
                    continue
                if member.size > budget.cap:
                    budget.add_bytes(member.size)  # refuses: its header alone is over the limit
                files[path] = budget.read(_chunks(archive.extractfile(member)))
    except (tarfile.TarError, EOFError, OSError, ValueError) as error:
        if isinstance(error, UploadRefused):
            raise
        raise UploadRefused(f"the upload is not a readable .tar.gz archive ({type(error).__name__})") from None
    return files


def _from_zip(data: bytes, budget: _Budget) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                budget.add_file()
                mode = info.external_attr >> 16  # Unix mode bits, where the zip was made on Unix (0 elsewhere)
                kind = stat.S_IFMT(mode)
                if stat.S_ISLNK(mode):
                    raise UploadRefused(
                        f"the archive entry {info.filename[:80]!r} is a link; a bot's folder must hold plain files only"
                    )
                if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                    raise UploadRefused(
                        f"the archive entry {info.filename[:80]!r} is a device, FIFO or other special "
                        "file; a bot's folder must hold plain files only"
                    )
                if info.flag_bits & 0x1:
                    raise UploadRefused(f"the archive entry {info.filename[:80]!r} is encrypted; send it unencrypted")
                path = safe_path(info.filename)
                if info.is_dir() or path is None:
                    continue
                with archive.open(info) as stream:
                    files[path] = budget.read(_chunks(stream))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError) as error:
        if isinstance(error, UploadRefused):
            raise
        raise UploadRefused(f"the upload is not a readable .zip archive ({type(error).__name__})") from None
    return files


def _strip_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """``mybot/bot.py`` -> ``bot.py`` when every file is in one top folder (an archive of the folder itself)."""
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        return {path.split("/", 1)[1]: data for path, data in files.items()}
    return files


MAX_NAME_BYTES = 255  # one file or folder name (the file system's own limit)
MAX_PATH_BYTES = 1024  # a whole relative path (well under the file system's 4096 with the server's folders in front)


def check_layout(files: dict[str, bytes]) -> None:
    """Refuse files that cannot be laid out as one folder: a path that is both a file and a folder (``a`` and
    ``a/b``), or a name or path longer than a file system takes. Checked before anything is written."""
    for path in files:
        encoded = path.encode("utf-8", "surrogateescape")
        if len(encoded) > MAX_PATH_BYTES or any(len(part) > MAX_NAME_BYTES for part in encoded.split(b"/")):
            raise UploadRefused(
                f"the archive entry {path[:80]!r}... has a name longer than a file system takes; "
                f"keep each name under {MAX_NAME_BYTES} bytes and each path shorter"
            )
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in files:
                raise UploadRefused(
                    f"the archive has both a file and a folder named {folder[:80]!r}; one of them must go: refused"
                )


def unpack_upload(data: bytes, filename: str, limits: UploadLimits) -> dict[str, bytes]:
    """The bot's files from an upload (see the module docstring); :class:`UploadRefused` with one sentence."""
    if len(data) > limits.max_bytes:
        raise UploadRefused(f"the upload is {_mb(len(data))}; the most this server takes is {_mb(limits.max_bytes)}")
    if not data:
        raise UploadRefused("the upload is empty")
    budget = _Budget(limits, len(data))
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        files = _strip_common_folder(_from_zip(data, budget))
    elif data[:2] == b"\x1f\x8b" or filename.endswith((".tar", ".tar.gz", ".tgz")):
        files = _strip_common_folder(_from_tar(data, budget))
    elif filename.endswith(".py"):
        budget.add_bytes(len(data))
        files = {"bot.py": data}
    else:
        raise UploadRefused("the upload is neither a .py file nor a .tar.gz or .zip archive of a bot folder")
    files = {path: content for path, content in files.items() if not is_skipped(path)}
    check_layout(files)
    try:
        if MANIFEST_FILE in files:
            read_manifest(files, "the archive")
        else:
            find_entry(files, "the archive")
    except UserError as error:
        raise UploadRefused(str(error)) from None
    return files
