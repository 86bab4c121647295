"""What a run tells the operator while it plays: one log file for every process, and a progress bar.

The log file gathers this process's records and, through the
multiprocessing-logging queue, every local worker's (Dask workers forward
theirs, see :mod:`tournaments.executors.dask_executor`). The progress bar shows on a
terminal only, never in a redirected file.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from multiprocessing_logging import MultiProcessingHandler
from tqdm import tqdm

from ladder.errors import UserError
from ladder.paths import results_dir
from tournaments.executors.local_pool import log_funnel


@dataclass
class RunLog:
    """The run's log file, while it is open (:meth:`close` restores the logging as it was)."""

    funnel: MultiProcessingHandler  # its queue carries the local workers' records
    path: Path
    previous_level: int

    @classmethod
    def open(cls, name: str, tournament_id: int, level: int) -> RunLog:
        """One log file for the run: this process's records and, through the handler's queue, every worker's."""
        logs = results_dir() / "logs"
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        path = logs / f"{name}-{tournament_id}-{stamp}.log"
        try:
            logs.mkdir(parents=True, exist_ok=True)
            file_handler = logging.FileHandler(path, encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write the log file {path}: {error.strerror or error}") from None
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(processName)s[%(process)d] %(name)s %(levelname)s: %(message)s")
        )
        funnel = log_funnel(f"ladder-log-{tournament_id}", file_handler)  # its queue made for the workers' start method
        funnel.setLevel(level)
        root = logging.getLogger()
        previous = root.level
        root.addHandler(funnel)
        if root.level > level or root.level == logging.NOTSET:
            root.setLevel(level)
        return cls(funnel, path, previous)

    def close(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self.funnel)
        root.setLevel(self.previous_level)
        self.funnel.close()  # waits (up to 5 s) until every record that can still arrive is written
        # A worker killed mid-run may have announced records it never sent: the handler's queue then
        # never drains, and without this the interpreter would wait for it for ever at exit.
        self.funnel.queue.cancel_join_thread()


class ProgressBar:
    """The run's progress bar: matches recorded of those scheduled, failures, benches and the budget left."""

    def __init__(self, name: str, total: int, initial: int, deadline: float | None, enabled: bool) -> None:
        self.deadline = deadline
        self.failures = 0  # matches with a failed seat, recorded by this run
        self.bar = tqdm(
            total=total,
            initial=initial,
            unit="match",
            desc=name,
            dynamic_ncols=True,
            file=sys.stderr,
            disable=not enabled or not sys.stderr.isatty(),  # never a progress bar in a redirected file
            smoothing=0.05,
            # under a time budget the total grows every cycle, so tqdm's own ETA would start again each time:
            # the time left is the budget's, shown in the postfix
            bar_format=None if deadline is None else "{desc}: {n_fmt} matches [{elapsed}, {rate_fmt}{postfix}]",
        )

    def write(self, message: str) -> None:
        self.bar.write(message)

    def advance(self, recorded: int, failed: int, total: int, benched: int) -> None:
        """``recorded`` more matches (``failed`` of them with a failed seat); ``total`` scheduled now."""
        self.failures += failed
        self.bar.total = total
        self.bar.update(recorded)
        postfix: dict[str, object] = {}
        if self.failures:
            postfix["failed"] = self.failures
        if benched:
            postfix["benched"] = benched
        if self.deadline is not None:
            postfix["budget left"] = str(timedelta(seconds=max(0, int(self.deadline - time.monotonic()))))
        if postfix:
            self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        self.bar.close()
