"""Measuring one move of a bot: the CPU it used, the wall-clock time it took, and whether the host starved it.

A bot's move limit is CPU time (``limits.move_seconds``, plus what is left
of its bank, ``limits.bank_seconds``): the time it actually ran, all its
threads together, so a busy host does not make it lose. A wall-clock cap
(``limits.move_wall_seconds``) still stops a bot that sleeps or blocks.

When the wall-clock cap runs out, :class:`MoveUsage` tells whose fault it
is, on evidence the bot cannot make (``docs/clocks.md``): the CPU time that
processes outside the match took on the bot's CPUs
(:mod:`ladder.sandbox.host_evidence`), and the time the bot was seen stopped when
its sandbox forbids it to stop itself (the seccomp layer). A bot kept from
running by them for at least :data:`HOST_FAULT_SHARE` of the move's wall
time was starved: a host fault (the match is voided and played again). The
bot's own threads, children and stop signals, and its opponents', never
count: a bot that sleeps, blocks, stops itself or starves itself loses on
time. The kernel's run-queue delay of the bot's threads is shown (the
longest one thread waited, at most the wall time) but is no evidence: the
bot's own threads make it.

Reading a process's CPU time costs a few microseconds, as much as a fast
bot's whole decision, so a move is measured only once it has gone on for
:data:`FIRST_CHECK_SECONDS`; the CPU it used before that is not charged
(at most those milliseconds per thread, below the kernel's tick anyway).
From then on the watch looks every :data:`CHECK_EVERY_SECONDS`, so a bot
runs at most that long past its CPU limit before it is stopped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ladder.matches.match import TimeoutKind
from ladder.sandbox.host_evidence import CpuTheft

FIRST_CHECK_SECONDS = 0.01
"""A move that is answered within this long is not measured (see the module docstring)."""
CHECK_EVERY_SECONDS = 0.02
"""How often a thinking bot's CPU time and state are read."""
HOST_FAULT_SHARE = 0.5
"""A wall-clock timeout is the host's fault when the bot was kept from running by someone outside the match (its CPUs
busy with other processes, or stopped by someone else) for at least this share of the move's wall time (see
docs/clocks.md)."""
WALL_FACTOR = 5.0
"""The default wall-clock cap of a move: this many times the CPU time the move may use."""

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
STOPPED_STATES = (b"T", b"t")


@dataclass(frozen=True)
class ProcessTimes:
    """One reading of ``/proc/<pid>/stat``: CPU seconds (the process's threads and its waited-for children)."""

    cpu_seconds: float
    stopped: bool


def read_times(stat_fd: int) -> ProcessTimes | None:
    """CPU time and run state from an open ``/proc/<pid>/stat`` (``None`` once the process is gone)."""
    try:
        text = os.pread(stat_fd, 4096, 0)
    except OSError:
        return None
    parts = text[text.rfind(b")") + 2 :].split()
    try:
        ticks = int(parts[11]) + int(parts[12]) + int(parts[13]) + int(parts[14])
    except (IndexError, ValueError):
        return None
    return ProcessTimes(ticks / CLOCK_TICKS, parts[0] in STOPPED_STATES)


