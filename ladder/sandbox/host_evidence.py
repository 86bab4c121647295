"""Evidence of a host fault that a bot cannot make: CPU time taken on its CPUs by processes outside the match.

A wall-clock timeout voids a match only on evidence no bot of that match can
produce (see ``docs/clocks.md``). The match's bots are one party: their own
threads, their children, their opponents' processes, and the ladder's worker
that plays the match. This module measures, over one move, how much CPU time
*someone else* took on the CPUs the bot may run on:

    outside = busy time of those CPUs (``/proc/stat``, steal included)
              - CPU time of the party over the move

The party's CPU time is read from ``/proc``: the worker process (all its
threads, and the children it reaped), the main process of every bot this
process started (by difference over the move), and, when the move has timed
out, every other process of the party (descendants of this worker, or in the
session of one of its bots: a bot's children, bubblewrap's init) counted with
*all* the CPU time it ever used. That last part may count more than the move
took, never less: a bot can only make the outside share look smaller, which
makes a timeout its own, never a host fault.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal (guest time is inside user)

_lock = threading.Lock()
_party: dict[int, int] = {}  # bot pid -> its session id, for every live bot process this process started
_worked_while_stopped: dict[int, float] = {}  # bot pid -> CPU seconds it used while stopped, seen in another's move
STOPPED_WORK_SECONDS = 0.05
"""CPU a stopped bot may seem to use during another bot's move (it stops a moment after its answer) before it
counts as work a stop could not halt (a long system call: the stop takes effect only on return to user space)."""


def join_party(pid: int, session: int) -> None:
    """A bot process this process started (and the session its children share): its CPU time is the party's."""
    with _lock:
        _party[pid] = session


def leave_party(pid: int | None) -> None:
    """The bot process ``pid`` is gone (killed and reaped)."""
    if pid is None:
        return
    with _lock:
        _party.pop(pid, None)
        _worked_while_stopped.pop(pid, None)


def worked_while_stopped(pid: int | None) -> float:
    """CPU seconds bot ``pid`` was seen to use while stopped, during another bot's move (0.0: none); forgotten once
    told, so the bot is judged for it at its next request."""
    if pid is None or not _worked_while_stopped:  # read unlocked (every request asks): an entry written meanwhile
        return 0.0  # is for a bot whose opponent is moving, and is told at that bot's own next request
    with _lock:
        return _worked_while_stopped.pop(pid, 0.0)


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (``None`` once the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    return text[text.rfind(b")") + 2 :].split()


def _ticks(fields: list[bytes] | None, children: bool = True) -> int:
    """utime + stime (+ the reaped children's cutime + cstime) of a parsed stat line; 0 if unreadable."""
    if fields is None:
        return 0
    try:
        own = int(fields[11]) + int(fields[12])
        return own + (int(fields[13]) + int(fields[14]) if children else 0)
    except (IndexError, ValueError):
        return 0


def cpu_busy_ticks(cpus: Iterable[int]) -> int | None:
    """Ticks the CPUs ``cpus`` spent running anything (idle and I/O wait left out), from ``/proc/stat``."""
    wanted = {f"cpu{cpu}".encode() for cpu in cpus}
    total = 0
    found = 0
    try:
        with open("/proc/stat", "rb") as stat:
            for line in stat:
                parts = line.split()
                if parts and parts[0] in wanted:
                    values = parts[1:]
                    total += sum(int(values[index]) for index in BUSY_FIELDS if index < len(values))
                    found += 1
    except (OSError, ValueError):
        return None
    return total if found == len(wanted) else None


def _party_mains() -> dict[int, int]:
    with _lock:
        return dict(_party)


def _others_of_party(mains: Iterable[int]) -> int:
    """All the CPU ticks ever used by the party's processes other than this one and the bots' main processes."""
    me = os.getpid()
    known = set(mains)
    sessions = set(_party_mains().values())
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    in_session: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry.name)
        if fields is None or len(fields) < 15:
            continue
        pid = int(entry.name)
        try:
            parents[pid] = int(fields[1])
            if int(fields[3]) in sessions:
                in_session.add(pid)
        except ValueError:
            continue
        ticks[pid] = _ticks(fields, children=False)
    party = set(in_session)
    for pid in parents:
        seen: set[int] = set()
        current = pid
        while current > 1 and current not in seen:  # walk up: is this worker an ancestor?
            seen.add(current)
            current = parents.get(current, 0)
            if current == me:
                party.add(pid)
                break
    return sum(ticks[pid] for pid in party - known - {me} if pid in ticks)


@dataclass(frozen=True)
class CpuTheft:
    """A baseline taken when a move starts; :meth:`outside_seconds` when it has timed out."""

    cpus: tuple[int, ...]
    busy: int | None
    worker: int
    mains: dict[int, int]

    @classmethod
    def start(cls, cpus: Iterable[int]) -> CpuTheft:
        """Read the counters now (tens of microseconds: a few small ``/proc`` files)."""
        chosen = tuple(sorted(cpus))
        mains = {pid: _ticks(_stat_fields(pid)) for pid in _party_mains()}
        return cls(chosen, cpu_busy_ticks(chosen), _ticks(_stat_fields("self")), mains)

    def taken_by_stopped_bots(self, own: int | None) -> float:
        """CPU seconds the party's other bots (stopped while ``own`` moves) used since :meth:`start`.

        Turns are taken one at a time, so a bot other than ``own`` that used CPU during this move did work its stop
        could not halt (threads left in long system calls). Such a bot is marked (:func:`worked_while_stopped`).
        """
        taken = 0.0
        for pid, before in self.mains.items():
            if pid == own:
                continue
            used = max(0, _ticks(_stat_fields(pid)) - before) / CLOCK_TICKS
            if used >= STOPPED_WORK_SECONDS:
                taken += used
                with _lock:
                    _worked_while_stopped[pid] = max(used, _worked_while_stopped.get(pid, 0.0))
        return taken

    def outside_seconds(self) -> float | None:
        """CPU seconds the CPUs gave to processes outside the party since :meth:`start` (``None``: unknown here)."""
        busy = cpu_busy_ticks(self.cpus)
        if busy is None or self.busy is None:
            return None
        party = _ticks(_stat_fields("self")) - self.worker
        mains_now = _party_mains()
        for pid in set(mains_now) | set(self.mains):
            now = _ticks(_stat_fields(pid))
            # a main process that appeared during the move counts with all it used
            party += max(0, now - self.mains.get(pid, 0)) if now else 0
        party += _others_of_party(set(mains_now) | set(self.mains))
        return max(0, busy - self.busy - party) / CLOCK_TICKS


def bot_cpus(pinned: int | None) -> tuple[int, ...]:
    """The CPUs a bot runs on: its worker's pinned CPU, else every CPU this process may use."""
    if pinned is not None:
        return (pinned,)
    try:
        return tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return tuple(range(os.cpu_count() or 1))
