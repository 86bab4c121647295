"""What a worker runs for the served ladder: a match, with the files of the submitted bots it seats.

A tournament knows its bots when it starts and ships their files once (the Dask worker plugin); the served
ladder gets new versions while it runs, so each task carries the files of its own submitted bots (a few
kilobytes; installed once per worker, hashed on arrival by :func:`tournaments.executors.worker.install_bot_files`).
Local workers share the server's bot store and are sent no files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

from ladder.seats.botref import BotRef, RefKind
from tournaments.executors.api import MatchExecutor
from tournaments.executors.worker import install_bot_files, play_task


def play_shipped(task: Mapping[str, Any], bundles: Mapping[str, Mapping[str, bytes]]) -> dict[str, Any]:
    """Install the shipped bot versions (if not already there), then play the match."""
    install_bot_files(bundles)
    return play_task(task)


class ShippingExecutor:
    """An executor whose every match task carries the files of its submitted bots (for remote workers)."""

    def __init__(self, inner: MatchExecutor, files_of: Callable[[str], dict[str, bytes]]) -> None:
        self.inner = inner
        self.files_of = files_of

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if fn is play_task and len(args) == 1 and not kwargs:
            task = args[0]
            hashes = [BotRef.parse(ref).target for ref in task["seats"] if BotRef.parse(ref).kind is RefKind.STORE]
            return self.inner.submit(play_shipped, task, {digest: self.files_of(digest) for digest in hashes})
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)

    @property
    def worker_count(self) -> int:
        count = getattr(self.inner, "worker_count", 1)
        return int(count)

    def terminate(self) -> None:
        terminate = getattr(self.inner, "terminate", None)
        if terminate is not None:
            terminate()

    @property
    def rerun_tasks(self) -> int:
        return int(getattr(self.inner, "rerun_tasks", 0))
