"""Bowling Solitaire, by Sid Sackson: tenpin bowling with twenty cards, for one player.

The deck is the numbers 0-9, each twice. Every frame the twenty cards are
shuffled: ten are laid out as pins in a triangle and ten form three face-down
"ball" piles of five, three and two cards whose top cards are face up::

    A  B  C  D      the back row
     E  F  G        F is the centre pin
      H  I
       J            the head pin

A face-up ball card knocks down one pin of the same number, or two or three
pins that touch one another in the triangle and whose sum ends in the ball
card's number. The first card of a frame may not take a back-row pin, nor the
centre pin alone; once a pin is down, every play must take a pin next to one
already down. The first ball of a frame ends when no play is possible or the
player stops; the top card of every pile is then thrown out and the second
ball is bowled the same way. Ten frames are scored like tenpin bowling
(:func:`score_sheet`); a spare or strike in the tenth frame earns one or two
bonus balls, bowled at fresh racks.

Rules decisions (where the rulebook is silent) are recorded in
``docs/rules-decisions.md (bowling-solitaire)``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Action, DealError, Game, GameFacts, GameResult, ScoreOrder, State, WinRule
from engine.rng import stream

# ---------------------------------------------------------------------------
# The layout
# ---------------------------------------------------------------------------

PIN_NAMES: str = "ABCDEFGHIJ"
"""Pin positions: A-D the back row, E-G, H-I, and J the head pin."""

PIN_INDEX: dict[str, int] = {name: index for index, name in enumerate(PIN_NAMES)}
BACK_ROW: frozenset[str] = frozenset("ABCD")
CENTRE_PIN: str = "F"

ADJACENT_PAIRS: tuple[tuple[str, str], ...] = (
    ("A", "B"),
    ("B", "C"),
    ("C", "D"),
    ("E", "F"),
    ("F", "G"),
    ("H", "I"),
    ("A", "E"),
    ("B", "E"),
    ("B", "F"),
    ("C", "F"),
    ("C", "G"),
    ("D", "G"),
    ("E", "H"),
    ("F", "H"),
    ("F", "I"),
    ("G", "I"),
    ("H", "J"),
    ("I", "J"),
)
"""Pins that touch in the triangle: each pin touches its row neighbours and the
two pins diagonally in front of or behind it (the only reading under which the
rulebook's examples H-I, E-F-H and H-F-G are all adjacent)."""

PILE_SIZES: tuple[int, int, int] = (5, 3, 2)
"""The three ball piles, left to right."""

DECK: tuple[int, ...] = tuple(sorted(list(range(10)) * 2))
"""Twenty cards, numbered 0-9 twice."""

NUM_PINS: int = 10
ALL_PINS: int = (1 << NUM_PINS) - 1
FRAMES: int = 10
LAST_RACK: int = 12
"""Frames 1-10 use racks 1-10; the tenth frame's bonus balls use racks 11 and 12."""

ACTIONS_PER_RACK: int = NUM_PINS + 1
"""Every play takes at least one pin, so a rack sees at most ten plays and one stop."""


def _mask(names: str | Sequence[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << PIN_INDEX[name]
    return mask


NEIGHBOURS: tuple[int, ...] = tuple(
    _mask([b for a, b in ADJACENT_PAIRS if a == name] + [a for a, b in ADJACENT_PAIRS if b == name])
    for name in PIN_NAMES
)
"""For each pin, the mask of the pins it touches."""

BACK_ROW_MASK: int = _mask(sorted(BACK_ROW))
CENTRE_MASK: int = _mask(CENTRE_PIN)


def _touching(mask: int) -> int:
    touched = 0
    for index in range(NUM_PINS):
        if mask >> index & 1:
            touched |= NEIGHBOURS[index]
    return touched


TOUCHING: tuple[int, ...] = tuple(_touching(mask) for mask in range(1 << NUM_PINS))
"""For each set of pins (a mask), the mask of every pin touching one of them."""


@dataclass(frozen=True)
class PinGroup:
    """One to three pins that a single ball card may knock down together.

    A group of two or three is connected through adjacency (H-F-G is a group:
    H touches F and F touches G, though H does not touch G).
    """

    names: tuple[str, ...]
    mask: int
    allowed_first: bool
    """Whether the first ball card of a frame may take it: no back-row pin,
    and not the centre pin by itself."""


def _connected(names: Sequence[str]) -> bool:
    members = _mask(names)
    reached = 1 << PIN_INDEX[names[0]]
    while True:
        grown = reached | (TOUCHING[reached] & members)
        if grown == reached:
            return reached == members
        reached = grown


def _all_groups() -> tuple[PinGroup, ...]:
    groups: list[PinGroup] = []
    names = PIN_NAMES
    candidates: list[tuple[str, ...]] = [(a,) for a in names]
    candidates += [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    candidates += [
        (a, b, c) for i, a in enumerate(names) for j, b in enumerate(names[i + 1 :], i + 1) for c in names[j + 1 :]
    ]
    for members in candidates:
        if _connected(members):
            mask = _mask(members)
            allowed_first = not (mask & BACK_ROW_MASK) and mask != CENTRE_MASK
            groups.append(PinGroup(members, mask, allowed_first))
    return tuple(groups)


PIN_GROUPS: tuple[PinGroup, ...] = _all_groups()
"""Every connected group of one to three pins (64 of them), smallest first, names sorted."""

GROUP_INDEX: dict[tuple[str, ...], int] = {group.names: index for index, group in enumerate(PIN_GROUPS)}
_GROUP_MASKS: tuple[int, ...] = tuple(group.mask for group in PIN_GROUPS)
_GROUP_FIRST_OK: tuple[bool, ...] = tuple(group.allowed_first for group in PIN_GROUPS)
# member indices padded with position 10, which always holds 0, so a digit is one sum
_GROUP_TRIPLES: tuple[tuple[int, int, int], ...] = tuple(
    tuple(PIN_INDEX[name] for name in group.names) + (NUM_PINS,) * (3 - len(group.names))  # type: ignore[misc]
    for group in PIN_GROUPS
)
_GROUP_MEMBERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(PIN_INDEX[name] for name in group.names) for group in PIN_GROUPS
)
_POPCOUNT: tuple[int, ...] = tuple(bin(mask).count("1") for mask in range(1 << NUM_PINS))

STOP: Action = {"type": "stop"}
_BOWL_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple({"type": "bowl", "pile": pile, "pins": list(group.names)} for group in PIN_GROUPS)
    for pile in range(len(PILE_SIZES))
)


def group_digits(pins: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """For a layout (pin numbers A..J), the groups whose sum ends in each digit 0-9."""
    padded = list(pins) + [0]
    buckets: list[list[int]] = [[] for _ in range(10)]
    for index, (a, b, c) in enumerate(_GROUP_TRIPLES):
        buckets[(padded[a] + padded[b] + padded[c]) % 10].append(index)
    return tuple(tuple(bucket) for bucket in buckets)


def legal_group_indices(standing: int, digit_groups: Sequence[Sequence[int]], ball: int) -> list[int]:
    """The groups a ball card of number ``ball`` may knock down from the ``standing`` pins.

    "To knock over one pin, the number on the chosen ball card must match the
    number on the pin card"; two or three adjacent pins need a sum whose final
    digit is the ball's number. With no pin yet down in the frame, no back-row
    pin and not the centre pin alone; afterwards at least one pin must touch a
    pin already removed.
    """
    down = ALL_PINS ^ standing
    found: list[int] = []
    if down:
        reach = TOUCHING[down]
        for index in digit_groups[ball]:
            mask = _GROUP_MASKS[index]
            if mask & standing == mask and mask & reach:
                found.append(index)
    else:
        for index in digit_groups[ball]:
            if _GROUP_FIRST_OK[index]:
                found.append(index)
    return found


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameBalls:
    """The balls of one frame, as far as they have been bowled.

    For the tenth frame ``balls`` includes its bonus balls.
    """

    number: int
    balls: tuple[int, ...]

    @property
    def strike(self) -> bool:
        return len(self.balls) >= 1 and self.balls[0] == 10

    @property
    def spare(self) -> bool:
        return not self.strike and len(self.balls) >= 2 and self.balls[0] + self.balls[1] == 10


def split_frames(balls: Sequence[int]) -> list[FrameBalls]:
    """Group a sequence of balls into frames, checking that it could happen.

    Raises :class:`ValueError` for a negative or non-integer ball, more than ten
    pins in a frame, a ball after the game is over, or a bonus ball that could
    not happen.
    """
    frames: list[FrameBalls] = []
    current: list[int] = []
    for position, pins in enumerate(balls, 1):
        _check_ball(position, pins)
        frame_number = len(frames) + 1
        if frame_number > FRAMES:
            raise ValueError(f"ball {position} ({pins} pins) comes after the game is over: all ten frames are complete")
        if frame_number < FRAMES:
            complete = _add_to_frame(frame_number, current, position, pins)
        else:
            complete = _add_to_tenth_frame(current, position, pins)
        if complete:
            frames.append(FrameBalls(frame_number, tuple(current)))
            current = []
    if current:
        frames.append(FrameBalls(len(frames) + 1, tuple(current)))
    return frames


def _check_ball(position: int, pins: Any) -> None:
    """A ball knocks down a whole number of pins from 0 to 10."""
    if isinstance(pins, bool) or not isinstance(pins, int):
        raise ValueError(f"ball {position} is {pins!r}, not a whole number of pins")
    if pins < 0:
        raise ValueError(f"ball {position} knocks down {pins} pins; a ball cannot knock down fewer than 0")
    if pins > 10:
        raise ValueError(f"ball {position} knocks down {pins} pins, more than the ten pins of a frame")


def _add_to_frame(frame_number: int, current: list[int], position: int, pins: int) -> bool:
    """Add a ball to frames 1-9 (two balls, or a strike); returns whether the frame is complete."""
    if current and current[0] + pins > 10:
        raise ValueError(
            f"frame {frame_number}: balls {position - 1} and {position} knock down "
            f"{current[0]} + {pins} = {current[0] + pins} pins, more than the ten standing"
        )
    current.append(pins)
    return current[0] == 10 or len(current) == 2


def _add_to_tenth_frame(current: list[int], position: int, pins: int) -> bool:
    """Add a ball to the tenth frame and its bonus balls; returns whether the frame is complete."""
    if len(current) == 1 and current[0] < 10 and current[0] + pins > 10:
        raise ValueError(
            f"frame 10: balls {position - 1} and {position} knock down {current[0]} + {pins} = "
            f"{current[0] + pins} pins, more than the ten standing"
        )
    if len(current) == 2:
        first, second = current
        if first + second < 10:
            raise ValueError(
                f"ball {position} ({pins} pins) comes after the game is over: frame 10 is open "
                f"({first} + {second}), so no bonus ball follows"
            )
        if first == 10 and second < 10 and second + pins > 10:
            raise ValueError(
                f"frame 10: the second bonus ball (ball {position}) is bowled at the {10 - second} pins "
                f"left by the first bonus ball, so it cannot knock down {pins}"
            )
    current.append(pins)
    return len(current) == 3 or (len(current) == 2 and current[0] + current[1] < 10)


def score_sheet(balls: Sequence[int]) -> list[int | None]:
    """The running total of each of the ten frames after ``balls`` (the pins of each ball, in order).

    A frame is ``None`` until its score is decided: an open frame after its two
    balls, a spare after one more ball, a strike after two more balls (and
    every frame after an undecided one, since a running total needs it).
    Raises :class:`ValueError` for a sequence that could not happen.

    >>> score_sheet([8, 2, 10, 10, 6, 3])[:5]
    [20, 46, 65, 74, None]
    """
    frames = split_frames(balls)
    flat = list(balls)
    totals: list[int | None] = [None] * FRAMES
    running = 0
    start = 0
    for frame in frames:
        own = frame.balls
        if frame.number == FRAMES:
            # the tenth frame's bonus balls belong to it: 10 + bonus after a strike or spare
            if len(own) < 2:
                break
            needed = 3 if own[0] == 10 or own[0] + own[1] == 10 else 2
            if len(own) < needed:
                break
            running += sum(own)
        elif frame.strike:
            bonus = flat[start + 1 : start + 3]
            if len(bonus) < 2:
                break
            running += 10 + sum(bonus)
            start += 1
        elif len(own) < 2:
            break
        elif frame.spare:
            bonus = flat[start + 2 : start + 3]
            if not bonus:
                break
            running += 10 + bonus[0]
            start += 2
        else:
            running += own[0] + own[1]
            start += 2
        totals[frame.number - 1] = running
    return totals


def final_score(balls: Sequence[int]) -> int:
    """The game's total so far: the last decided running total (0 if none)."""
    decided = [total for total in score_sheet(balls) if total is not None]
    return decided[-1] if decided else 0


# ---------------------------------------------------------------------------
# Racks and deals
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rack:
    """One set-up: the ten pins (numbers at A..J) and the three ball piles, each listed top card first."""

    pins: tuple[int, ...]
    piles: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]

    @classmethod
    def shuffled(cls, rng: random.Random) -> Rack:
        """Shuffle the twenty cards; the first ten are the pins A..J, the rest the piles of 5, 3 and 2."""
        deck = list(DECK)
        rng.shuffle(deck)
        return cls(tuple(deck[:10]), (tuple(deck[10:15]), tuple(deck[15:18]), tuple(deck[18:20])))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rack:
        """A rack from ``{"pins": [...] or {"A": n, ...}, "piles": [[top, ...], [...], [...]]}``."""
        if not isinstance(data, Mapping) or "pins" not in data or "piles" not in data:
            raise DealError('a rack needs "pins" (ten numbers, A to J) and "piles" (three lists, top card first)')
        pins = _rack_pins(data["pins"])
        if len(pins) != NUM_PINS:
            raise DealError(f"a rack has ten pins, not {len(pins)}")
        raw_piles = data["piles"]
        if not isinstance(raw_piles, Sequence) or len(raw_piles) != len(PILE_SIZES):
            raise DealError("a rack has three ball piles")
        piles = [list(pile) for pile in raw_piles]
        sizes = tuple(len(pile) for pile in piles)
        if sizes != PILE_SIZES:
            raise DealError(f"the ball piles hold 5, 3 and 2 cards, not {sizes}")
        cards = pins + [card for pile in piles for card in pile]
        _check_card_numbers(cards)
        if sorted(cards) != list(DECK):
            raise DealError("a rack uses the twenty cards 0-9 twice each, exactly once")
        return cls(tuple(pins), (tuple(piles[0]), tuple(piles[1]), tuple(piles[2])))

    def to_json(self) -> dict[str, Any]:
        return {"pins": dict(zip(PIN_NAMES, self.pins)), "piles": [list(pile) for pile in self.piles]}


def _rack_pins(raw_pins: Any) -> list[Any]:
    """The ten pin cards of a rack, A to J: a list, or a mapping naming every position."""
    if isinstance(raw_pins, Mapping):
        if sorted(raw_pins) != list(PIN_NAMES):
            raise DealError(f"pins must name exactly the positions A-J, not {sorted(raw_pins)}")
        return [raw_pins[name] for name in PIN_NAMES]
    return list(raw_pins)


def _check_card_numbers(cards: Sequence[Any]) -> None:
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 9:
            raise DealError(f"cards are numbered 0-9, not {card!r}")


def rack_for(seed: int, rack_number: int) -> Rack:
    """The rack dealt for frame ``rack_number`` (11 and 12: the tenth frame's bonus racks).

    Drawn from ``stream(seed, "frame", rack_number)`` alone, so it does not
    depend on anything played before.
    """
    return Rack.shuffled(stream(seed, "frame", rack_number))


# ---------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------


class BowlingSolitaireState(State):
    """A game of Bowling Solitaire in progress."""

    __slots__ = (
        "game",
        "num_players",
        "options",
        "_legal_cache",
        "_seed",
        "_explicit_racks",
        "rack_number",
        "pins",
        "digit_groups",
        "standing",
        "piles",
        "out_of_play",
        "ball",
        "second_ball_follows",
        "down_before_ball",
        "rack_balls",
        "balls",
        "over",
    )

    def __init__(
        self,
        game: BowlingSolitaireGame,
        seed: int,
        explicit_racks: Sequence[Rack] = (),
        balls: Sequence[int] = (),
    ) -> None:
        self.game = game
        self.num_players = 1
        self.options: dict[str, Any] = {}
        self._legal_cache: list[Action] | None = None
        self._seed = seed
        self._explicit_racks: list[Rack] = list(explicit_racks)
        self.balls: list[int] = list(balls)
        self.over = False
        self.rack_number = len(split_frames(self.balls)) + 1
        self.rack_balls: list[int] = []
        self._set_up(self.rack_number, second_ball_follows=True)
        self._settle()

    # ---- set-up and the flow of a frame ---------------------------------------
    def _set_up(self, rack_number: int, second_ball_follows: bool) -> None:
        """Shuffle all twenty cards and lay out pins and ball piles anew."""
        rack = self._explicit_racks.pop(0) if self._explicit_racks else rack_for(self._seed, rack_number)
        self.rack_number = rack_number
        self.pins: tuple[int, ...] = rack.pins
        self.digit_groups = group_digits(rack.pins)
        self.standing = ALL_PINS
        # each pile is kept bottom card first, so its top card is the last item
        self.piles: list[list[int]] = [list(reversed(pile)) for pile in rack.piles]
        self.out_of_play: list[int] = []
        self.ball = 1
        self.second_ball_follows = second_ball_follows
        self.down_before_ball = 0
        self.rack_balls = []

    def _plays(self) -> list[Action]:
        standing = self.standing
        if not standing:
            return []
        actions: list[Action] = []
        digit_groups = self.digit_groups
        for pile_number, pile in enumerate(self.piles):
            if pile:
                table = _BOWL_ACTIONS[pile_number]
                for index in legal_group_indices(standing, digit_groups, pile[-1]):
                    actions.append(table[index])
        if actions and self.ball == 1 and self.second_ball_follows:
            actions.append(STOP)
        return actions

    def _settle(self) -> None:
        """End balls (and frames) automatically until the player has a choice or the game is over."""
        while not self.over:
            actions = self._plays()
            if actions:
                self._legal_cache = actions
                return
            self._end_ball()
        self._legal_cache = []

    def _end_ball(self) -> None:
        """The ball is over: record its pins; throw out the top ball cards for a second ball, or end the rack."""
        down = NUM_PINS - _POPCOUNT[self.standing]
        self.balls.append(down - self.down_before_ball)
        self.rack_balls.append(down - self.down_before_ball)
        if self.standing and self.ball == 1 and self.second_ball_follows:
            for pile in self.piles:
                if pile:
                    self.out_of_play.append(pile.pop())
            self.ball = 2
            self.down_before_ball = down
            return
        self._end_rack()

    def _end_rack(self) -> None:
        strike = self.rack_balls[0] == NUM_PINS
        spare = len(self.rack_balls) == 2 and sum(self.rack_balls) == NUM_PINS
        number = self.rack_number
        if number < FRAMES:
            self._set_up(number + 1, second_ball_follows=True)
        elif number == FRAMES and strike:
            self._set_up(number + 1, second_ball_follows=True)
        elif number == FRAMES and spare:
            self._set_up(number + 1, second_ball_follows=False)
        elif number == FRAMES + 1 and self.second_ball_follows and strike:
            self._set_up(number + 1, second_ball_follows=False)
        else:
            self.over = True

    # ---- the State contract ----------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.over else 0

    def is_over(self) -> bool:
        return self.over

    def _legal_actions(self) -> list[Action]:
        return self._plays()

    def _apply(self, action: Action) -> None:
        if action["type"] == "stop":
            self._end_ball()
        else:
            group_index = GROUP_INDEX[tuple(action["pins"])]
            self.out_of_play.append(self.piles[action["pile"]].pop())
            pins = self.pins
            for index in _GROUP_MEMBERS[group_index]:
                self.out_of_play.append(pins[index])
            self.standing &= ~_GROUP_MASKS[group_index]
        self._settle()

    @property
    def frame(self) -> int:
        """The frame being bowled (bonus racks belong to the tenth frame)."""
        return min(self.rack_number, FRAMES)

    def _observation(self, seat: int) -> dict[str, Any]:
        """The whole table except the order of the face-down ball cards."""
        standing = self.standing
        pins = self.pins
        return {
            "frame": self.frame,
            "bonus_rack": max(0, self.rack_number - FRAMES),
            "ball": self.ball,
            "can_stop": not self.over and self.ball == 1 and self.second_ball_follows,
            "pins": {name: pins[i] for i, name in enumerate(PIN_NAMES) if standing >> i & 1},
            "pins_down": {name: pins[i] for i, name in enumerate(PIN_NAMES) if not standing >> i & 1},
            "ball_cards": [pile[-1] if pile else None for pile in self.piles],
            "pile_sizes": [len(pile) for pile in self.piles],
            "out_of_play": sorted(self.out_of_play),
            "balls": list(self.balls),
            "score_sheet": score_sheet(self.balls),
        }

    def resample_hidden(self, seat: int, rng: random.Random) -> BowlingSolitaireState:
        """Redraw the face-down ball cards among themselves, and every rack still to come."""
        twin = self.clone()
        face_down = [card for pile in twin.piles for card in pile[:-1]]
        rng.shuffle(face_down)
        for pile in twin.piles:
            if len(pile) > 1:
                hidden = len(pile) - 1
                pile[:hidden] = face_down[:hidden]
                del face_down[:hidden]
        twin._seed = rng.getrandbits(63)
        twin._explicit_racks = []
        return twin

    def clone(self) -> BowlingSolitaireState:
        twin = BowlingSolitaireState.__new__(BowlingSolitaireState)
        twin.game = self.game
        twin.num_players = 1
        twin.options = self.options
        twin._legal_cache = self._legal_cache
        twin._seed = self._seed
        twin._explicit_racks = list(self._explicit_racks)
        twin.rack_number = self.rack_number
        twin.pins = self.pins
        twin.digit_groups = self.digit_groups
        twin.standing = self.standing
        twin.piles = [list(pile) for pile in self.piles]
        twin.out_of_play = list(self.out_of_play)
        twin.ball = self.ball
        twin.second_ball_follows = self.second_ball_follows
        twin.down_before_ball = self.down_before_ball
        twin.rack_balls = list(self.rack_balls)
        twin.balls = list(self.balls)
        twin.over = self.over
        return twin

    # ---- the end -----------------------------------------------------------------
    def result(self) -> GameResult:
        """Score: the total on the score sheet. Details: strikes, spares and their rates over the ten frames."""
        frames = split_frames(self.balls)
        strikes = sum(1 for frame in frames if frame.strike)
        spares = sum(1 for frame in frames if frame.spare)
        total = final_score(self.balls)
        return GameResult(
            scores=(total,),
            ranks=(1,),
            details={
                "strikes": [strikes],
                "spares": [spares],
                "strike_rate": [strikes / FRAMES],
                "spare_rate": [spares / FRAMES],
                "open_frames": [
                    sum(1 for frame in frames if not frame.strike and not frame.spare and len(frame.balls) >= 2)
                ],
                "pins": [sum(self.balls)],
                "frame_totals": [score_sheet(self.balls)],
                "balls": [list(self.balls)],
            },
        )

    def render(self) -> str:
        pins = self.pins
        standing = self.standing

        def pin(name: str) -> str:
            index = PIN_INDEX[name]
            return f"{name}:{pins[index]}" if standing >> index & 1 else f"{name}:."

        rows = ["ABCD", "EFG", "HI", "J"]
        lines = [
            f"Frame {self.frame}"
            + (f" (bonus rack {self.rack_number - FRAMES})" if self.rack_number > FRAMES else "")
            + f", ball {self.ball}"
            + (" - game over" if self.over else ""),
        ]
        for depth, row in enumerate(rows):
            lines.append("  " + "   " * depth + "  ".join(pin(name) for name in row))
        piles = []
        for pile in self.piles:
            piles.append(f"[{pile[-1]}]+{len(pile) - 1}" if pile else "[ ]")
        lines.append("Ball piles: " + "  ".join(piles))
        lines.append("Out of play: " + " ".join(str(card) for card in sorted(self.out_of_play)))
        lines.append("Balls: " + " ".join(str(pins) for pins in self.balls))
        lines.append("Score: " + " ".join("-" if total is None else str(total) for total in score_sheet(self.balls)))
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class BowlingSolitaireGame(Game):
    """Sid Sackson's Bowling Solitaire: ten frames of card bowling, scored like tenpin."""

    id = "bowling-solitaire"
    name = "Bowling Solitaire"
    facts = GameFacts(
        min_players=1,
        max_players=1,
        score_order=ScoreOrder.HIGHER_IS_BETTER,
        win_rule=WinRule.NO_WIN,
        win_condition="none: the rulebook only scores the game, like tenpin (300 is perfect)",
    )
    option_specs = ()

    def _new_state(self, num_players: int, seed: int, options: dict[str, Any]) -> BowlingSolitaireState:
        return BowlingSolitaireState(self, seed)

    def from_deal(self, deal: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> BowlingSolitaireState:
        """A game starting from an explicit rack.

        ``deal`` holds ``"pins"`` (ten numbers for A..J, or a mapping A..J to
        numbers) and ``"piles"`` (three lists of 5, 3 and 2 cards, top card
        first); optionally ``"later_racks"`` (further racks of the same form,
        used for the following frames or bonus racks before any seeded rack),
        ``"balls"`` (the pins of the balls bowled in complete earlier frames,
        so the rack is the next frame's) and ``"seed"`` (for the racks after
        the explicit ones; default 0).
        """
        self.validate_options(options)
        if not isinstance(deal, Mapping):
            raise DealError("a deal is a mapping with pins and piles")
        first = Rack.from_json(deal)
        later = [Rack.from_json(rack) for rack in deal.get("later_racks", ())]
        balls = list(deal.get("balls", ()))
        try:
            frames = split_frames(balls)
        except ValueError as error:
            raise DealError(f"earlier balls: {error}") from None
        if frames and (len(frames) >= FRAMES or frames[-1].balls[0] != 10 and len(frames[-1].balls) < 2):
            raise DealError("earlier balls must make complete frames, at most nine of them")
        seed = deal.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise DealError(f"the seed is an integer, not {seed!r}")
        return BowlingSolitaireState(self, seed, [first, *later], balls)

    def max_actions(self, num_players: int, options: Mapping[str, Any]) -> int:
        """Twelve racks at most (ten frames and two bonus racks), each at most ten plays and one stop."""
        return LAST_RACK * ACTIONS_PER_RACK


GAME = BowlingSolitaireGame()
