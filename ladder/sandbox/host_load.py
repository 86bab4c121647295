"""How busy the host is: CPU pressure, steal and load, sampled around each match, and how many workers it carries.

A bot's move limit is CPU time, but its wall-clock cap is not, and a host
that runs more work than it has cores starves every process on it. Each
match records the host's pressure while it was played (:func:`sample` at the
start and the end, :func:`pressure_between`), so a timeout can be read
against it:

- Linux PSI (``/proc/pressure/cpu``, kernel 4.20+): the share of the time
  at least one runnable task waited for a CPU (``some``);
- CPU steal (``/proc/stat``): the share of the CPU time a hypervisor gave
  to other guests;
- the load average (``os.getloadavg``) next to the usable cores
  (``os.sched_getaffinity``).

Whatever a kernel does not offer is ``None``. Reading all three costs tens
of microseconds per match.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from typing import Any

PSI_CPU = "/proc/pressure/cpu"
PROC_STAT = "/proc/stat"


@dataclass(frozen=True)
class HostSample:
    """One reading of the host's counters (cumulative; two readings give a rate)."""

    at: float  # time.monotonic()
    psi_some_us: int | None  # /proc/pressure/cpu "some" total, microseconds
    steal_ticks: int | None
    total_ticks: int | None
    load1: float | None


@dataclass(frozen=True)
class HostPressure:
    """The host's CPU pressure over an interval (shares of the interval, 0 to 1; ``None``: unknown here)."""

    seconds: float
    cpu_waiting: float | None  # PSI "some": share of the time a runnable task waited for a CPU
    steal: float | None  # share of the CPU time stolen by the hypervisor
    load1: float | None  # the one-minute load average at the end
    cores: int  # usable cores of this process

    def to_json(self) -> dict[str, Any]:
        return {key: round(value, 4) if isinstance(value, float) else value for key, value in asdict(self).items()}

    def describe(self) -> str:
        """One phrase for a log line or a voided match's reason."""
        parts = []
        if self.cpu_waiting is not None:
            parts.append(f"tasks waited for a CPU {self.cpu_waiting:.0%} of the time (PSI)")
        if self.steal is not None:
            parts.append(f"steal {self.steal:.0%}")
        if self.load1 is not None:
            parts.append(f"load {self.load1:.2f} on {self.cores} core{'s' if self.cores != 1 else ''}")
        return ", ".join(parts) or "no pressure figures on this host"


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _psi_some_us() -> int | None:
    try:
        with open(PSI_CPU, "rb") as psi:
            first = psi.readline()
    except OSError:
        return None
    for field in first.split():
        if field.startswith(b"total="):
            try:
                return int(field[6:])
            except ValueError:
                return None
    return None


def _cpu_ticks() -> tuple[int | None, int | None]:
    """(steal, total) ticks of all CPUs from the first line of ``/proc/stat``."""
    try:
        with open(PROC_STAT, "rb") as stat:
            first = stat.readline().split()
    except OSError:
        return None, None
    if not first or first[0] != b"cpu":
        return None, None
    try:
        values = [int(value) for value in first[1:]]
    except ValueError:
        return None, None
    steal = values[7] if len(values) > 7 else None
    total = sum(values[:8])  # guest time is already counted in user time
    return steal, total


def sample() -> HostSample:
    """Read the host's counters now."""
    steal, total = _cpu_ticks()
    try:
        load1: float | None = os.getloadavg()[0]
    except OSError:
        load1 = None
    return HostSample(time.monotonic(), _psi_some_us(), steal, total, load1)


def pressure_between(before: HostSample, after: HostSample) -> HostPressure:
    """The host's pressure from ``before`` to ``after``."""
    seconds = max(0.0, after.at - before.at)
    waiting = None
    if before.psi_some_us is not None and after.psi_some_us is not None and seconds > 0:
        waiting = min(1.0, max(0.0, (after.psi_some_us - before.psi_some_us) / 1e6 / seconds))
    steal = None
    if None not in (before.steal_ticks, after.steal_ticks, before.total_ticks, after.total_ticks):
        ticks = after.total_ticks - before.total_ticks  # type: ignore[operator]
        steal = (after.steal_ticks - before.steal_ticks) / ticks if ticks > 0 else 0.0  # type: ignore[operator]
    return HostPressure(seconds, waiting, steal, after.load1, usable_cores())


def workers_warning(workers: int) -> str | None:
    """A warning when ``workers`` is more than this machine can carry, else ``None``.

    A match keeps about one core busy (its worker and the bot whose turn it
    is take turns), so more workers than usable cores queue for CPUs: moves
    take longer in wall-clock time, wall-clock caps run out, and the matches
    that starve are voided and played again (never counted against a bot).
    """
    cores = usable_cores()
    if workers <= cores:
        return None
    return (
        f"{workers} workers on {cores} usable core{'s' if cores != 1 else ''}: more than this machine can carry, "
        f"so bots wait for a CPU and matches that starve are voided and replayed; use --workers {cores} or fewer"
    )


PIN_ENV = "LADDER_PIN_WORKERS"
"""Set to ``0`` to let the operating system place the workers (and their bots) on any CPU."""


def worker_cpus(workers: int) -> list[int] | None:
    """One CPU per worker (the first ``workers`` this process may use), or ``None`` if there are too few
    (or :data:`PIN_ENV` is ``0``)."""
    if os.environ.get(PIN_ENV, "").strip() == "0":
        return None
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    return allowed[:workers] if workers <= len(allowed) else None
