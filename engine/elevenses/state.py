"""One position of a match of Elevenses: the round, the special actions, scoring.

Seats and directions: "the players take turns in clockwise order around the
table"; seat ``s + 1`` takes its turn after seat ``s``. Passing "to the player
on their left" follows that clockwise order (seat ``s`` passes to ``s + 1``),
passing "to the player on their right" goes the other way (``s - 1``).

Decisions, one seat at a time (``current_player`` is the seat to decide):

* ``turn``: ``{"type": "play", "card": [n, s]}`` plays a kitchen card face up;
  ``{"type": "arrange", "card": [n, s], "position": p}`` is a first arrange
  action; ``{"type": "pass"}`` takes zero arrange actions.
* ``arrange`` (after a first arrange action, or after Cups & Saucers):
  another ``arrange`` or ``{"type": "stop"}``.
* ``tea``: ``{"type": "tea", "seat": t, "position": p}`` flips a face-up card.
* ``choose_player`` (Milk, Sandwiches, Cakes): ``{"type": "choose_player", "seat": t}``.
* ``milk_swap`` (the Milk player) and ``cakes_swap`` (the chosen player):
  ``{"type": "swap", "take": [n, s], "give": [n, s]}`` or ``{"type": "no_swap"}``.
* ``sandwiches_draw`` (the chosen player, when the kitchen shows several
  backs): ``{"type": "draw", "back": b}``.
* ``sandwiches_keep`` (the chosen player): ``{"type": "return"}`` or
  ``{"type": "keep", "give": [n, s]}``.
* ``set_aside`` (Fine China and Biscuits, each seat in turn, hidden until all
  are in): ``{"type": "set_aside", "card": [n, s]}``.

Observation of a seat (plain JSON; cards are ``[number, set]``, a back is a set number):

* ``spreads[s]``: ``face_up`` (the face-up cards; a card's number is its position) and
  ``face_down`` (for positions 1 to 10, the back of the face-down card there or ``null``);
  one's own spread adds ``face_down_cards`` while a Sugar is face up in it;
* ``kitchens[s]``: ``backs`` (sorted), and ``cards`` for one's own kitchen;
* ``phase``: the decision in progress (``kind``, the number ``played`` this turn, and what it
  shows this seat: ``target_kitchen`` to the Milk player, ``owner_kitchen`` to the player
  chosen by Cakes, ``drawn`` to the two seats of a Sandwiches draw, ``order``/``chosen``/
  ``skipped``/``my_choice`` during Fine China and Biscuits);
* ``guests`` (revealed guest per seat, or ``null``), ``my_guest``, ``guest_cards`` (the table);
* ``cubes``, ``bowl`` (``null`` unless ``sugar_bowl`` is ``"limited"``), ``server``, ``round``,
  ``turn``, ``turn_cap``, ``player`` (whose turn), ``to_move``, ``values`` (spread values,
  public), ``last_values``, ``tied_rounds`` (rounds tied at the top under play-on), the options;
* ``events``: what the seat witnessed since its last decision.

Rules decisions are in ``docs/rules-decisions.md (elevenses)``.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import Action, EventLog, GameResult, State, ranks_from_scores
from engine.elevenses.cards import (
    BACK,
    BISCUITS,
    CAKES,
    CARDS_PER_SET,
    CUPS_AND_SAUCERS,
    ELEVENSES,
    ELEVENSES_MIN_FACE_UP,
    FINE_CHINA,
    GUEST_COUNT,
    GUEST_VALUE,
    MILK,
    SANDWICHES,
    SERVANTS,
    SUGAR,
    TEA,
    TEA_TROLLEY,
    VALUE,
    GuestCard,
    card_label,
    elevenses_of,
)
from engine.rng import stream

if TYPE_CHECKING:
    from engine.elevenses.game import ElevensesGame

# ---- phases: what kind of decision the current player faces ------------------------
TURN, ARRANGE, TEA_FLIP, CHOOSE_PLAYER, MILK_SWAP, CAKES_SWAP = 0, 1, 2, 3, 4, 5
SANDWICHES_DRAW, SANDWICHES_KEEP, SET_ASIDE, GAME_OVER = 6, 7, 8, 9
PHASE_NAMES: tuple[str, ...] = (
    "turn",
    "arrange",
    "tea",
    "choose_player",
    "milk_swap",
    "cakes_swap",
    "sandwiches_draw",
    "sandwiches_keep",
    "set_aside",
    "over",
)
PHASE_BY_NAME: dict[str, int] = {name: index for index, name in enumerate(PHASE_NAMES)}

LEFT, RIGHT = 1, -1
"""Passing directions as seat steps (clockwise is +1)."""

ARRANGES_PER_TURN = 2
CUPS_AND_SAUCERS_ARRANGES = 3

TURN_CAP_PER_SEAT = 24
"""The default of the option ``turn_cap``: a round nobody ends is scored "as if eleven o'clock
struck" after this many turns per seat (decision D13)."""

