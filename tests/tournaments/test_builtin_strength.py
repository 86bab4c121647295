"""After a reduced quick tournament, every smarter built-in bot ends above random in every table."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session

from bots.registry import bots_for_game
from cli.commands.dbview import version_names
from engine import all_games
from ladder.ratings import persistence as ratings
from ladder.store.database import open_database
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import run_tournament
from tournaments.formats.config import load_tournament, parse_tournament

QUICK = Path(__file__).resolve().parents[2] / "tournaments" / "quick.toml"
CONTESTED = [g.id for g in all_games() if len(bots_for_game(g.id)) >= 2]


@pytest.mark.slow
@pytest.mark.skipif(not CONTESTED, reason="no registered game has a built-in bot besides random yet")
def test_every_smarter_builtin_bot_ends_above_random(db_url: str) -> None:
    quick = load_tournament(QUICK)
    # the quick tournament's games and bots, at two players, with fewer deals
    reduced = parse_tournament(
        {
            "seed": quick.seed,
            "games": CONTESTED,
            "bots": "all",
            "players": [2],
            "games_per_pairing": 6,
            # a 2-player table is a coin flip weighted by skill: a dozen matches is too few to
            # order two bots reliably, and these games are cheap
            "game": {
                g: {"games_per_pairing": 24}
                for g in CONTESTED
                if next(x for x in all_games() if x.id == g).max_players > 1
            },
        },
        "reduced-quick.toml",
        "reduced-quick",
    )
    run_tournament(reduced, RunOptions(db_url=db_url, progress=False))
    engine = open_database(db_url)
    with Session(engine) as session:
        rated, _ = ratings.current(session)
        names = version_names(session)
    engine.dispose()
    for pool in rated.pools():
        order = [names[s.bot_version_id].bot for s in rated.table(pool)]
        for bot in order:
            if bot != "random":
                assert order.index(bot) < order.index("random"), f"{pool}: {order}"
