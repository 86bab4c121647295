"""Built-in bots for Elevenses for One.

``thumb`` plays by rules of thumb that follow from the rules:

* discarding is free and Servants (10) can return any discard for free, so
  cards that are not needed now are discarded while discards are left (with
  ``discard_cap="game"``, the default, three in the game; with ``"pile"``,
  while the pile has room: the observation's ``discards_left`` says which);
* the next card for the trolley is scored whenever it is the current card;
* Servants always returns a card (returning is free, declining costs a minute),
  the next card for the trolley if it lies on the pile;
* Elevenses, when discarded, scores the next card from the pile;
* the flip and swap choices clear the way to the next card for the trolley;
* at step 2 the next card for the trolley is moved to the front when the cards
  before it would cost more than the minute the move costs.

``search`` looks ahead. Everything on the table is known; only the order of
future shuffles is not. For each legal action it rebuilds states from the
observation (``engine.elevenses_for_one.state_from_observation``) with sampled
shuffle seeds, applies the action and plays on with the thumb policy; the
action with the best mean final score wins (flat Monte Carlo, every action
judged on the same sampled shuffles).

Over the same 1,000 seeds (0-999, ``discard_cap="pile"``, the default before the
discard cap was revisited; the default ``"game"`` reading is harder, see
docs/rules-decisions.md, Elevenses for One decision 4):

=========  ========  ===========
bot        wins      mean score
=========  ========  ===========
random     0.0 %     1.68
thumb      50.3 %    10.66
search     87.8 %    12.98
=========  ========  ===========

The package, one module per bot family:

* :mod:`bots.elevenses_for_one.thumb`: the rules of thumb and the ``thumb`` bot;
* :mod:`bots.elevenses_for_one.search`: the ``search`` bot, which plays its rollouts by those rules.
"""

from bots.elevenses_for_one.search import ElevensesForOneSearchBot
from bots.elevenses_for_one.thumb import GAME_ID, Choice, ElevensesForOneThumbBot, thumb_choice

__all__ = ["Choice", "ElevensesForOneSearchBot", "ElevensesForOneThumbBot", "GAME_ID", "thumb_choice"]
