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

The package, one module per bot family:

* :mod:`bots.elfer_raus.thumb`: the rules of thumb and the ``thumb`` bot (the search's playout policy too);
* :mod:`bots.elfer_raus.history`: what play revealed this round, and the opponents' choices since their last draw;
* :mod:`bots.elfer_raus.search`: the opponent model and the ``search`` bot.
"""

from bots.elfer_raus.search import THUMB_SLIP, ElferRausSearchBot
from bots.elfer_raus.thumb import (
    DRAW,
    DRAW_INSTEAD_HAND,
    DRAW_INSTEAD_HARM,
    END,
    GAME_ID,
    Action,
    ElferRausThumbBot,
    can_go_out,
    play_out_round,
    thumb_choice,
    thumb_move,
    thumb_state_move,
)

__all__ = [
    "Action",
    "DRAW",
    "DRAW_INSTEAD_HAND",
    "DRAW_INSTEAD_HARM",
    "END",
    "ElferRausSearchBot",
    "ElferRausThumbBot",
    "GAME_ID",
    "THUMB_SLIP",
    "can_go_out",
    "play_out_round",
    "thumb_choice",
    "thumb_move",
    "thumb_state_move",
]
