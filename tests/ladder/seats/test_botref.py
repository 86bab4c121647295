"""Bot references and pool keys: each text form is read one way, everywhere."""

from __future__ import annotations

import pytest

from ladder.ratings.pools import PoolKey
from ladder.seats.botref import BotRef, RefKind

HASH = "ab" * 32


@pytest.mark.parametrize(
    ("text", "kind", "target", "prefix"),
    [
        (f"store:{HASH}", RefKind.STORE, HASH, ""),
        ("ep:fancy", RefKind.ENTRY_POINT, "fancy", ""),
        ("bots/mine.py", RefKind.PATH, "bots/mine.py", ""),
        ("mine.py", RefKind.PATH, "mine.py", ""),
        (".", RefKind.PATH, ".", ""),
        ("greedy", RefKind.NAME, "greedy", ""),
        ("greedy@1f3", RefKind.NAME, "greedy", "1f3"),
    ],
)
def test_each_form_of_reference_is_told_apart_and_written_back_as_it_came(
    text: str, kind: RefKind, target: str, prefix: str
) -> None:
    ref = BotRef.parse(text)
    assert (ref.kind, ref.target, ref.version_prefix) == (kind, target, prefix)
    assert str(ref) == text
    assert ref.sandboxed is (kind is not RefKind.NAME)


def test_a_store_reference_must_name_a_full_lower_case_hash() -> None:
    assert BotRef.parse(f"store:{HASH}").well_formed
    assert not BotRef.parse("store:abc").well_formed
    assert not BotRef.parse(f"store:{HASH.upper()}").well_formed
    assert BotRef.parse("greedy").well_formed


def test_a_name_with_a_hash_prefix_picks_only_the_versions_it_names() -> None:
    assert BotRef.parse("greedy").matches_version("greedy", HASH)
    assert BotRef.parse("greedy@abab").matches_version("greedy", HASH)
    assert not BotRef.parse("greedy@ff").matches_version("greedy", HASH)
    assert not BotRef.parse("greedy").matches_version("random", HASH)
    assert not BotRef.parse(f"store:{HASH}").matches_version(f"store:{HASH}", HASH)


def test_pool_keys_read_and_write_both_granularities() -> None:
    bench_pool = PoolKey.of_deal("c3/elevenses/o1/3p/d7")
    assert bench_pool == PoolKey("elevenses", 3, 1) and str(bench_pool) == "elevenses/o1/3p"
    assert PoolKey.parse("elevenses/o1/3p") == bench_pool
    assert bench_pool.rating_pool == PoolKey.parse("elevenses/3p") and str(bench_pool.rating_pool) == "elevenses/3p"
    with pytest.raises(ValueError, match="not a pool"):
        PoolKey.parse("elevenses/three")
