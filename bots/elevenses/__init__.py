"""Built-in bots for Elevenses: "thumb" (rules of thumb) and "search" (determinized Monte Carlo).

Both see only their observation and legal actions. Both keep a small memory of what
their seat witnessed (the cards they arranged face down, cards flipped by Tea, cards
shown by Milk, Cakes, Servants...), reset at each deal, since the observation is the
current view plus the events since the last decision.

The search bot samples full states consistent with its observation and memory
(:func:`engine.elevenses.hidden.state_from_observation` with pins), never the true state,
and plays each candidate action out to the end of the round with a fast policy.

Results over 1,000 games per table size (seeds 10000-10999, seats rotated; "win share" counts
a shared win as 1/k; fair share is 1/n), measured before issue 16 changed the defaults, i.e.
with what is now ``sugar_bowl=limited ties=play_on turn_cap=12``:

=========================  =========  =========  =========
hero vs the others         2 players  3 players  4 players
=========================  =========  =========  =========
thumb vs random            100.0%     100.0%     100.0%
search vs thumb            59.8%      40.7%      31.1%
fair share                 50.0%      33.3%      25.0%
=========================  =========  =========  =========

(standard errors about 1.5 points; the search bot spends about 10 ms per decision on average
with two players and 20 ms with four, at most about 0.1 s, on one core.) With the new defaults
(unlimited cubes, shared ties, 24 turns per seat) both bots value a shared victory as 1/k of a
win; the strength tests (tests/bots/test_elevenses_bots.py) pass unchanged. Small samples with
the new defaults (wins count shared ones): ``ladder play elevenses search thumb -n 100 --seed
10000``: search 77 wins, thumb 41; ``ladder play elevenses search thumb thumb thumb -n 80 --seed
10000``: search 34, the three thumbs 16, 27 and 32.

The package, one module per bot family:

* :mod:`bots.elevenses.memory`: what a seat remembers from the events it witnessed (both bots keep one);
* :mod:`bots.elevenses.thumb`: the rule-of-thumb bot, ``thumb``;
* :mod:`bots.elevenses.search`: the search bot, ``search``, which plays the rules of thumb where it does not search.
"""

from bots.elevenses.memory import GAME_ID, Action, Memory, RememberingSeat
from bots.elevenses.search import GAME_END_BONUS, ElevensesSearchBot, rollout_action, rollout_value, standing
from bots.elevenses.thumb import PLAY_BONUS, ElevensesThumbBot, View, round_end_worth, thumb_choice

__all__ = [
    "Action",
    "ElevensesSearchBot",
    "ElevensesThumbBot",
    "GAME_END_BONUS",
    "GAME_ID",
    "Memory",
    "PLAY_BONUS",
    "RememberingSeat",
    "View",
    "rollout_action",
    "rollout_value",
    "round_end_worth",
    "standing",
    "thumb_choice",
]
