"""How a sandboxed bot process ends badly: the failure it is told, with its stderr and, for a bot that does not
answer, its Python stack (the failure half of :class:`~ladder.sandbox.process.BotProcess`)."""

from __future__ import annotations

import signal
import subprocess
import time
from typing import Any, NoReturn

from ladder.matches.match import BotFailure, BotTimeout, TimeoutKind
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.stderr_tail import StderrTail

STACK_SIGNAL = signal.SIGUSR1  # the bot host dumps its Python stack to stderr on it (faulthandler)
STACK_WAIT_SECONDS = 0.5  # how long a timed-out bot's stack dump is waited for before the kill


class BotFailures:
    """Failing a bot process: kill it, then raise :class:`BotFailure` (or :class:`BotTimeout`) with what it wrote."""

    popen: subprocess.Popen[bytes] | None
    bot_pid: int | None
    stderr: StderrTail | None
    stderr_mark: int
    limits: SandboxLimits

    def kill(self) -> None:
        raise NotImplementedError

    def alive(self) -> bool:
        raise NotImplementedError

    def _signal(self, signum: int) -> None:
        raise NotImplementedError

    def _die_timeout(self, kind: TimeoutKind, detail: str, host_fault: str = "") -> NoReturn:
        self.kill()
        raise BotTimeout(kind, detail, self.stderr_tail(), host_fault)

    def _stuck_stack(self) -> str:
        """The Python stack of a bot that does not answer, before it is killed: the bot host's faulthandler
        writes it to stderr on STACK_SIGNAL; wait (briefly) until it is written."""
        if self.bot_pid is None or self.stderr is None or not self.alive():
            return ""
        mark = self.stderr.total
        self._signal(STACK_SIGNAL)  # through the pidfd: never a reused pid
        deadline = time.monotonic() + STACK_WAIT_SECONDS
        seen = ""
        while time.monotonic() < deadline:
            time.sleep(0.02)
            text = self.stderr.since(mark)
            if text and text == seen and "most recent call first" in text:
                break  # written, and nothing more came for a moment
            seen = text
        return self.stderr.since(mark)

    def _died(self, what: str) -> NoReturn:
        """The bot closed the channel: say how it ended (exit status or signal)."""
        status = None
        if self.popen is not None:
            try:
                status = self.popen.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                status = None
        if status is None:
            self._die("crash", f"the bot closed its channel while {what}")
        if status < 0 or status > 128:
            number = -status if status < 0 else status - 128
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            if number == signal.SIGXCPU:
                self._die_timeout(TimeoutKind.CPU, f"the bot process used up its CPU time limit while {what}")
            self._die("crash", f"the bot process was killed by {name} while {what}")
        self._die("crash", f"the bot process exited with status {status} while {what}")

    def _fail_with_error(self, error: Any, what: str) -> NoReturn:
        """The bot raised: turn its error report into a failure (``memory`` for MemoryError)."""
        if not isinstance(error, dict):
            self._die("garbage", "a malformed error report")
        kind = str(error.get("type", "Exception"))[:100]
        message = str(error.get("message", ""))[:1000]
        trace = str(error.get("traceback", ""))[-4000:]
        reason = "memory" if kind == "MemoryError" else "exception"
        detail = f"{kind} while {what}: {message}" if message else f"{kind} while {what}"
        tail = self.stderr_tail()
        self.kill()
        raise BotFailure(reason, detail, (trace + ("\n" + tail if tail else "")).strip())

    def _die(self, reason: str, detail: str) -> NoReturn:
        self.kill()
        raise BotFailure(reason, detail, self.stderr_tail())

    def stderr_tail(self) -> str:
        """The end of what the bot wrote in its current match (see :attr:`stderr_mark`)."""
        if self.stderr is None:
            return ""
        return self.stderr.since(self.stderr_mark, self.limits.stderr_lines)
