"""Turning a bot reference from the command line or a tournament into a seat player.

References:

- a plain name: a built-in bot (``random``, ``thumb``, ``search``), run in this process; otherwise a bot registered
  with ``ladder submit`` (its latest version), or a bot offered by an installed package (entry point group
  ``ladder.bots``); a registered name may not shadow a built-in one;
- ``path/to/bot.py`` or a folder (anything containing ``/`` or ending in ``.py``): that file, copied aside and run
  sandboxed;
- ``store:<sha256>``: a registered version in the bot store (``results/bots/<sha256>/``); what tournaments send to
  workers, so a worker needs no database;
- ``ep:<name>``: the entry-point bot ``name``.

Built-in bots run in this process (:mod:`ladder.seats.builtin_players`), their exceptions turned into
:class:`~ladder.matches.match.BotFailure`. Every other bot runs in a sandboxed process (:mod:`ladder.sandbox`)
handed out by a :class:`PlayerPool`, which keeps the processes alive across matches (a fresh bot object is made for
each match) and replaces a process after any failure.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from bots.base import MatchStart
from bots.registry import bot_names
from ladder.errors import UserError
from ladder.matches.forced_moves import ForcedMoves
from ladder.matches.match import BotFailure, BotTimeout, Player, SeatPlayer, TimeoutKind
from ladder.matches.statuses import FailureReason
from ladder.paths import results_dir
from ladder.sandbox.bot_info import BotInfo
from ladder.sandbox.build import stage_bot
from ladder.sandbox.exec_bot import make_bot_process
from ladder.sandbox.host_facts import is_root, process_layer_can_drop_root
from ladder.sandbox.layers import available_layers, check_layers, default_layers, require_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.process import BotProcess
from ladder.sandbox.submission import (
    Submission,
    entry_point_bots,
    entry_point_submission,
    stored_submission,
)
from ladder.seats.botref import BotRef, RefKind
from ladder.seats.builtin_players import builtin_player
from ladder.text import clean_text


def is_builtin(ref: str) -> bool:
    """Whether ``ref`` names a built-in bot (run in this process, not sandboxed)."""
    return ref in bot_names()


def is_path_reference(ref: str) -> bool:
    """Whether ``ref`` names a file or folder rather than a bot."""
    return BotRef.parse(ref).kind is RefKind.PATH


def store_folder(content_hash: str) -> Path:
    """Where the bot store keeps the files of version ``content_hash`` (absolute: bubblewrap binds it)."""
    return (results_dir() / "bots" / content_hash).resolve()


def submission_for(ref: str) -> Submission:
    """The files a (non-built-in) reference stands for; :class:`UserError` if it names nothing."""
    parsed = BotRef.parse(ref)
    if parsed.kind is RefKind.STORE:
        if not parsed.well_formed:
            raise UserError(f"{ref!r} is not a bot store reference (store:<64 hex digits>)")
        return stored_submission(ref, store_folder(parsed.target), parsed.target)
    if parsed.kind is RefKind.ENTRY_POINT:
        for bot in entry_point_bots():
            if bot.name == parsed.target:
                return entry_point_submission(bot)
        raise UserError(f"no installed package offers a bot {parsed.target!r} (entry point group ladder.bots)")
    if parsed.kind is RefKind.PATH:
        return stage_bot(ref)  # built first when its bot.toml has a build (once per process)
    # Imported here: a worker is handed store references and never looks a name up, so the workers' fork server
    # does not import SQLModel and SQLAlchemy for it (a quarter of a second that every worker start waits for).
    from ladder.store.bot_index import latest_hash, registered_names

    stored_hash = latest_hash(ref)
    if stored_hash is not None:
        return stored_submission(ref, store_folder(stored_hash), stored_hash)
    for bot in entry_point_bots():
        if bot.name == ref:
            return entry_point_submission(bot)
    registered = registered_names()
    hint = "or give the path of a bot (a .py file, or a folder with bot.py or bot.toml)"
    if Path(ref).exists():  # `ladder validate mybot` of a folder here: a bare word is a name, so say what to type
        hint = f"{ref!r} here is read as a bot's name: give it as a path, ./{ref}"
    raise UserError(
        f"no bot {ref!r}; built-in bots: {', '.join(bot_names())}"
        + (f"; registered bots: {', '.join(registered)}" if registered else "")
        + f"; {hint}"
    )


def sandbox_refusal() -> str | None:
    """Why no submitted bot can run sandboxed on this machine, or ``None`` if they can.

    A tournament asks before it starts, so that it refuses in one line
    instead of recording every match of a submitted bot as a failure.
    """
    if is_root() and "bubblewrap" not in available_layers() and not process_layer_can_drop_root():
        return (
            "submitted bots cannot be sandboxed here: the ladder runs as root, bubblewrap is not available "
            "and the interpreter is not readable by an unprivileged user; install bubblewrap "
            "(apt-get install bubblewrap; see `ladder doctor`) or run the ladder as an ordinary user"
        )
    return None


def _last_words(lines: list[str]) -> list[str]:
    """A crash's faulthandler lines (its first says what happened), else what the bot wrote before a stack."""
    stack = next((i for i, line in enumerate(lines) if line.endswith("(most recent call first):")), len(lines))
    return [line for line in lines if line.startswith("Fatal Python error")] or lines[:stack]


