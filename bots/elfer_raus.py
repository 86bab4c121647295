"""A rule-of-thumb bot for Elfer raus! ("thumb").

Laying a card frees the next card of its row for whoever holds it. The rules
of thumb weigh that against getting rid of cards:

1. If the whole hand can be laid out this turn, lay it out (the round is won).
2. Lay a card that frees nothing for the others: a 1 or a 20, or a card whose
   next card(s) in the row are our own (those follow, higher values first).
3. With three or more players, also lay a card that leads towards cards of our
   own further along its row, the nearest first (with many opponents someone
   frees the row anyway; our own cards must not stay stuck behind it). With
   two players, hold it back: every card held back blocks the one opponent.
4. Otherwise hold the cards back. When the rules make us lay one (a turn must
   lay a card if it can), lay the one that frees the fewest of the others'
   cards (with three or more players, counting only those up to our own next
   card in that row), the higher value first.
5. A matching card just drawn is laid if rule 2 or 3 likes it, else kept as
   a blocker.

The bot uses only its observation (hand, rows, opening numbers, turn) and the
legal actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bots.base import Bot

LOWEST, HIGHEST = 1, 20

Card = tuple[str, int]


class _Table:
    """The rows as the bot sees them: colour -> (low, high); a colour not open is absent."""

    def __init__(self, rows: dict[str, list[int] | None], opening_numbers: list[int]) -> None:
        self.rows: dict[str, tuple[int, int]] = {colour: (ends[0], ends[1]) for colour, ends in rows.items() if ends}
        self.opening_numbers = tuple(opening_numbers)

    def copy(self) -> _Table:
        twin = _Table.__new__(_Table)
        twin.rows = dict(self.rows)
        twin.opening_numbers = self.opening_numbers
        return twin

    def fits(self, card: Card) -> bool:
        colour, number = card
        ends = self.rows.get(colour)
        if ends is None:
            return number in self.opening_numbers
        return number == ends[0] - 1 or number == ends[1] + 1

    def lay(self, card: Card) -> None:
        colour, number = card
        ends = self.rows.get(colour)
        if ends is None:
            self.rows[colour] = (number, number)
        elif number < ends[0]:
            self.rows[colour] = (number, ends[1])
        else:
            self.rows[colour] = (ends[0], number)

    def freed_by(self, card: Card) -> tuple[list[int], list[int]]:
        """What laying ``card`` opens: the numbers playable right after it, and every number behind it."""
        colour, number = card
        ends = self.rows.get(colour)
        if ends is None:  # opening a row: it grows both ways from this card
            following = [n for n in (number - 1, number + 1) if LOWEST <= n <= HIGHEST]
            behind = [n for n in range(LOWEST, HIGHEST + 1) if n != number]
        elif number < ends[0]:
            following = [number - 1] if number > LOWEST else []
            behind = list(range(LOWEST, number))
        else:
            following = [number + 1] if number < HIGHEST else []
            behind = list(range(number + 1, HIGHEST + 1))
        return following, behind


@dataclass(frozen=True)
class _Option:
    """A card we may lay, and what laying it would free."""

    action: dict[str, Any]
    number: int
    frees_now: int  # the following cards that are not ours
    others_behind: int  # cards behind it that are not ours
    gap_to_own: int | None  # cards not ours between it and our nearest own card behind it, if any


def _can_go_out(hand: set[Card], table: _Table) -> bool:
    """Whether laying cards one after another could empty the hand this turn."""
    table = table.copy()
    left = set(hand)
    progress = True
    while left and progress:
        progress = False
        for card in sorted(left, key=lambda c: (c[0], abs(c[1] - 11), c[1])):
            if table.fits(card):
                table.lay(card)
                left.discard(card)
                progress = True
    return not left


def _option(action: dict[str, Any], hand: set[Card], table: _Table) -> _Option:
    card: Card = (action["colour"], action["number"])
    following, behind = table.freed_by(card)
    own = [number for number in behind if (card[0], number) in hand]
    gap: int | None = None
    if own:
        nearest = min(own, key=lambda number: abs(number - card[1]))
        low, high = sorted((nearest, card[1]))
        gap = sum(1 for number in range(low + 1, high) if (card[0], number) not in hand)
    return _Option(
        action=action,
        number=card[1],
        frees_now=sum(1 for number in following if (card[0], number) not in hand),
        others_behind=len(behind) - len(own),
        gap_to_own=gap,
    )


class ElferRausThumbBot(Bot):
    """Lays what frees its own cards, holds back what would free the others'."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = ("elfer-raus",)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        if len(legal_actions) == 1:
            return legal_actions[0]
        plays = [action for action in legal_actions if action["type"] == "play"]
        end_turn = next((action for action in legal_actions if action["type"] == "end_turn"), None)
        if not plays:
            return legal_actions[0]
        hand: set[Card] = {(colour, number) for colour, number in observation["hand"]}
        table = _Table(observation["rows"], observation["opening_numbers"])
        if _can_go_out(hand, table):  # rule 1
            return max(plays, key=lambda action: -abs(action["number"] - 11))

        two_players = observation["num_players"] == 2
        options = [_option(action, hand, table) for action in plays]
        free = [option for option in options if option.frees_now == 0]
        if free:  # rule 2
            return max(free, key=lambda option: option.number).action
        if not two_players:  # rule 3
            leading = [option for option in options if option.gap_to_own is not None]
            if leading:
                return min(leading, key=lambda option: (option.gap_to_own, -option.number)).action
        if end_turn is not None:  # rules 4 and 5: hold back
            return end_turn

        def harm(option: _Option) -> tuple[int, int]:
            if two_players or option.gap_to_own is None:
                return (option.others_behind, -option.number)
            return (option.gap_to_own, -option.number)

        return min(options, key=harm).action  # rule 4: forced to lay one
