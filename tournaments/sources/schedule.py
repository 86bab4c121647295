"""The schedule of a round-robin tournament: its matches cycle by cycle, and what of them is still missing.

The matches of a cycle are a pure function of the tournament file, its bots
and the deal secret (:func:`tournaments.formats.round_robin.cycle_schedule`). What is
*missing* is every match of the cycles asked for whose key is not recorded
as played or skipped (an error is played again). The runner's decisions
(does a finished tournament have more to play? how much is recorded? what
is handed out next? how many matches are left for each bot?) and
``ladder run --plan`` all ask this one object.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from tournaments.formats.config import Seatings
from tournaments.formats.round_robin import GamePlan, ScheduledMatch, cycle_schedule

log = logging.getLogger("ladder.tournament")

KEPT_MATCHES = 50_000  # the most scheduled matches kept dealt (a few kilobytes each at most)


class Schedule:
    """The cycles of one tournament, dealt from its secret (the cycles last asked for are kept, up to
    :data:`KEPT_MATCHES` matches: :meth:`cycle`)."""

    def __init__(
        self, format_: str, plans: Sequence[GamePlan], seed: int, secret: bytes, seatings: Seatings = Seatings.ALL
    ) -> None:
        self.format = format_
        self.plans = list(plans)
        self.seed = seed
        self.seatings = seatings  # the adaptive format's warm-up may play drawn rotations
        self._secret = secret
        self._cycles: OrderedDict[int, list[ScheduledMatch]] = OrderedDict()
        self.per_cycle = len(self.cycle(0))  # the same whatever the secret: it deals the cards, not the tables

    def deal_from(self, secret: bytes) -> None:
        """Deal every cycle from ``secret`` from now on (the tournament's own, once it is chosen)."""
        self._secret = secret
        self._cycles.clear()

    def cycle(self, number: int) -> list[ScheduledMatch]:
        """The matches of cycle ``number``, in playing order. The cycles last asked for are kept, up to
        :data:`KEPT_MATCHES` matches: a run walks its cycles several times (what is missing, what each bot has
        left, what to hand out), and dealing a cycle again cost about 20 µs a match each time."""
        if number in self._cycles:
            self._cycles.move_to_end(number)
            return self._cycles[number]
        matches = cycle_schedule(self.format, self.plans, self.seed, number, self._secret, self.seatings)
        self._cycles[number] = matches
        while len(self._cycles) > max(1, KEPT_MATCHES // max(1, len(matches))):
            self._cycles.popitem(last=False)
        return matches

    def missing(self, cycles: int, done: Collection[str]) -> Iterator[ScheduledMatch]:
        """The matches of the first ``cycles`` cycles whose key is not in ``done``, in playing order."""
        for number in range(cycles):
            for match in self.cycle(number):
                if match.key not in done:
                    yield match

    def missing_keys(self, cycles: int, done: Collection[str]) -> list[str]:
        return [match.key for match in self.missing(cycles, done)]

    def matches_left_per_bot(self, cycles: int, done: Collection[str]) -> dict[str, int]:
        """How many missing matches each bot reference has a seat in (the worker retires a bot at zero)."""
        counts: dict[str, int] = {}
        for match in self.missing(cycles, done):
            for ref in {entrant.ref for entrant in match.seats}:
                counts[ref] = counts.get(ref, 0) + 1
        return counts

    def pending(
        self,
        cycles: int,
        deadline: float | None,
        done: Collection[str],
        submitted: Mapping[int, int],
        start_cycle: Callable[[int], None],
    ) -> Iterator[ScheduledMatch]:
        """What to play: the missing matches of the ``cycles`` cycles started, then (with a time budget,
        ``deadline`` on the monotonic clock) new cycles while time is left; ``start_cycle(n)`` is told
        when n cycles are started. ``done`` and ``submitted`` (matches sent to the workers per cycle) are
        read live: a new cycle none of whose matches was sent (every bot benched) ends it."""
        first_new = cycles
        number = 0
        while True:
            if number >= cycles:
                if deadline is None or time.monotonic() >= deadline:
                    return
                if number > first_new and submitted.get(number - 1, 0) == 0:
                    log.info("cycle %d had nothing to play (every bot benched?): no new cycle", number - 1)
                    return
                cycles = number + 1
                start_cycle(cycles)
            for match in self.cycle(number):
                if match.key not in done:
                    yield match
            number += 1


class ScheduleSource:
    """The fixed schedule as the coordinator's match source: the missing matches of the cycles started, then new
    cycles while the time budget lasts (:meth:`Schedule.pending`). Without a time budget a bot with no match left
    to hand out is retired (the workers stop its idle processes)."""

    def __init__(
        self,
        schedule: Schedule,
        cycles: int,
        deadline: float | None,
        done: Collection[str],
        start_cycle: Callable[[int], None],
    ) -> None:
        self.schedule = schedule
        self.cycles = cycles
        self.deadline = deadline
        self.done = done
        self.start_cycle = start_cycle
        # matches not yet handed out per bot reference (a fixed number of cycles only)
        self.unplayed = schedule.matches_left_per_bot(cycles, done) if deadline is None else {}
        self._retired: tuple[str, ...] = ()

    def pending(self, submitted: Mapping[int, int]) -> Iterator[ScheduledMatch]:
        return self.schedule.pending(self.cycles, self.deadline, self.done, submitted, self.start_cycle)

    def refusal(self, match: ScheduledMatch) -> dict[int, str]:
        return {}

    def handed_out(self, match: ScheduledMatch) -> None:
        """Count a match as handed out (sent or skipped); a bot with none left is retired."""
        for ref in {entrant.ref for entrant in match.seats}:
            if ref in self.unplayed:
                self.unplayed[ref] -= 1
                if self.unplayed[ref] <= 0:
                    self._retired = tuple(sorted({*self._retired, ref}))

    def retired(self) -> tuple[str, ...]:
        return self._retired

    def recorded(self) -> None:
        return None
