"""The eleven morning tea cards, numbered 1 to 11: one table for Elevenses and Elevenses for One.

Both games (David Harding's, by Grail Games) use the same eleven cards, from the Tea Trolley to Elevenses;
each game gives them its own meaning: teaspoon values and special actions in
:mod:`engine.elevenses.cards`, effects and minutes in :mod:`engine.elevenses_for_one`.
"""

from __future__ import annotations

TEA_TROLLEY, TEA, MILK, SUGAR, CUPS_AND_SAUCERS = 1, 2, 3, 4, 5
FINE_CHINA, BISCUITS, SANDWICHES, CAKES, SERVANTS, ELEVENSES = 6, 7, 8, 9, 10, 11

CARD_NAMES: dict[int, str] = {
    TEA_TROLLEY: "Tea Trolley",
    TEA: "Tea",
    MILK: "Milk",
    SUGAR: "Sugar",
    CUPS_AND_SAUCERS: "Cups & Saucers",
    FINE_CHINA: "Fine China",
    BISCUITS: "Biscuits",
    SANDWICHES: "Sandwiches",
    CAKES: "Cakes",
    SERVANTS: "Servants",
    ELEVENSES: "Elevenses",
}
"""Each card's name, as printed."""

CARD_NUMBERS: tuple[int, ...] = tuple(CARD_NAMES)
"""Every card number, 1 to 11, in order."""