def failure_line(failure: BotFailure) -> str:
    """One line for a user: the failure and the last line of the bot's own traceback or stderr."""
    lines = (clean_text(line, one_line=True).strip() for line in failure.stderr_tail.splitlines())
    # a timeout's stack (written on the ladder's signal before the kill) is in the detail: `stopped in ...`
    last = _last_words([line for line in lines if line and line != "..."])
    message = last[-1].partition(": ")[2].strip() if last else ""
    repeated = bool(last) and (last[-1] in failure.detail or bool(message) and message in failure.detail)
    said = f" (its last words: {last[-1][:300]})" if last and not repeated else ""
    return f"{failure.reason}: {failure.detail}{said}"


class SandboxedPlayer(SeatPlayer):
    """One seat played by a sandboxed bot process from a :class:`PlayerPool`.

    Keeps the match's clocks: each request may use ``move_seconds`` of CPU
    time plus what is left of the match's bank (``bank_seconds``; a request
    that runs over draws on it), within its wall-clock cap, and all of them
    together ``match_seconds`` of wall-clock time. Checks that the bot's
    process uses no more CPU than it was given to think (plus ``idle_cpu_seconds``).
    """

    CPU_CHECK_EVERY = 0.25  # seconds of wall time between two CPU checks in a match

    def __init__(self, pool: PlayerPool, ref: str, submission: Submission, game_id: str, deal: str = "") -> None:
        self.pool = pool
        self.ref = ref
        self.submission = submission
        self.game_id = game_id
        self.deal = deal
        self.process: BotProcess | None = None
        self.remaining = pool.limits.match_seconds
        self.bank = pool.limits.bank_seconds  # CPU seconds left to draw on when a move runs over
        self._clock: dict[str, float] = {}  # what the bot is told, and the clocks it implies (while the bank holds)
        self._clock_bank = -1.0
        self._wall_cap = self._cpu_allowance = 0.0
        self.last_cpu_check = 0.0
        self.actions = 0
        self.forced = ForcedMoves()  # decisions with one legal action are answered without the bot
        self.stderr_mark = 0
        self.stderr_text = ""  # what the bot wrote to stderr during the match, once it has ended

    # -- helpers ---------------------------------------------------------------------------
    def _request(self, message: dict[str, Any], what: str, stay_running: bool = False) -> dict[str, Any]:
        process = self.process
        if process is None:
            raise BotFailure(FailureReason.CRASH, "the bot's process is gone")
        pool = self.pool
        pool._turn_to(process)
        limits = pool.limits
        if self.bank != self._clock_bank:
            self._set_clock()
        cap = self._wall_cap
        timeout = cap if cap < self.remaining else self.remaining
        if timeout <= 0:
            self._fail(
                BotTimeout(
                    TimeoutKind.WALL,
                    f"used up its {limits.match_seconds:g} s (wall-clock) for the match",
                    process.stderr_tail(),
                )
            )
        message["clock"] = self._clock
        tick = time.monotonic()
        try:
            reply = process.request(message, timeout, what, cpu_seconds=self._cpu_allowance, stay_running=stay_running)
            if stay_running:
                pool._running = process
        except BotTimeout as failure:
            if failure.kind is TimeoutKind.WALL and timeout < cap:
                failure = BotTimeout(
                    failure.kind,
                    f"{failure.detail} (all that was left in its match budget of {limits.match_seconds:g} s)",
                    failure.stderr_tail,
                    failure.host_fault,
                )
            self._fail(failure)
        except BotFailure as failure:
            self._fail(failure)
        spent = time.monotonic() - tick
        self.remaining -= spent
        cpu = process.move_cpu_seconds()
        if cpu is not None and cpu > limits.move_seconds:
            self.bank = max(0.0, self.bank - (cpu - limits.move_seconds))
        process.think_seconds += spent if cpu is None else max(spent, cpu)  # threads may use more CPU than wall time
        if "error" in reply:
            try:
                process._fail_with_error(reply["error"], what)
            except BotFailure as failure:
                self._fail(failure)
        return reply

    def _set_clock(self) -> None:
        """The ``clock`` sent with each request (CPU seconds per move, the bank left), the CPU the next request
        may use and its wall-clock cap: computed again only when the bank changes (rarely; not per decision)."""
        limits = self.pool.limits
        self._clock_bank = self.bank
        self._clock = {"move_seconds": limits.move_seconds, "bank_seconds": round(self.bank, 3)}
        self._cpu_allowance = limits.move_seconds + self.bank
        self._wall_cap = limits.wall_seconds(self.bank)

    def _fail(self, failure: BotFailure) -> Any:
        if self.process is not None:
            self.pool._discard(self.process)
            self.process = None
        raise failure

    def _check_cpu(self) -> None:
        process = self.process
        if process is None:
            return
        self.last_cpu_check = time.monotonic()
        used = process.cpu_seconds_used()
        if used is None:
            return
        used -= process.cpu_baseline
        allowed = process.think_seconds + self.pool.limits.idle_cpu_seconds
        if used > allowed:
            self._fail(
                BotFailure(
                    FailureReason.TIMEOUT,
                    f"used {used:.2f} s of CPU while asked to think for {process.think_seconds:.2f} s: "
                    "work between turns (e.g. in a background thread) is not allowed",
                    process.stderr_tail(),
                )
            )

    # -- between turns (ladder.matches.match.play_match) -------------------------------------------
    @property
    def plays_forced_moves(self) -> bool:
        """Whether a decision with one legal action is answered without running the bot (see ``forced_moves``)."""
        return not self.forced.every_decision

    def pause_between_turns(self) -> None:
        """Another seat is about to run: stop the bot, which is left running after its decisions (the ladder's next
        decision is often its own again; see :meth:`BotProcess.request`)."""
        process = self.process
        if process is not None:
            process.pause()
            if self.pool._running is process:
                self.pool._running = None

    # -- the Bot API ---------------------------------------------------------------------------
    def start(self, match: MatchStart) -> None:
        started = self.pool.started
        self.process = self.pool._checkout(self.ref, self.submission, self.deal)
        # this match's stderr: all of a process started for it (what it printed while loading too), else what
        # comes after the matches it played before
        fresh = self.pool.started != started
        self.stderr_mark = 0 if fresh or self.process.stderr is None else self.process.stderr.total
        self.process.stderr_mark = self.stderr_mark  # its failures in this match show this match's stderr only
        info = self.process.info
        assert info is not None
        if not info.plays(match.game):
            self._fail(
                BotFailure(
                    FailureReason.EXCEPTION,
                    f"bot {info.name!r} does not play {match.game} (it plays: {', '.join(info.games)})",
                )
            )
        self._check_cpu()
        self.forced = ForcedMoves(info.every_decision)
        payload = {
            "game": match.game,
            "seat": match.seat,
            "num_players": match.num_players,
            "options": dict(match.options),
            "seed": match.seed,
        }
        # alone at the table, its first decision comes next with no other seat to run in between: it is left
        # running (charged what it uses until then, as after a decision) rather than stopped and resumed at once
        self._request({"op": "start", "match": payload}, "starting the match", stay_running=match.num_players == 1)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        self.actions += 1
        forced = self.forced.answer(observation, legal_actions)
        if forced is not None:  # one legal action: the bot is not asked (it hears of it at its next decision)
            return forced
        reply = self._request(
            {"op": "act", "observation": observation, "legal": legal_actions},
            f"choosing its action #{self.actions}",
            stay_running=True,
        )
        index = reply.get("index")
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(legal_actions):
            if time.monotonic() - self.last_cpu_check > self.CPU_CHECK_EVERY:
                self._check_cpu()
            return legal_actions[index]
        stderr = self.process.stderr_tail() if self.process else ""
        if "illegal" in reply and isinstance(reply["illegal"], str):
            self._fail(
                BotFailure(
                    FailureReason.ILLEGAL,
                    f"answered {reply['illegal'][:200]}, which is not one of the {len(legal_actions)} legal actions",
                    stderr,
                )
            )
        self._fail(
            BotFailure(FailureReason.GARBAGE, f"a reply to act that names no legal action: {str(reply)[:200]}", stderr)
        )
        raise AssertionError("unreachable")

    def end(self, result: dict[str, Any]) -> None:
        self._request({"op": "end", "result": result}, "hearing the result")
        self._check_cpu()
        process, self.process = self.process, None
        if process is not None:
            if process.stderr is not None:
                self.stderr_text = process.stderr.since(self.stderr_mark, process.limits.stderr_lines)
            self.pool._release(process)


