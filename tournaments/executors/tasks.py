"""The two messages that cross the coordinator/worker boundary: a match task and its record.

Both are frozen dataclasses, sent as plain dicts (:meth:`MatchTask.to_wire`,
:meth:`WorkerRecord.to_wire`) so that any executor can carry them (a local
worker process, a Dask worker on another machine) and so that a coordinator
and a worker running different versions of the ladder meet a readable error
rather than a pickling surprise: every message carries :data:`SCHEMA_VERSION`,
checked first on receipt (:class:`SchemaMismatch`). Change the version when a
field is added, removed or changes meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any

from ladder.matches.match import MatchSpec, SeatFailure
from ladder.sandbox.limits import SandboxLimits

SCHEMA_VERSION = 2  # 2: a record says whether the match is void (a host fault) and the host's pressure


class SchemaMismatch(ValueError):
    """A task or record of another schema version: the coordinator and the worker run different ladders."""


def _check_schema(message: Mapping[str, Any], what: str) -> None:
    found = message.get("schema")
    if found != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"a {what} of schema version {found!r} arrived where version {SCHEMA_VERSION} is "
            "expected: install the same version of the ladder on the coordinator and every worker"
        )


@dataclass(frozen=True)
class MatchTask:
    """What a worker needs to play one match, and nothing secret (the deal's secret stays with the coordinator)."""

    key: str
    game: str
    seats: tuple[str, ...]  # each seat's bot reference (a built-in name, store:<sha256> or ep:<name>)
    seed: int  # the deal's seed
    options: Mapping[str, Any] = field(default_factory=dict)
    limits: SandboxLimits = field(default_factory=SandboxLimits)  # a mapping given here is read into the type
    bot_seeds: tuple[int, ...] = ()  # one per seat, from the deal secret
    deal: str = ""  # a bot process plays each deal once: it cannot remember it from another seat
    hashes: tuple[str, ...] = ()  # each seat's content hash: the worker refuses other versions (none: not checked)
    retire: tuple[str, ...] = ()  # bots with no match left to hand out: the worker stops their idle processes

    def __post_init__(self) -> None:
        if not isinstance(self.limits, SandboxLimits):
            object.__setattr__(self, "limits", SandboxLimits.from_mapping(self.limits))

    def spec(self) -> MatchSpec:
        return MatchSpec(self.game, self.seats, self.seed, dict(self.options), self.key, self.bot_seeds)

    def to_wire(self) -> dict[str, Any]:
        """The task as a plain dict. Built field by field, not with :func:`dataclasses.asdict`: its deep copy of
        the options and limits was the coordinator's largest cost per match on trivial matches (about 70 µs);
        the message is pickled on its way to the worker anyway, so shallow copies are enough."""
        message: dict[str, Any] = {"schema": SCHEMA_VERSION}
        message.update((name, getattr(self, name)) for name in _TASK_FIELDS)
        message["options"], message["limits"] = dict(self.options), self.limits.to_wire()
        return message

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> MatchTask:
        """The task of ``message``; :class:`SchemaMismatch` if it is of another version."""
        _check_schema(message, "match task")
        return cls(
            key=message["key"],
            game=message["game"],
            seats=tuple(message["seats"]),
            seed=int(message["seed"]),
            options=dict(message.get("options") or {}),
            limits=SandboxLimits.from_mapping(message.get("limits") or {}),
            bot_seeds=tuple(message.get("bot_seeds") or ()),
            deal=message.get("deal") or "",
            hashes=tuple(message.get("hashes") or ()),
            retire=tuple(message.get("retire") or ()),
        )


_TASK_FIELDS = tuple(f.name for f in fields(MatchTask))


@dataclass(frozen=True)
class WorkerRecord:
    """What a worker sends back for a played match: the result, the packed action log, failures and timings."""

    key: str
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    details: Mapping[str, Any]
    actions_z: bytes  # ladder.store.action_log.pack_actions
    action_count: int
    failures: Mapping[int, SeatFailure]  # by seat; seats that did not fail are absent
    seconds: float  # wall time of the match on the worker
    cpu_seconds: float  # the worker's CPU time (the sandboxed bots' processes not included)
    think: tuple[float, ...]  # each seat's thinking time
    stderr: tuple[str, ...]  # each seat's stderr (the end of it)
    started_at: datetime
    worker: str  # host:pid
    host: Mapping[str, Any] = field(
        default_factory=dict
    )  # the host's CPU pressure during the match (ladder.sandbox.host_load)
    voided: str = (
        ""  # empty, or why the match is void: a seat timed out while the host starved it (not the bot's fault)
    )
    move_us: tuple[int, ...] = ()  # the thinking time of each action of the log, in microseconds

    def to_wire(self) -> dict[str, Any]:
        message = {"schema": SCHEMA_VERSION, **asdict(self)}
        message["failures"] = {seat: failure.to_json() for seat, failure in self.failures.items()}
        message["started_at"] = self.started_at.isoformat()
        return message

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> WorkerRecord:
        """The record of ``message``; :class:`SchemaMismatch` if it is of another version."""
        _check_schema(message, "match record")
        failures = {int(seat): SeatFailure(**failure) for seat, failure in message["failures"].items()}
        return cls(
            key=message["key"],
            scores=tuple(message["scores"]),
            ranks=tuple(message["ranks"]),
            details=dict(message["details"]),
            actions_z=message["actions_z"],
            action_count=message["action_count"],
            failures=failures,
            seconds=message["seconds"],
            cpu_seconds=message.get("cpu_seconds", 0.0),
            think=tuple(message["think"]),
            stderr=tuple(message.get("stderr") or ()),
            started_at=datetime.fromisoformat(message["started_at"]),
            worker=message["worker"],
            host=dict(message.get("host") or {}),
            voided=message.get("voided", ""),
            move_us=tuple(message.get("move_us") or ()),
        )
