"""What a bot may use, and how a tournament treats its failures: :class:`SandboxLimits`, the ``[limits]`` table."""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ladder.guest.rlimits import ProcessLimits
from ladder.sandbox.move_clock import wall_cap
from ladder.sandbox.packages import allowed_packages


@dataclass(frozen=True)
class SandboxLimits:
    """What a bot may use, and how a tournament treats failures: the one limits type of the ladder.

    A tournament file's ``[limits]`` table holds exactly these keys. The clocks:

    - ``move_seconds``: CPU time (every thread of the bot's process, and the
      children it has waited for) to answer one request (a decision, or the
      start/end hooks). CPU, not wall-clock time: a busy host does not make
      a bot lose (see :mod:`ladder.sandbox.move_clock`);
    - ``bank_seconds``: extra CPU time per match that a move running over
      ``move_seconds`` draws on; the bot is told what is left with each
      request;
    - ``move_wall_seconds``: wall-clock cap of one request, which stops a bot
      that sleeps or blocks (``None``: :data:`~ladder.sandbox.move_clock.WALL_FACTOR`
      times ``move_seconds``; it grows in proportion when the bank lets a move
      use more CPU). A wall-clock timeout while the host starved the bot is a
      host fault: the match is voided and played again;
    - ``match_seconds``: wall-clock time for all of one match's requests together;
    - ``start_seconds``: wall-clock time to start the process and load the bot;
    - ``clock_builtin_bots``: run the built-in bots (in the ladder's own
      process) under the same CPU clocks; they are checked when they answer,
      since they cannot be stopped mid-move.

    The process:

    - ``memory_mb``: address space of the bot process;
    - ``cpu_seconds``: CPU time of one bot process over its whole life (a
      backstop; the pool replaces a process that has used half of it);
    - ``idle_cpu_seconds``: CPU time a bot may use in a match beyond the time
      it was asked to think (work between turns, e.g. a background thread,
      is not allowed);
    - ``reply_bytes``: the largest reply frame;
    - ``threads``: processes and threads of the bot's user (``RLIMIT_NPROC``);
    - ``open_files``, ``file_mb``: open files, and the largest file it may write;
    - ``tmp_mb``: size of its private ``/tmp`` (bubblewrap);
    - ``stderr_lines``: how much of its stderr is kept with a failure;
    - ``packages``: installed packages (top-level import names, e.g.
      ``("numpy",)``) the operator allows bots to import. Nothing else of the
      host's ``site-packages`` is visible (with bubblewrap); a package's own
      dependencies must be listed too.

    The tournament (not used by the sandbox itself):

    - ``bench_after_failures``: a bot version that fails that many matches
      in a row is benched for the rest of the tournament;
    - ``max_attempts``: a match whose worker dies is retried up to that many
      times in all, then recorded as an error.
    """

    move_seconds: float = 5.0
    bank_seconds: float = 0.0
    move_wall_seconds: float | None = None
    match_seconds: float = 600.0
    start_seconds: float = 10.0
    clock_builtin_bots: bool = False
    memory_mb: int = 1024
    cpu_seconds: int = 3600
    idle_cpu_seconds: float = 1.0
    reply_bytes: int = 1 << 20
    threads: int = 512
    open_files: int = 64
    file_mb: int = 16
    tmp_mb: int = 16
    stderr_lines: int = 20
    packages: tuple[str, ...] = ()
    bench_after_failures: int = 5
    max_attempts: int = 3

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | SandboxLimits | None) -> SandboxLimits:
        """Limits from a plain mapping (a tournament file's ``[limits]``); unknown keys are ignored."""
        if values is None:
            return cls()
        if isinstance(values, SandboxLimits):
            return values
        hints = _limit_types()
        chosen: dict[str, Any] = {}
        for key, value in values.items():
            if key not in hints or value is None:
                continue
            if key == "packages":
                chosen[key] = allowed_packages([value] if isinstance(value, str) else value)
            else:
                chosen[key] = hints[key](value)
        return cls(**chosen)

    def process_limits(self) -> ProcessLimits:
        """The ``RLIMIT_*`` values the bot host lowers itself to (sent in its config, read by the guest side)."""
        return ProcessLimits(
            memory_bytes=self.memory_mb << 20,
            cpu_seconds=max(1, int(self.cpu_seconds)),
            open_files=self.open_files,
            processes=self.threads,
            file_bytes=self.file_mb << 20,
        )

    def to_wire(self) -> dict[str, Any]:
        """The limits as a plain dict, field by field (:meth:`from_mapping` reads it back): what a match task
        carries to a worker (``tournaments.executors.tasks.MatchTask``). Shallow: every field is a number, a bool, None or
        a tuple of strings."""
        return {name: getattr(self, name) for name in _limit_types()}

    def wall_seconds(self, bank_left: float) -> float:
        """The wall-clock cap of one request when ``bank_left`` CPU seconds of bank are left."""
        return wall_cap(self.move_seconds, bank_left, self.move_wall_seconds)


@functools.lru_cache(maxsize=1)
def _limit_types() -> dict[str, Any]:
    """How each field of :class:`SandboxLimits` is read from a plain value (from the resolved type hints)."""
    converters: dict[str, Any] = {}
    for name, hint in typing.get_type_hints(SandboxLimits).items():
        kinds = set(typing.get_args(hint)) - {type(None)} or {hint}
        kind = next(iter(kinds)) if len(kinds) == 1 else hint
        converters[name] = kind if kind in (bool, int, float) else (lambda value: value)
    return converters
