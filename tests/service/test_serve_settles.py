"""Issue 35: a served field of known-order house bots settles, in the known order, and says so.

The served loop itself (:class:`service.background.scheduler.ServeLoop`, the one coordinator, local workers) plays
``thumb``, ``thumb-50`` and ``random`` in every pool they share until its status says every leaderboard is
settled; the read model's verdict over the database must then agree, in the known order."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlmodel import Session

from ladder.ratings import certainty, trueskill_model
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings.certainty import PairState
from ladder.seats.roster import builtin_entrant
from ladder.views.leaderboard import field_verdict
from service.background.scheduler import ServeLoop
from service.db import open_service_database
from service.settings import ServeSettings
from tournaments.coordinator.loop import StopSignals

pytestmark = pytest.mark.slow  # minutes of real matches

KNOWN = ("thumb", "thumb-50", "random")


def test_a_served_known_order_field_settles_in_the_known_order(tmp_path: Path) -> None:
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    stop = StopSignals()
    loop = ServeLoop(engine, ServeSettings(house_bots=KNOWN, workers=2, refresh_seconds=3600), stop)
    seen: list[str] = []

    def watch() -> None:
        end = time.monotonic() + 480
        while time.monotonic() < end and not stop.requested:
            seen.append(loop.status)
            if loop.status.startswith("idle: every leaderboard is settled"):
                break
            time.sleep(0.5)
        stop.requested = True

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    loop.run()
    watcher.join(5)
    assert seen and seen[-1].startswith("idle: every leaderboard is settled"), seen[-5:]
    with Session(engine) as session:
        ids = [builtin_entrant(session, name).version_id for name in KNOWN]
        facts = ratings_persistence.load_match_facts(session, loop.tournament_id)
    evidence = certainty.paired_evidence(facts)
    rated = trueskill_model.compute(facts, history=False)
    assert loop.verdicts
    for pool in loop.verdicts:
        verdict = field_verdict(rated, pool, ids, evidence.pool(pool))
        assert verdict.settled, (pool, verdict.reason)
        # every pair the verdict calls ordered is in the known order (thumb > thumb-50 > random); a pair settled as
        # equal, or not worse, within the indifference margin may stand either way round
        for pair in verdict.pairs:
            if pair.state is PairState.ORDERED:
                assert ids.index(pair.upper) < ids.index(pair.lower), (pool, verdict.reason)
    engine.dispose()
