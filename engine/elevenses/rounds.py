"""The round of Elevenses: the table's state, the deal, the turn order, scoring at eleven o'clock, the end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core import EventLog, GameResult, State, ranks_from_scores
from engine.elevenses.cards import CARDS_PER_SET, GUEST_COUNT, GUEST_VALUE, TEA_TROLLEY, VALUE, GuestCard
from engine.elevenses.phases import GAME_OVER, LEFT, PLAY_ON_TIES, PLAYOFF_ROUND_CAP, TURN
from engine.elevenses.scoring import next_server, placing_cubes
from engine.rng import stream

if TYPE_CHECKING:
    from engine.elevenses.game import ElevensesGame


class RoundState(State):
    """The table and the round cycle of a match of Elevenses: the deal, whose turn it is, scoring at eleven
    o'clock and the end of the game. :class:`engine.elevenses.state.ElevensesState` adds the decisions on it."""

    game: ElevensesGame

    def __init__(
        self,
        game: ElevensesGame,
        num_players: int,
        options: dict[str, Any],
        seed: int,
        guest_table: Sequence[GuestCard],
        *,
        record_events: bool = True,
    ) -> None:
        n = num_players
        self.game = game
        self.num_players = n
        self.options = options
        self.seed = seed
        self.edition: str = options["edition"]
        self.target_cubes: int = game.target_cubes(options)
        self.bowl_size: int | None = game.bowl_size(options)
        """The cubes in the bowl at the start, ``None`` when the bowl is unlimited."""
        self.play_on: bool = options["ties"] == PLAY_ON_TIES
        self.guests_on: bool = options["special_guests"]
        self.guest_table: tuple[GuestCard, ...] = tuple(guest_table)
        self.turn_cap: int = options["turn_cap"] * n
        self.cubes: list[int] = [0] * n
        self.bowl: int | None = self.bowl_size
        self.server: int = 0
        self.round: int = 1
        self.turn: int = 1
        self.player: int = 0
        self.kitchen: list[list[int]] = [[] for _ in range(n)]
        self.card_at: list[list[int]] = [[-1] * 11 for _ in range(n)]
        self.up: list[list[bool]] = [[False] * 11 for _ in range(n)]
        self.up_count: list[int] = [0] * n
        self.guest: list[int] = [-1] * n
        self.guest_shown: list[bool] = [False] * n
        self.phase: int = TURN
        self.actor: int = 0
        self.arrange_left: int = 0
        self.played: int = 0  # number of the card played this turn, 0 if none
        self.target: int = -1
        self.pass_order: list[int] = []
        self.pass_index: int = 0
        self.pass_choice: list[int] = [-1] * n
        self.pass_skipped: list[int] = []
        self.pass_direction: int = LEFT
        self.transit: int = -1  # the card drawn by Sandwiches, in the chosen player's hand
        self.centre: int = -1  # the Elevenses played to the centre of the table (until the next deal)
        self.tied_rounds: int = 0
        self.over: bool = False
        self.last_values: list[int] = [0] * n
        self.log: EventLog | None = EventLog(n) if record_events else None
        self._others: tuple[frozenset[int], ...] = tuple(frozenset(range(n)) - {s} for s in range(n))
        self._alone: tuple[frozenset[int], ...] = tuple(frozenset((s,)) for s in range(n))

    # ==================================================================================
    # the round
    # ==================================================================================
    def start_round(self) -> None:
        """Deal a round: "Each player shuffles her 11 morning tea cards. She then places 8 of
        them face-down ... The remaining 3 cards are taken into her hand"; the holder of the
        starting server card takes the first turn."""
        n = self.num_players
        rng = stream(self.seed, "deal", self.round)
        for s in range(n):
            cards = list(range(s * CARDS_PER_SET, (s + 1) * CARDS_PER_SET))
            rng.shuffle(cards)
            self.card_at[s] = [-1, -1, *cards[:8], -1]
            self.kitchen[s] = sorted(cards[8:])
            self.up[s] = [False] * 11
            self.up_count[s] = 0
        self.centre = -1
        if self.guests_on:
            guests = list(range(GUEST_COUNT))
            stream(self.seed, "guests", self.round).shuffle(guests)
            self.guest = guests[:n]
            self.guest_shown = [False] * n
        self.turn = 1
        self.begin_turn(self.server)
        if self.log is not None:
            self.log.add({"type": "round_start", "round": self.round, "server": self.server})

    def begin_turn(self, seat: int) -> None:
        """Seat ``seat`` starts a turn with nothing played yet. Public because an explicit deal
        (:mod:`engine.elevenses.deal`) starts the round at the turn it names, as :meth:`start_round` does at the server's."""
        self.player = seat
        self.actor = seat
        self.phase = TURN
        self.played = 0
        self.arrange_left = 0
        self.target = -1

    def _end_turn(self) -> None:
        """The end of a turn: special guests arrive, then the next seat clockwise plays,
        unless the round has reached its turn cap."""
        s = self.player
        if self.edition == "fr" and self.played and self.log is not None:
            # "Pour terminer, le joueur annonce la valeur totale des cartes posées visibles"
            self.log.add({"type": "announce", "seat": s, "value": self.card_value(s)})
        if self.guests_on:
            self._reveal_guests()
        if self.turn >= self.turn_cap:
            self._end_round("turn_cap")
            return
        self.turn += 1
        self.begin_turn((s + 1) % self.num_players)

    def _reveal_guests(self) -> None:
        """ "At the end of a turn in which the 3 morning tea cards depicted on your special guest
        card are face-up in your spread, you may reveal your special guest card." The English
        edition says "a turn", the French "votre tour" (your turn); a seat's face-up cards only
        grow on its own turn, so both come to the same, and the guest is revealed at once."""
        n = self.num_players
        seats = [(self.player + i) % n for i in range(n)] if self.edition == "en" else [self.player]
        for j in seats:
            if self.guest_shown[j] or self.guest[j] < 0:
                continue
            up = self.up[j]
            wants = self.guest_table[self.guest[j]].wants
            if up[wants[0]] and up[wants[1]] and up[wants[2]]:
                self.guest_shown[j] = True
                if self.log is not None:
                    self.log.add({"type": "guest_arrives", "seat": j, "guest": self.guest[j], "wants": list(wants)})

    def card_value(self, seat: int) -> int:
        """The teaspoons of the face-up cards of a seat's spread."""
        cards = self.card_at[seat]
        up = self.up[seat]
        return sum(VALUE[cards[p]] for p in range(1, 11) if up[p])

    def spread_value(self, seat: int) -> int:
        """What is compared at eleven o'clock: the face-up cards plus a revealed guest's 2."""
        return self.card_value(seat) + (GUEST_VALUE if self.guest_shown[seat] else 0)

    def _end_round(self, reason: str) -> None:
        """Score the round, move the starting server card, and end the game or deal again."""
        n = self.num_players
        values = [self.spread_value(s) for s in range(n)]
        self.last_values = values
        placing = placing_cubes(values)
        trolley = [1 if self.up[s][TEA_TROLLEY] else 0 for s in range(n)]
        clockwise = [(self.server + i) % n for i in range(n)]
        if self.bowl is None:
            paid_placing, paid_trolley = placing, trolley
        else:
            paid_placing = [0] * n
            paid_trolley = [0] * n
            # a limited bowl pays first places, then second places, then Tea Trolleys, clockwise from the server
            for wanted in (2, 1):
                for s in clockwise:
                    if placing[s] == wanted:
                        paid_placing[s] = min(wanted, self.bowl)
                        self.bowl -= paid_placing[s]
            for s in clockwise:
                if trolley[s]:
                    paid_trolley[s] = min(1, self.bowl)
                    self.bowl -= paid_trolley[s]
        for s in range(n):
            self.cubes[s] += paid_placing[s] + paid_trolley[s]
        self.server = next_server(self.cubes, self.server)
        finished = self._check_game_end()
        if self.log is not None:
            self.log.add(
                {
                    "type": "round_end",
                    "round": self.round,
                    "reason": reason,
                    "turns": self.turn,
                    "values": values,
                    "placing_cubes": paid_placing,
                    "trolley_cubes": paid_trolley,
                    "cubes": list(self.cubes),
                    "bowl": self.bowl,
                    "server": self.server,
                    "game_over": finished,
                }
            )
        if finished:
            self.over = True
            self.phase = GAME_OVER
            self.actor = -1
            return
        self.round += 1
        self.start_round()

    def _check_game_end(self) -> bool:
        """Whether the game ends after scoring a round (counting a tied round under play-on).

        "If after scoring a round, any player has at least 5 sugar cubes and has more than
        anyone else, she wins the game! If multiple players have the same highest number of
        sugar cubes of 5 or more, then they ... share victory! More competitive players may
        keep playing additional rounds until there is an outright winner." With
        ``ties="play_on"`` a tied top plays on, at most PLAYOFF_ROUND_CAP rounds. A limited bowl
        that is empty ends the game too (nothing is left to award)."""
        top = max(self.cubes)
        if self.bowl == 0:
            return True
        if top < self.target_cubes:
            return False
        if self.cubes.count(top) == 1 or not self.play_on:
            return True
        self.tied_rounds += 1
        return self.tied_rounds > PLAYOFF_ROUND_CAP

    # ==================================================================================
    # the end
    # ==================================================================================
    def winners(self) -> list[int]:
        """The seats with the most cubes: "she wins the game!" or they "share victory!"."""
        top = max(self.cubes)
        return [s for s in range(self.num_players) if self.cubes[s] == top]

    def result(self) -> GameResult:
        winners = self.winners()
        return GameResult(
            scores=tuple(float(c) for c in self.cubes),
            ranks=ranks_from_scores(self.cubes),
            details={
                "won": [s in winners for s in range(self.num_players)],
                "rounds": [self.round] * self.num_players,
            },
        )
