"""Results waiting to be written: the coordinator commits them in batches, not one transaction per arrival.

With fast matches (sandboxed random bots finish in a few milliseconds) a
commit per arrival made the database the coordinator's ceiling: most of its
time went to transactions of one or two matches. The coordinator now keeps
the finished matches here and writes them in one transaction when the oldest
has waited ``seconds`` (a short timer), when ``size`` have gathered, when no
match is left in flight (the adaptive format reads the stored round before it
chooses the next one) and at the end of the run, however it ends (Ctrl-C, an
error). The write itself stays atomic (:mod:`tournaments.coordinator.recorder`).

What ``kill -9`` can lose is unchanged in kind: a match is recorded once or
not at all, and a match not recorded is played again by the next run from
its key (the same deal). In amount it grows from the matches in flight to
those plus at most ``seconds`` of finished ones.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from ladder.ratings.pools import PoolKey
from tournaments.coordinator.recorder import Finished

FLUSH_SECONDS = 0.25
"""The longest a finished match waits to be written (while matches keep arriving)."""

FLUSH_SIZE = 512
"""A batch this large is written at once."""


@dataclass(frozen=True)
class WritePolicy:
    """When the buffer is due: its oldest result has waited ``seconds``, or it holds ``size`` results."""

    seconds: float = FLUSH_SECONDS
    size: int = FLUSH_SIZE


class WriteBuffer:
    """The finished matches (and the benches they caused) not yet written, in arrival order."""

    def __init__(self, policy: WritePolicy | None = None) -> None:
        self.policy = policy or WritePolicy()
        self.items: list[Finished] = []
        self.benches: dict[tuple[int, PoolKey], str] = {}
        self.oldest: float | None = None  # monotonic arrival time of the oldest result waiting

    def __len__(self) -> int:
        return len(self.items)

    def add(self, batch: list[Finished], new_benches: Mapping[tuple[int, PoolKey], str]) -> None:
        if not batch and not new_benches:
            return
        if self.oldest is None:
            self.oldest = time.monotonic()
        self.items.extend(batch)
        self.benches.update(new_benches)

    def due(self, now: float | None = None) -> bool:
        """Whether the waiting results should be written now."""
        if self.oldest is None:
            return False
        if len(self.items) >= self.policy.size:
            return True
        return (time.monotonic() if now is None else now) - self.oldest >= self.policy.seconds

    def wait_limit(self, longest: float) -> float:
        """How long the coordinator may wait for results before the buffer falls due (at most ``longest``)."""
        if self.oldest is None:
            return longest
        return max(0.0, min(longest, self.oldest + self.policy.seconds - time.monotonic()))

    def take(self) -> tuple[list[Finished], dict[tuple[int, PoolKey], str]]:
        """Everything waiting (the buffer is left empty)."""
        items, benches = self.items, self.benches
        self.items, self.benches, self.oldest = [], {}, None
        return items, benches
