"""An Elfer raus! state from an explicit deal: rulebook examples and positions in the middle of a round.

Everything in a deal is checked, with one sentence naming the first thing wrong (:class:`DealError`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import DealError
from engine.elfer_raus.cards import (
    COLOUR_INDEX,
    ELEVEN,
    HAND_SIZES,
    HIGHEST,
    LOWEST,
    card_id,
    card_text,
    deck_cards,
    parse_card,
)
from engine.elfer_raus.state import ElferRausState

if TYPE_CHECKING:
    from engine.elfer_raus.game import ElferRausGame


def state_from_deal(game: ElferRausGame, deal: Mapping[str, Any], options: Mapping[str, Any] | None) -> ElferRausState:
    """:meth:`ElferRausGame.from_deal`: see its docstring for the layout of ``deal``."""
    hands_json = _sequence(deal.get("hands"), "deal['hands'] must be a list of hands, one per seat")
    num_players = len(hands_json)
    game.check_num_players(num_players)
    validated = game.validate_options(options)
    game.check_options_for_players(num_players, validated)
    seed = deal.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise DealError(f"deal['seed'] must be an integer, not {seed!r}")
    dealer = _seat(deal.get("dealer", num_players - 1), num_players, "dealer")
    state = ElferRausState.blank(game, num_players, seed, validated, first_dealer=dealer)

    hands = [[parse_card(card) for card in hand] for hand in hands_json]
    pack_json = _sequence(deal.get("pack", []), "deal['pack'] must be a list of cards, top card first")
    pack_top_first = [parse_card(card) for card in pack_json]
    rows_json = deal.get("rows") or {}
    if not isinstance(rows_json, Mapping):
        raise DealError("deal['rows'] must map colours to [low, high]")
    low, high, table = _parse_rows(rows_json, state.colours, state.opening_numbers)
    _check_whole_deck(
        [card for hand in hands for card in hand] + pack_top_first + table, deck_cards(validated["without_blues"])
    )
    pack = list(reversed(pack_top_first))
    if table:
        _start_mid_round(state, hands, pack, (low, high), deal.get("current_player", 0), rows_json)
    else:
        _start_first_round(state, hands, pack)
    return state


def _sequence(value: Any, message: str) -> Sequence[Any]:
    """``value`` if it is a list (not a text), else :class:`DealError` with ``message``."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise DealError(message)
    return value


def _seat(value: Any, num_players: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < num_players:
        raise DealError(f"deal[{field!r}] must be a seat 0..{num_players - 1}, not {value!r}")
    return value


def _parse_rows(
    rows_json: Mapping[str, Any], colours: Collection[int], opening_numbers: Collection[int]
) -> tuple[list[int], list[int], list[int]]:
    """The rows already on the table: each colour's low and high end, and every card they hold."""
    low = [0, 0, 0, 0]
    high = [0, 0, 0, 0]
    table: list[int] = []
    for colour_name, bounds in rows_json.items():
        if colour_name not in COLOUR_INDEX or COLOUR_INDEX[colour_name] not in colours:
            raise DealError(f"{colour_name!r} is not a colour of this deck")
        row_low, row_high = _row_bounds(colour_name, bounds, opening_numbers)
        colour = COLOUR_INDEX[colour_name]
        low[colour], high[colour] = row_low, row_high
        table.extend(card_id(colour, number) for number in range(row_low, row_high + 1))
    return low, high, table


def _row_bounds(colour_name: str, bounds: Any, opening_numbers: Collection[int]) -> tuple[int, int]:
    """``[low, high]`` of one row, which must hold a card a row may start with."""
    if (
        not isinstance(bounds, Sequence)
        or len(bounds) != 2
        or any(isinstance(b, bool) or not isinstance(b, int) for b in bounds)
        or not LOWEST <= bounds[0] <= bounds[1] <= HIGHEST
    ):
        raise DealError(f"row {colour_name}: {bounds!r} is not [low, high] with 1 <= low <= high <= 20")
    row_low, row_high = bounds
    if not any(row_low <= start <= row_high for start in opening_numbers):
        raise DealError(
            f"row {colour_name} {row_low}..{row_high} does not hold a card a row may start with "
            f"({sorted(opening_numbers)})"
        )
    return row_low, row_high


def _check_whole_deck(everything: list[int], expected: list[int]) -> None:
    """The hands, pack and rows together hold each card of the deck exactly once."""
    if sorted(everything) == expected:
        return
    duplicates = sorted(card for card, count in Counter(everything).items() if count > 1)
    missing = sorted(set(expected) - set(everything))
    foreign = sorted(set(everything) - set(expected))
    raise DealError(
        "the hands, pack and rows must hold the deck exactly once: "
        f"duplicated {[card_text(c) for c in duplicates]}, missing {[card_text(c) for c in missing]}, "
        f"not in this deck {[card_text(c) for c in foreign]}"
    )


def _start_mid_round(
    state: ElferRausState,
    hands: list[list[int]],
    pack: list[int],
    rows: tuple[list[int], list[int]],
    current_json: Any,
    rows_json: Mapping[str, Any],
) -> None:
    """Round 1 from a position with rows on the table, the seat ``current_json`` to move."""
    if any(not hand for hand in hands):
        raise DealError("in the middle of a round every hand holds at least one card")
    current = _seat(current_json, state.num_players, "current_player")
    state.round = 1
    state.dealer = state.first_dealer
    state.starter = current
    state.hands = [set(hand) for hand in hands]
    state.pack = pack
    state.low, state.high = rows
    state.log.add(
        {
            "type": "deal",
            "round": 1,
            "dealer": state.first_dealer,
            "hand_sizes": [len(hand) for hand in hands],
            "pack_size": len(pack),
            "redeals": 0,
            "rows": {name: list(bounds) for name, bounds in rows_json.items()},
        }
    )
    # The position may be one where the player to move cannot go and the pack is empty.
    state.pass_turn_from((current - 1) % state.num_players)


def _start_first_round(state: ElferRausState, hands: list[list[int]], pack: list[int]) -> None:
    """Round 1 as dealt: the rulebook's hand sizes, and an eleven in some hand unless playing the number swap."""
    num_players = state.num_players
    size = HAND_SIZES[num_players]
    if any(len(hand) != size for hand in hands):
        raise DealError(f"with {num_players} players each hand holds {size} cards, not {[len(h) for h in hands]}")
    if not state.number_swap and not any(card_id(colour, ELEVEN) in hand for colour in state.colours for hand in hands):
        raise DealError("no eleven was dealt: the rules call for a fresh deal")
    state.set_up_round(1, [set(hand) for hand in hands], pack, 0)
