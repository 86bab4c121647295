"""The figures of a served bot's page that ``ladder bot`` and the static report already show: each version's
rating history and the bot's failures, from the report's own data and functions (:mod:`ladder.views.figures`).

A failure's kind, its match and its time are public; its detail (an exception's message), the error line of
its traceback and its stderr are its author's and the operator's only: :func:`failures_of` fills them only when
told the viewer may see them (``private``, decided by :func:`ladder.views.served.may_see_private`).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from ladder.views import figures, records


class FailedMatch(BaseModel):
    match_id: int
    pool: str
    seat: int
    at_action: int | None
    finished_at: datetime


class FailureLine(BaseModel):
    """A group of alike failures (public: the kind, how many, the latest matches; private: the rest, else "")."""

    reason: str
    count: int
    latest: list[FailedMatch]
    detail: str = ""
    traceback_line: str = ""
    stderr: str = ""


def _matches(group: figures.FailureGroup) -> list[FailedMatch]:
    return [
        FailedMatch(
            match_id=f.match.match_id,
            pool=f.match.pool,
            seat=f.seat.seat,
            at_action=f.seat.at_action,
            finished_at=f.match.finished_at,
        )
        for f in group.latest
    ]


def failures_of(data: records.ReportData, version_ids: list[int], private: bool, keep: int = 5) -> list[FailureLine]:
    """The bot's failures as the report groups them (the most frequent first); for a viewer who may not see the
    private part, the groups of one kind are one line (their details, which tell them apart, are not shown)."""
    groups = figures.failure_groups(figures.failures(data, version_ids), keep=keep)
    if private:
        return [
            FailureLine(
                reason=g.reason,
                count=g.count,
                latest=_matches(g),
                detail=g.detail,
                traceback_line=g.traceback_line,
                stderr=g.example.seat.stderr_tail,
            )
            for g in groups
        ]
    merged: dict[str, FailureLine] = {}
    for g in groups:
        line = merged.setdefault(g.reason, FailureLine(reason=g.reason, count=0, latest=[]))
        line.count += g.count
        line.latest = sorted([*line.latest, *_matches(g)], key=lambda m: -m.match_id)[:keep]
    return sorted(merged.values(), key=lambda line: -line.count)
