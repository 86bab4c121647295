"""What a worker process does: play one match from its spec and send back a plain record.

The task is a plain dict (game, options, seed, seat references, key, limits)
and so is the answer (scores, ranks, details, the packed action log, seat
failures, timings): any executor can carry them, a local process pool today,
a Dask cluster later. A worker keeps its player source between tasks, so the
bots' processes stay alive across matches.

:func:`seat_player` is the one place that turns a seat's bot reference into a
player: it asks ``ladder.players`` (the sandbox's :class:`PlayerPool` when it
is there, the in-process built-in bots otherwise).
"""

from __future__ import annotations

import importlib
import logging
import logging.handlers
import os
import socket
import time
from datetime import datetime, timezone
from typing import Any

from bots.base import MatchStart
from ladder.match import BotFailure, MatchSpec, Player, play_match
from ladder.storage import pack_actions

log = logging.getLogger("ladder.worker")

_source: Any = None  # the worker's player source, kept between matches
_played = 0


def init_worker(log_queue: Any = None, level: int = logging.INFO, setup: str | None = None, results: str | None = None) -> None:
    """Run once in each worker process: send its log records to the coordinator's log file.

    ``results`` is the coordinator's results folder as an absolute path, so
    the bot store is found whatever the sandbox's working folder. ``setup``
    (``"module:function"``) is called too: tests use it to register toy games
    and bots in the worker.
    """
    if results:
        os.environ["LADDER_RESULTS"] = results
    if log_queue is not None:
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        root.addHandler(logging.handlers.QueueHandler(log_queue))
        root.setLevel(level)
    if setup:
        module_name, _, function = setup.partition(":")
        getattr(importlib.import_module(module_name), function)()
    log.info("worker %d ready", os.getpid())


class _UnavailablePlayer:
    """A seat whose bot could not even be loaded: it fails at the start of the match."""

    def __init__(self, failure: BotFailure) -> None:
        self.failure = failure

    def start(self, match: MatchStart) -> None:
        raise self.failure

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        raise self.failure

    def end(self, result: dict[str, Any]) -> None:
        raise self.failure


class _InProcessSource:
    """Stand-in for the sandbox's PlayerPool: built-in bots in this process, nothing else."""

    def player(self, ref: str, game_id: str) -> Player:
        from ladder.players import builtin_player

        if ref.startswith("store:") or "/" in ref or ref.endswith(".py"):
            raise BotFailure("crash", f"cannot run {ref}: the sandbox (ladder.players.PlayerPool) is not available")
        return builtin_player(ref, game_id)

    def close(self) -> None:
        pass


def _player_source(limits: dict[str, Any]) -> Any:
    """The sandbox's PlayerPool if ``ladder.players`` has one, else in-process built-in bots."""
    global _source
    if _source is None:
        import ladder.players as players

        pool_class = getattr(players, "PlayerPool", None)
        _source = _make_pool(pool_class, limits) if pool_class is not None else _InProcessSource()
    return _source


def _make_pool(pool_class: Any, limits: dict[str, Any]) -> Any:
    try:
        return pool_class(limits=limits)
    except TypeError:
        return pool_class()


def seat_player(ref: str, game_id: str, limits: dict[str, Any]) -> Player:
    """The player for one seat: the single switch between in-process bots and the sandbox."""
    try:
        return _player_source(limits).player(ref, game_id)
    except BotFailure as failure:
        return _UnavailablePlayer(failure)
    except Exception as error:  # a bot that cannot be loaded fails its seat, not the worker
        return _UnavailablePlayer(BotFailure("crash", f"could not load {ref}: {type(error).__name__}: {error}"))


def close_players() -> None:
    """Stop the bots' processes this worker keeps (the pool calls it at exit)."""
    global _source
    log.info("worker %d stops after %d matches", os.getpid(), _played)
    if _source is not None:
        _source.close()
        _source = None


def play_task(task: dict[str, Any]) -> dict[str, Any]:
    """Play the match of ``task`` and return its record (plain data, actions packed)."""
    spec = MatchSpec(task["game"], tuple(task["seats"]), task["seed"], dict(task["options"]), task["key"])
    limits = task.get("limits", {})
    started = datetime.now(timezone.utc)
    tick = time.perf_counter()
    cpu = time.process_time()
    players = [seat_player(ref, spec.game, limits) for ref in spec.seats]
    outcome = play_match(spec, players)
    global _played
    _played += 1
    log.debug("match %s played in %.3f s", spec.key, time.perf_counter() - tick)
    for seat, failure in outcome.failures.items():
        tail = f"\n  its stderr ends with:\n{failure.stderr_tail.rstrip()}" if failure.stderr_tail.strip() else ""
        log.warning("match %s: seat %d (%s) failed: %s: %s%s", spec.key, seat, spec.seats[seat], failure.reason,
                    failure.detail, tail)
    return {
        "key": spec.key,
        "scores": list(outcome.result.scores),
        "ranks": list(outcome.result.ranks),
        "details": dict(outcome.result.details),
        "actions_z": pack_actions(outcome.actions),
        "action_count": len(outcome.actions),
        "failures": {seat: f.to_json() for seat, f in outcome.failures.items()},
        "seconds": time.perf_counter() - tick,
        "cpu_seconds": time.process_time() - cpu,  # this worker's CPU (sandboxed bots' processes not included)
        "think": list(outcome.think_seconds),
        "started_at": started.isoformat(),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }
