"""Elevenses, the card game of morning tea (2-4 players).

Rulebooks: ``elevenses-rules-en.txt`` (first edition, English) and
``elevenses-rules-fr.txt`` (second edition, French; option ``edition="fr"``).
Choices where they are silent, ambiguous or disagree are written down in
``docs/rules-decisions.md (elevenses)``.

* :mod:`engine.elevenses.cards`: the card and guest tables;
* :mod:`engine.elevenses.phases`: the decisions a seat may face, the caps and the option values;
* :mod:`engine.elevenses.scoring`: the cubes at eleven o'clock and the next server, as plain functions;
* :mod:`engine.elevenses.rounds`: the table and the round cycle (deal, turns, scoring, the end);
* :mod:`engine.elevenses.state`: the decisions on it: the two kinds of turn and the special actions;
* :mod:`engine.elevenses.legal`: the legal actions of each decision;
* :mod:`engine.elevenses.views`: what a seat sees, and the text rendering;
* :mod:`engine.elevenses.deal`: a state from an explicit deal;
* :mod:`engine.elevenses.game`: options, explicit deals, the action bound;
* :mod:`engine.elevenses.hidden`: a full state rebuilt from one seat's observation.
"""

from engine.elevenses.game import GAME, ElevensesGame
from engine.elevenses.hidden import state_from_observation
from engine.elevenses.state import ElevensesState

__all__ = ["GAME", "ElevensesGame", "ElevensesState", "state_from_observation"]
