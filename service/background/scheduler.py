"""The served ladder's continuous play: rounds chosen by :mod:`service.background.planner`, played on the tournaments'
executors, written by the tournaments' recorder.

The served ladder is one tournament row (named ``serve``, format ``serve``) that never ends: its matches, its
sealed deal secret (never revealed while it serves; its commitment is public from the start) and its benches
are a tournament's, so ``ladder matches``, ``ladder rankings``, the report and ``ladder replay`` read them as
any other. This thread is the database's only writer of matches and ratings:

- each round is chosen (:func:`service.background.planner.plan_round`) and **written as planned** before a match of it is
  handed out (:class:`~ladder.store.served_tables.PlannedMatchRow`); the executor loop of ``ladder run``
  (:class:`tournaments.coordinator.loop.ExecutorLoop`) plays it and the :class:`tournaments.coordinator.recorder.Recorder` writes every
  batch of results in one transaction as it arrives. After a crash or ``kill -9`` the next start plays the
  planned matches that are not recorded first, under their own keys: no played match is lost (it was
  committed) and none is played twice (its key is recorded);
- a seat whose bot the operator paused, benched or retired meanwhile (or whose version was superseded) is
  recorded as skipped with the reason, as a tournament records a benched bot;
- ratings are recomputed from the matches at most every ``rate_every`` seconds while results arrive, so the
  live pages stay current;
- with nothing to play (every leaderboard settled, or no two bots) it waits, looking again every second, and
  plays a refresh round (one deal per pool) every ``refresh_seconds``.

Ctrl-C stops handing out matches and lets those in flight finish (a second one abandons them; they are
played on the next start), as in ``ladder run``.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterator, Mapping

from sqlalchemy.engine import Engine
from sqlmodel import Session

from ladder.matches.deals import DealSecret
from ladder.matches.statuses import TournamentState
from ladder.ratings import certainty
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.certainty import PoolCertainty
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import RatingSet
from ladder.ratings.verdict import Ledger
from ladder.sandbox.limits import SandboxLimits as Limits
from ladder.sandbox.submission import read_files
from ladder.seats.botref import BotRef
from ladder.seats.players import store_folder
from ladder.seats.roster import Entrant, builtin_entrant, resolve
from ladder.store import served_schedule
from ladder.store.served_tables import PlannedMatchRow
from ladder.store.tables import BotRow, BotVersionRow, TournamentRow, utcnow
from ladder.views import states
from service.background.dispatch import ShippingExecutor
from service.background.planner import FieldEntry, History, RoundBuilder, history_from, plan_round, refresh_round
from service.settings import ServeSettings
from tournaments.coordinator.coordinator import Coordinator, ExecutorPlan, open_executor
from tournaments.coordinator.loop import LoopSettings, StopSignals
from tournaments.coordinator.opening import reseal
from tournaments.coordinator.progress import RunLog
from tournaments.coordinator.recorder import to_json
from tournaments.coordinator.write_buffer import WritePolicy
from tournaments.executors.api import MatchExecutor
from tournaments.formats.round_robin import ScheduledMatch, deal_seed
from tournaments.sources.base import WAIT, Wait

log = logging.getLogger("ladder.serve")
SERVE_NAME = "serve"
SERVE_FINGERPRINT = "serve"


def idle_status(verdicts: Mapping[str, PoolCertainty]) -> str:
    """What an idle scheduler says, from the verdicts the planner last read (the pages' rule over the versions
    that can be scheduled): "settled" only when each of them is."""
    if not verdicts:
        return "idle: no two bots share a pool"
    unsettled = sorted(pool for pool, verdict in verdicts.items() if not verdict.settled)
    if not unsettled:
        return f"idle: every leaderboard is settled ({len(verdicts)} pool{'s' if len(verdicts) != 1 else ''})"
    return f"idle: {len(unsettled)} of {len(verdicts)} leaderboards not yet settled ({', '.join(unsettled)})"


def serve_tournament(session: Session) -> TournamentRow:
    """The served ladder's tournament row, made (with a fresh sealed deal secret) on the first start, and
    resealed with a fresh one if its secret was revealed while the server was stopped."""
    row = served_schedule.served_tournament(session, SERVE_NAME, SERVE_FINGERPRINT)
    if row is None:
        secret = DealSecret.fresh()
        row = TournamentRow(
            name=SERVE_NAME,
            file="",
            seed=0,
            fingerprint=SERVE_FINGERPRINT,
            config_json=to_json({"format": "serve"}),
            scheduled=0,
            cycles=1,
            deal_secret=secret.hex,
            deal_commitment=secret.commitment,
        )
    elif row.deals_public:  # revealed while stopped (`ladder tournaments --reveal`): a public secret never deals again
        for note in reseal(session, row, None).notes:
            log.warning("%s", note)
    row.state, row.pid, row.host = TournamentState.RUNNING.value, os.getpid(), socket.gethostname()
    row.updated_at, row.finished_at = utcnow(), None
    session.add(row)
    session.commit()
    return row


class ServeLoop:
    """Plays the served ladder until stopped (see the module docstring)."""

    def __init__(self, engine: Engine, settings: ServeSettings, stop: StopSignals) -> None:
        self.engine = engine
        self.settings = settings
        self.stop = stop
        self.session = Session(engine, expire_on_commit=False)
        self.limits = Limits()
        self.entrants: dict[int, Entrant] = {}
        self.rated_at = 0.0
        self.rate_gap = settings.rate_every
        self.dirty = False
        self.round = 0
        self.workers = settings.workers or len(os.sched_getaffinity(0))
        self.status = "starting"  # what the scheduler is doing, for the status page
        self.verdicts: dict[str, PoolCertainty] = {}  # the field's verdicts of the last planning (the status's)
        self.files: dict[str, dict[str, bytes]] = {}
        self.abandoned: list[str] = []  # the keys of the matches in flight a second Ctrl-C gave up

    # -- who may play
    def schedulable(self) -> dict[int, int | None]:
        """The versions that may be scheduled now: version id -> author id (None for the house bots)."""
        found: dict[int, int | None] = dict(served_schedule.playing_versions(self.session))
        for name in self.settings.house_bots:
            found[builtin_entrant(self.session, name).version_id] = None
        return found

    def entrant(self, version_id: int) -> Entrant:
        if version_id not in self.entrants:
            version = self.session.get(BotVersionRow, version_id)
            bot = self.session.get(BotRow, version.bot_id) if version is not None else None
            assert version is not None and bot is not None
            ref = bot.name if version.source == "builtin" else str(BotRef.store(version.content_hash))
            self.entrants[version_id] = resolve(self.session, ref)
        return self.entrants[version_id]

    def refusal(self, match: ScheduledMatch) -> dict[int, str]:
        """The seats of ``match`` whose version may no longer play, with the reason (recorded as skipped)."""
        allowed = self.schedulable()
        return {
            seat: self._why_not(entrant.version_id)
            for seat, entrant in enumerate(match.seats)
            if entrant.version_id not in allowed
        }

    def _why_not(self, version_id: int) -> str:
        """The true reason a version may not play, in the words its pages use (the one rule of
        :func:`ladder.views.states.why_not_playing`)."""
        return states.why_not_playing(self.session, version_id)

    # -- the rounds
    def _history(self) -> History:
        planned = served_schedule.planned_deals(self.session, self.tournament_id)
        return history_from(planned, served_schedule.version_authors(self.session))

    def _rated(self) -> tuple[RatingSet, Ledger]:
        """The served matches' ratings and their paired evidence (which decides what is settled, as on the pages)."""
        facts = ratings_persistence.load_match_facts(self.session, self.tournament_id)
        evidence = certainty.paired_evidence(facts, self.settings.indifference)
        return ratings_trueskill_model.compute(facts, history=False), evidence

    def _plan(self, refresh: bool = False) -> list[ScheduledMatch]:
        """Choose the next round (a refresh round of a settled ladder with ``refresh``) and write it as planned;
        its matches."""
        allowed = self.schedulable()
        field = [FieldEntry(self.entrant(version), author) for version, author in sorted(allowed.items())]
        builder = RoundBuilder(
            self.secret,
            self._history(),
            self.settings.placement_deals,
            self.settings.confidence,
            self.settings.indifference,
        )
        rated, evidence = self._rated()
        chosen = (
            refresh_round(builder, field, rated, evidence)
            if refresh
            else plan_round(builder, field, rated, max(4, 2 * self.workers), evidence=evidence)
        )
        self.verdicts = builder.verdicts
        if not chosen:
            return []
        self.round += 1
        for candidate in chosen:
            for match in candidate.matches:
                self.session.add(
                    PlannedMatchRow(
                        tournament_id=self.tournament_id,
                        round=self.round,
                        key=match.key,
                        deal=match.deal,
                        pool=candidate.pool,
                        number=candidate.number,
                        placement=candidate.placement,
                        version_ids_json=to_json([e.version_id for e in match.seats]),
                    )
                )
        self.tournament.scheduled += sum(len(c.matches) for c in chosen)
        self.session.add(self.tournament)
        self.session.commit()
        log.info(
            "round %d: %d matches in %d deals (%d placement)",
            self.round,
            sum(len(c.matches) for c in chosen),
            len(chosen),
            sum(c.placement for c in chosen),
        )
        return [match for candidate in chosen for match in candidate.matches]

    def _unfinished(self) -> list[ScheduledMatch]:
        """The planned matches not recorded (a server stopped mid-round): played first, under their own keys."""
        rows = served_schedule.planned_matches(self.session, self.tournament_id)
        self.round = max((row.round for row in rows), default=0)
        missing = []
        for row in rows:
            if row.key in self.recorder.done or row.key in self.recorder.now:
                continue
            pool = PoolKey.parse(row.pool)
            game = pool.game
            seed = deal_seed(self.secret, 0, game, 0, pool.players, row.number)
            missing.append(
                ScheduledMatch(row.key, 0, row.deal, game, {}, seed, tuple(self.entrant(v) for v in row.version_ids))
            )
        return missing

    def pending(self, submitted: Mapping[int, int]) -> Iterator[ScheduledMatch | Wait]:
        """Round after round until stopped; waits (in here) while there is nothing to play."""
        matches = self._unfinished()
        if matches:
            log.info("resuming: %d planned match(es) not yet recorded", len(matches))
        idle_since = time.monotonic()
        while not self.stop.requested:
            if not matches:
                matches = self._plan()
            if not matches and time.monotonic() - idle_since >= self.settings.refresh_seconds:
                matches = self._plan(refresh=True)
                idle_since = time.monotonic()
            if not matches:
                self.status = idle_status(self.verdicts)
                self._rate_if_due(force=self.dirty)
                if self._sleep(1.0):
                    return
                continue
            settled = sum(verdict.settled for verdict in self.verdicts.values())
            self.status = f"playing round {self.round} ({settled} of {len(self.verdicts)} leaderboards settled)"
            keys = [match.key for match in matches]
            yield from matches
            while not all(key in self.recorder.now or key in self.recorder.done for key in keys):
                yield WAIT
            matches = []
            self._rate_if_due()
            idle_since = time.monotonic()

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless asked to stop; whether asked."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.stop.requested:
                return True
            time.sleep(0.1)
        return self.stop.requested

    # -- results
    def recorded(self) -> None:
        """A batch was written: the ratings are recomputed when due (the live pages stay current)."""
        self.dirty = True
        self._rate_if_due()

    def _rate_if_due(self, force: bool = False) -> None:
        """Recompute and store the ratings when matches arrived, at most every ``rate_every`` seconds, and never
        more than a tenth of the time (a large database takes longer to rate: the pages lag, the workers don't)."""
        if not self.dirty or (not force and time.monotonic() - self.rated_at < self.rate_gap):
            return
        tick = time.monotonic()
        self.coordinator.rate()
        self.rated_at, self.dirty = time.monotonic(), False
        self.rate_gap = max(self.settings.rate_every, 10 * (self.rated_at - tick))

    def files_of(self, digest: str) -> dict[str, bytes]:
        if digest not in self.files:
            self.files[digest] = read_files(store_folder(digest))
        return self.files[digest]

    # -- the match source's other calls (the coordinator benches; the served ladder retires no bot early)
    def handed_out(self, match: ScheduledMatch) -> None:
        return None

    def retired(self) -> tuple[str, ...]:
        return ()

    # -- the whole run
    def _executor(self, run_log: RunLog) -> MatchExecutor:
        inner = open_executor(
            ExecutorPlan(
                backend="dask" if self.settings.scheduler else "local",
                workers=self.workers,
                max_attempts=self.limits.max_attempts,
                log_queue=run_log.funnel.queue,
                scheduler=self.settings.scheduler,
                setup=self.settings.worker_setup,
                run_name="serve",
            )
        )
        if not self.settings.scheduler:
            return inner
        self.workers = max(1, int(getattr(inner, "worker_count", 1)))
        return ShippingExecutor(inner, self.files_of)

    def run(self) -> TournamentState:
        self.tournament = serve_tournament(self.session)
        assert self.tournament.id is not None and self.tournament.deal_secret is not None
        self.tournament_id = self.tournament.id
        self.secret = DealSecret.from_hex(self.tournament.deal_secret).value
        # every batch written as it arrives: the round's end is seen at once, and a page shows a match when played
        self.coordinator = Coordinator(
            self.session, self.tournament, self.secret, self.limits, self.stop, WritePolicy(seconds=0.0, size=1)
        )
        self.recorder = self.coordinator.recorder
        self.coordinator.resume()
        for name in self.settings.house_bots:  # recorded (and committed) now: found, never written, by each round's
            builtin_entrant(self.session, name)  # look-up, whose open write would lock every web login and upload
        self.session.commit()
        run_log = RunLog.open(SERVE_NAME, self.tournament_id, logging.INFO)
        state = TournamentState.STOPPED
        try:
            executor = self._executor(run_log)
            settings = LoopSettings(
                max_attempts=self.limits.max_attempts,
                in_flight_per_worker=1,
                workers=self.workers,
                deadline=None,
                exhausted_is_budget=False,
                log_path=str(run_log.path),
            )
            loop = self.coordinator.loop(executor, self, settings, say=log.info)
            log.info(
                "serving: tournament #%d, %d worker slot(s), deals sealed (commitment %s)",
                self.tournament_id,
                self.workers,
                self.tournament.deal_commitment,
            )
            try:
                state = self.coordinator.play(loop)
                if self.stop.abandon:
                    self.abandoned = [match.key for match, _attempt in loop.in_flight.values()]
            finally:
                try:
                    self.coordinator.write_due(True)
                finally:
                    self.coordinator.shutdown(executor)
        finally:
            self._close(run_log)
        return state

    def _close(self, run_log: RunLog) -> None:
        self.session.rollback()
        try:
            self._rate_if_due(force=True)
            row = self.session.get(TournamentRow, self.tournament_id)
            if row is not None:
                row.state, row.pid, row.updated_at = TournamentState.STOPPED.value, None, utcnow()
                self.session.add(row)
                self.session.commit()
        finally:
            run_log.close()
            self.session.close()
        self.status = "stopped"
