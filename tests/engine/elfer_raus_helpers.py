"""Helpers for the Elfer raus! tests: cards written as text, fresh deals and mid-round positions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.elfer_raus import (
    COLOURS,
    GAME,
    HAND_SIZES,
    ElferRausState,
    card_id,
    deck_cards,
)

LETTER = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}


def c(text: str) -> list[Any]:
    """A card from short text: "r10" is the red 10, "b20" the blue 20."""
    return [LETTER[text[0]], int(text[1:])]


def cards(texts: str) -> list[list[Any]]:
    return [c(text) for text in texts.split()]


def cid(text: str) -> int:
    colour, number = c(text)
    return card_id(COLOURS.index(colour), number)


def play(text: str) -> dict[str, Any]:
    colour, number = c(text)
    return {"type": "play", "colour": colour, "number": number}


DRAW = {"type": "draw"}
END = {"type": "end_turn"}


def all_deck(without_blues: bool = False) -> list[list[Any]]:
    return [[COLOURS[card // 20], card % 20 + 1] for card in deck_cards(without_blues)]


def fresh_deal(
    num_players: int,
    hands: Mapping[int, str],
    pack_top: str = "",
    in_pack: str = "",
    options: Mapping[str, Any] | None = None,
    **extra: Any,
) -> ElferRausState:
    """A first round dealt explicitly: the named cards where asked, the rest filled in deck order.

    ``in_pack`` cards go to the pack (below ``pack_top``) so that they are not dealt.
    """
    options = dict(options or {})
    size = HAND_SIZES[num_players]
    placed = {tuple(card) for text in list(hands.values()) + [pack_top, in_pack] for card in cards(text)}
    filler = [card for card in all_deck(options.get("without_blues", False)) if tuple(card) not in placed]
    dealt: list[list[list[Any]]] = []
    for seat in range(num_players):
        hand = cards(hands.get(seat, ""))
        while len(hand) < size:
            hand.append(filler.pop(0))
        dealt.append(hand)
    pack = cards(pack_top) + cards(in_pack) + filler
    return GAME.from_deal({"hands": dealt, "pack": pack, **extra}, options)


def position(
    num_players: int,
    rows: Mapping[str, list[int]],
    hands: Mapping[int, str],
    pack_top: str = "",
    rest_to: int | None = None,
    current: int = 0,
    options: Mapping[str, Any] | None = None,
    **extra: Any,
) -> ElferRausState:
    """A position in the middle of a round: rows on the table, the named hands, the rest in the pack
    (below ``pack_top``) or, with ``rest_to``, in that seat's hand."""
    options = dict(options or {})
    on_table = {(colour, number) for colour, (low, high) in rows.items() for number in range(low, high + 1)}
    named = {tuple(card) for text in list(hands.values()) + [pack_top] for card in cards(text)}
    rest = [card for card in all_deck(options.get("without_blues", False)) if tuple(card) not in on_table | named]
    dealt = [cards(hands.get(seat, "")) for seat in range(num_players)]
    pack = cards(pack_top)
    if rest_to is None:
        pack += rest
    else:
        dealt[rest_to] += rest
    deal = {"hands": dealt, "pack": pack, "rows": dict(rows), "current_player": current, **extra}
    return GAME.from_deal(deal, options)


def full_rows(*colours: str) -> dict[str, list[int]]:
    return {colour: [1, 20] for colour in colours}


def hand_of(state: ElferRausState, seat: int) -> set[str]:
    return {f"{colour[0]}{number}" for colour, number in state.observation(seat)["hand"]}


def plays_in(actions: Iterable[dict[str, Any]]) -> set[str]:
    return {f"{a['colour'][0]}{a['number']}" for a in actions if a["type"] == "play"}
