"""Playing one match: seats, bots, the failure rule, the action log.

The runner talks to each seat through the Bot API (``start``/``act``/``end``).
A seat may be a bot object in this process or a proxy to a sandboxed bot
process; either may raise :class:`BotFailure`. The failure rule: a bot that
times out, crashes, answers garbage, makes an illegal move or raises loses
the match. Its seat is played on to the end by a seeded random stand-in so
that the game finishes and the other seats keep their order; the failed
seats are then ranked last. Once the game is over its result is final: a bot
that fails while hearing it (``end``) is told so in its stderr and the log
(:attr:`MatchOutcome.after_game`), and the result stands. A failure in
``start`` is the bot's, like one in ``act``.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bots.base import MatchStart
from bots.random_bot import RandomBot
from engine import GameResult, find_legal, get_game
from engine.rng import derive_seed
from ladder.matches.statuses import FailureReason


class BotApi(Protocol):
    """The Bot API (``start``/``act``/``end``): all a bare seat has, a bot object or a test's stand-in."""

    def start(self, match: MatchStart) -> None: ...

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]: ...

    def end(self, result: dict[str, Any]) -> None: ...


class Player(BotApi, Protocol):
    """What the runner needs from a seat: the Bot API, and what the seat can do between turns.

    - ``plays_forced_moves``: a decision with one legal action is answered without running the bot (a sandboxed
      seat's :mod:`ladder.matches.forced_moves`), so the seat that ran last is not stopped for it;
    - ``pause_between_turns()``: another seat is about to run: stop this one if it was left running;
    - ``stderr_text``: what the bot wrote to stderr during the match, once it has ended.

    :class:`SeatPlayer` gives the defaults (an in-process seat: nothing to stop, no stderr of its own).
    """

    @property
    def plays_forced_moves(self) -> bool: ...

    def pause_between_turns(self) -> None: ...

    @property
    def stderr_text(self) -> str: ...


class SeatPlayer:
    """The defaults of :class:`Player`'s capabilities, for a seat that runs in this process."""

    stderr_text: str = ""

    @property
    def plays_forced_moves(self) -> bool:
        return False

    def pause_between_turns(self) -> None:
        """Nothing runs between this seat's turns."""