def process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time: all its threads, in nanoseconds (Linux's ``CPUCLOCK_SCHED``
    process clock, ``MAKE_PROCESS_CPUCLOCK`` in the kernel). Reading it costs a third of a microsecond, a tenth of
    parsing ``/proc/<pid>/stat``, so it can be read at every decision."""
    return (~pid << 3) | 2


def read_cpu_clock(clock: int | None) -> float | None:
    """CPU seconds on ``clock`` (:func:`process_cpu_clock`), or ``None`` once the process is gone."""
    if clock is None:
        return None
    try:
        return time.clock_gettime(clock)
    except OSError:
        return None


def run_delays(pid: int | None) -> dict[str, int]:
    """Nanoseconds each thread of ``pid`` has waited on a run queue while runnable (empty where unknown)."""
    if pid is None:
        return {}
    delays: dict[str, int] = {}
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as schedstat:
                delays[tid] = int(schedstat.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return delays


def longest_delay(before: dict[str, int], after: dict[str, int], wall: float) -> float | None:
    """The longest run-queue wait of one thread between two readings, at most ``wall`` (``None``: unknown).

    The longest, not the sum: 450 threads waiting for the same CPU do not make 450 times the wall time.
    """
    if not after:
        return None
    longest = max((ns - before.get(tid, 0) for tid, ns in after.items()), default=0) / 1e9
    return min(max(0.0, longest), wall)


def own_run_delay() -> int | None:
    """Nanoseconds the calling thread has waited on a run queue (for bots that run in the ladder's thread)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as schedstat:
            return int(schedstat.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class MoveUsage:
    """What one move took: wall time, CPU time, and the time someone outside the match kept the bot from running.

    ``cpu_seconds`` is ``None`` for a move answered before it was measured
    (:data:`FIRST_CHECK_SECONDS`); ``run_delay_seconds`` (the longest wait of
    one thread, shown, never evidence) and ``outside_cpu_seconds`` are
    ``None`` where the kernel does not say. ``stopped_seconds`` counts only
    when ``stop_trusted`` (the bot could not stop itself); ``cpus`` is how
    many CPUs the bot could run on.
    """

    wall_seconds: float
    cpu_seconds: float | None = None
    run_delay_seconds: float | None = None
    stopped_seconds: float = 0.0
    outside_cpu_seconds: float | None = None
    cpus: int = 1
    stop_trusted: bool = False

    @property
    def starved_seconds(self) -> float:
        """Time someone outside the match kept the bot from running, at most the wall time.

        Stopped by someone else (only where the bot cannot stop itself), plus the time it waited for a CPU while
        others used it: the CPU time processes outside the match took on its CPUs (per CPU), but no more than the
        longest wait of one of its threads (a bot that sleeps waits for no CPU, however busy the host).
        """
        outside = (self.outside_cpu_seconds or 0.0) / max(1, self.cpus)
        waited = min(outside, self.run_delay_seconds or 0.0)
        stopped = self.stopped_seconds if self.stop_trusted else 0.0
        return min(self.wall_seconds, waited + stopped)

    @property
    def host_fault(self) -> bool:
        """Whether a wall-clock timeout of this move is the host's fault (see :data:`HOST_FAULT_SHARE`)."""
        return self.wall_seconds > 0 and self.starved_seconds >= HOST_FAULT_SHARE * self.wall_seconds

    def describe(self) -> str:
        """The evidence, in words, for a timeout's detail."""
        cpu = "not measured" if self.cpu_seconds is None else f"{self.cpu_seconds:.2f} s"
        delay = "unknown" if self.run_delay_seconds is None else f"{self.run_delay_seconds:.2f} s"
        cpus = f"{self.cpus} CPU{'s' if self.cpus != 1 else ''}"
        outside = "unknown" if self.outside_cpu_seconds is None else f"{self.outside_cpu_seconds:.2f} s"
        text = (
            f"in {self.wall_seconds:.2f} s of wall time it got {cpu} of CPU, processes outside the match took "
            f"{outside} of CPU on its {cpus}, and its longest-waiting thread waited {delay} for a CPU"
        )
        if self.stopped_seconds:
            who = "by someone else" if self.stop_trusted else "(it may have stopped itself: not evidence)"
            text += f"; it was seen stopped {who} for {self.stopped_seconds:.2f} s"
        return text


class MoveWatch:
    """Watches the moves of one bot process, one at a time (reused: no object per move on the fast path).

    :meth:`begin` when a request is sent; :meth:`wait_slice` says how long
    to wait for the reply before the next look is due; :meth:`over_cpu` looks (and
    says whether the move used more CPU than it may); :meth:`finish` when the
    reply came (or the time ran out) gives the move's :class:`MoveUsage`.
    Looks are due by the clock, not when a wait for the reply comes back empty:
    a bot that keeps writing while it thinks (replies the ladder skips) is
    looked at all the same.
    """

    def __init__(
        self,
        stat_fd: int,
        pid: int | None,
        cpus: tuple[int, ...] = (),
        stop_trusted: bool = False,
        resume: Callable[[], None] | None = None,
    ) -> None:
        self.stat_fd = stat_fd
        self.pid = pid
        self.cpus = cpus  # the CPUs the bot runs on (its worker's), where CPU taken by others is evidence
        self.stop_trusted = stop_trusted  # the bot cannot stop itself (seccomp): a stop is someone else's
        self.resume = resume  # lets a bot seen stopped go on when its stop is not evidence
        self.cpu_limit: float | None = None
        self.started = 0.0
        self.cpu_start: float | None = None
        self.cpu_now: float | None = None
        self.delays_start: dict[str, int] = {}
        self.theft: CpuTheft | None = None
        self.stopped_seconds = 0.0
        self.last_look = 0.0
        self.next_look = 0.0  # when the next look is due

    def begin(self, cpu_limit: float | None, now: float) -> None:
        """A request was just sent: ``cpu_limit`` CPU seconds for it (``None``: no CPU limit, wall only)."""
        self.cpu_limit = cpu_limit
        self.started = now
        self.cpu_start = self.cpu_now = None
        self.theft = None
        self.stopped_seconds = 0.0
        self.last_look = now
        self.next_look = now + FIRST_CHECK_SECONDS

    def wait_slice(self, now: float) -> float:
        """How long to wait for the reply before the next look is due (0.0: it is due now)."""
        return max(0.0, self.next_look - now)

    def over_cpu(self, now: float) -> bool:
        """Read the bot's CPU time and state now; whether the move has used more CPU than its limit.

        A bot seen stopped is let go at once unless its stop is evidence (:attr:`stop_trusted`): a bot that stops
        itself only loses its own time.
        """
        self.next_look = now + CHECK_EVERY_SECONDS
        times = read_times(self.stat_fd) if self.stat_fd >= 0 else None
        if times is None:
            return False
        if times.stopped:  # the ladder resumed it for this move: someone stopped it, maybe itself
            self.stopped_seconds += now - self.last_look
            if not self.stop_trusted and self.resume is not None:
                self.resume()
        self.last_look = now
        if self.cpu_start is None:
            self.cpu_start = self.cpu_now = times.cpu_seconds
            self.delays_start = run_delays(self.pid)
            if self.cpus:
                self.theft = CpuTheft.start(self.cpus)
            return False
        self.cpu_now = times.cpu_seconds
        return self.cpu_limit is not None and self.cpu_now - self.cpu_start > self.cpu_limit

    def finish(self, now: float, timed_out: bool = False) -> MoveUsage:
        """The usage of the move that just ended (its evidence of a host fault is read only for a timeout)."""
        wall = now - self.started
        if self.cpu_start is None:
            return MoveUsage(wall, cpus=max(1, len(self.cpus)), stop_trusted=self.stop_trusted)
        times = read_times(self.stat_fd) if self.stat_fd >= 0 else None
        if times is not None:
            self.cpu_now = times.cpu_seconds
        cpu = (self.cpu_now or self.cpu_start) - self.cpu_start
        if not timed_out:
            return MoveUsage(wall, cpu)
        delay = longest_delay(self.delays_start, run_delays(self.pid), wall)
        outside = self.theft.outside_seconds() if self.theft is not None else None
        return MoveUsage(wall, cpu, delay, self.stopped_seconds, outside, max(1, len(self.cpus)), self.stop_trusted)


def wall_cap(move_seconds: float, bank_left: float, move_wall_seconds: float | None) -> float:
    """The wall-clock cap of one move: ``move_wall_seconds`` (default :data:`WALL_FACTOR` times ``move_seconds``),
    grown in proportion when the bank lets the move use more CPU."""
    base = move_wall_seconds if move_wall_seconds is not None else WALL_FACTOR * move_seconds
    if move_seconds <= 0:
        return base
    return base * (move_seconds + max(0.0, bank_left)) / move_seconds


def timeout_detail(
    kind: TimeoutKind, usage: MoveUsage, cpu_limit: float | None, wall_limit: float, what: str
) -> tuple[str, str]:
    """A timeout's detail for the record, and the host fault (empty if the bot is to blame).

    A CPU timeout is always the bot's. A wall-clock (or start-up) timeout is
    the host's when the bot was starved (:attr:`MoveUsage.host_fault`).
    """
    if kind is TimeoutKind.CPU:
        used = "more" if usage.cpu_seconds is None else f"{usage.cpu_seconds:.2f} s"
        allowed = (
            f" (its limit: {cpu_limit:.3g} s, move_seconds plus what was left of its bank)"
            if cpu_limit is not None
            else ""
        )
        return f"used {used} of CPU time on one move{allowed} while {what}", ""
    clock = "start-up" if kind is TimeoutKind.STARTUP else "wall-clock"
    if usage.host_fault:
        host_fault = f"the host starved the bot: {usage.describe()}"
        return (
            f"no answer within the {clock} limit of {wall_limit:.3g} s while {what}: a host fault, {host_fault}",
            host_fault,
        )
    return (
        f"no answer within the {clock} limit of {wall_limit:.3g} s while {what}, although the host did not "
        f"starve it ({usage.describe()})"
    ), ""
