"""`ladder rerate`: rebuild every rating from the recorded matches."""

from __future__ import annotations

import time

from rich.console import Console

from cli.commands.dbview import DbOption, database
from ladder.ratings import persistence as ratings


def rerate(db: DbOption = None) -> None:
    """Recompute every TrueSkill rating from the matches (the source of truth) and store them, with their history."""
    with database(db) as session:
        tick = time.perf_counter()
        rated = ratings.rerate(session, history=True)
        seconds = time.perf_counter() - tick
    Console().print(
        f"rated {rated.match_count} matches in {len(rated.pools())} pools "
        f"({len(rated.history)} rating updates) in {seconds:.2f} s",
        highlight=False,
    )
