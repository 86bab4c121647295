"""The game: its facts, a new game from a seed or an explicit rack, the action bound."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bowling_solitaire.deal import Rack
from engine.bowling_solitaire.layout import ACTIONS_PER_RACK, FRAMES, LAST_RACK
from engine.bowling_solitaire.scoring import split_frames
from engine.bowling_solitaire.state import BowlingSolitaireState
from engine.core import DealError, Game, GameFacts, ScoreOrder, WinRule


class BowlingSolitaireGame(Game):
    """Sid Sackson's Bowling Solitaire: ten frames of card bowling, scored like tenpin."""

    id = "bowling-solitaire"
    name = "Bowling Solitaire"
    facts = GameFacts(
        min_players=1,
        max_players=1,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.NO_WIN,
        win_condition="none: the rulebook only scores the game, like tenpin (300 is perfect)",
    )
    option_specs = ()

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> BowlingSolitaireState:
        return BowlingSolitaireState(self, seed)

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> BowlingSolitaireState:
        """A game starting from an explicit rack.

        ``deal`` holds ``"pins"`` (ten numbers for A..J, or a mapping A..J to
        numbers) and ``"piles"`` (three lists of 5, 3 and 2 cards, top card
        first); optionally ``"later_racks"`` (further racks of the same form,
        used for the following frames or bonus racks before any seeded rack),
        ``"balls"`` (the pins of the balls bowled in complete earlier frames,
        so the rack is the next frame's) and ``"seed"`` (for the racks after
        the explicit ones; default 0).
        """
        self.validate_options(options)
        if not isinstance(deal, Mapping):
            raise DealError("a deal is a mapping with pins and piles")
        first = Rack.from_json(deal)
        later = [Rack.from_json(rack) for rack in deal.get("later_racks", ())]
        balls = list(deal.get("balls", ()))
        try:
            frames = split_frames(balls)
        except ValueError as error:
            raise DealError(f"earlier balls: {error}") from None
        if frames and (len(frames) >= FRAMES or frames[-1].balls[0] != 10 and len(frames[-1].balls) < 2):
            raise DealError("earlier balls must make complete frames, at most nine of them")
        seed = deal.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise DealError(f"the seed is an integer, not {seed!r}")
        return BowlingSolitaireState(self, seed, [first, *later], balls)

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """Twelve racks at most (ten frames and two bonus racks), each at most ten plays and one stop."""
        return LAST_RACK * ACTIONS_PER_RACK


GAME = BowlingSolitaireGame()
