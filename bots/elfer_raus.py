"""Built-in bots for Elfer raus!: "thumb" (rules of thumb) and "search" (determinized Monte Carlo).

``thumb``: laying a card frees the next card of its row for whoever holds it.
The rules of thumb weigh that against getting rid of cards:

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
6. With ``hold_back="all"`` (a player may draw instead of laying a card while
   the pack lasts), rule 4's forced card is laid only if it frees at most one
   of the others' cards, or the hand is down to its last few cards; otherwise
   the bot holds everything back and draws.

``search``: flat Monte Carlo over determinizations, with the worlds weighed by
what the opponents did. At each decision with a choice it samples
``candidate_worlds`` (24) full states from its observation
(:func:`engine.elfer_raus.state_from_observation`, never the true state): the
other hands and the pack are redrawn from the unseen cards, keeping what play
revealed (a seat that had to draw, or was passed with the pack empty, held
none of the cards that fitted then). Uniform draws are a poor guess at three
players and more: a rule-of-thumb player rarely still holds a card it could
have laid for free. So every choice an opponent made this round after its
last draw (its hand then is its hand now plus what it has laid since) is
replayed in each sampled world, and the world is weighed by how likely those
choices are there, under a mixture of two models of the seat: the rules of
thumb (slipping 10% of the time) and uniform random play. The belief in each
model moves, round after round, with the likelihood ratio averaged over the
worlds. ``determinizations`` (6) worlds are then drawn by weight; every legal
action is tried in each and the round is played out, every seat by the rules
of thumb except the seats believed more likely to play at random than by
them, which play at random. An action is rated by the best rival's total minus ours at
the end of the round (plus a bonus for finishing first in the last round).
From four players on (where the ladder rates 2nd place too) it searches 48
uniform worlds instead of 6 weighed ones (the weights still move the belief
in which seats play at random), and rates a playout by its margin over every
rival, each clipped to 10 points (a smooth expected rank).
The rule of thumb's choice stands unless another action beats it on average
by ``thumb_prior`` points and ``confidence`` standard errors of the paired
differences (every action is judged on the same sampled worlds).

Measured with ``python tests/bench/bench_elfer_raus_search.py PLAYERS DEALS``
(with ``--random-field``: search, thumb and random players, the table of
``ladder play elfer-raus search thumb random ...``); figures and the sign
tests are in docs/benchmarks.md. Before the weighing, the same search drawing
uniform worlds lost to thumb at 4 players (19 better, 32 worse over 200
one-round games) although it won 43 seat-deals to 0 given the true hands, and
had to be kept close to thumb from three players on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from bots.base import Bot, MatchStart
from engine.elfer_raus import (
    CARDS_PER_COLOUR,
    COLOUR_INDEX,
    COLOURS,
    HIGHEST,
    LOWEST,
    ElferRausState,
    state_from_observation,
)

GAME_ID = "elfer-raus"
END = -1
DRAW = -2
Action = dict[str, Any]

# With hold_back="all": lay a forced card rather than draw when it frees at most this many of
# the others' cards behind it, or when the hand holds at most this many cards.
DRAW_INSTEAD_HARM = 1
DRAW_INSTEAD_HAND = 3


def _number(card: int) -> int:
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
        return min(playable, key=lambda card: abs(_number(card) - 11))
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
        return max(free, key=_number)
    if not two_players:  # rule 3
        leading = [(gap, -_number(card), card) for card, _, _, gap in judged if gap is not None]
        if leading:
            return min(leading)[2]
    return None


def _harm(item: tuple[int, int, int, int | None], two_players: bool) -> tuple[int, int]:
    """How much laying a judged card gives the others: the cards behind it (two players, or no own card
    behind), else the gap to our nearest own card behind it; ties go to the higher number."""
    card, _, behind, gap = item
    if two_players or gap is None:
        return (behind, -_number(card))
    return (gap, -_number(card))


_END_ACTION: Action = {"type": "end_turn"}
_DRAW_ACTION: Action = {"type": "draw"}


def _card_of(action: Action) -> int:
    return COLOUR_INDEX[action["colour"]] * CARDS_PER_COLOUR + action["number"] - 1


def _rows(observation: dict[str, Any]) -> tuple[list[int], list[int]]:
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
    low, high = _rows(observation)
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


def _state_move(state: ElferRausState) -> Action:
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
            state.apply(_state_move(state))
    return state.round_points[rounds_done]


class ElferRausThumbBot(Bot):
    """Lays what frees its own cards, holds back what would free the others'."""

    name = "thumb"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    def act(self, observation: dict[str, Any], legal_actions: list[Action]) -> Action:
        return thumb_choice(observation, legal_actions)


