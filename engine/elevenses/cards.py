"""The cards of Elevenses: the eleven morning tea cards of every set, and the special guests.

Each seat owns a set of eleven morning tea cards, told apart by the colour of
their backs: set ``s`` is the set of seat ``s``, and a card's back is the
number of its set. A card is an ``int`` inside the engine,
``set * 11 + number - 1`` (seat 0's Tea Trolley is 0, seat 3's Elevenses is
43), and ``[number, set]`` in JSON (observations, actions, events).

"Each morning tea card has a value and a special action which is carried out
when it is played." (rulebook, Game Overview). The number of a card is also
the position of the spread it is played to: "Cards 2-5 are played to the top
row of the spread and cards 6-9 are played on the bottom row. Card 1 is played
to the left of the spread, and card 10 to the right. Card 11 is not part of
the spread and is played to the centre of the table."
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.morning_tea import (  # the card table both Elevenses games share; re-exported here
    BISCUITS,
    CAKES,
    CARD_NAMES,
    CUPS_AND_SAUCERS,
    ELEVENSES,
    FINE_CHINA,
    MILK,
    SANDWICHES,
    SERVANTS,
    SUGAR,
    TEA,
    TEA_TROLLEY,
)

CARDS_PER_SET = 11
SPREAD_SIZE = 8
"""Face-down cards dealt to the spread (positions 2-9); the other three make the kitchen."""

CARD_VALUES: dict[int, int] = {
    TEA_TROLLEY: 0,
    TEA: 1,
    MILK: 1,
    SUGAR: 1,
    CUPS_AND_SAUCERS: 1,
    FINE_CHINA: 2,
    BISCUITS: 2,
    SANDWICHES: 2,
    CAKES: 2,
    SERVANTS: 3,
    ELEVENSES: 0,
}
"""Teaspoons on each card: "Every card has a value between 0 and 3"."""

SPREAD_POSITIONS: tuple[int, ...] = tuple(range(1, 11))
"""Positions of the spread: 1 (left), 2-9 (the two rows of face-down cards), 10 (right)."""

FACE_DOWN_POSITIONS: tuple[int, ...] = tuple(range(2, 10))
"""Positions that always hold a card, face down or face up: the only places of arrange actions."""

ELEVENSES_MIN_FACE_UP = 4
""""Elevenses may only be played if you have at least 4 face-up cards in your spread."."""

GUEST_VALUE = 2
"""A revealed special guest: "Your morning tea has gained 2 value!"."""

# ---- card ids ------------------------------------------------------------------
MAX_SETS = 4
NUMBER: tuple[int, ...] = tuple(card % CARDS_PER_SET + 1 for card in range(MAX_SETS * CARDS_PER_SET))
BACK: tuple[int, ...] = tuple(card // CARDS_PER_SET for card in range(MAX_SETS * CARDS_PER_SET))
VALUE: tuple[int, ...] = tuple(CARD_VALUES[number] for number in NUMBER)


def card_id(number: int, card_set: int) -> int:
    """The engine's id of card ``number`` of set ``card_set``."""
    return card_set * CARDS_PER_SET + number - 1


def elevenses_of(card_set: int) -> int:
    """The id of the Elevenses card of a set."""
    return card_set * CARDS_PER_SET + ELEVENSES - 1


def is_elevenses(card: int) -> bool:
    return card % CARDS_PER_SET == ELEVENSES - 1


def card_json(card: int) -> list[int]:
    """A card as JSON: ``[number, set]``."""
    return [card % CARDS_PER_SET + 1, card // CARDS_PER_SET]


def card_from_json(value: Any, num_sets: int) -> int:
    """Parse ``[number, set]``; raise ``ValueError`` on anything else."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(part, int) and not isinstance(part, bool) for part in value)
    ):
        raise ValueError(f"a card is written [number, set], not {value!r}")
    number, card_set = value
    if not 1 <= number <= CARDS_PER_SET or not 0 <= card_set < num_sets:
        raise ValueError(f"no card {value!r} with {num_sets} sets")
    return card_id(number, card_set)


def card_label(card: int) -> str:
    """A short human label, e.g. ``Sandwiches/2``."""
    return f"{CARD_NAMES[NUMBER[card]]}/{BACK[card]}"


# ---- special guests -------------------------------------------------------------
@dataclass(frozen=True)
class GuestCard:
    """A special guest: "Each guest likes 3 particular morning tea cards and will only
    arrive after you have played them - giving your morning tea 2 more value."."""

    name: str
    wants: tuple[int, int, int]


GUEST_COUNT = 6
""""shuffle all 6 special guest cards and randomly deal 1 face-down to each player"."""

HOUSE_GUESTS: tuple[GuestCard, ...] = (
    GuestCard("The Vicar", (TEA, MILK, SUGAR)),
    GuestCard("The Duchess", (FINE_CHINA, CAKES, SERVANTS)),
    GuestCard("The Colonel", (TEA_TROLLEY, BISCUITS, SANDWICHES)),
    GuestCard("The Novelist", (TEA, CUPS_AND_SAUCERS, BISCUITS)),
    GuestCard("The Professor", (MILK, FINE_CHINA, SANDWICHES)),
    GuestCard("The Debutante", (SUGAR, CUPS_AND_SAUCERS, CAKES)),
)
"""THE PROJECT'S OWN guest set, not the printed cards.

The rulebook does not say which three cards each printed guest wants, so this
table is an invention of this project (each of the cards 2-9 is wanted by two
guests, the Tea Trolley and Servants by one). Replace it with the option
``guest_cards`` (six groups of three card numbers from 1 to 10).
"""

HOUSE_GUEST_CARDS = "house"
"""Value of the ``guest_cards`` option that selects :data:`HOUSE_GUESTS`."""


@lru_cache(maxsize=64)
def parse_guest_cards(text: str) -> tuple[GuestCard, ...]:
    """The guest table named by the ``guest_cards`` option.

    ``"house"`` is :data:`HOUSE_GUESTS`; anything else is six groups of three
    distinct card numbers from 1 to 10 (card 11, Elevenses, is never face up in
    a spread), groups separated by commas and numbers by dashes, e.g.
    ``"2-3-4,6-9-10,1-7-8,2-5-7,3-6-8,4-5-9"``. Raises ``ValueError``.
    """
    if not isinstance(text, str):
        raise ValueError(f"guest_cards is a text, not {text!r}")
    if text.strip() == HOUSE_GUEST_CARDS:
        return HOUSE_GUESTS
    groups = [group.strip() for group in text.split(",")]
    if len(groups) != GUEST_COUNT:
        raise ValueError(f"guest_cards needs {GUEST_COUNT} guests separated by commas, not {len(groups)}")
    guests: list[GuestCard] = []
    for index, group in enumerate(groups):
        try:
            numbers = tuple(int(part) for part in group.split("-"))
        except ValueError:
            raise ValueError(f"guest {index + 1} ({group!r}) must be three card numbers like 2-3-4") from None
        if len(numbers) != 3 or len(set(numbers)) != 3 or not all(1 <= number <= 10 for number in numbers):
            raise ValueError(f"guest {index + 1} ({group!r}) must be three different card numbers from 1 to 10")
        guests.append(GuestCard(f"Guest {index + 1}", (numbers[0], numbers[1], numbers[2])))
    return tuple(guests)


def guest_cards_text(guests: Sequence[GuestCard]) -> str:
    """The ``guest_cards`` option text of a table."""
    return ",".join("-".join(str(number) for number in guest.wants) for guest in guests)
