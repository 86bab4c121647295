"""Work a stop cannot halt (issue 23, found playing the hostile author): through the front door.

``SIGSTOP`` takes effect when a thread next returns to user space, so a
thread in a long system call keeps its CPU while its process is "stopped"
between turns. A bot that answers, leaving 64 threads each in an
``io_submit`` of 256 buffered reads of a sparse file in its ``/tmp`` (2 GB
read in one system call with no signal check inside; Linux AIO is not refused
by the seccomp layer), keeps the worker's CPU for seconds during its opponent's
move. Having slept through its first moves, it has "think time" to spare for
the between-turns check. It must lose for the CPU it used while stopped, and
its opponent must not lose nor have the match voided.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ladder.front_door import LadderHome
from tests.ladder.sandbox.test_front_door_voids import (
    GAME,
    HONEST,
    LIMITS,
    assert_hostile_lost,
    python_bot,
    run,
    submit,
)

pytestmark = pytest.mark.needs_bot_sandbox

KERNEL_WORKER = """
import ctypes, os, threading, time
from ladder.bot import Bot

HOSTILE_CLOCK = 0.5  # the tournament's move_seconds; the submission check's is 1
FILE_BYTES = 8 << 20  # a sparse file in its /tmp: reading it costs CPU, no memory
READS = 256  # reads per io_submit: 2 GB, some 0.1 s of CPU in one system call (no stop inside)
THREADS = 64
_PREPARED = []  # once per process (a process plays many matches): AIO contexts are a host-wide count
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class Iocb(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32), ("rw_flags", ctypes.c_int32),
                ("opcode", ctypes.c_uint16), ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64), ("offset", ctypes.c_int64),
                ("reserved2", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]


def _prepared(fd, buffer):
    context = ctypes.c_ulong(0)
    if libc.syscall(206, READS, ctypes.byref(context)) != 0:  # io_setup
        raise OSError(ctypes.get_errno(), "io_setup")
    iocbs = (Iocb * READS)()
    pointers = (ctypes.c_void_p * READS)()
    for index in range(READS):
        iocbs[index].opcode, iocbs[index].fildes = 0, fd  # IOCB_CMD_PREAD
        iocbs[index].buf, iocbs[index].nbytes = ctypes.addressof(buffer), FILE_BYTES
        pointers[index] = ctypes.addressof(iocbs[index])
    return context, iocbs, pointers, buffer  # the buffer too: the kernel writes into it


def _submit(prepared, go):
    context, _iocbs, pointers, _buffer = prepared
    while os.read(go, 1):  # waits in the kernel (no CPU) until the bot is ready to answer
        libc.syscall(209, context, READS, pointers)  # io_submit: every read done before it returns


class KernelWorker(Bot):
    name = "kernel-worker"
    author = "the void tests"
    games = ("elfer-raus",)

    def start(self, match):
        super().start(match)
        self.hostile = getattr(self.clock, "move_seconds", None) == HOSTILE_CLOCK
        if self.hostile and not _PREPARED:
            threading.stack_size(256 << 10)
            fd = os.open("/tmp/sparse", os.O_RDWR | os.O_CREAT, 0o600)
            os.ftruncate(fd, FILE_BYTES)
            buffer = ctypes.create_string_buffer(FILE_BYTES)
            _PREPARED.extend(_prepared(fd, buffer) for _ in range(THREADS))
            read, go = os.pipe()
            _PREPARED.append(go)
            for prepared in _PREPARED[:THREADS]:
                threading.Thread(target=_submit, args=(prepared, read), daemon=True).start()

    def act(self, observation, legal_actions):
        self.moves = getattr(self, "moves", 0) + 1
        if self.hostile and self.moves <= 4:
            time.sleep(1.2)  # wall time it was given to think, and did not use: room for the between-turns check
        elif self.hostile:
            self.hostile = False  # once a match
            os.write(_PREPARED[THREADS], b"x" * THREADS)
            time.sleep(0.03)  # they are in the kernel now: answer, and let the stop fail to stop them
        return legal_actions[0]
"""


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[LadderHome]:
    ladder_home = LadderHome(tmp_path)
    yield ladder_home
    assert ladder_home.leftover_processes() == [], "processes of this test outlived it"


@pytest.mark.slow
def test_work_a_stop_cannot_halt_never_costs_the_opponent_its_move(home: LadderHome) -> None:
    """The opponent's record is untouched, nothing is voided, and the bot that worked while stopped loses."""
    assert GAME == "elfer-raus"
    submit(home, python_bot(home, "honest", HONEST), python_bot(home, "kernel-worker", KERNEL_WORKER))
    result = run(home, "t-kernel", ["kernel-worker", "honest"], limits=LIMITS)
    assert result.returncode == 0, result.stdout + result.stderr
    failed = assert_hostile_lost(home, "t-kernel", "kernel-worker")
    assert any("while stopped between turns" in seat["detail"] for seat in failed), failed
