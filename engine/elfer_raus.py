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
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.core import (
    Action,
    DealError,
    EventLog,
    Game,
    GameFacts,
    GameResult,
    OptionError,
    OptionSpec,
    ScoreOrder,
    State,
    WinRule,
)
from engine.rng import stream

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
"""The colours, in the rulebook's order of precedence for the opening eleven."""

COLOUR_INDEX: dict[str, int] = {colour: index for index, colour in enumerate(COLOURS)}
LOWEST, HIGHEST, ELEVEN = 1, 20, 11
CARDS_PER_COLOUR = HIGHEST - LOWEST + 1
MAX_DRAWS_PER_TURN = 3

HAND_SIZES: dict[int, int] = {2: 20, 3: 20, 4: 15, 5: 12, 6: 10}
"""Cards dealt to each player, by number of players (the rest is the pack)."""

HOLD_BACK_SOME = "some"
"""A player who can lay a card must lay at least one; holding back keeps some matching cards."""
HOLD_BACK_ALL = "all"
"""A player may hold back every matching card and draw instead, while the pack holds cards."""
HOLD_BACK_READINGS: tuple[str, ...] = (HOLD_BACK_SOME, HOLD_BACK_ALL)

BASE_OPENING_NUMBERS: frozenset[int] = frozenset({ELEVEN})
SWAP_OPENING_NUMBERS: frozenset[int] = frozenset({10, 11, 12})

# A card is an int: colour index * 20 + number - 1 (red 1 is 0, blue 20 is 79).


def card_id(colour_index: int, number: int) -> int:
    return colour_index * CARDS_PER_COLOUR + number - 1


def card_colour(card: int) -> int:
    return card // CARDS_PER_COLOUR


def card_number(card: int) -> int:
    return card % CARDS_PER_COLOUR + 1


