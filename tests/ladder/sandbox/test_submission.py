"""What a submission is on disk: its entry file, its content hash, its staged copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ladder.errors import UserError
from ladder.sandbox.submission import content_hash, read_files, stage

BOT = "from ladder.bot import Bot\n\nclass B(Bot):\n    name = 'b'\n"


def test_a_single_file_is_stored_as_bot_py_so_renaming_it_changes_nothing(tmp_path: Path) -> None:
    first = tmp_path / "first.py"
    second = tmp_path / "second_name.py"
    first.write_text(BOT)
    second.write_text(BOT)
    assert read_files(first) == {"bot.py": BOT.encode()}
    assert content_hash(read_files(first)) == content_hash(read_files(second))


def test_one_changed_byte_is_a_new_hash(tmp_path: Path) -> None:
    path = tmp_path / "bot.py"
    path.write_text(BOT)
    before = content_hash(read_files(path))
    path.write_text(BOT + "\n")
    assert content_hash(read_files(path)) != before


def test_a_folder_uses_bot_py_and_brings_its_other_files(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "helpers.py").write_text("X = 1\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "table.json").write_text("{}")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"junk")
    files = read_files(tmp_path)
    assert sorted(files) == ["bot.py", "data/table.json", "helpers.py"]
    submission = stage(tmp_path)
    assert submission.entry == "bot.py"
    staged = Path(submission.host_dir)
    assert (staged / "data" / "table.json").read_text() == "{}"
    assert oct(staged.stat().st_mode & 0o777) == "0o755"
    assert oct((staged / "bot.py").stat().st_mode & 0o777) == "0o644"


def test_a_folder_without_bot_py_uses_its_only_python_file(tmp_path: Path) -> None:
    (tmp_path / "clever.py").write_text(BOT)
    (tmp_path / "notes.txt").write_text("hi")
    assert stage(tmp_path).entry == "clever.py"


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: None, "no .py file"),
        (lambda d: ((d / "a.py").write_text(BOT), (d / "b.py").write_text(BOT)), "name the entry file bot.py"),
        (lambda d: ((d / "bot.py").write_text(BOT), os.symlink("/etc/passwd", d / "secret")), "symbolic link"),
    ],
)
def test_a_folder_that_is_not_a_clear_bot_is_refused_in_one_sentence(tmp_path: Path, make, words: str) -> None:
    make(tmp_path)
    with pytest.raises(UserError, match=words):
        read_files(tmp_path)


def test_a_missing_path_or_a_non_python_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        read_files(tmp_path / "missing.py")
    (tmp_path / "bot.txt").write_text(BOT)
    with pytest.raises(UserError, match="not a Python file"):
        read_files(tmp_path / "bot.txt")
