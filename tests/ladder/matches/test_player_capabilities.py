"""The seat capabilities play_match reads are declared on the Player protocol (issue 34), with SeatPlayer's defaults."""

from __future__ import annotations

from typing import Any

from bots.base import MatchStart
from bots.random_bot import RandomBot
from ladder.matches.match import BareSeat, MatchSpec, SeatPlayer, as_player, play_match


class Paused(SeatPlayer):
    """A seat that counts its pauses, says it plays its own forced moves, and leaves a line of stderr."""

    def __init__(self) -> None:
        self.bot = RandomBot()
        self.pauses = 0
        self.stderr_text = "said something\n"

    @property
    def plays_forced_moves(self) -> bool:
        return True

    def pause_between_turns(self) -> None:
        self.pauses += 1

    def start(self, match: MatchStart) -> None:
        self.bot.start(match)

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self.bot.act(observation, legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        self.bot.end(result)


def test_a_seats_capabilities_reach_the_match_and_a_bare_bot_gets_the_defaults() -> None:
    seat = Paused()
    outcome = play_match(MatchSpec("elfer-raus", ("paused", "random"), seed=5), [seat, RandomBot()])
    assert not outcome.failures
    assert seat.pauses >= 1, "the other seat ran, so this one was paused before it"
    assert outcome.stderr == ("said something\n", "")
    bare = as_player(RandomBot())
    assert isinstance(bare, BareSeat) and not bare.plays_forced_moves and bare.stderr_text == ""
    assert as_player(seat) is seat
