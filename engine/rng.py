"""Seeded randomness drawn independently of the players' choices.

Every chance event of a game draws from its own stream, keyed by the match
seed and a label (and a counter where it repeats, e.g. the n-th reshuffle or
the n-th bowling frame). The stream depends only on those keys, never on what
was played before, so every bot facing the same seed faces the same luck.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int, *keys: object) -> int:
    """A 64-bit seed from ``seed`` and labels, stable across processes and versions."""
    text = repr((int(seed),) + tuple(keys)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def stream(seed: int, *keys: object) -> random.Random:
    """A ``random.Random`` for the chance event named by ``keys`` in the match ``seed``."""
    return random.Random(derive_seed(seed, *keys))
