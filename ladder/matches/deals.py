"""Sealed deals: the secret every deal and bot seed of a tournament comes from.

The tournament file's ``seed`` is public (it is in the TOML): it fixes the
schedule (which matches, their keys and their order), nothing a bot could use.
The cards come from a :class:`DealSecret`: 32 random bytes made when a
tournament is created and kept in the database, never in the file, never sent
to a worker (workers get only each match's own seeds) and never shown to a bot.

Every seed is a keyed hash of the secret (HMAC-SHA256, first 8 bytes, top 53
bits so it survives JSON and every SQL integer type)::

    deal seed = keyed_seed(secret, "deal", cycle, game, variant, num_players, deal)
    bot seed  = keyed_seed(secret, "bot", match_key, seat)

where the message is ``repr(keys)`` of the tuple of labels. A bot's seed is
therefore unrelated to its deal's: knowing every bot seed it was ever given,
the public seed and the match keys tells nothing about any deal.

When a tournament starts, its *commitment* (the SHA-256 of the secret's bytes)
is published; when it ends the secret itself is revealed, and anyone can check
``sha256(secret) == commitment`` and re-derive every stored deal seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from ladder.errors import UserError

SECRET_BYTES = 32
SEED_BITS = 53


@dataclass(frozen=True)
class DealSecret:
    """A tournament's deal secret (its bytes) and what may be published of it before it ends."""

    value: bytes

    @classmethod
    def fresh(cls) -> DealSecret:
        return cls(secrets.token_bytes(SECRET_BYTES))

    @classmethod
    def from_hex(cls, text: str, where: str = "--deal-secret") -> DealSecret:
        """The secret written as hex; :class:`UserError` (one line) unless it is 64 hex digits."""
        cleaned = text.strip().lower()
        if len(cleaned) != 2 * SECRET_BYTES or any(c not in "0123456789abcdef" for c in cleaned):
            raise UserError(
                f"{where}: a deal secret is {2 * SECRET_BYTES} hex digits (as `ladder tournaments` "
                f"shows it once revealed), not {text[:80]!r}"
            )
        return cls(bytes.fromhex(cleaned))

    @property
    def hex(self) -> str:
        return self.value.hex()

    @property
    def commitment(self) -> str:
        return commitment_of(self.value)

    def __repr__(self) -> str:  # never in a traceback or a log by accident
        return f"DealSecret(commitment={self.commitment[:16]}...)"


def commitment_of(secret: bytes) -> str:
    """The published commitment to ``secret``: its SHA-256, in hex."""
    return hashlib.sha256(secret).hexdigest()


def keyed_seed(secret: bytes, *keys: object) -> int:
    """A 53-bit seed from ``secret`` and labels: unpredictable without the secret, reproducible with it."""
    digest = hmac.new(secret, repr(tuple(keys)).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def sealed_bot_seed(secret: bytes, match_key: str, seat: int) -> int:
    """The seed the bot in ``seat`` of match ``match_key`` is given for its own randomness, from the tournament's
    sealed deal secret (:func:`ladder.matches.match.seat_seed` is the public one of a match without a secret)."""
    return keyed_seed(secret, "bot", match_key, seat)


def fresh_seed() -> int:
    """A random 53-bit seed nobody can predict (the submission check's deals and bot seeds)."""
    return secrets.randbits(SEED_BITS)
