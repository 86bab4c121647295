"""Crashes the interpreter (SIGSEGV) while being imported."""

import ctypes

ctypes.string_at(0)

from ladder.bot import Bot  # noqa: E402


class SegfaultAtImport(Bot):
    name = "segfault-at-import"
    games = ("toy-count",)
