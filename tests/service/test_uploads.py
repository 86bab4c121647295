"""Unpacking uploads: every hostile archive is refused with one sentence, a good one gives the bot's files."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest

from service.client.packing import pack_folder
from service.settings import UploadLimits
from service.web.uploads import UploadRefused, unpack_upload

BOT = b"from ladder.bot import Bot\n\nclass B(Bot):\n    name = 'b'\n    games = ('*',)\n\n    def act(self, o, legal):\n        return legal[0]\n"
LIMITS = UploadLimits(max_bytes=1024 * 1024, max_unpacked_bytes=2 * 1024 * 1024, max_files=20, max_ratio=100)


def tar(*members: tarfile.TarInfo | tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                archive.addfile(info, io.BytesIO(member[1]))
    return buffer.getvalue()


def link(name: str, kind: bytes, target: str = "/etc/passwd") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def refused(data: bytes, filename: str = "bot.tar.gz") -> str:
    with pytest.raises(UploadRefused) as caught:
        unpack_upload(data, filename, LIMITS)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300
    return message


def test_a_folder_archive_unpacks_to_its_files_and_a_top_folder_is_dropped() -> None:
    files = {"bot.py": BOT, "helpers/util.py": b"X = 1\n"}
    assert unpack_upload(pack_folder(files), "bot.tar.gz", LIMITS) == files
    wrapped = tar(("mybot/bot.py", BOT), ("mybot/helpers/util.py", b"X = 1\n"))
    assert unpack_upload(wrapped, "mybot.tar.gz", LIMITS) == files
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT)
    assert unpack_upload(buffer.getvalue(), "b.zip", LIMITS) == {"bot.py": BOT}
    assert unpack_upload(BOT, "whatever.py", LIMITS) == {"bot.py": BOT}


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "/etc/cron.d/evil", "C:/evil.py", "a\\..\\evil.py"])
def test_paths_that_climb_out_or_are_absolute_are_refused(name: str) -> None:
    message = refused(tar(("bot.py", BOT), (name, b"boom")))
    assert any(word in message for word in ("..", "absolute", "backslash"))


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_links_are_refused(kind: bytes) -> None:
    assert "is a link" in refused(tar(("bot.py", BOT), link("data", kind)))


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_device_files_and_fifos_are_refused(kind: bytes) -> None:
    info = tarfile.TarInfo("dev")
    info.type = kind
    assert "special file" in refused(tar(("bot.py", BOT), info))


def test_a_zip_symlink_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT)
        info = zipfile.ZipInfo("data")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    assert "is a link" in refused(buffer.getvalue(), "b.zip")


def test_archive_bombs_stop_at_the_limit_while_unpacking() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", BOT)
        archive.writestr("zeros.bin", b"\0" * (50 * 1024 * 1024))
    assert len(buffer.getvalue()) < LIMITS.max_bytes
    assert "the most a bot may bring" in refused(buffer.getvalue(), "bomb.zip")  # 50 MB of zeros in 50 kB
    ratio = UploadLimits(max_bytes=LIMITS.max_bytes, max_unpacked_bytes=100 * 1024 * 1024, max_files=20, max_ratio=100)
    with pytest.raises(UploadRefused, match="archive bomb"):
        unpack_upload(tar(("bot.py", BOT), ("zeros.bin", b"\0" * (20 * 1024 * 1024))), "bomb.tar.gz", ratio)


def test_a_zip_whose_headers_understate_its_size_is_still_stopped() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", BOT)
        archive.writestr("zeros.bin", b"\0" * (50 * 1024 * 1024))
    data = bytearray(buffer.getvalue())
    central = data.rfind(b"PK\x01\x02")  # the last central directory entry: zeros.bin; its uncompressed size at +24
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(UploadRefused):
        unpack_upload(bytes(data), "liar.zip", LIMITS)


def test_too_many_files_too_many_bytes_and_not_a_bot_are_refused() -> None:
    assert "at most" in refused(tar(("bot.py", BOT), *[(f"f{i}.txt", b"x") for i in range(30)]))
    assert "the most this server takes" in refused(b"x" * (LIMITS.max_bytes + 1), "big.py")
    assert "bot.py" in refused(tar(("readme.txt", b"hello")))
    assert "neither a .py file" in refused(b"just text", "notes.txt")
    assert "not a readable" in refused(b"\x1f\x8b garbage", "b.tar.gz")
    assert "empty" in refused(b"", "b.py")
