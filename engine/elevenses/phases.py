"""The decisions a seat may face (the phases), the passing directions, the caps and the option values."""

from __future__ import annotations

# ---- phases: what kind of decision the current player faces ------------------------
TURN, ARRANGE, TEA_FLIP, CHOOSE_PLAYER, MILK_SWAP, CAKES_SWAP = 0, 1, 2, 3, 4, 5
SANDWICHES_DRAW, SANDWICHES_KEEP, SET_ASIDE, GAME_OVER = 6, 7, 8, 9
PHASE_NAMES: tuple[str, ...] = (
    "turn",
    "arrange",
    "tea",
    "choose_player",
    "milk_swap",
    "cakes_swap",
    "sandwiches_draw",
    "sandwiches_keep",
    "set_aside",
    "over",
)
PHASE_BY_NAME: dict[str, int] = {name: index for index, name in enumerate(PHASE_NAMES)}

LEFT, RIGHT = 1, -1
"""Passing directions as seat steps (clockwise is +1)."""

ARRANGES_PER_TURN = 2
CUPS_AND_SAUCERS_ARRANGES = 3

TURN_CAP_PER_SEAT = 24
"""The default of the option ``turn_cap``: a round nobody ends is scored "as if eleven o'clock
struck" after this many turns per seat (decision D13)."""

TURN_CAP_RANGE = (5, 100)
"""The values ``turn_cap`` may take: at least the 5 turns a seat needs to play 4 cards and its
Elevenses, at most 100 (a bound for ``max_actions``)."""

PLAYOFF_ROUND_CAP = 3
"""With ``ties="play_on"``: the most rounds played on after a round that left the top tied
at or above the target; if the top is still tied after them, the tied seats share the win."""

UNLIMITED_BOWL, LIMITED_BOWL = "unlimited", "limited"
"""Values of the option ``sugar_bowl``: cubes never run short (default), or the box's 25
(en) / 30 (fr) cubes are paid while they last and an empty bowl ends the game."""

SHARE_TIES, PLAY_ON_TIES = "share", "play_on"
"""Values of the option ``ties``: tied leaders at or above the target share the victory
(default), or play on for at most :data:`PLAYOFF_ROUND_CAP` rounds to find an outright winner."""

MAX_DECISIONS_PER_TURN = 5
"""A bound on decisions in one turn: play Cups & Saucers, three arrange actions and stop
(Fine China with four players: play and four set-asides; Sandwiches: play, choose, draw, keep)."""
