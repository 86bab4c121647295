"""The cards of Elfer raus!: 80 cards numbered 1 to 20 in four colours, the hand sizes and opening numbers.

A card is an ``int`` inside the engine, ``colour index * 20 + number - 1`` (red 1 is 0, blue 20 is 79), and
``[colour, number]`` in JSON (observations, actions, events).
"""

from __future__ import annotations

from typing import Any

from engine.core import DealError

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
"""The colours, in the rulebook's order of precedence for the opening eleven."""

COLOUR_INDEX: dict[str, int] = {colour: index for index, colour in enumerate(COLOURS)}
LOWEST, HIGHEST, ELEVEN = 1, 20, 11
CARDS_PER_COLOUR = HIGHEST - LOWEST + 1
MAX_DRAWS_PER_TURN = 3

HAND_SIZES: dict[int, int] = {2: 20, 3: 20, 4: 15, 5: 12, 6: 10}
"""Cards dealt to each player, by number of players (the rest is the pack)."""

HOLD_BACK_SOME = "some"
"""A player who can lay a card must lay at least one; holding back keeps some matching cards."""
HOLD_BACK_ALL = "all"
"""A player may hold back every matching card and draw instead, while the pack holds cards."""
HOLD_BACK_READINGS: tuple[str, ...] = (HOLD_BACK_SOME, HOLD_BACK_ALL)

BASE_OPENING_NUMBERS: frozenset[int] = frozenset({ELEVEN})
SWAP_OPENING_NUMBERS: frozenset[int] = frozenset({10, 11, 12})

# A card is an int: colour index * 20 + number - 1 (red 1 is 0, blue 20 is 79).


def card_id(colour_index: int, number: int) -> int:
    return colour_index * CARDS_PER_COLOUR + number - 1


def card_colour(card: int) -> int:
    return card // CARDS_PER_COLOUR


def card_number(card: int) -> int:
    return card % CARDS_PER_COLOUR + 1


def card_json(card: int) -> list[Any]:
    """A card as JSON: ``[colour, number]``."""
    return [COLOURS[card // CARDS_PER_COLOUR], card % CARDS_PER_COLOUR + 1]


def card_text(card: int) -> str:
    return f"{COLOURS[card // CARDS_PER_COLOUR]} {card % CARDS_PER_COLOUR + 1}"


def colours_in_play(without_blues: bool) -> tuple[int, ...]:
    """Colour indices of the deck: all four, or red, yellow and green for the 60-card deck."""
    return (0, 1, 2) if without_blues else (0, 1, 2, 3)


def deck_cards(without_blues: bool) -> list[int]:
    """Every card of the deck, in a fixed order."""
    return [
        card_id(colour, number) for colour in colours_in_play(without_blues) for number in range(LOWEST, HIGHEST + 1)
    ]


def parse_card(value: Any) -> int:
    """A card from its JSON form ``[colour, number]``; raises :class:`DealError` if malformed."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or value[0] not in COLOUR_INDEX
        or isinstance(value[1], bool)
        or not isinstance(value[1], int)
        or not LOWEST <= value[1] <= HIGHEST
    ):
        raise DealError(f"{value!r} is not a card: write [colour, number] with a colour of {COLOURS} and 1..20")
    return card_id(COLOUR_INDEX[value[0]], value[1])
