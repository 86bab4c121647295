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
from typing import TYPE_CHECKING, Any

from engine.core import Action
from engine.elevenses.cards import (
    BACK,
    BISCUITS,
    CAKES,
    CARDS_PER_SET,
    CUPS_AND_SAUCERS,
    ELEVENSES,
    FINE_CHINA,
    MILK,
    SANDWICHES,
    SERVANTS,
    SUGAR,
    TEA,
    elevenses_of,
)
from engine.elevenses.legal import LEGAL_ACTIONS_BY_PHASE, own_move_actions
from engine.elevenses.phases import (
    ARRANGE,
    ARRANGES_PER_TURN,
    CAKES_SWAP,
    CHOOSE_PLAYER,
    CUPS_AND_SAUCERS_ARRANGES,
    LEFT,
    MILK_SWAP,
    RIGHT,
    SANDWICHES_DRAW,
    SANDWICHES_KEEP,
    SET_ASIDE,
    TEA_FLIP,
    TURN,
)
from engine.elevenses.rounds import RoundState
from engine.elevenses.views import render_text, seat_observation
from engine.rng import stream

if TYPE_CHECKING:
    from engine.elevenses.game import ElevensesGame


_E = ELEVENSES - 1  # card % 11 of an Elevenses card


def _cj(card: int) -> list[int]:
    return [card % CARDS_PER_SET + 1, card // CARDS_PER_SET]


class ElevensesState(RoundState):
    """A match of Elevenses in progress. See the module docstring for the decisions."""

    game: ElevensesGame

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
            return own_move_actions(self, phase, self.actor)
        actions_of = LEGAL_ACTIONS_BY_PHASE.get(phase)
        return [] if actions_of is None else actions_of(self)

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
        return seat_observation(self, seat)

    def resample_hidden(self, seat: int, rng: random.Random) -> ElevensesState:
        return self.game.sample_hidden(self.observation(seat), rng)

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
        return render_text(self)
