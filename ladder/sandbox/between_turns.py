"""The CPU a bot uses outside its requests: stopped between turns, or left running after its own decision.

A sandboxed bot is stopped (``SIGSTOP``) whenever another seat runs. Right
after it answers a decision it may be left running instead, until another
seat is about to run: the ladder's next decision is often its own again, and
a stop and a resume would cost more than the decision (docs/clocks.md,
docs/benchmarks.md). Either way its CPU time is read from the kernel's
process CPU clock (:func:`~ladder.sandbox.move_clock.read_cpu_clock`: a third
of a microsecond; exact for threads not running when read, up to a scheduler
tick behind for one running on another CPU):

- while left running, the CPU it uses is charged to its next request
  (:meth:`BetweenTurns.take_unasked`): more than that request may use is a
  CPU loss before it is even sent, and the request may use only the rest;
- while stopped, CPU it still uses (threads inside long system calls: a stop
  takes effect only on their return) beyond
  :data:`~ladder.sandbox.host_evidence.STOPPED_WORK_SECONDS` loses it the match
  at its next request.

A stopped bot cannot reap a child, so the waited-for children's CPU that
``/proc/<pid>/stat`` would add cannot change while it is stopped: the process
clock misses nothing there.
"""

from __future__ import annotations

from ladder.sandbox.host_evidence import STOPPED_WORK_SECONDS
from ladder.sandbox.move_clock import process_cpu_clock, read_cpu_clock


class BetweenTurns:
    """One bot process's CPU outside its requests (see the module docstring). ``pid``: the bot's process."""

    __slots__ = ("clock", "at_pause", "at_reply", "unasked")

    def __init__(self, pid: int) -> None:
        self.clock = process_cpu_clock(pid)
        self.at_pause: float | None = None  # its CPU clock when last stopped
        self.at_reply: float | None = None  # its CPU clock at its last reply, while it is left running after it
        self.unasked = 0.0  # CPU used while left running, not yet charged to a request

    def answered(self) -> None:
        """It answered and is left running: note its clock."""
        self.at_reply = read_cpu_clock(self.clock)

    def stopped(self) -> None:
        """It was just sent ``SIGSTOP``."""
        self.at_pause = read_cpu_clock(self.clock)
        self._count_unasked(self.at_pause)

    def _count_unasked(self, now: float | None) -> None:
        if self.at_reply is not None:
            if now is None:
                now = read_cpu_clock(self.clock)
            if now is not None:
                self.unasked += max(0.0, now - self.at_reply)
            self.at_reply = None

    def begin_request(self) -> tuple[float, float]:
        """A request is about to be sent: (CPU used unasked since its last reply, not yet charged; CPU used while
        stopped, beyond :data:`STOPPED_WORK_SECONDS`, else 0.0)."""
        self._count_unasked(None)  # left running since its reply (then never stopped since): one clock reading
        if self.at_pause is None:
            return self.unasked, 0.0
        worked = 0.0
        now = read_cpu_clock(self.clock)
        if now is not None and now - self.at_pause >= STOPPED_WORK_SECONDS:
            worked = now - self.at_pause
        self.at_pause = None
        return self.unasked, worked

    def take_unasked(self) -> float:
        """The CPU used unasked that the request just answered is charged with (then forgotten)."""
        unasked, self.unasked = self.unasked, 0.0
        return unasked
