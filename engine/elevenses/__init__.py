"""Elevenses, the card game of morning tea (2-4 players).

Rulebooks: ``elevenses-rules-en.txt`` (first edition, English) and
``elevenses-rules-fr.txt`` (second edition, French; option ``edition="fr"``).
Choices where they are silent, ambiguous or disagree are written down in
``docs/rules-decisions.md (elevenses)``.

* :mod:`engine.elevenses.cards`: the card and guest tables;
* :mod:`engine.elevenses.state`: the round, the special actions, scoring, observations;
* :mod:`engine.elevenses.game`: options, explicit deals, the action bound;
* :mod:`engine.elevenses.hidden`: a full state rebuilt from one seat's observation.
"""

from engine.elevenses.game import GAME, ElevensesGame
from engine.elevenses.hidden import state_from_observation
from engine.elevenses.state import ElevensesState

__all__ = ["GAME", "ElevensesGame", "ElevensesState", "state_from_observation"]
