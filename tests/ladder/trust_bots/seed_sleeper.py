"""A sleeper that behaves only when it recognises the submission check by its seeds.

The check once dealt its matches from fixed seeds (``1000 * players + index``)
and gave each bot a public hash of them: a bot could tell the check from a
tournament and behave only during the check. This one plays its first legal
action when its seed is one of those, and otherwise loops for ever (a timeout
in a tournament). With fresh secret seeds it cannot recognise the check, so
the check catches it.
"""

from __future__ import annotations

from ladder.bot import Bot

try:
    from engine.rng import derive_seed
except ImportError:  # shipped without the engine: the hash is a few lines anyway
    import hashlib

    def derive_seed(seed, *keys):
        text = repr((int(seed),) + tuple(keys)).encode()
        return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


CHECK_SEEDS = {
    derive_seed(1000 * players + index, "bot", seat)
    for players in range(1, 7)
    for index in range(50)
    for seat in range(players)
}


def looks_like_the_check(seed: int) -> bool:
    return seed in CHECK_SEEDS


class SeedSleeper(Bot):
    name = "seed-sleeper"
    author = "the trust tests"
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        if looks_like_the_check(self.match.seed):
            return legal_actions[0]
        while True:  # misbehave: never answer
            pass