class BareSeat(SeatPlayer):
    """A bare :class:`BotApi` object as a :class:`Player` with the default capabilities (see :func:`as_player`)."""

    __slots__ = ("bot",)

    def __init__(self, bot: BotApi) -> None:
        self.bot = bot

    def start(self, match: MatchStart) -> None:
        self.bot.start(match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self.bot.act(observation, legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        self.bot.end(result)


def as_player(seat: Player | BotApi) -> Player:
    """``seat`` itself when it is a :class:`SeatPlayer` (every seat the ladder makes), else wrapped in a
    :class:`BareSeat`: a bot object given straight to :func:`play_match` (a test, a benchmark) has no capabilities."""
    return seat if isinstance(seat, SeatPlayer) else BareSeat(seat)


FAILURE_REASONS = tuple(FailureReason)  # the values, in the order of FailureReason


class BotFailure(Exception):
    """A bot broke the rules of the ladder; ``reason`` is a :class:`~ladder.matches.statuses.FailureReason` (a string)."""

    def __init__(self, reason: str, detail: str, stderr_tail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.stderr_tail = stderr_tail


class TimeoutKind(enum.Enum):
    """Which clock ran out: the move's CPU time (with the bank), its wall-clock cap, or the start-up limit."""

    CPU = "cpu"
    WALL = "wall"
    STARTUP = "startup"


class BotTimeout(BotFailure):
    """A bot ran out of time (reason ``timeout``), with the clock that ran out.

    ``host_fault`` is empty when the bot is to blame; otherwise it says how
    the host starved the bot (a wall-clock timeout while it was runnable but
    not running, or stopped by someone else): such a match is voided, never
    counted against the bot.
    """

    def __init__(self, kind: TimeoutKind, detail: str, stderr_tail: str = "", host_fault: str = "") -> None:
        super().__init__("timeout", detail, stderr_tail)
        self.kind = kind
        self.host_fault = host_fault


@dataclass(frozen=True)
class SeatFailure:
    """Why a seat lost by failure, for the record; ``host_fault`` (empty if none) voids the match."""

    reason: str
    detail: str
    stderr_tail: str = ""
    at_action: int = 0
    host_fault: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "detail": self.detail,
            "stderr_tail": self.stderr_tail,
            "at_action": self.at_action,
            "host_fault": self.host_fault,
        }

    @classmethod
    def of(cls, failure: BotFailure, at_action: int) -> SeatFailure:
        host_fault = failure.host_fault if isinstance(failure, BotTimeout) else ""
        return cls(failure.reason, failure.detail, failure.stderr_tail, at_action, host_fault)


@dataclass(frozen=True)
class MatchSpec:
    """All a worker needs to play a match: game, options, the bots by seat, the deal's seed and the bots' seeds.

    ``bot_seeds`` (one per seat) come from a secret the bots never see
    (:mod:`ladder.matches.deals`); without them (``ladder play``, whose deals come
    from a public ``--seed`` anyway) each bot's seed is a one-way hash of the
    deal's seed.
    """

    game: str
    seats: tuple[str, ...]
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)
    key: str = ""
    bot_seeds: tuple[int, ...] = ()

    def seed_of_bot(self, seat: int) -> int:
        return self.bot_seeds[seat] if self.bot_seeds else seat_seed(self.seed, seat)


@dataclass(frozen=True)
class MatchOutcome:
    """What a match produced: the result after the failure rule, the log and the timings."""

    spec: MatchSpec
    result: GameResult
    actions: tuple[dict[str, Any], ...]
    failures: Mapping[int, SeatFailure]
    seconds: float
    think_seconds: tuple[float, ...]
    stderr: tuple[str, ...] = ()  # per seat: the end of what a sandboxed bot wrote to stderr in this match
    after_game: Mapping[int, str] = field(default_factory=dict)  # per seat: how it failed in end() (the result stands)
    move_seconds: tuple[float, ...] = ()  # the thinking time of each action of ``actions`` (a stand-in's too)

    @property
    def scores(self) -> tuple[float, ...]:
        return self.result.scores

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.result.ranks


def apply_failure_rule(result: GameResult, failed: Sequence[int]) -> GameResult:
    """Rank failed seats last (tied among themselves); the others keep their order."""
    if not failed:
        return result
    failed_set = set(failed)
    n = len(result.ranks)
    ranks = []
    for seat in range(n):
        if seat in failed_set:
            ranks.append(n - len(failed_set) + 1)
        else:
            better = sum(
                1 for other in range(n) if other not in failed_set and result.ranks[other] < result.ranks[seat]
            )
            ranks.append(better + 1)
    return GameResult(result.scores, tuple(ranks), result.details)


def after_game_note(failure: BotFailure) -> str:
    """What a bot that failed while hearing the result is told (its stderr, the log): the result stands."""
    return (
        f"[ladder] after the game was over, while hearing the result: {failure.reason}: {failure.detail} "
        "(logged; the result of the match stands)"
    )


def _with_note(stderr: str, note: str) -> str:
    return f"{stderr.rstrip()}\n{note}".lstrip("\n") if note else stderr


def seat_seed(match_seed: int, seat: int) -> int:
    """The seed a seat's bot is given for its own randomness when the match has no secret bot seeds (derived from
    the match's public seed; :func:`ladder.matches.deals.sealed_bot_seed` draws the secret ones).

    Never the match seed itself: every deal is drawn from the match seed, so a
    bot that knew it could compute the hidden cards. A one-way hash of it
    reveals nothing of the seed, but anyone who can guess the match seed can
    compute it: tournaments and the submission check give secret bot seeds
    instead (:attr:`MatchSpec.bot_seeds`).
    """
    return derive_seed(match_seed, "bot", seat)


def _substitute(seat: int, spec: MatchSpec, num_players: int, options: dict[str, Any]) -> Player:
    stand_in = RandomBot()
    stand_in.start(MatchStart(spec.game, seat, num_players, dict(options), derive_seed(spec.seed, "stand-in", seat)))
    return BareSeat(stand_in)


class _Turns:
    """The seat that ran last: a sandboxed bot is left running after its own decision until another seat is about to
    run (its next decision is often right after), and stopped then (a sandboxed seat's ``pause_between_turns``; an
    in-process bot has nothing to stop). ``seats``: the match's list of players, substitutes included."""

    __slots__ = ("seats", "running")

    def __init__(self, seats: list[Player]) -> None:
        self.seats = seats
        self.running: int | None = None

    def before(self, seat: int, legal: Sequence[Any]) -> None:
        """``seat`` is about to be asked for a decision with ``legal`` actions."""
        player = self.seats[seat]
        # a sandboxed bot's forced moves (one legal action) are answered without running it (plays_forced_moves)
        runs = len(legal) > 1 or not player.plays_forced_moves
        if self.running != seat and runs:
            self.stop()
            self.running = seat

    def stop(self) -> None:
        """Stop the seat that ran last, if it is a sandboxed bot left running."""
        if self.running is not None:
            self.seats[self.running].pause_between_turns()
            self.running = None


def play_match(spec: MatchSpec, players: Sequence[Player | BotApi]) -> MatchOutcome:
    """Play ``spec`` with one player per seat (a bare bot object gets :class:`SeatPlayer`'s defaults) and apply the
    failure rule."""
    given = [as_player(player) for player in players]
    game = get_game(spec.game)
    num_players = len(spec.seats)
    state = game.new_state(num_players, spec.seed, spec.options)
    options = dict(state.options)
    seats: list[Player] = list(given)
    failures: dict[int, SeatFailure] = {}
    think = [0.0] * num_players
    actions: list[dict[str, Any]] = []
    move_seconds: list[float] = []
    started = time.perf_counter()

    def fail(seat: int, failure: BotFailure) -> None:
        failures[seat] = SeatFailure.of(failure, len(actions))
        seats[seat] = _substitute(seat, spec, num_players, options)

    for seat in range(num_players):
        try:
            seats[seat].start(MatchStart(spec.game, seat, num_players, options, spec.seed_of_bot(seat)))
        except BotFailure as failure:
            fail(seat, failure)

    turns = _Turns(seats)
    try:  # whatever ends the game, an exception included, no bot is left running
        while not state.is_over():
            mover = state.current_player
            assert mover is not None
            seat = mover
            legal = state.legal_actions()
            turns.before(seat, legal)
            observation, offered = state.offer()  # copies: an in-process bot may change them, never the match
            tick = time.perf_counter()
            try:
                action = seats[seat].act(observation, offered)
            except BotFailure as failure:
                think[seat] += time.perf_counter() - tick
                fail(seat, failure)
                continue
            spent = time.perf_counter() - tick
            think[seat] += spent
            chosen = find_legal(action, legal)  # exact JSON types: 2.0 is not 2, true is not 1
            if chosen is None:
                shown = repr(action)
                fail(
                    seat,
                    BotFailure(
                        FailureReason.ILLEGAL,
                        f"answered {shown[:200]}, which is not one of the {len(legal)} legal actions",
                    ),
                )
                continue
            state.apply(chosen)
            actions.append(chosen)
            move_seconds.append(spent)

    finally:
        turns.stop()
    result = apply_failure_rule(state.result(), sorted(failures))
    after_game: dict[int, str] = {}
    end_tails: dict[int, str] = {}
    for seat in range(num_players):
        if seat in failures:
            continue
        try:
            seats[seat].end(result.to_json())
        except BotFailure as failure:  # the game is over: the result is final, whatever the bot does now
            after_game[seat] = after_game_note(failure)
            end_tails[seat] = failure.stderr_tail
    stderr = tuple(
        failures[seat].stderr_tail
        if seat in failures
        else _with_note(end_tails.get(seat) or given[seat].stderr_text, after_game.get(seat, ""))
        for seat in range(num_players)
    )
    return MatchOutcome(
        spec,
        result,
        tuple(actions),
        failures,
        time.perf_counter() - started,
        tuple(think),
        stderr,
        after_game,
        tuple(move_seconds),
    )
