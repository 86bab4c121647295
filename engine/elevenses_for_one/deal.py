"""An explicit layout read and checked: every card once, the trolley in order, a legal discard pile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import DealError
from engine.elevenses_for_one.cards import ALL_CARDS, DISCARD_CAP_GAME, DISCARD_LIMIT, NEVER_DISCARDED
from engine.morning_tea import ELEVENSES, TEA_TROLLEY  # the card table Elevenses for One shares with Elevenses


def deal_cards(deal: Mapping[str, Any]) -> tuple[list[int], list[int], list[int], set[int]]:
    """The deal's Pantry, discards, trolley (default ``[1]`` unless 1 lies elsewhere) and face-down cards."""
    try:
        pantry = [int(card) for card in deal["pantry"]]
    except (KeyError, TypeError, ValueError):
        raise DealError("a deal needs 'pantry': a list of card numbers") from None
    discards = [int(card) for card in deal.get("discards", [])]
    default_trolley = [] if TEA_TROLLEY in pantry or TEA_TROLLEY in discards else [TEA_TROLLEY]
    trolley = [int(card) for card in deal.get("trolley", default_trolley)]
    face_down = {int(card) for card in deal.get("face_down", [])}
    return pantry, discards, trolley, face_down


def check_layout(trolley: list[int], pantry: list[int], discards: list[int], options: Mapping[str, Any]) -> None:
    """Every card once, the trolley in order (the Tea Trolley on it unless shuffled in), a legal discard pile."""
    if sorted(trolley + pantry + discards) != list(ALL_CARDS):
        raise DealError("trolley, pantry and discards must hold cards 1 to 11, each exactly once")
    if trolley != list(range(1, len(trolley) + 1)) or ELEVENSES in trolley:
        raise DealError(f"the trolley must hold 1, 2, 3, ... in order without 11, not {trolley}")
    if not trolley and not options["trolley_shuffled_in"]:
        raise DealError("the Tea Trolley (1) starts on the trolley unless trolley_shuffled_in is set")
    if len(discards) > DISCARD_LIMIT or NEVER_DISCARDED & set(discards):
        raise DealError(f"at most {DISCARD_LIMIT} discards, never 5 or 10: {discards}")


def checked_discards_made(deal: Mapping[str, Any], discards: list[int], options: Mapping[str, Any]) -> int:
    """``deal["discards_made"]`` (default: the cards in the pile), within what the discard cap allows."""
    discards_made = deal.get("discards_made", len(discards))
    if isinstance(discards_made, bool) or not isinstance(discards_made, int) or discards_made < len(discards):
        raise DealError(
            f"discards_made must be an integer of at least {len(discards)} (the cards in the pile), not {discards_made!r}"
        )
    if options["discard_cap"] == DISCARD_CAP_GAME and discards_made > DISCARD_LIMIT:
        raise DealError(
            f"with discard_cap=game at most {DISCARD_LIMIT} cards are discarded in a game, not {discards_made}"
        )
    return discards_made
