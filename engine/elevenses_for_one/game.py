"""The game: its options, a new match from a seed or an explicit layout, the action bound."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import DealError, DetailValue, Game, GameFacts, OptionSpec, ScoreOrder, WinRule
from engine.elevenses_for_one.cards import (
    ALL_CARDS,
    DISCARD_CAP_GAME,
    DISCARD_CAPS,
    MAX_PANTRY,
    RATING_BANDS,
    STALL_LIMIT,
    START_MINUTES,
)
from engine.elevenses_for_one.deal import check_layout, checked_discards_made, deal_cards
from engine.elevenses_for_one.state import ElevensesForOneState
from engine.morning_tea import TEA_TROLLEY  # the card table Elevenses for One shares with Elevenses
from engine.rng import stream


class ElevensesForOne(Game):
    """Elevenses for One: the solitaire of the Tea Trolley."""

    id = "elevenses-for-one"
    name = "Elevenses for One"
    facts = GameFacts(
        min_players=1,
        max_players=1,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.GOAL_MET,
        win_condition="every Pantry card scored on the Tea Trolley before eleven o'clock",
    )
    option_specs = (
        OptionSpec(
            "minutes",
            "int",
            START_MINUTES,
            "minutes on the timer at the start (the rulebook: 15, or 14 or fewer for a greater challenge)",
            minimum=1,
            maximum=START_MINUTES,
        ),
        OptionSpec(
            "trolley_shuffled_in",
            "bool",
            False,
            "greater challenge: the Tea Trolley (1) is shuffled into the Pantry and must be scored first",
        ),
        OptionSpec(
            "discard_cap",
            "choice",
            DISCARD_CAP_GAME,
            "'If three cards have already been discarded, this option is unavailable': 'game' = three discards "
            "in a game; 'pile' = three cards lying in the discard pile at once (a card taken back frees a place)",
            choices=DISCARD_CAPS,
        ),
    )

    def detail_values(self, detail: str) -> tuple[DetailValue, ...]:
        """Every rating band, in the rulebook's order, with its points (and why 11 is never awarded)."""
        if detail == "band":
            return tuple(DetailValue(band.name, band.note()) for band in RATING_BANDS)
        return ()

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> ElevensesForOneState:
        state = ElevensesForOneState(self, options)
        state.seed = seed
        if options["trolley_shuffled_in"]:
            cards = list(ALL_CARDS)
        else:
            cards = list(ALL_CARDS[1:])
            state.trolley = [TEA_TROLLEY]
        stream(seed, "deal").shuffle(cards)
        state.pantry = cards
        state.face_up = [True] * len(cards)
        state.log.add({"event": "shuffle", "pantry": list(cards)})
        state.begin_pass()
        return state

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> ElevensesForOneState:
        """A game from an explicit layout.

        ``deal`` keys: ``pantry`` (card numbers, first card first; required),
        ``face_down`` (cards of the Pantry lying face down), ``trolley``
        (scored cards, bottom first; default ``[1]``, or ``[]`` when 1 is in
        the Pantry or the discards), ``discards``, ``discards_made`` (cards
        discarded so far in the game, default: the cards in ``discards``),
        ``minutes`` (default: the
        option), ``cursor`` (index of the card to decide on at step 3; without
        it the game starts at step 2), ``shuffles`` (orders for the next
        shuffles, each an order of the Pantry's cards at that moment) and
        ``seed`` (for shuffles beyond those).
        """
        validated = self.validate_options(options)
        pantry, discards, trolley, face_down = deal_cards(deal)
        check_layout(trolley, pantry, discards, validated)
        discards_made = checked_discards_made(deal, discards, validated)
        if not pantry:
            raise DealError("the Pantry must hold at least one card")
        if not face_down <= set(pantry):
            raise DealError("face_down cards must be in the Pantry")
        minutes = deal.get("minutes", validated["minutes"])
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= START_MINUTES:
            raise DealError(f"minutes must be 1 to {START_MINUTES}, not {minutes!r}")
        state = ElevensesForOneState(self, validated)
        state.seed = int(deal.get("seed", 0))
        state.scripted_shuffles = [[int(card) for card in order] for order in deal.get("shuffles", [])]
        state.pantry = pantry
        state.face_up = [card not in face_down for card in pantry]
        state.trolley = trolley
        state.discards = discards
        state.discards_made = discards_made
        state.minutes = minutes
        cursor = deal.get("cursor")
        if cursor is None:
            state.begin_pass()
        else:
            if not isinstance(cursor, int) or not 0 <= cursor < len(pantry) or not state.face_up[cursor]:
                raise DealError(f"cursor must be the index of a face-up Pantry card, not {cursor!r}")
            state.start_at(cursor)
        return state

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """A true bound on the decisions of any match.

        Passes through the Pantry (the stretches between two shuffles) are of
        three kinds: those in which the clock moves (at most ``minutes``: each
        minute lost falls in one pass); those ended by Fine China before any
        minute was lost (each followed by the pass holding Fine China's minute,
        so at most ``minutes``); and those ended at the end of the Pantry with
        the clock unmoved, fewer than ``STALL_LIMIT`` in a row between two
        passes of the first kind. So there are at most
        ``P = 2 * minutes + 1 + (STALL_LIMIT - 1) * (minutes + 1)`` passes. A
        pass offers one step-2 decision and looks at most at the 11 cards laid
        out plus one card returned by Servants; cards moved ahead by paid
        effects (8, scoring 10) add at most ``3 * minutes`` looks in all. Each
        look brings at most two more decisions (an effect's choice, or
        Elevenses' offer and then the scored card's choice).
        """
        minutes = options.get("minutes", START_MINUTES)
        passes = 2 * minutes + 1 + (STALL_LIMIT - 1) * (minutes + 1)
        looks = passes * (MAX_PANTRY + 1) + 3 * minutes
        return passes + 3 * looks


GAME = ElevensesForOne()
