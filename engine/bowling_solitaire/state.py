"""A game in progress: the rack on the table, the ball being bowled, the plays, the observation and result."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.bowling_solitaire.deal import Rack, rack_for
from engine.bowling_solitaire.layout import (
    ALL_PINS,
    BOWL_ACTIONS,
    FRAMES,
    GROUP_INDEX,
    GROUP_MASKS,
    GROUP_MEMBERS,
    NUM_PINS,
    PIN_INDEX,
    PIN_NAMES,
    POPCOUNT,
    STOP,
    group_digits,
    legal_group_indices,
)
from engine.bowling_solitaire.scoring import final_score, score_sheet, split_frames
from engine.core import Action, GameResult, State

if TYPE_CHECKING:
    from engine.bowling_solitaire.game import BowlingSolitaireGame


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
                table = BOWL_ACTIONS[pile_number]
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
        down = NUM_PINS - POPCOUNT[self.standing]
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
            for index in GROUP_MEMBERS[group_index]:
                self.out_of_play.append(pins[index])
            self.standing &= ~GROUP_MASKS[group_index]
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
