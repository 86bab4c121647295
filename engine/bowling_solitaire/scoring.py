"""Scoring like tenpin: the balls split into frames, the running totals of the score sheet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.bowling_solitaire.layout import FRAMES


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
