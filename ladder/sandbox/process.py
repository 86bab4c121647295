"""One sandboxed bot process: start it, send it requests with deadlines, kill it.

The layers and the rules they enforce are described in ``docs/sandbox.md``.
"""

from __future__ import annotations

import dataclasses
import os
import select
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterable
from typing import Any, NoReturn

from ladder.guest import protocol
from ladder.matches.match import BotFailure, TimeoutKind
from ladder.sandbox.between_turns import BetweenTurns
from ladder.sandbox.bot_failures import BotFailures
from ladder.sandbox.bot_info import BotInfo, read_bot_info
from ladder.sandbox.host_evidence import (
    bot_cpus,
    join_party,
    leave_party,
    worked_while_stopped,
)
from ladder.sandbox.launch import BotLaunch, child_of, read_info_pid
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.move_clock import FIRST_CHECK_SECONDS, MoveUsage, MoveWatch, read_times, timeout_detail
from ladder.sandbox.pidfd import _pidfd_alive, _pidfd_open
from ladder.sandbox.stderr_tail import StderrTail
from ladder.sandbox.submission import Submission
from ladder.sandbox.uids import UidLease

_unpack_header = protocol.HEADER.unpack_from
GIVE_BACK_LIMIT = 4.0  # a move gets back at most this many times its wall-clock cap (CPU its stopped opponents took)


# ---------------------------------------------------------------- one bot process