class _Revealed:
    """What play revealed about the other hands this round: cards a seat cannot hold.

    A seat that draws while it may draw only when unable to go (``hold_back="some"``),
    or that is passed with the pack empty, held none of the cards that fitted then.
    Such a card still fits until it is laid, so the seat can only come to hold it
    by drawing it as its matching card; if it keeps that card, what it drew is one
    of the cards that fitted, and they are no longer known to be elsewhere.
    """

    def __init__(self, draws_reveal: bool) -> None:
        self.draws_reveal = draws_reveal
        self.excluded: dict[int, set[int]] = {}

    def update(self, observation: dict[str, Any]) -> None:
        events = self._this_round(observation["events"])
        if not events:
            return
        low, high, opening = self._table_before(observation, events)
        me = observation["seat"]
        last_draw: tuple[int, list[int]] | None = None
        for event in events:
            kind = event["type"]
            seat = event.get("seat")
            if kind in ("play", "open"):
                card = COLOUR_INDEX[event["colour"]] * CARDS_PER_COLOUR + event["number"] - 1
                _lay(card, low, high)
                last_draw = None
            elif seat == me:
                continue
            elif seat is not None and (kind == "pass" or (kind == "draw" and self.draws_reveal)):
                fitting = _fitting(low, high, opening)
                self.excluded.setdefault(seat, set()).update(fitting)
                last_draw = (seat, fitting) if kind == "draw" and event["fits"] else None
            elif kind == "end_turn" and last_draw is not None and last_draw[0] == seat:
                self.excluded[seat].difference_update(last_draw[1])  # it kept the card it drew
                last_draw = None

    def _this_round(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The events since the last deal; a new deal forgets what the last round revealed."""
        start = 0
        for index, event in enumerate(events):
            if event["type"] == "deal":
                start = index + 1
                self.excluded = {}
        return events[start:]

    @staticmethod
    def _table_before(
        observation: dict[str, Any], events: list[dict[str, Any]]
    ) -> tuple[list[int], list[int], frozenset[int]]:
        """The rows before ``events``: the rows now, with the cards the events laid taken back."""
        low, high = _rows(observation)
        for event in reversed(events):
            if event["type"] in ("play", "open"):
                colour, number = COLOUR_INDEX[event["colour"]], event["number"]
                if low[colour] == high[colour] == number:
                    low[colour] = high[colour] = 0
                elif number == low[colour]:
                    low[colour] += 1
                elif number == high[colour]:
                    high[colour] -= 1
        return low, high, frozenset(observation["opening_numbers"])


def _lay(card: int, low: list[int], high: list[int]) -> None:
    colour, number = card // CARDS_PER_COLOUR, _number(card)
    if low[colour] == 0:
        low[colour] = high[colour] = number
    elif number < low[colour]:
        low[colour] = number
    else:
        high[colour] = number


def _fitting(low: list[int], high: list[int], opening: Iterable[int]) -> list[int]:
    fitting: list[int] = []
    for colour in range(len(COLOURS)):
        base = colour * CARDS_PER_COLOUR - 1
        if low[colour] == 0:
            fitting.extend(base + number for number in opening)
        else:
            if low[colour] > LOWEST:
                fitting.append(base + low[colour] - 1)
            if high[colour] < HIGHEST:
                fitting.append(base + high[colour] + 1)
    return fitting


@dataclass(frozen=True)
class _Decision:
    """One choice an opponent made this round, with what the table showed then.

    Made after that seat's last draw of the round, so its hand then was its hand
    now plus the cards it has laid since (``laid_from_here``, this card included):
    in a sampled world the rules of thumb can be asked what they would have done.
    """

    seat: int
    low: tuple[int, ...]
    high: tuple[int, ...]
    pending: int  # the matching card it had just drawn and was deciding on, -1 if none
    played: bool  # it had already laid a card this turn (so it could end the turn)
    can_draw: bool  # hold_back="all", nothing laid yet and cards in the pack
    move: int  # the card it laid, or END
    laid_from_here: frozenset[int]


@dataclass
class _TurnState:
    """The table and the turn while :class:`_History` replays a round's events."""

    low: list[int]
    high: list[int]
    pack: int
    seat: int | None = None
    played: bool = False
    pending_unknown: bool = False  # its draw stopped on a matching card we did not see


class _History:
    """The events of the current round, turned into the opponents' checkable decisions.

    The engine shows a seat only the events since its last decision; this keeps
    the whole round (a ``deal`` event starts a new one).
    """

    def __init__(self, may_draw_instead: bool, number_swap: bool) -> None:
        self.may_draw_instead = may_draw_instead
        self.number_swap = number_swap
        self.events: list[dict[str, Any]] = []
        self.new_round = False

    def update(self, observation: dict[str, Any]) -> None:
        self.new_round = False
        for event in observation["events"]:
            if event["type"] == "deal":
                self.events = []
                self.new_round = True
            self.events.append(event)

    def decisions(self, me: int) -> list[_Decision]:
        """The other seats' choices this round that the rules of thumb can be checked against."""
        if not self.events or self.events[0]["type"] != "deal":
            return []
        deal = self.events[0]
        turn = _TurnState([0, 0, 0, 0], [0, 0, 0, 0], deal["pack_size"])
        for colour_name, (row_low, row_high) in (deal.get("rows") or {}).items():
            turn.low[COLOUR_INDEX[colour_name]], turn.high[COLOUR_INDEX[colour_name]] = row_low, row_high
        found, last_draw, laid = self._replay(turn, me)
        checkable: list[_Decision] = []
        for index, decision in found:
            if index <= last_draw.get(decision.seat, 0):
                continue
            later = frozenset(card for at, seat, card in laid if seat == decision.seat and at >= index)
            checkable.append(_replace_laid(decision, later))
        return checkable

    def _replay(
        self, turn: _TurnState, me: int
    ) -> tuple[list[tuple[int, _Decision]], dict[int, int], list[tuple[int, int, int]]]:
        """Replay the round's events: the others' decisions (with their event index), each seat's last
        draw (event index) and every card laid (event index, seat, card)."""
        found: list[tuple[int, _Decision]] = []
        last_draw: dict[int, int] = {}
        laid: list[tuple[int, int, int]] = []
        for index, event in enumerate(self.events[1:], start=1):
            seat: int = event.get("seat", -1)
            if seat != turn.seat:
                turn.seat, turn.played, turn.pending_unknown = seat, False, False
            automatic = index == 1 and event["type"] == "open" and not self.number_swap
            decision = self._step(event, turn, automatic)
            if event["type"] == "draw":
                last_draw[seat] = index
            elif event["type"] in ("play", "open"):
                laid.append((index, seat, _event_card(event)))
            if decision is not None and seat != me:
                found.append((index, decision))
        return found, last_draw, laid

    def _step(self, event: dict[str, Any], turn: _TurnState, automatic: bool) -> _Decision | None:
        """Apply ``event`` to ``turn``; the decision it records, if it is one we can check."""
        kind = event["type"]
        seat = event.get("seat", -1)
        decision: _Decision | None = None
        if kind in ("play", "open"):
            card = _event_card(event)
            if not automatic:
                pending = card if turn.pending_unknown else -1
                decision = _Decision(
                    seat,
                    tuple(turn.low),
                    tuple(turn.high),
                    pending,
                    turn.played,
                    self._can_draw(turn),
                    card,
                    frozenset(),
                )
            _lay(card, turn.low, turn.high)
            turn.played, turn.pending_unknown = True, False
        elif kind == "end_turn":
            if not turn.pending_unknown:  # keeping an unseen drawn card: nothing to check
                decision = _Decision(seat, tuple(turn.low), tuple(turn.high), -1, turn.played, False, END, frozenset())
            turn.seat = None
        elif kind == "draw":
            turn.pack -= event["count"] if "count" in event else len(event["cards"])
            if event["fits"]:
                turn.pending_unknown = True
            else:
                turn.seat = None
        return decision

    def _can_draw(self, turn: _TurnState) -> bool:
        return self.may_draw_instead and not turn.played and not turn.pending_unknown and turn.pack > 0


def _event_card(event: dict[str, Any]) -> int:
    return COLOUR_INDEX[event["colour"]] * CARDS_PER_COLOUR + event["number"] - 1


def _replace_laid(decision: _Decision, laid: frozenset[int]) -> _Decision:
    return _Decision(
        decision.seat,
        decision.low,
        decision.high,
        decision.pending,
        decision.played,
        decision.can_draw,
        decision.move,
        laid,
    )


THUMB_SLIP = 0.1
"""How often a rule-of-thumb player is taken to choose otherwise than the rules say (the model's noise)."""


def _log_likelihoods(
    decisions: Iterable[_Decision], hand: Collection[int], opening: Collection[int], num_players: int
) -> tuple[float, float]:
    """log P(these choices | this hand) if the seat plays by the rules of thumb, and if it plays at random."""
    thumb_log = random_log = 0.0
    for decision in decisions:
        held = set(hand) | decision.laid_from_here
        if decision.pending >= 0:
            playable = [decision.pending]
        else:
            playable = [card for card in _fitting(list(decision.low), list(decision.high), opening) if card in held]
        can_end = decision.played or decision.pending >= 0
        count = len(playable) + can_end + decision.can_draw
        if count < 2:
            continue
        low, high = list(decision.low), list(decision.high)
        expected = thumb_move(held, low, high, opening, num_players, playable, can_end, decision.can_draw)
        thumb_log += math.log(1 - THUMB_SLIP) if expected == decision.move else math.log(THUMB_SLIP / (count - 1))
        random_log -= math.log(count)
    return thumb_log, random_log


def _log_mean_exp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(value - top) for value in values) / len(values))


