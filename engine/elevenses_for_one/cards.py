"""The cards and the chart: minutes, discard caps, the decision steps, how a match ends, the rating bands."""

from __future__ import annotations

from dataclasses import dataclass

from engine.morning_tea import (  # the card table Elevenses for One shares with Elevenses
    CARD_NUMBERS,
    CUPS_AND_SAUCERS,
    SERVANTS,
    SUGAR,
)

ALL_CARDS: tuple[int, ...] = CARD_NUMBERS
START_MINUTES = 15
DISCARD_LIMIT = 3
"""Three discards: in a game (``discard_cap="game"``), or lying in the pile at once (``"pile"``)."""
DISCARD_CAP_GAME = "game"
"""At most three discards in a game: a card taken back from the pile does not free a place."""
DISCARD_CAP_PILE = "pile"
"""At most three cards lying in the discard pile at once: a card taken back frees a place."""
DISCARD_CAPS: tuple[str, ...] = (DISCARD_CAP_GAME, DISCARD_CAP_PILE)
NEVER_DISCARDED = frozenset({CUPS_AND_SAUCERS, SERVANTS})
STALL_LIMIT = 5
"""The cap that makes every match end: a fifth pass in a row through the Pantry
during which the clock never moved ends the match as a loss (the clock strikes
eleven while the maid shuffles cards back and forth)."""
MAX_PANTRY = 11

# Decision points (the "step" in the observation).
MOVE_TO_FRONT = "move_to_front"  # step 2
CHOOSE = "choose"  # step 3: score, use or discard the current card
FLIP = "flip"  # Tea or Milk: which face-up card(s) to flip face down
SWAP = "swap"  # Biscuits: which two face-up cards swap places
SERVANTS_RETURN = "servants_return"  # Servants used: which discard to return, or none
ELEVENSES_SCORE = "elevenses_score"  # Elevenses discarded: score the discard, or not
OVER = "over"

# How a card whose effect is being performed reached that point.
BY_USE = "use"
BY_SCORE = "score"
BY_ELEVENSES = "elevenses"  # scored from the discard pile while discarding 11

# How a match ended.
ENDED_WON = "won"
ENDED_TIME = "time"  # the timer reached zero
ENDED_STUCK = "stuck"  # no card left in the Pantry: nothing can ever be scored again
ENDED_STALLED = "stalled"  # the STALL_LIMIT cap


@dataclass(frozen=True)
class RatingBand:
    """One line of Lady Agatha's rating: a range of points and her verdict."""

    low: int
    high: int | None  # None: no upper end
    name: str
    verdict: str
    never_awarded: str = ""  # why no game can end in this band, if none can

    def note(self) -> str:
        points = (
            f"{self.low} points or more"
            if self.high is None
            else (f"{self.low} points" if self.low == self.high else f"{self.low}-{self.high} points")
        )
        return f"{points}: never awarded, {self.never_awarded}" if self.never_awarded else points


RATING_BANDS: tuple[RatingBand, ...] = (
    RatingBand(0, 7, "You're fired!", "You're fired!"),
    RatingBand(8, 10, "The Madam is disappointed", "The Madam is disappointed. You risk getting replaced."),
    RatingBand(
        11,
        11,
        "Performed as expected",
        "You have performed as expected, but haven't excelled.",
        never_awarded="a loss scores at most 10 (top card at most 10, no minutes left) "
        "and a win at least 12 (11 with at least one minute left)",
    ),
    RatingBand(12, 13, "Half-day off", "Lady Agatha congratulates you and rewards you with a half-day off."),
    # The rulebook's last line reads "14-15 points"; a perfect game scores 16
    # (11 + 5 minutes), so the top band has no upper end.
    RatingBand(14, None, "Wages raised", "You have shown your worth. Lady Agatha raises your wages."),
)


def rating_band(points: int) -> RatingBand:
    """The rulebook's band for a final score: 0-7, 8-10, 11, 12-13, 14 and more."""
    for band in RATING_BANDS:
        if points >= band.low and (band.high is None or points <= band.high):
            return band
    return RATING_BANDS[0]


def minute_cost(card: int) -> int:
    """Minutes lost for using or scoring ``card`` (Sugar: "lose two minutes ... instead of one")."""
    return 2 if card == SUGAR else 1
