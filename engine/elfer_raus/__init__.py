"""Elfer raus! (Eleven starts!): lay the 80 numbered cards out in four rows from the elevens.

Rulebook: ``elfer-raus-eleven-starts.txt``. Choices where it is silent or
ambiguous are written down in ``docs/rules-decisions.md (elfer-raus)``.

The cards are numbered 1 to 20 in four colours (red, yellow, green, blue). A
row of one colour starts from an eleven in the middle of the table and grows
down to 1 on its left and up to 20 on its right, one card at a time. Players
take turns; on a turn a player lays as many matching cards as they like; a
player who cannot lay a card draws from the pack, up to three cards, stopping
at one that matches (which may be laid at once). The first player out of cards
wins the round; the others score the values of the cards left in their hands
as penalty points. After the agreed number of rounds the lowest total wins.

Seats: play passes to "the next player on the right". Seats are numbered in
that direction, so seat ``s + 1`` sits on the right of seat ``s`` and the turn
passes from seat ``s`` to seat ``(s + 1) % n``.

Options:

* ``number_swap``: the first variant of the rulebook. A row may be opened with
  its 10, 11 or 12 and grows outward from that card; the player on the right
  of the dealer begins the round.
* ``without_blues``: the 60-card deck for two players (the 20 blue cards are
  removed).
* ``rounds``: how many rounds make the game (1 to 10, default 3).
* ``hold_back``: how far "Matching cards do not have to be played" goes.
  ``"some"`` (default): a player who can lay a card lays at least one and
  only a player unable to go draws; ``"all"``: a player may hold back every
  matching card and draw instead while the pack lasts (with the pack empty,
  a player who can lay a card must lay one).

Actions (small JSON dicts):

* ``{"type": "play", "colour": "red", "number": 10}``: lay a card from the hand
  (or the card just drawn) on its row, or open a new row with it;
* ``{"type": "draw"}``: unable to lay a card (or, with ``hold_back="all"``,
  holding back every matching card), take cards from the pack, one at a time
  up to three, stopping at a card that matches;
* ``{"type": "end_turn"}``: stop laying cards (after at least one was laid, or
  to keep a matching card just drawn).

The package:

* :mod:`engine.elfer_raus.cards`: the deck, card ids and their JSON form;
* :mod:`engine.elfer_raus.state`: a round in play, the turn, scoring, observations;
* :mod:`engine.elfer_raus.deal`: a state from an explicit deal (rulebook examples, mid-round positions);
* :mod:`engine.elfer_raus.game`: options and the action bound;
* :mod:`engine.elfer_raus.hidden`: a full state rebuilt from one seat's observation.
"""

from engine.elfer_raus.cards import (
    BASE_OPENING_NUMBERS,
    CARDS_PER_COLOUR,
    COLOUR_INDEX,
    COLOURS,
    ELEVEN,
    HAND_SIZES,
    HIGHEST,
    HOLD_BACK_ALL,
    HOLD_BACK_READINGS,
    HOLD_BACK_SOME,
    LOWEST,
    MAX_DRAWS_PER_TURN,
    SWAP_OPENING_NUMBERS,
    card_colour,
    card_id,
    card_json,
    card_number,
    card_text,
    colours_in_play,
    deck_cards,
    parse_card,
)
from engine.elfer_raus.game import GAME, ElferRausGame
from engine.elfer_raus.hidden import state_from_observation
from engine.elfer_raus.state import ElferRausState

__all__ = [
    "BASE_OPENING_NUMBERS",
    "CARDS_PER_COLOUR",
    "COLOURS",
    "COLOUR_INDEX",
    "ELEVEN",
    "GAME",
    "HAND_SIZES",
    "HIGHEST",
    "HOLD_BACK_ALL",
    "HOLD_BACK_READINGS",
    "HOLD_BACK_SOME",
    "LOWEST",
    "MAX_DRAWS_PER_TURN",
    "SWAP_OPENING_NUMBERS",
    "ElferRausGame",
    "ElferRausState",
    "card_colour",
    "card_id",
    "card_json",
    "card_number",
    "card_text",
    "colours_in_play",
    "deck_cards",
    "parse_card",
    "state_from_observation",
]
