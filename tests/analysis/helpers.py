"""Matches played in-process for the analysis tests: the record an analysis reads, and each seat's bot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ladder.analysis.model import MatchLog
from ladder.matches.match import MatchSpec, play_match
from ladder.seats.builtin_players import builtin_player


def played(game: str, bots: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> MatchLog:
    """A match of built-in bots played in-process, as the analysis reads it (the bots' seeds: the match's own)."""
    spec = MatchSpec(game, tuple(bots), seed, dict(options or {}))
    outcome = play_match(spec, [builtin_player(bot, game) for bot in bots])
    return MatchLog(game, dict(options or {}), len(bots), seed, tuple(outcome.actions), tuple(bots))