TURN_CAP_RANGE = (5, 100)
"""The values ``turn_cap`` may take: at least the 5 turns a seat needs to play 4 cards and its
Elevenses, at most 100 (a bound for ``max_actions``)."""

PLAYOFF_ROUND_CAP = 3
"""With ``ties="play_on"``: the most rounds played on after a round that left the top tied
at or above the target; if the top is still tied after them, the tied seats share the win."""

UNLIMITED_BOWL, LIMITED_BOWL = "unlimited", "limited"
"""Values of the option ``sugar_bowl``: cubes never run short (default), or the box's 25
(en) / 30 (fr) cubes are paid while they last and an empty bowl ends the game."""

SHARE_TIES, PLAY_ON_TIES = "share", "play_on"
"""Values of the option ``ties``: tied leaders at or above the target share the victory
(default), or play on for at most :data:`PLAYOFF_ROUND_CAP` rounds to find an outright winner."""

MAX_DECISIONS_PER_TURN = 5
"""A bound on decisions in one turn: play Cups & Saucers, three arrange actions and stop
(Fine China with four players: play and four set-asides; Sandwiches: play, choose, draw, keep)."""

_E = ELEVENSES - 1  # card % 11 of an Elevenses card


def _cj(card: int) -> list[int]:
    return [card % CARDS_PER_SET + 1, card // CARDS_PER_SET]


class ElevensesState(State):
    """A match of Elevenses in progress. See the module docstring for the decisions."""

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
        self._begin_turn(self.server)
        if self.log is not None:
            self.log.add({"type": "round_start", "round": self.round, "server": self.server})

    def _begin_turn(self, seat: int) -> None:
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
        self._begin_turn((s + 1) % self.num_players)

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
    # the contract
    # ==================================================================================
    @property
    def current_player(self) -> int | None:
        return None if self.over else self.actor

    def is_over(self) -> bool:
        return self.over

    def _legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase == TURN or phase == ARRANGE:
            return self._own_move_actions(phase, self.actor)
        actions_of = _LEGAL_ACTIONS_BY_PHASE.get(phase)
        return [] if actions_of is None else actions_of(self)

    def _own_move_actions(self, phase: int, s: int) -> list[Action]:
        """A turn: play a card (on a turn only), arrange one, or pass; an arrange that goes on: arrange or stop."""
        kitchen = self.kitchen[s]
        up = self.up[s]
        actions: list[Action] = self._play_actions(s) if phase == TURN else []
        downs = [p for p in range(2, 10) if not up[p]]
        for c in kitchen:
            cj = [c % CARDS_PER_SET + 1, c // CARDS_PER_SET]
            for p in downs:
                actions.append({"type": "arrange", "card": cj, "position": p})
        actions.append({"type": "pass"} if phase == TURN else {"type": "stop"})
        return actions

    def _play_actions(self, s: int) -> list[Action]:
        """The kitchen cards seat ``s`` may play: not a copy of a face-up card, the Elevenses only once enough are up."""
        up = self.up[s]
        actions: list[Action] = []
        for c in self.kitchen[s]:
            number = c % CARDS_PER_SET + 1
            if number <= 10:
                if up[number]:
                    continue  # "may not play a morning tea card if another copy ... is face-up"
            elif self.up_count[s] < ELEVENSES_MIN_FACE_UP:
                continue
            actions.append({"type": "play", "card": [number, c // CARDS_PER_SET]})
        return actions

    def _tea_actions(self) -> list[Action]:
        s, n = self.actor, self.num_players
        return [
            {"type": "tea", "seat": t, "position": p}
            for t in ((s + i) % n for i in range(1, n))
            for p in range(2, 10)
            if self.up[t][p]
        ]

    def _choose_player_actions(self) -> list[Action]:
        s, n = self.actor, self.num_players
        return [{"type": "choose_player", "seat": (s + i) % n} for i in range(1, n)]

    def _swap_actions(self) -> list[Action]:
        owner = self.target if self.phase == MILK_SWAP else self.player
        takes = [_cj(c) for c in self.kitchen[owner] if c % CARDS_PER_SET != _E]
        gives = [_cj(g) for g in self.kitchen[self.actor] if g % CARDS_PER_SET != _E]
        return [{"type": "no_swap"}] + [{"type": "swap", "take": t, "give": g} for t in takes for g in gives]

    def _sandwiches_draw_actions(self) -> list[Action]:
        return [{"type": "draw", "back": b} for b in sorted({BACK[c] for c in self.kitchen[self.player]})]

    def _sandwiches_keep_actions(self) -> list[Action]:
        actions: list[Action] = [{"type": "return"}]
        if self.transit % CARDS_PER_SET != _E:  # "An Elevenses card may never be taken!"
            actions.extend(
                {"type": "keep", "give": _cj(g)} for g in self.kitchen[self.actor] if g % CARDS_PER_SET != _E
            )
        return actions

    def _set_aside_actions(self) -> list[Action]:
        return [{"type": "set_aside", "card": _cj(c)} for c in self.kitchen[self.actor] if c % CARDS_PER_SET != _E]

    def _apply(self, action: Action) -> None:
        s = self.actor
        if self.log is not None:
            self.log.mark(s)
        kind = action["type"]
        if kind == "arrange":
            card = action["card"]
            self._arrange(s, card[1] * CARDS_PER_SET + card[0] - 1, action["position"])
        elif kind == "play":
            card = action["card"]
            self._play(s, card[1] * CARDS_PER_SET + card[0] - 1)
        elif kind == "pass" or kind == "stop":
            if self.log is not None:
                self.log.add({"type": kind, "seat": s})
            self._end_turn()
        elif kind == "tea":
            self._tea(s, action["seat"], action["position"])
        elif kind == "choose_player":
            self._choose_player(s, action["seat"])
        elif kind == "swap":
            take, give = action["take"], action["give"]
            self._swap(take[1] * CARDS_PER_SET + take[0] - 1, give[1] * CARDS_PER_SET + give[0] - 1)
        elif kind == "no_swap":
            self._swap(-1, -1)
        elif kind == "draw":
            self._sandwiches_draw(action["back"])
        elif kind == "return":
            self._sandwiches_resolve(-1)
        elif kind == "keep":
            give = action["give"]
            self._sandwiches_resolve(give[1] * CARDS_PER_SET + give[0] - 1)
        elif kind == "set_aside":
            card = action["card"]
            self._set_aside(s, card[1] * CARDS_PER_SET + card[0] - 1)
        else:  # pragma: no cover - the base class only passes legal actions
            raise AssertionError(f"unhandled action {action!r}")

    # ==================================================================================
    # the two kinds of turn
    # ==================================================================================
    def _arrange(self, s: int, card: int, position: int) -> None:
        """ "the player chooses a card from her kitchen and plays it face-down to her spread, in
        any position from 2-9 where there is a face-down card. She then picks up the face-down
        card that was in this position and adds it to her kitchen without anyone seeing.\""""
        kitchen = self.kitchen[s]
        picked = self.card_at[s][position]
        kitchen.remove(card)
        self.card_at[s][position] = card
        insort(kitchen, picked)
        log = self.log
        if log is not None:
            log.add(
                {
                    "type": "arrange",
                    "seat": s,
                    "position": position,
                    "placed_back": BACK[card],
                    "picked_up_back": BACK[picked],
                },
                self._others[s],
            )
            log.add(
                {"type": "arrange", "seat": s, "position": position, "placed": _cj(card), "picked_up": _cj(picked)},
                self._alone[s],
            )
        if self.phase == TURN:
            self.phase = ARRANGE
            self.arrange_left = ARRANGES_PER_TURN - 1
        else:
            self.arrange_left -= 1
            if self.arrange_left == 0:
                self._end_turn()

    def _play(self, s: int, card: int) -> None:
        """Play a kitchen card face up to its position (picking up the face-down card at 2-9),
        then carry out its special action: "the player must carry out the special action of
        the card she played"."""
        number = card % CARDS_PER_SET + 1
        self.kitchen[s].remove(card)
        self.played = number
        log = self.log
        if number == ELEVENSES:
            self.centre = card
            if log is not None:
                log.add({"type": "play", "seat": s, "card": _cj(card), "picked_up_back": None})
            self._end_round("elevenses")
            return
        picked = -1
        if 2 <= number <= 9:
            picked = self.card_at[s][number]
            insort(self.kitchen[s], picked)
        self.card_at[s][number] = card
        self.up[s][number] = True
        self.up_count[s] += 1
        if log is not None:
            log.add(
                {"type": "play", "seat": s, "card": _cj(card), "picked_up_back": None if picked < 0 else BACK[picked]}
            )
            if picked >= 0:
                log.add({"type": "picked_up", "seat": s, "position": number, "card": _cj(picked)}, self._alone[s])
        if number == TEA:
            self._start_tea(s)
        elif number in (MILK, SANDWICHES, CAKES):
            self.phase = CHOOSE_PLAYER
        elif number == CUPS_AND_SAUCERS:
            self.phase = ARRANGE
            self.arrange_left = CUPS_AND_SAUCERS_ARRANGES
        elif number == FINE_CHINA:
            self._start_passing(s, LEFT)
        elif number == BISCUITS:
            self._start_passing(s, RIGHT)
        elif number == SERVANTS:
            self._servants(s)
        else:  # Tea Trolley and Sugar act at scoring time and while face up
            self._end_turn()

    # ==================================================================================
    # special actions
    # ==================================================================================
    def _start_tea(self, s: int) -> None:
        """Tea: "Choose a player. Flip any 1 face-up card in her spread that is valued 2-9
        face-down." The chosen player is another player; with no such card anywhere, nothing."""
        n = self.num_players
        if any(self.up[t][p] for t in range(n) if t != s for p in range(2, 10)):
            self.phase = TEA_FLIP
            return
        if self.log is not None:
            self.log.add({"type": "tea", "seat": s, "target": None, "position": None, "card": None})
        self._end_turn()

    def _tea(self, s: int, target: int, position: int) -> None:
        """ "The flipped card remains in its position. It may later be picked up and played again.\""""
        card = self.card_at[target][position]
        self.up[target][position] = False
        self.up_count[target] -= 1
        if self.log is not None:
            self.log.add({"type": "tea", "seat": s, "target": target, "position": position, "card": _cj(card)})
        self._end_turn()

    def _choose_player(self, s: int, target: int) -> None:
        """Milk, Sandwiches and Cakes: "Choose a player."."""
        self.target = target
        log = self.log
        number = self.played
        if log is not None:
            log.add({"type": "choose_player", "seat": s, "special": number, "target": target})
        if number == MILK:
            # "Look at the cards in her kitchen without any other players seeing."
            if log is not None:
                log.add(
                    {
                        "type": "milk_look",
                        "seat": s,
                        "target": target,
                        "kitchen": [_cj(c) for c in self.kitchen[target]],
                    },
                    self._alone[s],
                )
            self.phase = MILK_SWAP
        elif number == CAKES:
            # "She looks at your kitchen without any other players seeing."
            if log is not None:
                log.add(
                    {"type": "cakes_look", "seat": target, "owner": s, "kitchen": [_cj(c) for c in self.kitchen[s]]},
                    self._alone[target],
                )
            self.phase = CAKES_SWAP
            self.actor = target
        else:
            backs = {BACK[c] for c in self.kitchen[s]}
            self.actor = target
            if len(backs) == 1:
                self._sandwiches_draw(next(iter(backs)))
            else:
                self.phase = SANDWICHES_DRAW

    def _swap(self, take: int, give: int) -> None:
        """Milk (the player takes from the chosen player) and Cakes (the chosen player takes
        from the player): "You may take 1 of her cards into your kitchen, but must give her a
        card from your kitchen in exchange. Keep this swap secret from all other players.\""""
        taker = self.actor
        owner = self.target if self.phase == MILK_SWAP else self.player
        log = self.log
        number = self.played
        if take < 0:
            if log is not None:
                log.add({"type": "no_swap", "special": number, "taker": taker, "owner": owner})
        else:
            self.kitchen[owner].remove(take)
            self.kitchen[taker].remove(give)
            insort(self.kitchen[taker], take)
            insort(self.kitchen[owner], give)
            if log is not None:
                pair = frozenset((taker, owner))
                log.add(
                    {
                        "type": "swap",
                        "special": number,
                        "taker": taker,
                        "owner": owner,
                        "taken_back": BACK[take],
                        "given_back": BACK[give],
                    },
                    frozenset(range(self.num_players)) - pair,
                )
                log.add(
                    {
                        "type": "swap",
                        "special": number,
                        "taker": taker,
                        "owner": owner,
                        "taken": _cj(take),
                        "given": _cj(give),
                    },
                    pair,
                )
        self._end_turn()

    def _sandwiches_draw(self, back: int) -> None:
        """Sandwiches: "She must take a card from your kitchen without seeing what it is (she
        will of course see the card backs). You may shuffle your kitchen before the card is
        taken." The chosen player picks a back; the card is drawn at random among that back's."""
        owner = self.player
        chooser = self.actor
        candidates = [c for c in self.kitchen[owner] if BACK[c] == back]
        card = candidates[stream(self.seed, "sandwiches", self.round, self.turn).randrange(len(candidates))]
        self.kitchen[owner].remove(card)
        self.transit = card
        self.phase = SANDWICHES_KEEP
        log = self.log
        if log is not None:
            pair = frozenset((chooser, owner))
            log.add(
                {"type": "sandwiches_draw", "seat": chooser, "owner": owner, "back": back},
                frozenset(range(self.num_players)) - pair,
            )
            log.add({"type": "sandwiches_draw", "seat": chooser, "owner": owner, "back": back, "card": _cj(card)}, pair)

    def _sandwiches_resolve(self, give: int) -> None:
        """ "Your opponent looks at the taken card secretly and decides to either return it to
        you or to keep it. If she keeps it, she must give you a card from her kitchen." Others
        only see a card of some back handed back to the Sandwiches player."""
        owner = self.player
        chooser = self.actor
        card = self.transit
        self.transit = -1
        handed = card if give < 0 else give
        if give >= 0:
            self.kitchen[chooser].remove(give)
            insort(self.kitchen[chooser], card)
        insort(self.kitchen[owner], handed)
        log = self.log
        if log is not None:
            pair = frozenset((chooser, owner))
            log.add(
                {"type": "sandwiches_give", "seat": chooser, "owner": owner, "back": BACK[handed]},
                frozenset(range(self.num_players)) - pair,
            )
            if give < 0:
                log.add({"type": "sandwiches_return", "seat": chooser, "owner": owner, "card": _cj(card)}, pair)
            else:
                log.add(
                    {"type": "sandwiches_keep", "seat": chooser, "owner": owner, "card": _cj(card), "given": _cj(give)},
                    pair,
                )
        self._end_turn()

    def _start_passing(self, s: int, direction: int) -> None:
        """Fine China (left) and Biscuits (right): "All players must choose a card from their
        kitchen and place it face-down on the table." A seat whose kitchen is only its
        Elevenses reveals it and is ignored: the passing closes round it. With fewer than two
        seats taking part, no cards are passed ("If this happens in a 2 player game, no cards
        are passed")."""
        n = self.num_players
        clockwise = [(s + i) % n for i in range(n)]
        skipped = [j for j in clockwise if len(self.kitchen[j]) == 1 and self.kitchen[j][0] % CARDS_PER_SET == _E]
        order = [j for j in clockwise if j not in skipped]
        log = self.log
        if log is not None:
            for j in skipped:
                log.add({"type": "reveal_elevenses", "seat": j, "card": _cj(elevenses_of(j))})
            log.add(
                {
                    "type": "passing",
                    "seat": s,
                    "special": self.played,
                    "direction": "left" if direction == LEFT else "right",
                    "skipped": skipped,
                    "order": order if len(order) >= 2 else [],
                }
            )
        if len(order) < 2:
            self._end_turn()
            return
        self.pass_order = order
        self.pass_index = 0
        self.pass_choice = [-1] * n
        self.pass_skipped = skipped
        self.pass_direction = direction
        self.phase = SET_ASIDE
        self.actor = order[0]

    def _set_aside(self, s: int, card: int) -> None:
        """One seat's hidden choice; the cards move when all are in."""
        self.pass_choice[s] = card
        if self.log is not None:
            self.log.add({"type": "set_aside", "seat": s})
        self.pass_index += 1
        if self.pass_index < len(self.pass_order):
            self.actor = self.pass_order[self.pass_index]
            return
        order = self.pass_order
        m = len(order)
        moves = [(order[k], order[(k + self.pass_direction) % m], self.pass_choice[order[k]]) for k in range(m)]
        for giver, _, card_given in moves:
            self.kitchen[giver].remove(card_given)
        for _, receiver, card_given in moves:
            insort(self.kitchen[receiver], card_given)
        log = self.log
        if log is not None:
            log.add(
                {
                    "type": "passed",
                    "special": self.played,
                    "moves": [{"from": g, "to": r, "back": BACK[c]} for g, r, c in moves],
                }
            )
            for giver, receiver, card_given in moves:
                log.add(
                    {"type": "received", "seat": receiver, "from": giver, "card": _cj(card_given)},
                    self._alone[receiver],
                )
        self.pass_order = []
        self.pass_index = 0
        self.pass_choice = [-1] * self.num_players
        self.pass_skipped = []
        self.actor = self.player
        self._end_turn()

    def _servants(self, s: int) -> None:
        """Servants: "You must show the cards in your kitchen to all players. After this, your
        kitchen is secret again.\""""
        if self.log is not None:
            self.log.add({"type": "servants", "seat": s, "kitchen": [_cj(c) for c in self.kitchen[s]]})
        self._end_turn()

    # ==================================================================================
    # what seats know
    # ==================================================================================
    def sees_own_face_down(self, seat: int) -> bool:
        """Sugar: "As long as Sugar is face-up in your spread, you may look at all of the
        face-down cards in your spread at any time, even when it is not your turn.\""""
        return self.up[seat][SUGAR]

    def _observation(self, seat: int) -> dict[str, Any]:
        n = self.num_players
        spreads = self._spread_views(seat)
        kitchens = self._kitchen_views(seat)
        guests: list[int | None] | None = None
        if self.guests_on:
            guests = [self.guest[s] if self.guest_shown[s] else None for s in range(n)]
        return {
            "options": dict(self.options),
            "target_cubes": self.target_cubes,
            "bowl_size": self.bowl_size,
            "turn_cap": self.turn_cap,
            "guest_cards": [list(g.wants) for g in self.guest_table] if self.guests_on else None,
            "round": self.round,
            "turn": self.turn,
            "player": None if self.over else self.player,
            "server": self.server,
            "cubes": list(self.cubes),
            "bowl": self.bowl,
            "centre": None if self.centre < 0 else _cj(self.centre),
            "tied_rounds": self.tied_rounds,
            "phase": self._phase_view(seat),
            "spreads": spreads,
            "kitchens": kitchens,
            "guests": guests,
            "my_guest": self.guest[seat] if self.guests_on else None,
            "values": [self.spread_value(s) for s in range(n)],
            "last_values": list(self.last_values),
            "events": self.log.since_last_decision(seat) if self.log is not None else [],
        }

    def _spread_views(self, seat: int) -> list[dict[str, Any]]:
        """Every spread as ``seat`` sees it: face-up cards, the backs of face-down ones, and (Sugar up) its own."""
        sugar = self.up[seat][SUGAR]
        spreads: list[dict[str, Any]] = []
        for s in range(self.num_players):
            cards = self.card_at[s]
            up = self.up[s]
            spread: dict[str, Any] = {
                "face_up": [_cj(cards[p]) for p in range(1, 11) if up[p]],
                "face_down": [None if (up[p] or cards[p] < 0) else BACK[cards[p]] for p in range(1, 11)],
            }
            if s == seat and sugar:
                spread["face_down_cards"] = [None if (up[p] or cards[p] < 0) else _cj(cards[p]) for p in range(1, 11)]
            spreads.append(spread)
        return spreads

    def _kitchen_views(self, seat: int) -> list[dict[str, Any]]:
        """Every kitchen as ``seat`` sees it: the backs, and the cards of its own."""
        kitchens: list[dict[str, Any]] = []
        for s in range(self.num_players):
            entry: dict[str, Any] = {"backs": sorted(BACK[c] for c in self.kitchen[s])}
            if s == seat:
                entry["cards"] = [_cj(c) for c in self.kitchen[s]]
            kitchens.append(entry)
        return kitchens

    def _phase_view(self, seat: int) -> dict[str, Any]:
        """The decision in progress, with what it shows to ``seat``."""
        phase = self.phase
        view: dict[str, Any] = {"kind": PHASE_NAMES[phase], "played": self.played}
        if phase == ARRANGE:
            view["remaining"] = self.arrange_left
        elif phase in (MILK_SWAP, CAKES_SWAP, SANDWICHES_DRAW, SANDWICHES_KEEP):
            view["target"] = self.target
            if phase == MILK_SWAP and seat == self.player:
                view["target_kitchen"] = [_cj(c) for c in self.kitchen[self.target]]
            elif phase == CAKES_SWAP and seat == self.target:
                view["owner_kitchen"] = [_cj(c) for c in self.kitchen[self.player]]
            elif phase == SANDWICHES_KEEP:
                view["drawn_back"] = BACK[self.transit]
                if seat in (self.player, self.target):
                    view["drawn"] = _cj(self.transit)
        elif phase == SET_ASIDE:
            view["direction"] = "left" if self.pass_direction == LEFT else "right"
            view["order"] = list(self.pass_order)
            view["chosen"] = list(self.pass_order[: self.pass_index])
            view["skipped"] = list(self.pass_skipped)
            if self.pass_choice[seat] >= 0:
                view["my_choice"] = _cj(self.pass_choice[seat])
        return view

    def resample_hidden(self, seat: int, rng: random.Random) -> ElevensesState:
        return self.game.sample_hidden(self.observation(seat), rng)

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

    # ==================================================================================
    # copying and display
    # ==================================================================================
    def clone(self) -> ElevensesState:
        twin = ElevensesState.__new__(ElevensesState)
        twin.__dict__.update(self.__dict__)
        twin._legal_cache = None
        twin.options = dict(self.options)
        twin.cubes = list(self.cubes)
        twin.kitchen = [list(k) for k in self.kitchen]
        twin.card_at = [list(c) for c in self.card_at]
        twin.up = [list(u) for u in self.up]
        twin.up_count = list(self.up_count)
        twin.guest = list(self.guest)
        twin.guest_shown = list(self.guest_shown)
        twin.pass_order = list(self.pass_order)
        twin.pass_choice = list(self.pass_choice)
        twin.pass_skipped = list(self.pass_skipped)
        twin.last_values = list(self.last_values)
        twin.log = None if self.log is None else self.log.copy()
        return twin

    def render(self) -> str:
        n = self.num_players
        lines = [
            f"Elevenses ({self.edition}, target {self.target_cubes}) round {self.round} turn {self.turn}: "
            f"cubes {self.cubes}, bowl {'unlimited' if self.bowl is None else self.bowl}, server {self.server}"
        ]
        if self.over:
            lines.append(f"game over; winners {self.winners()}")
        else:
            lines.append(f"seat {self.actor} decides ({PHASE_NAMES[self.phase]}), turn of seat {self.player}")
        for s in range(n):
            cells = []
            for p in range(1, 11):
                c = self.card_at[s][p]
                if c < 0:
                    cells.append(f"{p}:-")
                else:
                    cells.append(f"{p}:{card_label(c)}" + ("" if self.up[s][p] else "(down)"))
            guest = ""
            if self.guest[s] >= 0:
                guest = f" guest {self.guest_table[self.guest[s]].name}{' (revealed)' if self.guest_shown[s] else ''}"
            lines.append(f"seat {s} value {self.spread_value(s)}{guest}")
            lines.append("  spread: " + " ".join(cells))
            lines.append("  kitchen: " + ", ".join(card_label(c) for c in self.kitchen[s]))
        if self.transit >= 0:
            lines.append(f"drawn by Sandwiches: {card_label(self.transit)}")
        return "\n".join(lines)


# ---- scoring rules, as plain functions ----------------------------------------------
_LEGAL_ACTIONS_BY_PHASE: dict[int, Callable[[ElevensesState], list[Action]]] = {
    TEA_FLIP: ElevensesState._tea_actions,
    CHOOSE_PLAYER: ElevensesState._choose_player_actions,
    MILK_SWAP: ElevensesState._swap_actions,
    CAKES_SWAP: ElevensesState._swap_actions,
    SANDWICHES_DRAW: ElevensesState._sandwiches_draw_actions,
    SANDWICHES_KEEP: ElevensesState._sandwiches_keep_actions,
    SET_ASIDE: ElevensesState._set_aside_actions,
}
"""The legal actions of each decision that is not a seat's own turn or arrange."""


def placing_cubes(values: Sequence[int]) -> list[int]:
    """Cubes for the best spreads (before the bowl limits them).

    "Whoever has the spread with the highest value ... receives 2 sugar cubes. In a 3 or 4
    player game, the player with the second-highest value receives 1 sugar cube ... In a
    2-player game, the player with the second-highest value receives nothing. If players tie
    for the highest value, they each receive 1 sugar cube and the other players receive
    nothing. If players tie for the second-highest value, they each receive nothing."
    """
    n = len(values)
    cubes = [0] * n
    best = max(values)
    firsts = [s for s in range(n) if values[s] == best]
    if len(firsts) > 1:
        for s in firsts:
            cubes[s] = 1
        return cubes
    cubes[firsts[0]] = 2
    if n >= 3:
        second = max(v for v in values if v != best)
        seconds = [s for s in range(n) if values[s] == second]
        if len(seconds) == 1:
            cubes[seconds[0]] = 1
    return cubes


def next_server(cubes: Sequence[int], holder: int) -> int:
    """ "The player who now has the fewest total sugar cubes takes the starting server card. If
    multiple players are tied for the fewest, then the tied player closest to the current
    holder of the starting server card in clockwise order takes" it (a tied holder, at
    distance zero, keeps it)."""
    n = len(cubes)
    fewest = min(cubes)
    for i in range(n):
        seat = (holder + i) % n
        if cubes[seat] == fewest:
            return seat
    raise AssertionError("unreachable")