class _OpponentModel:
    """Which opponents play like the rules of thumb, and which sampled worlds fit what they did.

    Each other seat is either a rule-of-thumb player (who slips with probability
    ``THUMB_SLIP``) or a random one. For a sampled world, the likelihood of a
    seat's checked choices this round under each kind is computed; the world's
    weight mixes the two by the seat's current belief, and the belief (log odds,
    carried from round to round) moves by the ratio of the likelihoods averaged
    over the sampled worlds.
    """

    prior_log_odds = math.log(4.0)  # most opponents of a search bot play sensibly
    cap = 12.0

    def __init__(self, num_players: int, me: int, prior_log_odds: float | None = None) -> None:
        self.num_players = num_players
        self.me = me
        prior = self.prior_log_odds if prior_log_odds is None else prior_log_odds
        self.carried = dict.fromkeys((seat for seat in range(num_players) if seat != me), prior)
        self.this_round = dict.fromkeys(self.carried, 0.0)

    def new_round(self) -> None:
        for seat in self.carried:
            self.carried[seat] = max(-self.cap, min(self.cap, self.carried[seat] + self.this_round[seat]))
            self.this_round[seat] = 0.0

    def wild(self) -> frozenset[int]:
        """Seats believed more likely to play at random than by the rules of thumb."""
        return frozenset(seat for seat in self.carried if self.carried[seat] + self.this_round[seat] < 0)

    def weigh(self, worlds: list[ElferRausState], decisions: list[_Decision], opening: Collection[int]) -> list[float]:
        """Log weights of ``worlds`` given ``decisions``; updates this round's beliefs."""
        by_seat: dict[int, list[_Decision]] = {}
        for decision in decisions:
            by_seat.setdefault(decision.seat, []).append(decision)
        weights = [0.0] * len(worlds)
        for seat, mine in by_seat.items():
            pairs = [_log_likelihoods(mine, world.hands[seat], opening, self.num_players) for world in worlds]
            thumb_logs = [pair[0] for pair in pairs]
            random_logs = [pair[1] for pair in pairs]
            self.this_round[seat] = _log_mean_exp(thumb_logs) - _log_mean_exp(random_logs)
            odds = self.carried[seat]
            share = 1 / (1 + math.exp(-odds)) if odds > -50 else 0.0
            for index, (thumb_log, random_log) in enumerate(pairs):
                top = max(thumb_log, random_log)
                mixed = share * math.exp(thumb_log - top) + (1 - share) * math.exp(random_log - top)
                weights[index] += top + math.log(mixed) if mixed > 0 else -1e9
        return weights


