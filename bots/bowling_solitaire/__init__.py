"""Built-in bots for Bowling Solitaire: a rule of thumb and an expectimax look-ahead.

Both read only the observation: the standing pins, the face-up ball cards,
the pile sizes, the cards out of play, and the balls bowled so far.

Over the same 1,000 seeds (0-999; every bot faces the same racks):

    bot      mean score       strikes / spares per game   thinking per game
    random    76.9 (sd  7.4)      0.11 / 0.37              -
    thumb     96.2 (sd 12.4)      0.66 / 0.84              -
    search   183.3 (sd 26.3)      4.38 / 3.24              1.2 s CPU (worst move 0.55 s)

search scored more than thumb on 999 of the 1,000 seeds (and 2 pins less on the other).

The package, one module per bot family:

* :mod:`bots.bowling_solitaire.thumb`: the rule-of-thumb bot, ``thumb``;
* :mod:`bots.bowling_solitaire.search`: the expectimax look-ahead bot, ``search``.
"""

from bots.bowling_solitaire.search import (
    DEAD,
    FIRST_BALL_PINS,
    TWO_BALLS_PINS,
    BowlingSearchBot,
    RackModel,
    bonus_weights,
    pile_code,
    pool_code,
)
from bots.bowling_solitaire.thumb import GAME_ID, BowlingThumbBot

__all__ = [
    "BowlingSearchBot",
    "BowlingThumbBot",
    "DEAD",
    "FIRST_BALL_PINS",
    "GAME_ID",
    "RackModel",
    "TWO_BALLS_PINS",
    "bonus_weights",
    "pile_code",
    "pool_code",
]
