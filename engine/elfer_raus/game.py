"""The game of Elfer raus!: its options, new states, explicit deals and the bound on a game's actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Game, GameFacts, OptionError, OptionSpec, ScoreOrder, WinRule
from engine.elfer_raus.cards import (
    HAND_SIZES,
    HOLD_BACK_READINGS,
    HOLD_BACK_SOME,
    deck_cards,
)
from engine.elfer_raus.deal import state_from_deal
from engine.elfer_raus.state import ElferRausState


class ElferRausGame(Game):
    """Elfer raus! for 2 to 6 players, with the number swap variant and the 60-card two-player deck."""

    id = "elfer-raus"
    name = "Elfer raus! (Eleven starts!)"
    facts = GameFacts(
        min_players=2,
        max_players=6,
        score_order=ScoreOrder.LOWER_IS_BETTER,
        win_rule=WinRule.FIRST_RANK,
        win_condition="the lowest penalty total after the last round; equal totals share the first rank",
    )
    option_specs = (
        OptionSpec(
            "number_swap",
            "bool",
            False,
            "variant 'Number swap': rows may be opened with a 10, 11 or 12; the player right of the dealer begins",
        ),
        OptionSpec(
            "without_blues",
            "bool",
            False,
            "two players only: remove the 20 blue cards and play with 60",
        ),
        OptionSpec(
            "rounds", "int", 3, "rounds in a game; the lowest total after the last round wins", minimum=1, maximum=10
        ),
        OptionSpec(
            "hold_back",
            "choice",
            HOLD_BACK_SOME,
            "'Matching cards do not have to be played': 'some' = a player who can lay a card lays at least one, "
            "only a player unable to go draws; 'all' = a player may hold back every matching card and draw "
            "instead while the pack lasts",
            choices=HOLD_BACK_READINGS,
        ),
    )

    def __init__(self) -> None:
        self.seat_sets: dict[int, tuple[frozenset[int], ...]] = {
            n: tuple(frozenset({seat}) for seat in range(n)) for n in range(self.min_players, self.max_players + 1)
        }
        self.other_seat_sets: dict[int, tuple[frozenset[int], ...]] = {
            n: tuple(frozenset(range(n)) - {seat} for seat in range(n))
            for n in range(self.min_players, self.max_players + 1)
        }

    def check_options_for_players(self, num_players: int, options: Mapping[str, Any]) -> None:
        if options.get("without_blues") and num_players != 2:
            raise OptionError(
                f"the 60-card deck without the blues is for 2 players only, not {num_players} "
                "(the rulebook: 'For two players it is a good idea to remove the 20 blue cards')"
            )

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> ElferRausState:
        # The dealer of the first round is the last seat, so seat 0 (on the
        # dealer's right) begins a number-swap game; the deal passes to the right.
        state = ElferRausState.blank(self, num_players, seed, options, first_dealer=num_players - 1)
        state.start_round(1)
        return state

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> ElferRausState:
        """A game whose first round is dealt explicitly; later rounds are dealt from ``deal["seed"]``.

        ``deal`` holds:

        * ``hands``: one list of cards ``[colour, number]`` per seat;
        * ``pack``: the face-down pack, top card first;
        * ``rows`` (optional): ``{colour: [low, high]}`` for rows already on the
          table, to start from a position in the middle of a round; then hands
          may have any size (at least one card) and ``current_player`` says
          whose turn it is (default 0);
        * ``dealer`` (optional): the dealer of the first round (default the
          last seat);
        * ``seed`` (optional, default 0): the seed of later rounds' deals.

        Without ``rows`` the hands must have the rulebook's sizes and, in the
        base game, the holder of the highest-precedence eleven opens with it.
        """
        return state_from_deal(self, deal, options)

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """A true bound on the actions of a game.

        In a round every ``play`` lays a card (at most the whole deck), every
        ``draw`` takes at least one card from the pack (at most its initial
        size), and every ``end_turn`` closes a turn in which a card was laid
        or a matching card was drawn (so at most plays + draws). Turns with
        nothing to do and an empty pack pass without an action.
        """
        validated = self.validate_options(options)
        deck = len(deck_cards(validated["without_blues"]))
        pack = deck - num_players * HAND_SIZES[num_players]
        return validated["rounds"] * 2 * (deck + pack)


GAME = ElferRausGame()
