"""A bot that tries to compute the deal from everything it can see, and says so if it can.

At its first decision of each match it tries every seed it could know or
guess: the tournament file's public seed (written in below by the test, as
any author could copy it from the file), the deal seeds the ladder used to
derive from it, the same derivations keyed with the public seed, its own bot
seed and simple functions of it, the match keys it can build from the bot
names, and small numbers. A candidate is the deal if a fresh game from it
gives this seat the hand it holds (or, as the ladder's bot seeds once were, if
the candidate's one-way hash is this bot's seed). If one is found the bot
raises ``RuntimeError("DEAL RECOVERED ...")``; otherwise it plays its first
legal action, never failing, so a recorded failure can only be a recovery.

It needs ``engine`` (the rules, public): shipped next to it by the test, as
an attacker would ship a copy of the open-source engine.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from engine import get_game
from engine.rng import derive_seed
from ladder.bot import Bot

PUBLIC_SEED = 0  # the tournament file's seed (public), filled in by the test
BOT_NAMES: list = []  # the tournament's bots (public), filled in by the test
GAMES_PER_PAIRING = 0  # from the tournament file, filled in by the test
BRUTE = 400


def _hand(observation: dict) -> list[str]:
    return sorted(json.dumps(card, sort_keys=True) for card in observation.get("hand", []))


def _keyed(secret: bytes, *keys: object) -> int:
    digest = hmac.new(secret, repr(tuple(keys)).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 11


def candidates(game: str, num_players: int, seat: int, bot_seed: int) -> list[int]:
    """Every seed this bot can think of."""
    found = [PUBLIC_SEED, bot_seed, bot_seed >> 11, bot_seed & ((1 << 53) - 1), (bot_seed - seat) // 1009]
    found += range(BRUTE)
    found += (PUBLIC_SEED + i for i in range(-BRUTE // 2, BRUTE))
    deals = range(max(GAMES_PER_PAIRING, 8))
    public_keys = [str(PUBLIC_SEED).encode(), PUBLIC_SEED.to_bytes(32, "big"), PUBLIC_SEED.to_bytes(8, "big"), b""]
    for cycle in range(3):
        for variant in range(2):
            for deal in deals:
                labels = ("deal", cycle, game, variant, num_players, deal)
                found.append(derive_seed(PUBLIC_SEED, *labels) >> 11)  # how the ladder once dealt
                found.append(derive_seed(PUBLIC_SEED, *labels))
                found += (_keyed(key, *labels) for key in public_keys)  # the public seed as the secret
                deal_id = f"c{cycle}/{game}/o{variant}/{num_players}p/d{deal}"
                for first in BOT_NAMES:
                    for second in BOT_NAMES:
                        if first != second:
                            key = f"{deal_id}/{first}+{second}"
                            found.append(derive_seed(PUBLIC_SEED, key) >> 11)
                            found.append(_keyed(str(PUBLIC_SEED).encode(), "bot", key, seat))
    for label in ("deal", "match", "bot", "seed"):
        found.append(derive_seed(bot_seed, label) >> 11)
        found.append(derive_seed(bot_seed, label, seat) >> 11)
    return list(dict.fromkeys(found))


def recover(game_id: str, num_players: int, seat: int, options: dict, bot_seed: int, observation: dict) -> int | None:
    """The deal's seed, if any seed this bot can think of deals it (or hashes to its bot seed)."""
    game = get_game(game_id)
    mine = _hand(observation)
    for candidate in candidates(game_id, num_players, seat, bot_seed):
        if derive_seed(candidate, "bot", seat) == bot_seed:
            return candidate
        try:
            state = game.new_state(num_players, candidate, options)
        except Exception:  # a candidate the game refuses: not the deal
            continue
        if mine and _hand(state.observation(seat)) == mine:
            return candidate
    return None


class DealCracker(Bot):
    name = "deal-cracker"
    author = "the trust tests"
    games = ("elfer-raus",)

    def start(self, match):
        super().start(match)
        self.tried = False

    def act(self, observation, legal_actions):
        if not self.tried:
            self.tried = True
            match = self.match
            found = recover(match.game, match.num_players, match.seat, dict(match.options), match.seed, observation)
            if found is not None:
                raise RuntimeError(f"DEAL RECOVERED: seed {found}")
        return legal_actions[0]
