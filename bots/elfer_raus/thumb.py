"""The rule-of-thumb bot ("thumb"): lay what frees our own cards, hold back what would free the others'."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from bots.base import Bot
from engine.elfer_raus import CARDS_PER_COLOUR, COLOUR_INDEX, HIGHEST, LOWEST, ElferRausState

GAME_ID = "elfer-raus"
END = -1
DRAW = -2
Action = dict[str, Any]

# With hold_back="all": lay a forced card rather than draw when it frees at most this many of
# the others' cards behind it, or when the hand holds at most this many cards.
DRAW_INSTEAD_HARM = 1
DRAW_INSTEAD_HAND = 3


def number_of(card: int) -> int:
    """The number (1 to 20) of a card id."""
    return card % CARDS_PER_COLOUR + 1


def can_go_out(hand: Collection[int], low: list[int], high: list[int], opening: Collection[int]) -> bool:
    """Whether laying cards one after another could empty ``hand`` this turn.

    Colour by colour: below an open row our cards must run down from its low end
    without a gap, above it up from its high end; a row not yet open must be one
    run of ours holding a card that may open it.
    """
    by_colour: dict[int, list[int]] = {}
    for card in hand:
        by_colour.setdefault(card // CARDS_PER_COLOUR, []).append(card % CARDS_PER_COLOUR + 1)
    for colour, numbers in by_colour.items():
        row_low = low[colour]
        if row_low == 0:
            first, last = min(numbers), max(numbers)
            if last - first + 1 != len(numbers) or not any(first <= number <= last for number in opening):
                return False
            continue
        below = [number for number in numbers if number < row_low]
        if below and min(below) != row_low - len(below):
            return False
        above = len(numbers) - len(below)
        if above and max(numbers) != high[colour] + above:
            return False
    return True


def _following_and_behind(number: int, row_low: int) -> tuple[list[int], list[int]]:
    """The numbers laying ``number`` lets be laid next, and every number beyond it on its side of the row
    (``row_low`` 0: the row is not open, so both sides)."""
    if row_low == 0:
        following = [n for n in (number - 1, number + 1) if LOWEST <= n <= HIGHEST]
        behind = [n for n in range(LOWEST, HIGHEST + 1) if n != number]
    elif number < row_low:
        following = [number - 1] if number > LOWEST else []
        behind = list(range(LOWEST, number))
    else:
        following = [number + 1] if number < HIGHEST else []
        behind = list(range(number + 1, HIGHEST + 1))
    return following, behind


def _judge(card: int, hand: Collection[int], low: list[int], high: list[int]) -> tuple[int, int, int | None]:
    """What laying ``card`` would free: (following cards not ours, cards behind it not ours,
    cards not ours between it and our nearest own card behind it, or None)."""
    colour, number = divmod(card, CARDS_PER_COLOUR)
    number += 1
    base = colour * CARDS_PER_COLOUR - 1
    following, behind = _following_and_behind(number, low[colour])
    own = [n for n in behind if base + n in hand]
    gap: int | None = None
    if own:
        nearest = min(own, key=lambda n: abs(n - number))
        a, b = sorted((nearest, number))
        gap = sum(1 for n in range(a + 1, b) if base + n not in hand)
    return sum(1 for n in following if base + n not in hand), len(behind) - len(own), gap


def thumb_move(
    hand: Collection[int],
    low: list[int],
    high: list[int],
    opening: Collection[int],
    num_players: int,
    playable: list[int],
    can_end: bool,
    can_draw: bool,
) -> int:
    """The rules of thumb: a card to lay, or ``END`` or ``DRAW``.

    ``playable`` lists the cards that may be laid (in the legal actions' order),
    ``can_end`` and ``can_draw`` whether ending the turn and drawing are legal.
    """
    if not playable:
        return DRAW if can_draw else END
    if can_go_out(hand, low, high, opening):  # rule 1
        return min(playable, key=lambda card: abs(number_of(card) - 11))
    two_players = num_players == 2
    judged = [(card, *_judge(card, hand, low, high)) for card in playable]
    lay = _lay_freely(judged, two_players)  # rules 2 and 3
    if lay is not None:
        return lay
    if can_end:  # rules 4 and 5: hold back
        return END
    forced = min(judged, key=lambda item: _harm(item, two_players))  # rule 4: forced to lay one
    if can_draw and _harm(forced, two_players)[0] > DRAW_INSTEAD_HARM and len(hand) > DRAW_INSTEAD_HAND:  # rule 6
        return DRAW
    return forced[0]


def _lay_freely(judged: list[tuple[int, int, int, int | None]], two_players: bool) -> int | None:
    """Rule 2: the highest card that frees nothing for the others now; rule 3 (three or more players): the
    card closest to our own next card behind it. ``None`` when neither rule applies."""
    free = [card for card, frees_now, _, _ in judged if frees_now == 0]
    if free:  # rule 2
        return max(free, key=number_of)
    if not two_players:  # rule 3
        leading = [(gap, -number_of(card), card) for card, _, _, gap in judged if gap is not None]
        if leading:
            return min(leading)[2]
    return None


def _harm(item: tuple[int, int, int, int | None], two_players: bool) -> tuple[int, int]:
    """How much laying a judged card gives the others: the cards behind it (two players, or no own card
    behind), else the gap to our nearest own card behind it; ties go to the higher number."""
    card, _, behind, gap = item
    if two_players or gap is None:
        return (behind, -number_of(card))
    return (gap, -number_of(card))


_END_ACTION: Action = {"type": "end_turn"}
_DRAW_ACTION: Action = {"type": "draw"}


def _card_of(action: Action) -> int:
    return COLOUR_INDEX[action["colour"]] * CARDS_PER_COLOUR + action["number"] - 1


def rows_of(observation: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The rows of ``observation`` as (low ends, high ends) per colour index, 0 for a row not open."""
    low, high = [0, 0, 0, 0], [0, 0, 0, 0]
    for colour_name, ends in observation["rows"].items():
        if ends:
            low[COLOUR_INDEX[colour_name]], high[COLOUR_INDEX[colour_name]] = ends
    return low, high


def thumb_choice(observation: dict[str, Any], legal_actions: list[Action]) -> Action:
    """The rule-of-thumb action for ``observation`` (one of ``legal_actions``)."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    low, high = rows_of(observation)
    hand = {COLOUR_INDEX[colour] * CARDS_PER_COLOUR + number - 1 for colour, number in observation["hand"]}
    plays = [action for action in legal_actions if action["type"] == "play"]
    types = {action["type"] for action in legal_actions}
    move = thumb_move(
        hand,
        low,
        high,
        frozenset(observation["opening_numbers"]),
        observation["num_players"],
        [_card_of(action) for action in plays],
        "end_turn" in types,
        "draw" in types,
    )
    if move >= 0:
        return next(action for action in plays if _card_of(action) == move)
    return next(action for action in legal_actions if action["type"] == ("end_turn" if move == END else "draw"))


def thumb_state_move(state: ElferRausState) -> Action:
    """The rules of thumb for the seat to move in ``state`` (a state the bot built itself)."""
    seat = state.current
    assert seat is not None
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    plays: list[Action] = []
    can_end = can_draw = False
    for action in legal:
        kind = action["type"]
        if kind == "play":
            plays.append(action)
        elif kind == "end_turn":
            can_end = True
        else:
            can_draw = True
    playable = [_card_of(action) for action in plays]
    move = thumb_move(
        state.hands[seat], state.low, state.high, state.opening_numbers, state.num_players, playable, can_end, can_draw
    )
    if move >= 0:
        return plays[playable.index(move)]
    return _END_ACTION if move == END else _DRAW_ACTION


def play_out_round(
    state: ElferRausState, rounds_done: int, wild: Collection[int] = (), rng: random.Random | None = None
) -> list[int]:
    """Play the round of ``state`` to its end by the rules of thumb; return its points per seat.

    ``rounds_done``: how many rounds had ended when the round in question began.
    ``wild``: seats that play a uniformly random legal action instead (drawn
    from ``rng``), for opponents whose play does not look like the rules of thumb.
    """
    while len(state.round_points) == rounds_done and not state.is_over():
        if wild and state.current in wild and rng is not None:
            state.apply(rng.choice(state.legal_actions()))
        else:
            state.apply(thumb_state_move(state))
    return state.round_points[rounds_done]


class ElferRausThumbBot(Bot):
    """Lays what frees its own cards, holds back what would free the others'."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    def act(self, observation: dict[str, Any], legal_actions: list[Action]) -> Action:
        return thumb_choice(observation, legal_actions)
