"""The closed vocabularies of a recorded match: its status, and why a seat failed.

Both are :class:`enum.StrEnum`: a member *is* its string, so what the
database stores, what JSON exports show and what older databases hold stay
exactly the strings they always were (``"played"``, ``"timeout"``...), while
the code names them once, here, and a typo is an attribute error instead of a
silent mismatch.
"""

from __future__ import annotations

import enum


class MatchStatus(enum.StrEnum):
    """How a scheduled match ended up in the database (``MatchRow.status``)."""

    PLAYED = "played"  # played to the end (seats may still have failed)
    SKIPPED = "skipped"  # not played: a seat's bot was benched in the match's pool
    ERROR = "error"  # could not be played or stored (a worker kept dying...): a new run plays it again
    VOIDED = "voided"  # a seat timed out while the host starved it of CPU (docs/clocks.md): a new run plays it again
    UNPLAYABLE = "unplayable"  # voided again on replay (docs/clocks.md): not played again, counts for nothing


REPLAYED_STATUSES: tuple[MatchStatus, ...] = (MatchStatus.ERROR, MatchStatus.VOIDED)
"""A match recorded with one of these did not count: the next run plays it again (its row replaced)."""


class FailureReason(enum.StrEnum):
    """Why a seat lost by failure (``SeatResultRow.failure_reason``, ``BotFailure.reason``)."""

    TIMEOUT = "timeout"  # no answer in time, or the match's clock ran out
    CRASH = "crash"  # the bot's process died, or could not be started or loaded
    GARBAGE = "garbage"  # an answer that is not a reply of the protocol
    ILLEGAL = "illegal"  # an answer that is not one of the legal actions
    EXCEPTION = "exception"  # the bot raised
    MEMORY = "memory"  # the bot went over its memory limit
    BENCHED = "benched"  # not played: the bot is benched in this pool (only on skipped matches)


class TournamentState(enum.StrEnum):
    """Where a tournament stands (``TournamentRow.state``; ``ladder tournaments`` shows it)."""

    RUNNING = "running"  # a coordinator is playing it
    STOPPED = "stopped"  # stopped before its end (Ctrl-C, a lost executor): a new run resumes it
    COMPLETE = "complete"  # every scheduled match recorded as played or skipped
    INCOMPLETE = "incomplete"  # played to the end, but some matches are errors: a new run plays them again
    BUDGET_SPENT = "budget spent"  # its time budget ran out

    @property
    def over(self) -> bool:
        """Whether the tournament has ended (its deal secret is then revealed)."""
        return self in (TournamentState.COMPLETE, TournamentState.BUDGET_SPENT)
