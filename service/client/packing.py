"""A bot folder packed as the ``.tar.gz`` the server unpacks (:func:`service.web.uploads.unpack_upload`): the
client's side of an upload, apart from the web app so that ``ladder submit --server`` loads no web framework."""

from __future__ import annotations

import io
import tarfile


def pack_folder(files: dict[str, bytes]) -> bytes:
    """A bot folder's files as the ``.tar.gz`` the server unpacks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(files):
            info = tarfile.TarInfo(path)
            info.size = len(files[path])
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(files[path]))
    return buffer.getvalue()
