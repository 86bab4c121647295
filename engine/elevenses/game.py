"""The game object of Elevenses: options, deals, bounds."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import Game, GameFacts, OptionError, OptionSpec, ScoreOrder, WinRule
from engine.elevenses.cards import (
    HOUSE_GUEST_CARDS,
    GuestCard,
    parse_guest_cards,
)
from engine.elevenses.deal import state_from_deal
from engine.elevenses.hidden import state_from_observation
from engine.elevenses.phases import (
    LIMITED_BOWL,
    MAX_DECISIONS_PER_TURN,
    PLAY_ON_TIES,
    PLAYOFF_ROUND_CAP,
    SHARE_TIES,
    TURN_CAP_PER_SEAT,
    TURN_CAP_RANGE,
    UNLIMITED_BOWL,
)
from engine.elevenses.state import ElevensesState

EDITION_TARGET: dict[str, int] = {"en": 5, "fr": 7}
""""until a player has 5 or more sugar cubes" (English); "7 ou plus cubes sucre" (French)."""

EDITION_BOWL: dict[str, int] = {"en": 25, "fr": 30}
""""25 Plastic Sugar Cubes" (English); "30 cubes Sucre" (French)."""

TARGET_FOLLOWS_EDITION = "edition"

ALTERNATIVE_GUEST_CARDS = "1-9-10,2-3-4,5-6-7,2-8-9,3-5-7,4-6-8"
"""A second guest table, used by the generic tests to show nothing depends on the house set."""


@dataclass(frozen=True)
class TextOptionSpec(OptionSpec):
    """An option whose value is a text checked by a function (here: the guest table)."""

    def describe(self) -> str:
        return f"{self.name}=text (default {self.default!r}): {self.help}"

    def parse(self, text: str) -> Any:
        return text.strip()

    def validate(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise OptionError(f"option {self.name!r} takes a text, not {value!r}")
        try:
            parse_guest_cards(value)
        except ValueError as error:
            raise OptionError(f"option {self.name!r}: {error}") from None
        return value


class ElevensesGame(Game):
    """Elevenses, the card game of morning tea, for 2 to 4 players."""

    id = "elevenses"
    name = "Elevenses"
    facts = GameFacts(
        min_players=2,
        max_players=4,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.FIRST_RANK,
        win_condition="the most sugar cubes once someone has the target (5 in en); tied leaders share victory",
    )
    option_specs = (
        OptionSpec(
            "edition",
            "choice",
            "en",
            "rulebook edition: en (5 cubes win, a box of 25) or fr (7 cubes win, a box of 30)",
            choices=("en", "fr"),
        ),
        OptionSpec(
            "target",
            "choice",
            TARGET_FOLLOWS_EDITION,
            "cubes needed to win: 'edition' (5 en, 7 fr) or the French variant's 5, 9 or 11",
            choices=(TARGET_FOLLOWS_EDITION, 5, 9, 11),
        ),
        OptionSpec(
            "sugar_bowl",
            "choice",
            UNLIMITED_BOWL,
            "unlimited: cubes never run short (the box's count is not a rule); limited: only the "
            "box's 25 (en) or 30 (fr) cubes are paid, while they last, and an empty bowl ends the game",
            choices=(UNLIMITED_BOWL, LIMITED_BOWL),
        ),
        OptionSpec(
            "ties",
            "choice",
            SHARE_TIES,
            "tied leaders at or above the target: share the victory, or play_on for at most "
            f"{PLAYOFF_ROUND_CAP} more rounds until there is an outright winner (then share)",
            choices=(SHARE_TIES, PLAY_ON_TIES),
        ),
        OptionSpec(
            "turn_cap",
            "int",
            TURN_CAP_PER_SEAT,
            "turns per seat after which a round nobody ends is scored as if eleven o'clock struck "
            "(the rulebook has no cap; it bounds rounds nobody wants to end)",
            minimum=TURN_CAP_RANGE[0],
            maximum=TURN_CAP_RANGE[1],
        ),
        OptionSpec("special_guests", "bool", False, "the advanced rules: one special guest per seat each round"),
        TextOptionSpec(
            "guest_cards",
            "text",
            HOUSE_GUEST_CARDS,
            "the six guests' wanted cards: 'house' (the project's own set, not the printed cards) "
            "or six dash-joined triples of card numbers 1-10 separated by commas",
        ),
    )

    # ---- facts derived from the options -------------------------------------------
    @staticmethod
    def target_cubes(options: Mapping[str, Any]) -> int:
        target = options["target"]
        return EDITION_TARGET[options["edition"]] if target == TARGET_FOLLOWS_EDITION else int(target)

    @staticmethod
    def bowl_size(options: Mapping[str, Any]) -> int | None:
        """The cubes a limited bowl starts with (the edition's box), ``None`` when unlimited."""
        return EDITION_BOWL[options["edition"]] if options["sugar_bowl"] == LIMITED_BOWL else None

    def max_rounds(self, num_players: int, options: Mapping[str, Any]) -> int:
        """The round cap: no game lasts more rounds than this.

        Every round pays at least 2 cubes (2 to the best spread, or 1 to each of two or more
        tied for it), so after r rounds the seats hold at least 2r cubes between them; while
        nobody has reached the target they hold at most ``n * (target - 1)``. The round that
        takes a seat to the target therefore comes by round ``n * (target - 1) // 2 + 1``, and
        ends the game unless the top is tied under ``ties="play_on"``, which adds at most
        ``PLAYOFF_ROUND_CAP`` rounds. A limited bowl pays at least one cube a round while it
        holds any and ends the game when empty: at most its size in rounds.
        """
        validated = self.validate_options(options)
        rounds = num_players * (self.target_cubes(validated) - 1) // 2 + 1
        if validated["ties"] == PLAY_ON_TIES:
            rounds += PLAYOFF_ROUND_CAP
        bowl = self.bowl_size(validated)
        return rounds if bowl is None else min(rounds, bowl)

    @staticmethod
    def guest_table(options: Mapping[str, Any]) -> tuple[GuestCard, ...]:
        return parse_guest_cards(options["guest_cards"])

    def option_variants(self) -> list[dict[str, Any]]:
        """Every option at least once (target 5 and 11 are checked by the rules tests), combined
        to keep the generic suite short: random games are long (random play seldom ends a round)."""
        return [
            {},
            {
                "edition": "fr",
                "special_guests": True,
                "guest_cards": ALTERNATIVE_GUEST_CARDS,
                "sugar_bowl": LIMITED_BOWL,
            },
            {"target": 9, "special_guests": True, "ties": PLAY_ON_TIES, "turn_cap": TURN_CAP_RANGE[0]},
        ]

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """At most :meth:`max_rounds` rounds of at most ``turn_cap * n`` turns of at most
        ``MAX_DECISIONS_PER_TURN`` decisions."""
        turn_cap = self.validate_options(options)["turn_cap"]
        return self.max_rounds(num_players, options) * turn_cap * num_players * MAX_DECISIONS_PER_TURN

    # ---- states ---------------------------------------------------------------------
    def sample_hidden(self, observation: Mapping[str, Any], rng: random.Random) -> ElevensesState:
        """A full state that ``observation`` could come from, its hidden cards dealt by ``rng`` (determinization).

        It lives on the game, above both the state and the sampler (:mod:`engine.elevenses.hidden`, which builds
        states), so that the state module need not import the sampler and the two form no import cycle."""
        return state_from_observation(self, observation, rng)

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> ElevensesState:
        state = ElevensesState(self, num_players, options, seed, self.guest_table(options))
        state.start_round()
        return state

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> ElevensesState:
        """A position from an explicit layout, at the start of a turn.

        ``deal`` holds ``kitchens`` (one list of cards per seat) and ``spreads`` (per seat,
        either the 8 face-down cards of positions 2-9, or 10 entries for positions 1-10, each
        ``null``, ``{"up": card}`` or ``{"down": card}``); cards are ``[number, set]``.
        Optional: ``server`` (default 0), ``player`` (whose turn, default the server),
        ``cubes`` (default zeros), ``round`` and ``turn`` (default 1), ``guests`` (guest index
        per seat) and ``guests_revealed``, ``seed`` (for later deals and draws, default 0).
        Every card of every set must be somewhere exactly once, and the layout must be one
        the rules can reach (raises :class:`DealError`).
        """
        return state_from_deal(self, deal, options)


GAME = ElevensesGame()