class BotProcess(BotFailures, BotLaunch):
    """One sandboxed bot process: start it, send it requests with deadlines, kill it.

    ``layers`` is a subset of :data:`LAYERS` (``process`` always applies).
    Without bubblewrap, a ladder running as root refuses to start a bot it
    cannot run as an unprivileged user, unless ``allow_root`` (tests only).
    Every method that talks to the bot raises :class:`BotFailure` if the bot
    breaks a rule, after killing the process (it is never reused after that).
    """

    def __init__(
        self,
        submission: Submission,
        limits: SandboxLimits,
        layers: Iterable[str],
        allow_root: bool = False,
        cpu: int | None = None,
    ) -> None:
        self.submission = submission
        self.allow_root = allow_root
        self.cpu = cpu
        self.limits = limits
        self.layers = tuple(layers)
        self.tag = uuid.uuid4().hex[:16]
        self.popen: subprocess.Popen[bytes] | None = None
        self.bot_pid: int | None = None  # the pid whose CPU time is the bot's
        self.info: BotInfo | None = None
        self.seq = 0
        self.buffer = bytearray()
        self.stderr: StderrTail | None = None
        self.stderr_mark = 0  # StderrTail.total when the current match began: its failures show only what came after
        self.work_dir: str | None = None
        self.dead = False
        self.think_seconds = 0.0  # time the bot was given to answer, over the process's life
        self.cpu_baseline = 0.0  # CPU time used by start-up, not counted against the bot
        self._out = -1  # requests to the bot
        self._in = -1  # replies from the bot
        self._stat = (
            -1
        )  # /proc/<bot pid>/stat, kept open: read again at offset 0, it is current (and never another process's)
        self._bot_pidfd = -1  # the bot process, for signals that cannot reach a reused pid
        self._popen_pidfd = -1  # the process the ladder started (bubblewrap, or the bot itself)
        self.init_pid: int | None = None  # bubblewrap's init: the sandbox's pid 1, the bot's parent
        self._init_pidfd = -1
        self._file_fds: list[int] = []  # the bot's files, open for bubblewrap to copy into the sandbox
        self.lease: UidLease | None = None  # the bot's own uid (when the ladder runs as root)
        self.paused = False  # stopped (SIGSTOP) while the ladder does not wait for it
        self._between: BetweenTurns | None = None  # its CPU outside requests (once the bot process is known)
        self._watch: MoveWatch | None = None  # measures each request's CPU time (once the bot process is known)
        self._move_started = 0.0
        self._move_limit = 0.0  # the wall-clock limit of the request in progress
        self._given_back = 0.0  # wall time added to the request in progress: CPU its stopped opponents took
        self._poll_in = select.poll()
        self._poll_out = select.poll()

    # -- start-up -----------------------------------------------------------------------------
    def start(self) -> BotInfo:
        """Start the process and load the bot; its metadata, or :class:`BotFailure` (with the bot's traceback)."""
        info_read = info_write = -1
        pass_fds: tuple[int, ...] = ()
        if "bubblewrap" in self.layers:
            info_read, info_write = os.pipe2(os.O_CLOEXEC)
            try:
                command = self._bwrap_command(info_write)
            except BaseException:
                os.close(info_read)
                os.close(info_write)
                self.kill()
                raise
            pass_fds = (info_write, *self._file_fds)
            env: dict[str, str] = {"PATH": "/usr/bin:/bin"}
            cwd = "/"
        else:
            command, env, cwd = self._process_command()  # may refuse (UserError) before anything is opened
        request_read, request_write = os.pipe2(os.O_CLOEXEC)
        reply_read, reply_write = os.pipe2(os.O_CLOEXEC)
        error_read, error_write = os.pipe2(os.O_CLOEXEC)
        try:
            self.popen = subprocess.Popen(
                command,
                stdin=request_read,
                stdout=reply_write,
                stderr=error_write,
                env=env,
                cwd=cwd,
                pass_fds=pass_fds,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as error:
            for fd in (
                request_read,
                request_write,
                reply_read,
                reply_write,
                error_read,
                error_write,
                info_read,
                info_write,
            ):
                if fd >= 0:
                    os.close(fd)
            self.kill()
            raise BotFailure("crash", f"could not start the bot process: {error}") from None
        finally:
            for fd in (request_read, reply_write, error_write, info_write):
                if fd >= 0 and self.popen is not None:
                    os.close(fd)
            for fd in self._file_fds:  # bubblewrap copies them at start
                os.close(fd)
            self._file_fds.clear()
        self._popen_pidfd = _pidfd_open(self.popen.pid)  # our child, not reaped yet: its pid is still its own
        self._out, self._in = request_write, reply_read
        os.set_blocking(self._out, False)
        self._poll_in.register(self._in, select.POLLIN)
        self._poll_out.register(self._out, select.POLLOUT)
        self.stderr = StderrTail(error_read)
        deadline = time.monotonic() + self.limits.start_seconds
        if info_read >= 0:
            self.init_pid = self._read_info(info_read, deadline)
            self._init_pidfd = _pidfd_open(self.init_pid) if self.init_pid else -1
            self.bot_pid = self._find_child(self.init_pid, deadline) if self.init_pid else None
        else:
            self.bot_pid = self.popen.pid
        if self.bot_pid is not None:
            self._open_bot_handles(self.bot_pid)
            self._between = BetweenTurns(self.bot_pid)
        reply = self.request({"op": "hello"}, deadline - time.monotonic(), "loading")
        if "error" in reply:
            self._fail_with_error(reply["error"], "loading")
        self.info = self._check_info(reply.get("bot"))
        return self.info

    def _find_child(self, parent: int, deadline: float) -> int:
        """The pid of the bot process: the child of bubblewrap's init (``parent``)."""
        while (pid := child_of(parent)) is None:
            if time.monotonic() >= deadline or (self.popen is not None and self.popen.poll() is not None):
                self._start_failed(deadline)
            time.sleep(0.002)
        return pid

    def _start_failed(self, deadline: float) -> NoReturn:
        if time.monotonic() >= deadline:
            self._die_timeout(TimeoutKind.STARTUP, f"the sandbox did not start within {self.limits.start_seconds:g} s")
        self._die("crash", "the sandbox (bubblewrap) failed to start")

    def _open_bot_handles(self, pid: int) -> None:
        """Open a pidfd and the ``/proc`` stat file of the bot process, and check they are of that process.

        bubblewrap reports the bot's pid; should the bot have died and its pid
        been reused in between, the pidfd would name another process. So: open
        both, check the process is a child of the one the ladder started, then
        check (through the pidfd) that it was still alive after that check.
        """
        assert self.popen is not None
        self._bot_pidfd = self._popen_pidfd if pid == self.popen.pid else _pidfd_open(pid)
        try:
            self._stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self._stat, 4096, 0)
        except OSError:
            self._die("crash", "the bot process ended while the sandbox was starting")
        # a stop is evidence of a host fault only where the bot cannot stop itself (seccomp refuses it stop signals)
        self._watch = MoveWatch(
            self._stat, pid, bot_cpus(self.cpu), "seccomp" in self.layers, lambda: self._signal(signal.SIGCONT)
        )
        join_party(pid, self.popen.pid)
        parent = int(text[text.rfind(b")") + 2 :].split()[1])
        ours = pid == self.popen.pid or parent in (self.popen.pid, self.init_pid)
        if not ours or (self._bot_pidfd >= 0 and not _pidfd_alive(self._bot_pidfd)):
            self._die("crash", "the bot process ended while the sandbox was starting")

    def _signal(self, signum: int) -> None:
        """Send ``signum`` to the bot: its process group without bubblewrap, else the sandbox's first process."""
        if "bubblewrap" not in self.layers:
            if self.popen is not None and self.popen.returncode is None:
                try:  # the bot leads its group and is not reaped yet: the group's id is still its own
                    os.killpg(self.popen.pid, signum)
                except (ProcessLookupError, PermissionError):
                    pass
        elif self._bot_pidfd >= 0:
            try:
                signal.pidfd_send_signal(self._bot_pidfd, signum)
            except (ProcessLookupError, PermissionError, OSError):
                pass

    def pause(self) -> None:
        """Stop the bot (``SIGSTOP``): it uses no CPU while another seat runs or it waits in the pool."""
        if not self.paused and not self.dead and self.popen is not None:
            self._signal(signal.SIGSTOP)
            self.paused = True
            if self._between is not None:
                self._between.stopped()

    def resume(self) -> None:
        """Let a stopped bot run again (``SIGCONT``), before a request."""
        if self.paused and not self.dead:
            self._signal(signal.SIGCONT)
        self.paused = False

    def _read_info(self, fd: int, deadline: float) -> int:
        """The pid of the sandboxed process, from bubblewrap's ``--info-fd``."""
        pid = read_info_pid(fd, deadline)
        if pid is None:
            self._start_failed(deadline)
        return pid

    def _check_info(self, data: Any) -> BotInfo:
        try:
            return read_bot_info(data)
        except ValueError as error:
            self._die("garbage", str(error))

    # -- requests -----------------------------------------------------------------------------
    def request(
        self,
        message: dict[str, Any],
        timeout: float,
        what: str,
        cpu_seconds: float | None = None,
        stay_running: bool = False,
    ) -> dict[str, Any]:
        """Send one request and wait at most ``timeout`` wall-clock seconds for the reply with its ``seq``.

        ``cpu_seconds``: the CPU time the bot may use on it (``None``: no CPU
        limit). Replies to earlier requests (stale ``seq``) are skipped.
        Raises :class:`BotFailure` (after killing the process) on a dead
        process or a malformed reply, and :class:`BotTimeout` when a clock
        runs out. Error replies are returned to the caller. The move's CPU time
        is then :meth:`move_cpu_seconds`.

        The bot is stopped once it has answered, unless ``stay_running``: then it is left to run until :meth:`pause`
        (the ladder's next decision may be its own again, with no one else to run in between: a stop and a resume
        would cost more than the decision), and the CPU it uses until then is charged to its next request
        (:meth:`move_cpu_seconds`), which may use only what is left of ``cpu_seconds``.
        """
        if self.dead or self.popen is None:
            raise BotFailure("crash", "the bot process is not running", self.stderr_tail())
        self.seq += 1
        seq = self.seq
        message["seq"] = seq
        deadline = self._begin_move(timeout, cpu_seconds)
        try:
            data = protocol.encode_request(message)
        except ValueError as error:  # the ladder's own data: a bug, not the bot's fault
            raise RuntimeError(f"cannot encode a request: {error}") from error
        try:
            written = os.write(self._out, data)  # a request almost always fits in the pipe: one call
        except BlockingIOError:
            written = 0
        except OSError:
            self._died(what)
        if self.paused:
            # Let the bot go only now, with its request already in the pipe: a stopped bot reads nothing, and let go
            # before the write it would wake up once to find the pipe empty and once more for the request (two
            # extra context switches per decision, measured in docs/benchmarks.md). What did not fit in the pipe
            # (a huge request) is written below, once the bot runs and reads.
            self.resume()
        if written < len(data):
            self._send(memoryview(data)[written:], deadline, what)
        reply = self._quick_reply(deadline, what)
        while True:
            if reply is None:
                reply = self._receive(deadline, what)
            reply_seq = reply["seq"]
            if reply_seq == seq:
                self._after_reply(stay_running)
                return reply
            if reply_seq > seq:
                self._die("garbage", f"a reply numbered {reply_seq} to a request not yet made (expected {seq})")
            reply = None

    def _quick_reply(self, deadline: float, what: str) -> dict[str, Any] | None:
        """The usual case of :meth:`_receive`, with no helper between the ``poll`` and the parse but the read: the
        reply comes within the move's first watch slice (:data:`~ladder.sandbox.move_clock.FIRST_CHECK_SECONDS`),
        whole in one read. ``None`` for anything else (nothing yet, part of a frame, more than one, a frame over the cap), which
        :meth:`_receive` then handles from where this left it (what was read is in :attr:`buffer`)."""
        buffer = self.buffer
        if buffer:
            return None
        watch = self._watch
        until = deadline if watch is None else min(deadline, watch.started + FIRST_CHECK_SECONDS)
        wait = until - time.monotonic()
        if wait <= 0.0 or not self._poll_in.poll(wait * 1000):
            return None
        chunk = self._read_chunk(what)
        size = len(chunk) - 4
        if size < 0 or _unpack_header(chunk)[0] != size or size > self.limits.reply_bytes:
            buffer += chunk
            return None
        return self._parse(chunk[4:], what)

    def _after_reply(self, stay_running: bool) -> None:
        """Stop the bot once it has answered, or leave it running and note its CPU clock (see :meth:`request`)."""
        if stay_running and self._between is not None:  # left running only where its CPU can be read
            self._between.answered()
        else:
            self.pause()

    def _begin_move(self, timeout: float, cpu_seconds: float | None) -> float:
        """Start the clocks of one request; its wall-clock deadline."""
        unasked, worked = self._between.begin_request() if self._between is not None else (0.0, 0.0)
        if cpu_seconds is not None and unasked > cpu_seconds:
            self._die_timeout(
                TimeoutKind.CPU,
                f"used {unasked:.2f} s of CPU between its decisions, more than its move may use ({cpu_seconds:.2f} s)",
            )
        stopped_work = worked_while_stopped(self.bot_pid)
        if worked > stopped_work:
            stopped_work = worked
        if stopped_work:
            self._die_timeout(
                TimeoutKind.CPU,
                f"used {stopped_work:.2f} s of CPU while stopped between turns, during "
                "another bot's move (threads left working in long system calls)",
            )
        now = time.monotonic()
        self._move_started = now
        self._move_limit = timeout
        self._given_back = 0.0
        if self._watch is not None:  # what it used unasked is part of this move: the move may use only the rest
            self._watch.begin(None if cpu_seconds is None else cpu_seconds - unasked, now)
        return now + timeout if timeout > 0.0 else now

    def move_cpu_seconds(self) -> float | None:
        """CPU seconds the last request used (``None``: answered too fast to be measured, see :mod:`ladder.sandbox.move_clock`),
        with the CPU the bot used while left running since its previous reply (``request(stay_running=True)``).

        Read once, right after the reply.
        """
        unasked = self._between.take_unasked() if self._between is not None else 0.0
        watch = self._watch
        cpu = None if watch is None or watch.cpu_start is None else watch.finish(time.monotonic()).cpu_seconds
        if cpu is None:
            return unasked if unasked > 0.0 else None
        return cpu + unasked

    def _send(self, view: memoryview, deadline: float, what: str) -> None:
        while view:
            try:
                written = os.write(self._out, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            except OSError:
                self._died(what)
            self._wait_for(self._poll_out, deadline, what)

    def _receive(self, deadline: float, what: str) -> dict[str, Any]:
        """The next reply frame, parsed strictly (its length checked against the cap before its body is kept)."""
        limit = self.limits.reply_bytes
        buffer = self.buffer
        while True:
            if len(buffer) >= 4:
                length = self._length(bytes(buffer[:4]), limit, what)
                if len(buffer) >= 4 + length:
                    body = bytes(buffer[4 : 4 + length])
                    del buffer[: 4 + length]
                    return self._parse(body, what)
            chunk = self._next_chunk(deadline, what)
            if not buffer and len(chunk) >= 4 and len(chunk) == 4 + self._length(chunk[:4], limit, what):
                return self._parse(chunk[4:], what)  # the usual case: one read brought exactly one frame
            buffer += chunk

    def _next_chunk(self, deadline: float, what: str) -> bytes:
        """What the bot wrote next on its channel, waiting until ``deadline`` (a timeout, or a crash if it closed it).

        While it waits, it looks at the bot's CPU time now and then (:class:`MoveWatch`): a bot over its CPU
        limit is stopped then, not at the wall-clock deadline.
        """
        self._wait_for(self._poll_in, deadline, what)
        return self._read_chunk(what)

    def _read_chunk(self, what: str) -> bytes:
        """What the channel holds now (it was ready); a channel the bot closed is its end (:meth:`_died`)."""
        try:
            chunk = os.read(self._in, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            self._died(what)
        return chunk

    def _wait_for(self, poller: select.poll, deadline: float, what: str) -> None:
        """Wait until ``poller`` (the channel's) is ready, or a clock runs out (:meth:`_timeout`).

        The bot's CPU time is looked at whenever a look is due (:class:`MoveWatch`), whether or not the channel was
        ready meanwhile: a bot that writes something every few milliseconds while it thinks (stale replies, empty
        lines, a frame a byte at a time) or reads its request slowly is held to its CPU limit all the same.
        """
        watch = self._watch
        while True:
            now = time.monotonic()
            if watch is not None and watch.wait_slice(now) <= 0.0 and watch.over_cpu(now):
                self._timeout(what, over_cpu=True)
            remaining = deadline + self._given_back - now
            if remaining <= 0:
                if self._give_back():
                    continue
                self._timeout(what)
            wait = remaining if watch is None else min(remaining, watch.wait_slice(now))
            if poller.poll(wait * 1000):
                return

    def _give_back(self) -> bool:
        """At the wall-clock cap: add the CPU time the match's stopped bots took during this move (work a stop could
        not halt, theirs to answer for) to this move's wall time, up to :data:`GIVE_BACK_LIMIT` times its cap.
        Whether more time was given."""
        watch = self._watch
        theft = watch.theft if watch is not None else None
        if theft is None:
            return False
        taken = min(theft.taken_by_stopped_bots(self.bot_pid), GIVE_BACK_LIMIT * self._move_limit)
        if taken - self._given_back < 0.01:
            return False
        self._given_back = taken
        return True

    def _length(self, header: bytes, limit: int, what: str) -> int:
        try:
            return protocol.frame_length(header, limit)
        except protocol.ProtocolError as error:
            self._die("garbage", f"{error} (while {what})")

    def _parse(self, body: bytes, what: str) -> dict[str, Any]:
        try:
            return protocol.decode(body)
        except protocol.ProtocolError as error:
            self._die("garbage", f"a reply that is not valid: {error} (while {what})")

    # -- failures -----------------------------------------------------------------------------
    def _timeout(self, what: str, over_cpu: bool = False) -> NoReturn:
        """A clock ran out: say which, with the evidence of whose fault it is, and kill the bot."""
        now = time.monotonic()
        usage = (
            self._watch.finish(now, timed_out=True) if self._watch is not None else MoveUsage(now - self._move_started)
        )
        limit = self._watch.cpu_limit if self._watch is not None else None
        unasked = self._between.unasked if self._between is not None else 0.0
        if over_cpu and limit is not None and unasked:  # the move's limit and use, with what it used unasked before it
            what += f", {unasked:.2f} s of it between its decisions (charged to this move)"
            limit += unasked
            if usage.cpu_seconds is not None:
                usage = dataclasses.replace(usage, cpu_seconds=usage.cpu_seconds + unasked)
        stack = self._stuck_stack()
        where = next((line.strip() for line in stack.splitlines() if line.strip().startswith("File ")), "")
        kind = TimeoutKind.CPU if over_cpu else TimeoutKind.STARTUP if self.info is None else TimeoutKind.WALL
        detail, host_fault = timeout_detail(kind, usage, limit, self._move_limit, what)
        self._die_timeout(kind, detail + (f"; stopped in {where}" if where else ""), host_fault)

    # -- accounting and the end -----------------------------------------------------------------
    def cpu_seconds_used(self) -> float | None:
        """CPU time (user + system, all threads, and its waited-for children) the bot process has used, from ``/proc``."""
        times = read_times(self._stat) if self._stat >= 0 else None
        return None if times is None else times.cpu_seconds

    def _kill_and_reap(self, popen: subprocess.Popen[bytes]) -> None:
        """SIGKILL the bot, bubblewrap's init and the process the ladder started, then reap it."""
        # Through pidfds: a pid the ladder recorded may belong to another process by now, a pidfd never does.
        for pidfd in dict.fromkeys((self._bot_pidfd, self._init_pidfd, self._popen_pidfd)):
            if pidfd >= 0:
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                except (ProcessLookupError, PermissionError, OSError):
                    pass
        if self._popen_pidfd < 0 and popen.returncode is None:  # a kernel without pidfds: our unreaped child
            try:
                os.kill(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if popen.returncode is None:  # not reaped yet, so the group's id (its pid) is still its own
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            popen.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass

    def _close_handles(self) -> None:
        """Close the channel, the ``/proc`` file, the pidfds and any bot file not yet handed to bubblewrap."""
        for fd in dict.fromkeys(
            (self._out, self._in, self._stat, self._bot_pidfd, self._init_pidfd, self._popen_pidfd, *self._file_fds)
        ):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._out = self._in = self._stat = self._bot_pidfd = self._init_pidfd = self._popen_pidfd = -1
        self._file_fds.clear()
        self._watch = None  # its /proc file is closed

    def alive(self) -> bool:
        return not self.dead and self.popen is not None and self.popen.poll() is None

    def close(self) -> None:
        """Ask the bot to leave, then make sure it is gone."""
        if self.alive():
            try:
                os.write(self._out, protocol.encode({"seq": self.seq + 1, "op": "bye"}))
            except OSError:
                pass
        self.kill()

    def kill(self) -> None:
        """Kill the whole process group (and the sandbox's pid namespace) and reap it."""
        if self.dead:
            return
        self.dead = True
        leave_party(self.bot_pid)
        popen = self.popen
        if popen is not None:
            self._kill_and_reap(popen)
        self._close_handles()
        if self.lease is not None and (popen is None or popen.returncode is not None):
            self.lease.release()  # the process is gone: its uid may serve another bot
            self.lease = None
        if self.stderr is not None:
            self.stderr.wait(1.0)
        if self.work_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None
