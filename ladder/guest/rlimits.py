"""The resource limits a sandboxed process lowers for itself: one value type and one way to apply it.

The bot host (:mod:`ladder.guest.bot_host`) and the build host (:mod:`ladder.guest.build_host`) both start by
lowering their ``RLIMIT_*`` limits, which everything they run inherits. The ladder's side
(:class:`ladder.sandbox.limits.SandboxLimits`, :class:`ladder.sandbox.build.BuildLimits`) says what they are and
sends them in the host's JSON config (:meth:`ProcessLimits.to_json`); the host reads them back into this frozen
value (:meth:`ProcessLimits.from_json`) and applies them (:func:`set_limits`). Standard library only: this file
is mounted into every sandbox and imports nothing of the host side.
"""

from __future__ import annotations

import resource
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ProcessLimits:
    """The ``RLIMIT_*`` values of one sandboxed process (soft and hard alike: it can never raise them again)."""

    memory_bytes: int  # RLIMIT_AS
    cpu_seconds: int  # RLIMIT_CPU
    open_files: int  # RLIMIT_NOFILE
    processes: int  # RLIMIT_NPROC (processes and threads of the process's user)
    file_bytes: int  # RLIMIT_FSIZE
    core_bytes: int = 0  # RLIMIT_CORE: no core files

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ProcessLimits:
        """The limits of the host config's ``limits`` object; a missing or unknown key is an error (one version
        of the ladder writes and reads it)."""
        names = {f.name for f in fields(cls)}
        unknown = set(raw) - names
        if unknown:
            raise ValueError(f"unknown process limits: {', '.join(sorted(unknown))}")
        return cls(**{name: int(raw[name]) for name in names if name in raw})


_RESOURCES = {
    "memory_bytes": resource.RLIMIT_AS,
    "cpu_seconds": resource.RLIMIT_CPU,
    "open_files": resource.RLIMIT_NOFILE,
    "processes": resource.RLIMIT_NPROC,
    "file_bytes": resource.RLIMIT_FSIZE,
    "core_bytes": resource.RLIMIT_CORE,
}


def set_limits(limits: ProcessLimits) -> None:
    """Lower this process's limits to ``limits`` (never above a hard limit already set: those stay)."""
    for key, which in _RESOURCES.items():
        value = int(getattr(limits, key))
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))