def card_json(card: int) -> list[Any]:
    """A card as JSON: ``[colour, number]``."""
    return [COLOURS[card // CARDS_PER_COLOUR], card % CARDS_PER_COLOUR + 1]


def card_text(card: int) -> str:
    return f"{COLOURS[card // CARDS_PER_COLOUR]} {card % CARDS_PER_COLOUR + 1}"


def colours_in_play(without_blues: bool) -> tuple[int, ...]:
    """Colour indices of the deck: all four, or red, yellow and green for the 60-card deck."""
    return (0, 1, 2) if without_blues else (0, 1, 2, 3)


def deck_cards(without_blues: bool) -> list[int]:
    """Every card of the deck, in a fixed order."""
    return [card_id(colour, number) for colour in colours_in_play(without_blues) for number in range(LOWEST, HIGHEST + 1)]


def parse_card(value: Any) -> int:
    """A card from its JSON form ``[colour, number]``; raises :class:`DealError` if malformed."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or value[0] not in COLOUR_INDEX
        or isinstance(value[1], bool)
        or not isinstance(value[1], int)
        or not LOWEST <= value[1] <= HIGHEST
    ):
        raise DealError(f"{value!r} is not a card: write [colour, number] with a colour of {COLOURS} and 1..20")
    return card_id(COLOUR_INDEX[value[0]], value[1])


class ElferRausState(State):
    """One position of a game of Elfer raus!: the round being played and the totals so far."""

    __slots__ = (
        "game",
        "num_players",
        "options",
        "seed",
        "number_swap",
        "colours",
        "opening_numbers",
        "rounds",
        "may_draw_instead",
        "round",
        "first_dealer",
        "dealer",
        "starter",
        "redeals",
        "hands",
        "pack",
        "low",
        "high",
        "current",
        "played_this_turn",
        "drawn_this_turn",
        "pending_draw",
        "totals",
        "cards_drawn",
        "turns_taken",
        "round_points",
        "round_winners",
        "over",
        "log",
        "_legal_cache",
    )

    game: ElferRausGame
    num_players: int
    options: dict[str, Any]
    seed: int
    number_swap: bool
    colours: tuple[int, ...]
    opening_numbers: frozenset[int]
    rounds: int
    may_draw_instead: bool
    round: int
    first_dealer: int
    dealer: int
    starter: int
    redeals: int
    played_this_turn: int
    drawn_this_turn: int
    totals: list[int]
    cards_drawn: list[int]
    turns_taken: list[int]
    round_points: list[list[int]]
    round_winners: list[int | None]
    over: bool
    log: EventLog
    _legal_cache: list[Action] | None
    hands: list[set[int]]
    pack: list[int]  # face down; the top card is the last one
    low: list[int]  # per colour index: the lowest number of the row, 0 if the row is not open
    high: list[int]  # per colour index: the highest number of the row, 0 if the row is not open
    current: int | None
    pending_draw: int  # the matching card just drawn that may be played at once, or -1

    # ---- the table ---------------------------------------------------------------
    def fits(self, card: int) -> bool:
        """Whether ``card`` may be laid now: next to its row's end, or opening its row."""
        colour = card // CARDS_PER_COLOUR
        number = card % CARDS_PER_COLOUR + 1
        low = self.low[colour]
        if low == 0:
            return number in self.opening_numbers
        return number == low - 1 or number == self.high[colour] + 1

    def wanted_cards(self) -> list[int]:
        """Every card that would fit now, whoever holds it (ascending)."""
        wanted: list[int] = []
        low, high = self.low, self.high
        for colour in self.colours:
            base = colour * CARDS_PER_COLOUR - 1
            row_low = low[colour]
            if row_low == 0:
                wanted.extend(base + number for number in sorted(self.opening_numbers))
            else:
                if row_low > LOWEST:
                    wanted.append(base + row_low - 1)
                if high[colour] < HIGHEST:
                    wanted.append(base + high[colour] + 1)
        return wanted

    def playable(self, seat: int) -> list[int]:
        """The cards in ``seat``'s hand that fit now (ascending)."""
        hand = self.hands[seat]
        return [card for card in self.wanted_cards() if card in hand]

    def on_table(self, card: int) -> bool:
        colour = card // CARDS_PER_COLOUR
        number = card % CARDS_PER_COLOUR + 1
        return self.low[colour] != 0 and self.low[colour] <= number <= self.high[colour]

    # ---- the contract ------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return self.current

    def is_over(self) -> bool:
        return self.over

    def _legal_actions(self) -> list[Action]:
        seat = self.current
        assert seat is not None
        if self.pending_draw >= 0:
            card = self.pending_draw
            return [
                {"type": "play", "colour": COLOURS[card // CARDS_PER_COLOUR], "number": card % CARDS_PER_COLOUR + 1},
                {"type": "end_turn"},
            ]
        hand = self.hands[seat]
        actions: list[Action] = [
            {"type": "play", "colour": COLOURS[card // CARDS_PER_COLOUR], "number": card % CARDS_PER_COLOUR + 1}
            for card in self.wanted_cards()
            if card in hand
        ]
        if self.played_this_turn:
            actions.append({"type": "end_turn"})
        elif not actions or (self.may_draw_instead and self.pack):
            # A player who cannot lay a card must draw (with hold_back="all", one
            # who can may draw instead while the pack lasts); a turn never begins
            # with an empty pack and nothing to play (such a turn passes at once).
            actions.append({"type": "draw"})
        return actions

    def _apply(self, action: Action) -> None:
        seat = self.current
        assert seat is not None
        self.log.mark(seat)
        kind = action["type"]
        if kind == "play":
            self._play(seat, card_id(COLOUR_INDEX[action["colour"]], action["number"]))
        elif kind == "draw":
            self._draw(seat)
        else:
            self.log.add({"type": "end_turn", "seat": seat})
            self._pass_turn_from(seat)

    # ---- what happens --------------------------------------------------------------
    def _lay(self, card: int) -> None:
        colour = card // CARDS_PER_COLOUR
        number = card % CARDS_PER_COLOUR + 1
        if self.low[colour] == 0:
            self.low[colour] = self.high[colour] = number
        elif number < self.low[colour]:
            self.low[colour] = number
        else:
            self.high[colour] = number

    def _play(self, seat: int, card: int) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        opens = self.low[card // CARDS_PER_COLOUR] == 0
        self._lay(card)
        self.played_this_turn += 1
        self.pending_draw = -1
        self.log.add(
            {
                "type": "open" if opens else "play",
                "seat": seat,
                "colour": COLOURS[card // CARDS_PER_COLOUR],
                "number": card % CARDS_PER_COLOUR + 1,
            }
        )
        if not hand:
            self._end_round(winner=seat)

    def _draw(self, seat: int) -> None:
        """Take cards one at a time, up to three, stopping at one that fits."""
        hand = self.hands[seat]
        pack = self.pack
        drawn: list[int] = []
        fitting = -1
        while len(drawn) < MAX_DRAWS_PER_TURN and pack:
            card = pack.pop()
            hand.add(card)
            drawn.append(card)
            if self.fits(card):
                fitting = card
                break
        self.drawn_this_turn += len(drawn)
        self.cards_drawn[seat] += len(drawn)
        stopped_on_fit = fitting >= 0
        self.log.add(
            {"type": "draw", "seat": seat, "cards": [card_json(card) for card in drawn], "fits": stopped_on_fit},
            self.game.seat_sets[self.num_players][seat],
        )
        self.log.add(
            {"type": "draw", "seat": seat, "count": len(drawn), "fits": stopped_on_fit},
            self.game.other_seat_sets[self.num_players][seat],
        )
        if stopped_on_fit:
            self.pending_draw = fitting
        else:
            self._pass_turn_from(seat)

    def _pass_turn_from(self, seat: int) -> None:
        """Hand the turn to the next player on the right.

        With the pack empty, a player who cannot lay a card can neither play
        nor draw: their turn passes at once. If no one can lay a card and the
        pack is empty, the round ends.
        """
        self.played_this_turn = 0
        self.drawn_this_turn = 0
        self.pending_draw = -1
        self.turns_taken[seat] += 1
        n = self.num_players
        nxt = (seat + 1) % n
        if not self.pack:
            wanted = self.wanted_cards()
            hands = self.hands
            for _ in range(n):
                hand = hands[nxt]
                if any(card in hand for card in wanted):
                    break
                self.log.add({"type": "pass", "seat": nxt})
                nxt = (nxt + 1) % n
            else:
                self._end_round(winner=None)
                return
        self.current = nxt

    def _end_round(self, winner: int | None) -> None:
        points = [sum(card % CARDS_PER_COLOUR + 1 for card in hand) for hand in self.hands]
        for seat, value in enumerate(points):
            self.totals[seat] += value
        self.round_points.append(points)
        self.round_winners.append(winner)
        self.log.add(
            {
                "type": "round_end",
                "round": self.round,
                "winner": winner,
                "reason": "out" if winner is not None else "blocked",
                "points": list(points),
                "totals": list(self.totals),
            }
        )
        self.played_this_turn = 0
        self.drawn_this_turn = 0
        self.pending_draw = -1
        if self.round >= self.rounds:
            self.over = True
            self.current = None
            self.log.add({"type": "game_end", "totals": list(self.totals)})
        else:
            self._start_round(self.round + 1)

    def _start_round(self, round_number: int) -> None:
        """Deal a round from the seed, redealing while no eleven was dealt (base game)."""
        n = self.num_players
        size = HAND_SIZES[n]
        deck = deck_cards(self.options["without_blues"])
        attempt = 0
        while True:
            shuffled = list(deck)
            stream(self.seed, "deal", round_number, attempt).shuffle(shuffled)
            hands = [set(shuffled[seat * size:(seat + 1) * size]) for seat in range(n)]
            pack = shuffled[n * size:]
            if self.number_swap or any(card_id(colour, ELEVEN) in hand for colour in self.colours for hand in hands):
                break
            attempt += 1
        self._set_up_round(round_number, hands, pack, attempt)

    def _set_up_round(self, round_number: int, hands: list[set[int]], pack: list[int], redeals: int) -> None:
        n = self.num_players
        self.round = round_number
        self.dealer = (self.first_dealer + round_number - 1) % n
        self.redeals = redeals
        self.hands = hands
        self.pack = pack
        self.low = [0, 0, 0, 0]
        self.high = [0, 0, 0, 0]
        self.played_this_turn = 0
        self.drawn_this_turn = 0
        self.pending_draw = -1
        self.log.add(
            {
                "type": "deal",
                "round": round_number,
                "dealer": self.dealer,
                "hand_sizes": [len(hand) for hand in hands],
                "pack_size": len(pack),
                "redeals": redeals,
            }
        )
        if self.number_swap:
            self.starter = (self.dealer + 1) % n
            self.current = self.starter
            return
        for colour in self.colours:  # red, then yellow, green, blue
            eleven = card_id(colour, ELEVEN)
            for seat, hand in enumerate(hands):
                if eleven in hand:
                    hand.remove(eleven)
                    self._lay(eleven)
                    self.starter = seat
                    self.log.add({"type": "open", "seat": seat, "colour": COLOURS[colour], "number": ELEVEN})
                    self._pass_turn_from(seat)
                    return
        raise DealError("no eleven was dealt: the rules call for a fresh deal")

    # ---- what seats know -----------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        current = self.current
        pending = self.pending_draw
        return {
            "round": self.round,
            "rounds": self.rounds,
            "dealer": self.dealer,
            "starter": self.starter,
            "hand": [card_json(card) for card in sorted(self.hands[seat])],
            "rows": {
                COLOURS[colour]: ([self.low[colour], self.high[colour]] if self.low[colour] else None)
                for colour in self.colours
            },
            "opening_numbers": sorted(self.opening_numbers),
            "pack_size": len(self.pack),
            "hand_sizes": [len(hand) for hand in self.hands],
            "totals": list(self.totals),
            "round_points": [list(points) for points in self.round_points],
            "turn": {
                "played": self.played_this_turn,
                "drawn": self.drawn_this_turn,
                "awaiting_drawn_card": pending >= 0,
                "drawn_card": card_json(pending) if pending >= 0 and current == seat else None,
            },
            "events": self.log.since_last_decision(seat),
        }

    def resample_hidden(self, seat: int, rng: random.Random) -> ElferRausState:
        """Redraw the other hands and the pack from the cards ``seat`` has not seen.

        Hand sizes and the pack size are kept. A matching card another seat has
        just drawn and may still play is redrawn among the unseen cards that
        match the table. Not conditioned on: that earlier draws did not match,
        and that a seat who drew could not play (both only narrow the odds).
        """
        twin = self.clone()
        others = [other for other in range(self.num_players) if other != seat]
        pool = [card for other in others for card in self.hands[other]] + list(self.pack)
        pending_holder = self.current if self.pending_draw >= 0 and self.current != seat else None
        kept: int = -1
        if pending_holder is not None:
            matching = [card for card in pool if self.fits(card)]
            kept = rng.choice(sorted(matching))
            pool.remove(kept)
        pool.sort()
        rng.shuffle(pool)
        start = 0
        for other in others:
            size = len(self.hands[other])
            if other == pending_holder:
                hand = set(pool[start:start + size - 1])
                hand.add(kept)
                start += size - 1
            else:
                hand = set(pool[start:start + size])
                start += size
            twin.hands[other] = hand
        twin.pack = pool[start:]
        if pending_holder is not None:
            twin.pending_draw = kept
        return twin

    # ---- the end ------------------------------------------------------------------
    def result(self) -> GameResult:
        """Scores are the penalty totals: the lowest total wins, equal totals share a rank."""
        totals = tuple(self.totals)
        return GameResult(
            scores=tuple(float(total) for total in totals),
            ranks=self.game.facts.ranks(totals),
            details={
                "rounds_won": [sum(1 for winner in self.round_winners if winner == seat) for seat in range(self.num_players)],
                "cards_drawn": list(self.cards_drawn),
                "turns": list(self.turns_taken),
                "round_points": [[points[seat] for points in self.round_points] for seat in range(self.num_players)],
            },
        )

    # ---- copying and display ------------------------------------------------------
    def clone(self) -> ElferRausState:
        twin = ElferRausState.__new__(ElferRausState)
        twin.game = self.game
        twin.num_players = self.num_players
        twin.options = self.options
        twin.seed = self.seed
        twin.number_swap = self.number_swap
        twin.colours = self.colours
        twin.opening_numbers = self.opening_numbers
        twin.rounds = self.rounds
        twin.may_draw_instead = self.may_draw_instead
        twin.round = self.round
        twin.first_dealer = self.first_dealer
        twin.dealer = self.dealer
        twin.starter = self.starter
        twin.redeals = self.redeals
        twin.hands = [set(hand) for hand in self.hands]
        twin.pack = list(self.pack)
        twin.low = list(self.low)
        twin.high = list(self.high)
        twin.current = self.current
        twin.played_this_turn = self.played_this_turn
        twin.drawn_this_turn = self.drawn_this_turn
        twin.pending_draw = self.pending_draw
        twin.totals = list(self.totals)
        twin.cards_drawn = list(self.cards_drawn)
        twin.turns_taken = list(self.turns_taken)
        twin.round_points = [list(points) for points in self.round_points]
        twin.round_winners = list(self.round_winners)
        twin.over = self.over
        twin.log = self.log.copy()
        twin._legal_cache = None
        return twin

    def render(self) -> str:
        lines = [
            f"Elfer raus! round {self.round}/{self.rounds}, dealer seat {self.dealer}, starter seat {self.starter}"
            + (" (number swap)" if self.number_swap else "")
        ]
        for colour in self.colours:
            if self.low[colour]:
                lines.append(f"  {COLOURS[colour]:>6}: {self.low[colour]}..{self.high[colour]}")
            else:
                lines.append(f"  {COLOURS[colour]:>6}: not open")
        lines.append(f"  pack: {len(self.pack)} cards")
        for seat, hand in enumerate(self.hands):
            marker = "*" if seat == self.current else " "
            cards = ", ".join(card_text(card) for card in sorted(hand))
            lines.append(f" {marker}seat {seat} (total {self.totals[seat]}): {cards}")
        if self.pending_draw >= 0:
            lines.append(f"  seat {self.current} may play the {card_text(self.pending_draw)} just drawn")
        if self.over:
            lines.append(f"  game over: totals {self.totals}")
        return "\n".join(lines)


class _UnrecordedLog(EventLog):
    """An event log that keeps nothing: for states a bot builds to look ahead."""

    __slots__ = ()

    def add(self, event: dict[str, Any], witnesses: Any = None) -> None:
        pass

    def mark(self, seat: int) -> None:
        pass

    def copy(self) -> EventLog:
        return self


def _deal_unseen(
    pool: list[int],
    sizes: Mapping[int, int],
    excluded: Mapping[int, Collection[int]],
    rng: random.Random,
) -> dict[int, list[int]] | None:
    """Share ``pool`` out to the places (seats, and ``-1`` for the pack) in ``sizes``, at random,
    never giving a seat a card it is known not to hold; ``None`` if the draw got stuck."""
    room = dict(sizes)
    shares: dict[int, list[int]] = {place: [] for place in sizes}
    free: list[int] = []
    constrained: list[tuple[int, list[int]]] = []
    for card in pool:
        allowed = [place for place in sizes if place < 0 or card not in excluded.get(place, ())]
        if len(allowed) == len(sizes):
            free.append(card)
        else:
            constrained.append((card, allowed))
    rng.shuffle(constrained)
    constrained.sort(key=lambda item: len(item[1]))
    for card, allowed in constrained:
        open_places = [place for place in allowed if room[place] > 0]
        if not open_places:
            return None
        place = rng.choices(open_places, weights=[room[p] for p in open_places])[0]
        shares[place].append(card)
        room[place] -= 1
    rng.shuffle(free)
    start = 0
    for place in sorted(sizes):
        shares[place].extend(free[start:start + room[place]])
        start += room[place]
    return shares


def state_from_observation(
    observation: Mapping[str, Any],
    options: Mapping[str, Any],
    rng: random.Random,
    excluded: Mapping[int, Collection[int]] | None = None,
) -> ElferRausState:
    """A state the observing seat cannot tell apart from the one that gave ``observation``.

    The seat's hand, the rows, every hand size, the pack size, the totals and the
    turn are kept; the other hands and the pack are redrawn from the cards the
    seat has not seen. ``excluded`` maps a seat to cards it is known not to hold
    (e.g. the cards that fitted when it had to draw): they are dealt elsewhere
    when the draw allows it, else the constraint is dropped. A card another seat
    has just drawn and may still lay is drawn among the unseen cards that fit.
    Later rounds are dealt from a fresh seed. Events are not recorded: the state
    is for looking ahead.
    """
    game = GAME
    validated = game.validate_options(options)
    seat: int = observation["seat"]
    n: int = observation["num_players"]
    first_dealer = (observation["dealer"] - observation["round"] + 1) % n
    state = game._blank_state(n, rng.getrandbits(63), validated, first_dealer=first_dealer)
    state.log = _UnrecordedLog(n)
    state.round = observation["round"]
    state.dealer = observation["dealer"]
    state.starter = observation["starter"]
    state.totals = list(observation["totals"])
    state.round_points = [list(points) for points in observation["round_points"]]
    state.round_winners = [None] * len(state.round_points)
    state.over = observation["over"]
    state.current = observation["current_player"]
    for colour_name, ends in observation["rows"].items():
        if ends:
            colour = COLOUR_INDEX[colour_name]
            state.low[colour], state.high[colour] = ends
    turn = observation["turn"]
    state.played_this_turn = turn["played"]
    state.drawn_this_turn = turn["drawn"]
    own = {parse_card(card) for card in observation["hand"]}
    state.hands[seat] = own
    unseen = [card for card in deck_cards(validated["without_blues"]) if card not in own and not state.on_table(card)]
    sizes = {other: observation["hand_sizes"][other] for other in range(n) if other != seat}
    sizes[-1] = observation["pack_size"]
    pending_holder = state.current if turn["awaiting_drawn_card"] and state.current != seat else None
    kept = -1
    if turn["awaiting_drawn_card"]:
        if pending_holder is None:
            kept = parse_card(turn["drawn_card"])
        else:
            kept = rng.choice(sorted(card for card in unseen if state.fits(card)))
            unseen.remove(kept)
            sizes[pending_holder] -= 1
    shares = None
    for _ in range(20 if excluded else 1):
        shares = _deal_unseen(unseen, sizes, excluded or {}, rng)
        if shares is not None:
            break
    if shares is None:
        shares = _deal_unseen(unseen, sizes, {}, rng)
        assert shares is not None
    for other in sizes:
        if other >= 0:
            state.hands[other] = set(shares[other])
    pack = shares[-1]
    rng.shuffle(pack)
    state.pack = pack
    if kept >= 0:
        if pending_holder is not None:
            state.hands[pending_holder].add(kept)
        state.pending_draw = kept
    return state


class ElferRausGame(Game):
    """Elfer raus! for 2 to 6 players, with the number swap variant and the 60-card two-player deck."""

    id = "elfer-raus"
    name = "Elfer raus! (Eleven starts!)"
    facts = GameFacts(
        min_players=2, max_players=6, score_order=ScoreOrder.LOWER_IS_BETTER, win_rule=WinRule.FIRST_RANK,
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
        OptionSpec("rounds", "int", 3, "rounds in a game; the lowest total after the last round wins", minimum=1, maximum=10),
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

    def _blank_state(self, num_players: int, seed: int, options: dict[str, Any], first_dealer: int) -> ElferRausState:
        state = ElferRausState.__new__(ElferRausState)
        state.game = self
        state.num_players = num_players
        state.options = options
        state.seed = seed
        state.number_swap = options["number_swap"]
        state.colours = colours_in_play(options["without_blues"])
        state.opening_numbers = SWAP_OPENING_NUMBERS if options["number_swap"] else BASE_OPENING_NUMBERS
        state.rounds = options["rounds"]
        state.may_draw_instead = options["hold_back"] == HOLD_BACK_ALL
        state.round = 0
        state.first_dealer = first_dealer
        state.dealer = first_dealer
        state.starter = 0
        state.redeals = 0
        state.hands = [set() for _ in range(num_players)]
        state.pack = []
        state.low = [0, 0, 0, 0]
        state.high = [0, 0, 0, 0]
        state.current = None
        state.played_this_turn = 0
        state.drawn_this_turn = 0
        state.pending_draw = -1
        state.totals = [0] * num_players
        state.cards_drawn = [0] * num_players
        state.turns_taken = [0] * num_players
        state.round_points = []
        state.round_winners = []
        state.over = False
        state.log = EventLog(num_players)
        state._legal_cache = None
        return state

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> ElferRausState:
        # The dealer of the first round is the last seat, so seat 0 (on the
        # dealer's right) begins a number-swap game; the deal passes to the right.
        state = self._blank_state(num_players, seed, options, first_dealer=num_players - 1)
        state._start_round(1)
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
        hands_json = deal.get("hands")
        if not isinstance(hands_json, Sequence) or isinstance(hands_json, (str, bytes)):
            raise DealError("deal['hands'] must be a list of hands, one per seat")
        num_players = len(hands_json)
        self.check_num_players(num_players)
        validated = self.validate_options(options)
        self.check_options_for_players(num_players, validated)
        seed = deal.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise DealError(f"deal['seed'] must be an integer, not {seed!r}")
        dealer = deal.get("dealer", num_players - 1)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < num_players:
            raise DealError(f"deal['dealer'] must be a seat 0..{num_players - 1}, not {dealer!r}")
        state = self._blank_state(num_players, seed, validated, first_dealer=dealer)

        hands = [[parse_card(card) for card in hand] for hand in hands_json]
        pack_json = deal.get("pack", [])
        if not isinstance(pack_json, Sequence) or isinstance(pack_json, (str, bytes)):
            raise DealError("deal['pack'] must be a list of cards, top card first")
        pack_top_first = [parse_card(card) for card in pack_json]
        rows_json = deal.get("rows") or {}
        if not isinstance(rows_json, Mapping):
            raise DealError("deal['rows'] must map colours to [low, high]")
        table: list[int] = []
        low = [0, 0, 0, 0]
        high = [0, 0, 0, 0]
        for colour_name, bounds in rows_json.items():
            if colour_name not in COLOUR_INDEX or COLOUR_INDEX[colour_name] not in state.colours:
                raise DealError(f"{colour_name!r} is not a colour of this deck")
            if (
                not isinstance(bounds, Sequence)
                or len(bounds) != 2
                or any(isinstance(b, bool) or not isinstance(b, int) for b in bounds)
                or not LOWEST <= bounds[0] <= bounds[1] <= HIGHEST
            ):
                raise DealError(f"row {colour_name}: {bounds!r} is not [low, high] with 1 <= low <= high <= 20")
            row_low, row_high = bounds
            if not any(row_low <= start <= row_high for start in state.opening_numbers):
                raise DealError(
                    f"row {colour_name} {row_low}..{row_high} does not hold a card a row may start with "
                    f"({sorted(state.opening_numbers)})"
                )
            colour = COLOUR_INDEX[colour_name]
            low[colour], high[colour] = row_low, row_high
            table.extend(card_id(colour, number) for number in range(row_low, row_high + 1))

        everything = [card for hand in hands for card in hand] + pack_top_first + table
        expected = deck_cards(validated["without_blues"])
        if sorted(everything) != expected:
            duplicates = sorted(card for card, count in Counter(everything).items() if count > 1)
            missing = sorted(set(expected) - set(everything))
            foreign = sorted(set(everything) - set(expected))
            raise DealError(
                "the hands, pack and rows must hold the deck exactly once: "
                f"duplicated {[card_text(c) for c in duplicates]}, missing {[card_text(c) for c in missing]}, "
                f"not in this deck {[card_text(c) for c in foreign]}"
            )
        pack = list(reversed(pack_top_first))
        if table:
            if any(not hand for hand in hands):
                raise DealError("in the middle of a round every hand holds at least one card")
            current = deal.get("current_player", 0)
            if isinstance(current, bool) or not isinstance(current, int) or not 0 <= current < num_players:
                raise DealError(f"deal['current_player'] must be a seat 0..{num_players - 1}, not {current!r}")
            state.round = 1
            state.dealer = dealer
            state.starter = current
            state.hands = [set(hand) for hand in hands]
            state.pack = pack
            state.low = low
            state.high = high
            state.log.add(
                {
                    "type": "deal",
                    "round": 1,
                    "dealer": dealer,
                    "hand_sizes": [len(hand) for hand in hands],
                    "pack_size": len(pack),
                    "redeals": 0,
                    "rows": {name: list(bounds) for name, bounds in rows_json.items()},
                }
            )
            # The position may be one where the player to move cannot go and the pack is empty.
            state._pass_turn_from((current - 1) % num_players)
            return state
        size = HAND_SIZES[num_players]
        if any(len(hand) != size for hand in hands):
            raise DealError(f"with {num_players} players each hand holds {size} cards, not {[len(h) for h in hands]}")
        if not state.number_swap and not any(card_id(colour, ELEVEN) in hand for colour in state.colours for hand in hands):
            raise DealError("no eleven was dealt: the rules call for a fresh deal")
        state._set_up_round(1, [set(hand) for hand in hands], pack, 0)
        return state

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
