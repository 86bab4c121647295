"""Forced moves: a decision with a single legal action is not sent to a sandboxed bot.

There is nothing to choose, and a sandboxed decision costs a round trip
through the bot's process (tens of microseconds: writing the observation,
waking the bot, reading its answer, stopping it again) where the in-process
match spends a few. Half of Elfer raus's decisions are forced. So the ladder
plays the one legal action itself, and the bot hears of it at its next
decision: the ``events`` of the observations it was not sent are put in
front of the ``events`` of the next observation it is sent, in order, so it
sees every event its seat witnessed exactly as if it had been asked (and the
consequences of the forced action are among the next observation's events,
as for any action). What follows the bot's last decision it is not sent
anyway: ``end`` carries the result.

A bot that wants every call says so: ``every_decision = True`` on its
:class:`~bots.base.Bot` class, or ``every_decision = true`` in its
``bot.toml``. The clocks are not touched by a forced move: the bot is
stopped (``SIGSTOP``) whenever another seat runs, however many turns pass;
left running after its own decision until then, it is charged the CPU it
uses meanwhile at its next decision (:meth:`~ladder.sandbox.process.BotProcess.request`),
and the CPU its process uses is checked against the time it was given to
think (:class:`~ladder.seats.players.SandboxedPlayer`), so the turns it is not
asked give it no free CPU.
"""

from __future__ import annotations

from typing import Any


class ForcedMoves:
    """One seat's forced moves in one match: which decisions to answer without the bot, and the held events."""

    __slots__ = ("every_decision", "held", "skipped")

    def __init__(self, every_decision: bool = False) -> None:
        self.every_decision = every_decision
        self.held: list[Any] = []  # events of the observations not sent, oldest first
        self.skipped = 0  # decisions answered without the bot in this match

    def answer(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The action to play without asking the bot (the only legal one), or ``None``: ask it.

        Before the bot is asked, the events held since its last decision go in front of this observation's.
        """
        if len(legal_actions) == 1 and not self.every_decision:
            events = observation.get("events")
            if isinstance(events, list):
                self.held.extend(events)
            self.skipped += 1
            return legal_actions[0]
        if self.held:
            events = observation.get("events")
            if isinstance(events, list):  # the observation is the match's copy for this call: ours to change
                observation["events"] = self.held + events
            self.held = []
        return None