def _pick_worlds(log_weights: list[float], count: int, rng: random.Random) -> list[int]:
    """``count`` indices drawn by weight without replacement (keys u ** (1 / w))."""
    top = max(log_weights)
    keyed = []
    for index, log_weight in enumerate(log_weights):
        weight = math.exp(log_weight - top)
        key = math.log(rng.random() or 1e-300) / weight if weight > 0 else -math.inf
        keyed.append((key, index))
    keyed.sort(reverse=True)
    return [index for _, index in keyed[:count]]


class ElferRausSearchBot(Bot):
    """Determinized flat Monte Carlo, played out by the rules of thumb, anchored on them."""

    name = "search"
    author = "the ladder"
    version = "1"
    games = (GAME_ID,)

    determinizations = 6
    thumb_prior = 0.5
    confidence = 1.0
    last_round_bonus = 10.0
    # From ``many_players`` seats on: ``many_determinizations`` uniform worlds, all searched (at 4 and 6
    # players more worlds beat fewer weighed ones; the opponents' choices still tell which seats play at
    # random), and a playout is rated by its margin over every rival, each clipped to ``rank_margin``
    # points (the ladder rates by rank: 2nd place counts).
    many_players = 4
    many_determinizations = 48
    rank_margin = 10.0

    # Worlds sampled per decision and weighed by how well they explain the opponents' choices;
    # ``determinizations`` of them are drawn by weight and searched. At most ``determinizations``: uniform
    # worlds (the choices then only move the belief in which seats play at random).
    candidate_worlds = 24
    opponent_prior_log_odds: float | None = None

    def __init__(self) -> None:
        super().__init__()
        self.revealed = _Revealed(draws_reveal=True)
        self.history = _History(may_draw_instead=False, number_swap=False)
        self.model = _OpponentModel(2, 0)
        self.options: dict[str, Any] = {}

    def start(self, match: MatchStart) -> None:
        super().start(match)
        self.options = dict(match.options)
        draw_instead = self.options.get("hold_back", "some") == "all"
        self.revealed = _Revealed(draws_reveal=not draw_instead)
        self.history = _History(may_draw_instead=draw_instead, number_swap=bool(self.options.get("number_swap")))
        self.model = _OpponentModel(match.num_players, match.seat, self.opponent_prior_log_odds)

    def act(self, observation: dict[str, Any], legal_actions: list[Action]) -> Action:
        self.revealed.update(observation)
        self.history.update(observation)
        if self.history.new_round:
            self.model.new_round()
        if len(legal_actions) == 1:
            return legal_actions[0]
        thumb = thumb_choice(observation, legal_actions)
        candidates = [thumb] + [action for action in legal_actions if action != thumb]
        seat = observation["seat"]
        totals = observation["totals"]
        last_round = observation["round"] >= observation["rounds"]
        worlds = self._worlds(observation)
        wild = self.model.wild()
        values: list[list[float]] = [[] for _ in candidates]
        for world in worlds:
            rounds_done = len(world.round_points)
            rollout_seed = self.rng.getrandbits(32)
            for index, action in enumerate(candidates):
                trial = world.clone()
                trial.apply(action)
                points = play_out_round(trial, rounds_done, wild, random.Random(rollout_seed))
                values[index].append(self._rate(seat, totals, points, last_round))
        return candidates[self._pick(values)]

    def _worlds(self, observation: dict[str, Any]) -> list[ElferRausState]:
        """The sampled states to search.

        Below ``many_players`` seats, ``determinizations`` worlds drawn by weight
        from ``candidate_worlds`` (how well each explains the opponents' choices);
        from ``many_players`` on, ``many_determinizations`` uniform ones (there,
        more worlds beat fewer weighed ones). Either way the opponents' choices
        update the belief in which seats play at random (:meth:`_OpponentModel.wild`).
        """
        excluded = self.revealed.excluded
        many = observation["num_players"] >= self.many_players
        searched = self.many_determinizations if many else self.determinizations
        drawn = searched if many else max(searched, self.candidate_worlds)
        pool = [state_from_observation(observation, self.options, self.rng, excluded) for _ in range(drawn)]
        decisions = self.history.decisions(observation["seat"])
        if not decisions:
            return pool[:searched]
        weights = self.model.weigh(pool, decisions, frozenset(observation["opening_numbers"]))
        if drawn == searched:
            return pool
        return [pool[index] for index in _pick_worlds(weights, searched, self.rng)]

    def _rate(self, seat: int, totals: list[int], points: list[int], last_round: bool) -> float:
        mine = totals[seat] + points[seat]
        if len(totals) >= self.many_players:
            cap = self.rank_margin
            return sum(
                max(-cap, min(cap, total + points[other] - mine)) for other, total in enumerate(totals) if other != seat
            )
        best_rival = min(total + points[other] for other, total in enumerate(totals) if other != seat)
        value = float(best_rival - mine)
        if last_round:
            value += self.last_round_bonus * (1.0 if mine < best_rival else 0.5 if mine == best_rival else 0.0)
        return value

    def _pick(self, values: list[list[float]]) -> int:
        """The rule of thumb's choice (index 0) unless another beats it clearly on the same samples."""
        prior, confidence = self.thumb_prior, self.confidence
        base = values[0]
        best, best_gain = 0, 0.0
        count = len(base)
        for index in range(1, len(values)):
            diffs = [value - anchor for value, anchor in zip(values[index], base)]
            mean = sum(diffs) / count
            spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, count - 1)) / math.sqrt(count)
            if mean > prior and mean > confidence * spread and mean > best_gain:
                best, best_gain = index, mean
        return best


__all__ = ["ElferRausSearchBot", "ElferRausThumbBot", "can_go_out", "play_out_round", "thumb_choice", "thumb_move"]
