"""The seccomp layer leaves a bot no way to stop itself (issue 23): a stop the ladder sees is then someone else's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.guest import seccomp

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not seccomp.supported()[0], reason="needs the seccomp filter (x86-64 Linux)")

PROBE = r"""
import ctypes, fcntl, json, os, signal, sys, threading, time
from ladder.guest import seccomp
seccomp.install()
libc = ctypes.CDLL(None, use_errno=True)
results = {}

def attempt(name, call):
    try:
        call()
        results[name] = "allowed"
    except OSError as error:
        results[name] = type(error).__name__

def timer():
    event = (ctypes.c_int * 16)()
    event[2], event[3] = signal.SIGSTOP, 0
    handle = ctypes.c_void_p()
    if libc.timer_create(1, event, ctypes.byref(handle)) != 0:
        raise OSError(ctypes.get_errno(), "timer_create")

read, write = os.pipe()
seen = []
signal.signal(signal.SIGUSR2, lambda *_: seen.append(1))
attempt("kill SIGUSR2 to itself", lambda: os.kill(os.getpid(), signal.SIGUSR2))
for stop in ("SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU"):
    number = getattr(signal, stop)
    attempt(f"kill {stop}", lambda: os.kill(os.getpid(), number))
    attempt(f"pthread_kill {stop}", lambda: signal.pthread_kill(threading.get_ident(), number))
attempt("raise_signal SIGSTOP", lambda: signal.raise_signal(signal.SIGSTOP))
attempt("killpg SIGSTOP", lambda: os.killpg(0, signal.SIGSTOP))
attempt("timer_create", timer)
attempt("F_SETOWN", lambda: fcntl.fcntl(read, fcntl.F_SETOWN, os.getpid()))
attempt("F_SETSIG", lambda: fcntl.fcntl(read, 10, signal.SIGSTOP))
attempt("F_SETFL", lambda: fcntl.fcntl(read, fcntl.F_SETFL, os.O_NONBLOCK))
attempt("sched_setaffinity", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
results["SIGUSR2 delivered"] = bool(seen)
print(json.dumps(results))
"""


def test_no_stop_signal_reaches_a_filtered_process_by_any_road() -> None:
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert probe.returncode == 0, probe.stderr
    results = json.loads(probe.stdout)
    allowed = {"kill SIGUSR2 to itself", "F_SETFL"}
    for name, outcome in results.items():
        if name in allowed:
            assert outcome == "allowed", (name, outcome)
        elif name != "SIGUSR2 delivered":
            assert outcome == "PermissionError", (name, outcome)
    assert results["SIGUSR2 delivered"] is True
