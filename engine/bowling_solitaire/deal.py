"""The racks: the ten pins and three ball piles of a frame, shuffled from the seed or given as JSON."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bowling_solitaire.layout import DECK, NUM_PINS, PILE_SIZES, PIN_NAMES
from engine.core import DealError
from engine.rng import stream


@dataclass(frozen=True)
class Rack:
    """One set-up: the ten pins (numbers at A..J) and the three ball piles, each listed top card first."""

    pins: tuple[int, ...]
    piles: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]

    @classmethod
    def shuffled(cls, rng: random.Random) -> Rack:
        """Shuffle the twenty cards; the first ten are the pins A..J, the rest the piles of 5, 3 and 2."""
        deck = list(DECK)
        rng.shuffle(deck)
        return cls(tuple(deck[:10]), (tuple(deck[10:15]), tuple(deck[15:18]), tuple(deck[18:20])))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rack:
        """A rack from ``{"pins": [...] or {"A": n, ...}, "piles": [[top, ...], [...], [...]]}``."""
        if not isinstance(data, Mapping) or "pins" not in data or "piles" not in data:
            raise DealError('a rack needs "pins" (ten numbers, A to J) and "piles" (three lists, top card first)')
        pins = _rack_pins(data["pins"])
        if len(pins) != NUM_PINS:
            raise DealError(f"a rack has ten pins, not {len(pins)}")
        raw_piles = data["piles"]
        if not isinstance(raw_piles, Sequence) or len(raw_piles) != len(PILE_SIZES):
            raise DealError("a rack has three ball piles")
        piles = [list(pile) for pile in raw_piles]
        sizes = tuple(len(pile) for pile in piles)
        if sizes != PILE_SIZES:
            raise DealError(f"the ball piles hold 5, 3 and 2 cards, not {sizes}")
        cards = pins + [card for pile in piles for card in pile]
        _check_card_numbers(cards)
        if sorted(cards) != list(DECK):
            raise DealError("a rack uses the twenty cards 0-9 twice each, exactly once")
        return cls(tuple(pins), (tuple(piles[0]), tuple(piles[1]), tuple(piles[2])))

    def to_json(self) -> dict[str, Any]:
        return {"pins": dict(zip(PIN_NAMES, self.pins)), "piles": [list(pile) for pile in self.piles]}


def _rack_pins(raw_pins: Any) -> list[Any]:
    """The ten pin cards of a rack, A to J: a list, or a mapping naming every position."""
    if isinstance(raw_pins, Mapping):
        if sorted(raw_pins) != list(PIN_NAMES):
            raise DealError(f"pins must name exactly the positions A-J, not {sorted(raw_pins)}")
        return [raw_pins[name] for name in PIN_NAMES]
    return list(raw_pins)


def _check_card_numbers(cards: Sequence[Any]) -> None:
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 9:
            raise DealError(f"cards are numbered 0-9, not {card!r}")


def rack_for(seed: int, rack_number: int) -> Rack:
    """The rack dealt for frame ``rack_number`` (11 and 12: the tenth frame's bonus racks).

    Drawn from ``stream(seed, "frame", rack_number)`` alone, so it does not
    depend on anything played before.
    """
    return Rack.shuffled(stream(seed, "frame", rack_number))
