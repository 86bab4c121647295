"""Built-in bots as seat players: run in the ladder's own process, their exceptions turned into failures."""

from __future__ import annotations

import time
import traceback
from typing import Any

from bots.base import Bot, Clock, MatchStart
from bots.registry import UnknownBotError, get_bot_class
from ladder.errors import UserError
from ladder.matches.match import BotFailure, BotTimeout, Player, SeatPlayer, TimeoutKind
from ladder.matches.statuses import FailureReason
from ladder.sandbox.host_evidence import CpuTheft, bot_cpus
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.move_clock import MoveUsage, own_run_delay, timeout_detail


class InProcessPlayer(SeatPlayer):
    """A built-in bot object, with its exceptions turned into :class:`BotFailure`."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.bot, method)(*args)
        except Exception as error:  # the failure rule covers any exception a bot raises
            tail = "".join(traceback.format_exception(error)[-6:])
            raise BotFailure(FailureReason.EXCEPTION, f"{type(error).__name__} in {method}(): {error}", tail) from None

    def start(self, match: MatchStart) -> None:
        self._call("start", match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self._call("act", observation, legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        self._call("end", result)


class ClockedInProcessPlayer(InProcessPlayer):
    """A built-in bot under the CPU clocks of a submitted one (``limits.clock_builtin_bots``).

    The bot runs in the ladder's own thread, so its CPU time is that
    thread's (:func:`time.thread_time`) and its clock is checked when it
    answers: a built-in bot is the ladder's own code and cannot be stopped
    mid-move, but one that used more than ``move_seconds`` plus its bank, or
    answered after the wall-clock cap, loses on time like any other (a
    wall-clock overrun while the thread waited for a CPU is a host fault).
    """

    def __init__(self, bot: Bot, limits: SandboxLimits) -> None:
        super().__init__(bot)
        self.limits = limits
        self.bank = limits.bank_seconds

    def _call(self, method: str, *args: Any) -> Any:
        limits = self.limits
        self.bot.clock = Clock(limits.move_seconds, round(self.bank, 3))
        delay_before = own_run_delay()
        theft = CpuTheft.start(bot_cpus(None))  # the ladder's thread runs it: CPU others took from it is evidence
        wall, cpu = time.monotonic(), time.thread_time()
        answer = super()._call(method, *args)
        wall, cpu = time.monotonic() - wall, time.thread_time() - cpu
        allowed = limits.move_seconds + self.bank
        cap = limits.wall_seconds(self.bank)
        what = f"in {method}()"
        if cpu > allowed:
            detail, _ = timeout_detail(TimeoutKind.CPU, MoveUsage(wall, cpu), allowed, cap, what)
            raise BotTimeout(TimeoutKind.CPU, detail)
        if wall > cap:
            delay_after = own_run_delay()
            delay = (
                None if delay_before is None or delay_after is None else min(wall, (delay_after - delay_before) / 1e9)
            )
            cpus = theft.cpus
            usage = MoveUsage(wall, cpu, delay, outside_cpu_seconds=theft.outside_seconds(), cpus=len(cpus))
            detail, host_fault = timeout_detail(TimeoutKind.WALL, usage, allowed, cap, what)
            raise BotTimeout(TimeoutKind.WALL, detail, "", host_fault)
        self.bank = max(0.0, self.bank - max(0.0, cpu - limits.move_seconds))
        return answer


def builtin_player(name: str, game_id: str, limits: SandboxLimits | None = None) -> Player:
    """A fresh in-process player for the built-in bot ``name`` in ``game_id`` (under clocks if ``limits`` ask for them)."""
    try:
        cls = get_bot_class(name, game_id)
    except UnknownBotError as error:
        raise UserError(str(error)) from None
    if limits is not None and limits.clock_builtin_bots:
        return ClockedInProcessPlayer(cls(), limits)
    return InProcessPlayer(cls())
