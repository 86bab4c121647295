"""The pin triangle: pin names, which pins touch, the groups a ball card may take and which are legal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core import Action

PIN_NAMES: str = "ABCDEFGHIJ"
"""Pin positions: A-D the back row, E-G, H-I, and J the head pin."""

PIN_INDEX: dict[str, int] = {name: index for index, name in enumerate(PIN_NAMES)}
BACK_ROW: frozenset[str] = frozenset("ABCD")
CENTRE_PIN: str = "F"

ADJACENT_PAIRS: tuple[tuple[str, str], ...] = (
    ("A", "B"),
    ("B", "C"),
    ("C", "D"),
    ("E", "F"),
    ("F", "G"),
    ("H", "I"),
    ("A", "E"),
    ("B", "E"),
    ("B", "F"),
    ("C", "F"),
    ("C", "G"),
    ("D", "G"),
    ("E", "H"),
    ("F", "H"),
    ("F", "I"),
    ("G", "I"),
    ("H", "J"),
    ("I", "J"),
)
"""Pins that touch in the triangle: each pin touches its row neighbours and the
two pins diagonally in front of or behind it (the only reading under which the
rulebook's examples H-I, E-F-H and H-F-G are all adjacent)."""

PILE_SIZES: tuple[int, int, int] = (5, 3, 2)
"""The three ball piles, left to right."""

DECK: tuple[int, ...] = tuple(sorted(list(range(10)) * 2))
"""Twenty cards, numbered 0-9 twice."""

NUM_PINS: int = 10
ALL_PINS: int = (1 << NUM_PINS) - 1
FRAMES: int = 10
LAST_RACK: int = 12
"""Frames 1-10 use racks 1-10; the tenth frame's bonus balls use racks 11 and 12."""

ACTIONS_PER_RACK: int = NUM_PINS + 1
"""Every play takes at least one pin, so a rack sees at most ten plays and one stop."""


def _mask(names: str | Sequence[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << PIN_INDEX[name]
    return mask


NEIGHBOURS: tuple[int, ...] = tuple(
    _mask([b for a, b in ADJACENT_PAIRS if a == name] + [a for a, b in ADJACENT_PAIRS if b == name])
    for name in PIN_NAMES
)
"""For each pin, the mask of the pins it touches."""

BACK_ROW_MASK: int = _mask(sorted(BACK_ROW))
CENTRE_MASK: int = _mask(CENTRE_PIN)


def _touching(mask: int) -> int:
    touched = 0
    for index in range(NUM_PINS):
        if mask >> index & 1:
            touched |= NEIGHBOURS[index]
    return touched


TOUCHING: tuple[int, ...] = tuple(_touching(mask) for mask in range(1 << NUM_PINS))
"""For each set of pins (a mask), the mask of every pin touching one of them."""


@dataclass(frozen=True)
class PinGroup:
    """One to three pins that a single ball card may knock down together.

    A group of two or three is connected through adjacency (H-F-G is a group:
    H touches F and F touches G, though H does not touch G).
    """

    names: tuple[str, ...]
    mask: int
    allowed_first: bool
    """Whether the first ball card of a frame may take it: no back-row pin,
    and not the centre pin by itself."""


def _connected(names: Sequence[str]) -> bool:
    members = _mask(names)
    reached = 1 << PIN_INDEX[names[0]]
    while True:
        grown = reached | (TOUCHING[reached] & members)
        if grown == reached:
            return reached == members
        reached = grown


def _all_groups() -> tuple[PinGroup, ...]:
    groups: list[PinGroup] = []
    names = PIN_NAMES
    candidates: list[tuple[str, ...]] = [(a,) for a in names]
    candidates += [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    candidates += [
        (a, b, c) for i, a in enumerate(names) for j, b in enumerate(names[i + 1 :], i + 1) for c in names[j + 1 :]
    ]
    for members in candidates:
        if _connected(members):
            mask = _mask(members)
            allowed_first = not (mask & BACK_ROW_MASK) and mask != CENTRE_MASK
            groups.append(PinGroup(members, mask, allowed_first))
    return tuple(groups)


PIN_GROUPS: tuple[PinGroup, ...] = _all_groups()
"""Every connected group of one to three pins (64 of them), smallest first, names sorted."""

GROUP_INDEX: dict[tuple[str, ...], int] = {group.names: index for index, group in enumerate(PIN_GROUPS)}
# Lookup tables by group index, so a ball is a few table reads (the state reads GROUP_MASKS, GROUP_MEMBERS,
# POPCOUNT and BOWL_ACTIONS on every play; the search bots replay thousands of games a decision).
GROUP_MASKS: tuple[int, ...] = tuple(group.mask for group in PIN_GROUPS)
_GROUP_FIRST_OK: tuple[bool, ...] = tuple(group.allowed_first for group in PIN_GROUPS)
# member indices padded with position 10, which always holds 0, so a digit is one sum
_GROUP_TRIPLES: tuple[tuple[int, int, int], ...] = tuple(
    tuple(PIN_INDEX[name] for name in group.names) + (NUM_PINS,) * (3 - len(group.names))  # type: ignore[misc]
    for group in PIN_GROUPS
)
GROUP_MEMBERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(PIN_INDEX[name] for name in group.names) for group in PIN_GROUPS
)
POPCOUNT: tuple[int, ...] = tuple(bin(mask).count("1") for mask in range(1 << NUM_PINS))

STOP: Action = {"type": "stop"}
BOWL_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple({"type": "bowl", "pile": pile, "pins": list(group.names)} for group in PIN_GROUPS)
    for pile in range(len(PILE_SIZES))
)


def group_digits(pins: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """For a layout (pin numbers A..J), the groups whose sum ends in each digit 0-9."""
    padded = list(pins) + [0]
    buckets: list[list[int]] = [[] for _ in range(10)]
    for index, (a, b, c) in enumerate(_GROUP_TRIPLES):
        buckets[(padded[a] + padded[b] + padded[c]) % 10].append(index)
    return tuple(tuple(bucket) for bucket in buckets)


def legal_group_indices(standing: int, digit_groups: Sequence[Sequence[int]], ball: int) -> list[int]:
    """The groups a ball card of number ``ball`` may knock down from the ``standing`` pins.

    "To knock over one pin, the number on the chosen ball card must match the
    number on the pin card"; two or three adjacent pins need a sum whose final
    digit is the ball's number. With no pin yet down in the frame, no back-row
    pin and not the centre pin alone; afterwards at least one pin must touch a
    pin already removed.
    """
    down = ALL_PINS ^ standing
    found: list[int] = []
    if down:
        reach = TOUCHING[down]
        for index in digit_groups[ball]:
            mask = GROUP_MASKS[index]
            if mask & standing == mask and mask & reach:
                found.append(index)
    else:
        for index in digit_groups[ball]:
            if _GROUP_FIRST_OK[index]:
                found.append(index)
    return found
