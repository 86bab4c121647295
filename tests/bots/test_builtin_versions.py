"""A built-in bot's version hash covers the code it runs: its game's package, not only the file of its class."""

from __future__ import annotations

from bots.registry import bot_classes
from ladder.seats.versions import BOTS_ROOT, _source_files, builtin_hash


def test_a_search_bot_is_hashed_with_the_modules_of_its_package_it_imports() -> None:
    # the Elevenses search bot imports the memory module its package shares with thumb: an edit there is a new version
    search = next(
        cls for cls in bot_classes()["search"] if "elevenses" in cls.games and "elevenses-for-one" not in cls.games
    )
    files = {path.relative_to(BOTS_ROOT).as_posix() for path in _source_files(search)}
    assert {"elevenses/search.py", "elevenses/memory.py", "elevenses/thumb.py"} <= files


def test_bots_sharing_a_package_have_versions_of_their_own() -> None:
    hashes = {name: builtin_hash(name) for name in ("random", "thumb", "search", "thumb-25", "thumb-50")}
    assert len(set(hashes.values())) == len(hashes)
