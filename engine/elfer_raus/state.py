"""A position of Elfer raus!: the round in play, the turn, the deal of each round, scoring and observations."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from engine.core import Action, DealError, EventLog, GameResult, State
from engine.elfer_raus.cards import (
    BASE_OPENING_NUMBERS,
    CARDS_PER_COLOUR,
    COLOUR_INDEX,
    COLOURS,
    ELEVEN,
    HAND_SIZES,
    HIGHEST,
    HOLD_BACK_ALL,
    LOWEST,
    MAX_DRAWS_PER_TURN,
    SWAP_OPENING_NUMBERS,
    card_id,
    card_json,
    card_text,
    colours_in_play,
    deck_cards,
)
from engine.rng import stream

if TYPE_CHECKING:
    from engine.elfer_raus.game import ElferRausGame


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

    @classmethod
    def blank(
        cls, game: ElferRausGame, num_players: int, seed: int, options: dict[str, Any], first_dealer: int
    ) -> ElferRausState:
        """A state with the options applied and no round dealt. Public because three builders fill it in: a new
        game (:meth:`start_round`), an explicit deal (:mod:`engine.elfer_raus.deal`) and the sampler
        (:mod:`engine.elfer_raus.hidden`)."""
        state = cls.__new__(cls)
        state.game = game
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
            self.pass_turn_from(seat)

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
            self.pass_turn_from(seat)

    def pass_turn_from(self, seat: int) -> None:
        """Hand the turn to the next player on the right (public: an explicit deal hands the turn on with it).

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
            self.start_round(self.round + 1)

    def start_round(self, round_number: int) -> None:
        """Deal a round from the seed, redealing while no eleven was dealt (base game); public: a new game
        deals its first round with it."""
        n = self.num_players
        size = HAND_SIZES[n]
        deck = deck_cards(self.options["without_blues"])
        attempt = 0
        while True:
            shuffled = list(deck)
            stream(self.seed, "deal", round_number, attempt).shuffle(shuffled)
            hands = [set(shuffled[seat * size : (seat + 1) * size]) for seat in range(n)]
            pack = shuffled[n * size :]
            if self.number_swap or any(card_id(colour, ELEVEN) in hand for colour in self.colours for hand in hands):
                break
            attempt += 1
        self.set_up_round(round_number, hands, pack, attempt)

    def set_up_round(self, round_number: int, hands: list[set[int]], pack: list[int], redeals: int) -> None:
        """Round ``round_number`` with these hands and pack: the dealer, the opening eleven, the first turn.
        Public: an explicit deal sets up its first round with it, as :meth:`start_round` does a shuffled one."""
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
                    self.pass_turn_from(seat)
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
                hand = set(pool[start : start + size - 1])
                hand.add(kept)
                start += size - 1
            else:
                hand = set(pool[start : start + size])
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
                "rounds_won": [
                    sum(1 for winner in self.round_winners if winner == seat) for seat in range(self.num_players)
                ],
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


class UnrecordedLog(EventLog):
    """An event log that keeps nothing: for states a bot builds to look ahead."""

    __slots__ = ()

    def add(self, event: dict[str, Any], witnesses: Any = None) -> None:
        pass

    def mark(self, seat: int) -> None:
        pass

    def copy(self) -> EventLog:
        return self