class PlayerPool:
    """Hands out players for bot references and keeps sandboxed bot processes alive between matches.

    ``limits`` is a :class:`~ladder.sandbox.limits.SandboxLimits` or a plain mapping
    (a tournament file's limits: ``move_seconds``, ``match_seconds``,
    ``memory_mb``, ...). ``layers`` chooses the sandbox layers (default: every
    layer available here); ``require`` names layers that must be available
    (else :class:`UserError`). ``pin_cpu``: run the calling thread and every
    bot process on one CPU (``True``: the current one; an int: that one),
    which halves the cost of a decision on machines where waking another CPU
    is slow (``ladder play`` does it when a seat is sandboxed; a tournament
    worker may pin itself to a CPU of its own). ``submissions``: bots already
    resolved and staged by another pool (:meth:`submission`), to use as they
    are rather than stage or build them again. Use as a context manager, or
    call :meth:`close`.
    """

    def __init__(
        self,
        limits: SandboxLimits | Mapping[str, Any] | None = None,
        layers: Iterable[str] | None = None,
        require: Iterable[str] = (),
        allow_root: bool = False,
        keep_idle: int = 8,
        pin_cpu: bool | int = False,
        submissions: Mapping[str, Submission] | None = None,
    ) -> None:
        self.limits = SandboxLimits.from_mapping(limits)
        self.cpu: int | None = None
        self._saved_affinity: set[int] | None = None
        if pin_cpu is not False:
            self._pin(None if pin_cpu is True else int(pin_cpu))
        self.require = tuple(require)
        self._layers: tuple[str, ...] | None = check_layers(layers) if layers is not None else None
        if self.require:
            require_layers(self.require)
        self.allow_root = allow_root
        self.keep_idle = keep_idle
        self._idle: dict[str, list[BotProcess]] = {}
        self._all: set[BotProcess] = set()
        self._dealt: dict[BotProcess, set[str]] = {}  # the deals each process has played
        self._submissions: dict[str, Submission] = dict(submissions or {})
        self.started = 0  # processes started, for tests and the benchmark
        self._running: BotProcess | None = None  # a process left running after its decision (never two at once)
        self.tags: list[str] = []  # the tag of every process started (it is in the process's command line)

    def _pin(self, cpu: int | None) -> None:
        """Run this thread and every bot process of the pool on one CPU.

        A match alternates strictly between the ladder and one bot, so one CPU
        loses nothing, and every hand-over stays on a warm CPU instead of
        waking another one (on virtual machines, a cross-CPU wake-up costs
        tens of microseconds). Only the calling thread is pinned.
        """
        try:
            allowed = os.sched_getaffinity(0)
            chosen = cpu if cpu is not None else current_cpu()
            if chosen is None or chosen not in allowed:
                return
            os.sched_setaffinity(0, {chosen})
        except (AttributeError, OSError):
            return
        self._saved_affinity = allowed
        self.cpu = chosen

    @property
    def layers(self) -> tuple[str, ...]:
        if self._layers is None:
            self._layers = default_layers()
        return self._layers

    def __enter__(self) -> PlayerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def submission(self, ref: str) -> Submission:
        """The files a reference stands for (resolved once per pool)."""
        found = self._submissions.get(ref)
        if found is None:
            found = submission_for(ref)
            self._submissions[ref] = found
        return found

    def player(self, ref: str, game_id: str, deal: str = "") -> Player:
        """A player for one seat of one match; built-in names run in-process, anything else sandboxed.

        ``deal`` names the match's deal (a tournament's seatings of one table
        share it): the bot gets a process that has not played that deal yet,
        so it cannot remember, from another seat, cards it should not see.
        """
        if ref in bot_names():
            return builtin_player(ref, game_id, self.limits)
        return SandboxedPlayer(self, ref, self.submission(ref), game_id, deal)

    def describe(self, ref: str) -> BotInfo:
        """Start (or reuse) the bot's process and return what it says about itself.

        Raises :class:`BotFailure` if the bot does not load within the limits.
        """
        process = self._checkout(ref, self.submission(ref))
        self._release(process)
        assert process.info is not None
        return process.info

    def warm(self, ref: str, count: int = 1) -> None:
        """Start ``count`` processes of ``ref`` ahead of the matches (kept idle in the pool)."""
        started = [self._checkout(ref, self.submission(ref)) for _ in range(count)]
        for process in started:
            self._release(process)

    def check(self, ref: str, game_id: str) -> None:
        """Raise :class:`UserError` (one line) unless ``ref`` is a bot that loads and plays ``game_id``."""
        if ref in bot_names():
            builtin_player(ref, game_id)
            return
        try:
            info = self.describe(ref)
        except BotFailure as failure:
            raise UserError(f"bot {ref} cannot play: {failure_line(failure)}") from None
        if not info.plays(game_id):
            raise UserError(
                f"bot {ref} ({info.name}) does not play {game_id}; it plays: {', '.join(info.games) or 'nothing'}"
            )

    def idle_cpu(self, ref: str, window: float = 0.3) -> float:
        """CPU seconds the idle processes of ``ref`` would use over ``window`` seconds of waiting (should be ~0).

        They are let run (``SIGCONT``) for the window, then stopped again: in
        play a bot is stopped whenever another seat runs, and charged for what it
        uses while left running after its own answer, so this only tells a bot's
        author that its background work would be wasted or charged.
        """
        processes = list(self._idle.get(self.submission(ref).content_hash, []))
        for process in processes:  # idle processes are stopped: let them run to see what they would do
            process.resume()
        try:
            before = [p.cpu_seconds_used() or 0.0 for p in processes]
            time.sleep(window)
            after = [p.cpu_seconds_used() or 0.0 for p in processes]
        finally:
            for process in processes:
                process.pause()
        return max((b - a for a, b in zip(before, after)), default=0.0)

    # -- processes -----------------------------------------------------------------------------
    def _checkout(self, ref: str, submission: Submission, deal: str = "") -> BotProcess:
        """An idle process of the bot (one that has not played ``deal``, if given), else a new one."""
        idle = self._idle.get(submission.content_hash, [])
        for process in reversed(list(idle)):
            if deal and deal in self._dealt.get(process, ()):
                continue  # it played this deal from another seat: it might remember the cards
            idle.remove(process)
            used = process.cpu_seconds_used()
            if process.alive() and (used is None or used < self.limits.cpu_seconds / 2):
                self._note_deal(process, deal)
                return process
            self._discard(process)
        process = self._start_process(submission)
        self._note_deal(process, deal)
        return process

    def _note_deal(self, process: BotProcess, deal: str) -> None:
        if deal:
            self._dealt.setdefault(process, set()).add(deal)

    def _start_process(self, submission: Submission) -> BotProcess:
        process = make_bot_process(submission, self.limits, self.layers, allow_root=self.allow_root, cpu=self.cpu)
        self._all.add(process)
        self.started += 1
        self.tags.append(process.tag)
        try:
            process.start()
        except BotFailure:
            self._discard(process)
            raise
        except BaseException:
            self._discard(process)
            raise
        process.cpu_baseline = process.cpu_seconds_used() or 0.0
        return process

    def _turn_to(self, process: BotProcess) -> None:
        """Before ``process`` is asked: stop the one left running after its own decision, if another."""
        running = self._running
        if running is not None and running is not process:
            running.pause()
            self._running = None

    def _release(self, process: BotProcess) -> None:
        if self._running is process:
            self._running = None
        process.pause()
        if not process.alive():
            self._discard(process)
            return
        idle = self._idle.setdefault(process.submission.content_hash, [])
        if len(idle) >= self.keep_idle:
            self._discard(process)
        else:
            idle.append(process)

    def _discard(self, process: BotProcess) -> None:
        if self._running is process:
            self._running = None
        process.kill()
        self._all.discard(process)
        self._dealt.pop(process, None)
        for idle in self._idle.values():
            if process in idle:
                idle.remove(process)

    def retire(self, refs: Iterable[str]) -> int:
        """Stop the idle processes of bots that have no more matches to play here; how many were stopped."""
        stopped = 0
        for ref in refs:
            submission = self._submissions.get(ref)
            if submission is None:
                continue
            for process in list(self._idle.get(submission.content_hash, [])):
                self._discard(process)
                stopped += 1
        return stopped

    def processes(self) -> list[BotProcess]:
        """Every live process of this pool (idle or in a match)."""
        return [process for process in self._all if not process.dead]

    def close(self) -> None:
        """Stop every bot process of this pool."""
        for process in list(self._all):
            process.close()
        self._all.clear()
        self._idle.clear()
        self._dealt.clear()
        if self._saved_affinity is not None:
            try:
                os.sched_setaffinity(0, self._saved_affinity)
            except OSError:
                pass
            self._saved_affinity = None
            self.cpu = None


def current_cpu() -> int | None:
    """The CPU this process last ran on (from ``/proc/self/stat``), or ``None``."""
    try:
        with open("/proc/self/stat", "rb") as stat_file:
            text = stat_file.read()
        return int(text[text.rfind(b")") + 2 :].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def check_bot_reference(ref: str, game_id: str, pool: PlayerPool | None = None) -> None:
    """Raise :class:`UserError` if ``ref`` names no bot that plays ``game_id``."""
    if pool is None:
        if ref in bot_names():
            builtin_player(ref, game_id)
            return
        with PlayerPool() as temporary:
            temporary.check(ref, game_id)
        return
    pool.check(ref, game_id)
