"""Functions the executor tests send to worker processes (they must be importable by name)."""

from __future__ import annotations

import os
import signal
import time


def square(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def nap_then_square(x: int, seconds: float) -> int:
    time.sleep(seconds)
    return x * x


def die(_: int) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def fail(x: int) -> None:
    raise ValueError(f"no {x}")


def broken_initializer() -> None:
    raise SystemExit(3)


def placement(_: int, nap: float = 0.0) -> tuple[int, int, list[int]]:
    """Where the worker runs: its pid, its parent's pid and the CPUs it may use (after a nap, so that the
    other workers get tasks too)."""
    time.sleep(nap)
    return os.getpid(), os.getppid(), sorted(os.sched_getaffinity(0))


def environment(name: str) -> str | None:
    """The worker's value of the environment variable ``name``."""
    return os.environ.get(name)
