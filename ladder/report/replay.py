"""A recorded match rebuilt with the engine, frame by frame, for the report's replay viewer.

Frame 0 is the deal; frame k is the table after the k-th action. Each frame
holds the whole table as the engine draws it (:meth:`engine.State.render`;
stored as the lines that changed since the previous frame),
the events logged by that action (with which seats witnessed them), and
every seat's own view: exactly :meth:`engine.State.observation` of that seat,
what a bot in that seat was sent. The page's script only displays these.
A seat's view is stored as the change from its view in the previous frame
(``{"set": {key: value}, "drop": [key]}`` on the observation's top-level
keys; the whole observation in frame 0), which keeps a page several times
smaller; the script applies the changes in order to show a frame.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine import GameError, get_game
from engine.core import EventLog, State
from ladder.matches.statuses import MatchStatus
from ladder.report.data import MatchRecord


@dataclass(frozen=True)
class Replay:
    """What the viewer shows; ``problem`` says why it stops early (a log that no longer replays)."""

    frames: list[dict[str, Any]]
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"frames": self.frames, "problem": self.problem}


def _events(state: State, since: int) -> tuple[list[dict[str, Any]], int]:
    log = getattr(state, "log", None)
    if not isinstance(log, EventLog):
        return [], since
    shown = [
        {"seen_by": "all" if witnesses is None else sorted(witnesses), "event": event}
        for witnesses, event in log.entries[since:]
    ]
    return shown, len(log.entries)


def board_change(before: list[str] | None, after: list[str]) -> dict[str, Any]:
    """What turns the drawing ``before`` into ``after``: its length in lines and the lines that differ, by index."""
    return {
        "length": len(after),
        "lines": [[i, line] for i, line in enumerate(after) if before is None or i >= len(before) or before[i] != line],
    }


def view_change(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """What turns the observation ``before`` into ``after`` (top-level keys set or dropped)."""
    if before is None:
        return {"set": after, "drop": []}
    changed = {key: value for key, value in after.items() if key not in before or before[key] != value}
    return {"set": changed, "drop": [key for key in before if key not in after]}


def build_replay(match: MatchRecord, actions: list[dict[str, Any]]) -> Replay:
    """Replay ``match`` through the engine; a match that was skipped or never played shows its deal only."""
    game = get_game(match.game)
    try:
        state = game.new_state(match.num_players, match.seed, match.options)
    except GameError as error:
        return Replay([], f"the deal cannot be rebuilt: {error}")
    stand_in_from = {s.seat: s.at_action for s in match.seats if s.failure_reason and s.at_action is not None}
    frames: list[dict[str, Any]] = []
    previous_views: list[dict[str, Any] | None] = [None] * match.num_players
    previous_board: list[str] | None = None
    logged = 0
    problem = ""

    def frame(move: dict[str, Any] | None) -> None:
        nonlocal logged, previous_board
        events, logged = _events(state, logged)
        views: list[dict[str, Any]] = []
        for seat in range(match.num_players):
            view = json.loads(json.dumps(state.observation(seat)))  # as the bot received it (tuples as lists)
            views.append(view_change(previous_views[seat], view))
            previous_views[seat] = view
        board = state.render().split("\n")
        frames.append(
            {
                "move": move,
                "board": board_change(previous_board, board),
                "to_move": state.current_player,
                "events": events,
                "views": views,
            }
        )
        previous_board = board

    frame(None)
    for number, action in enumerate(actions, start=1):
        seat = state.current_player
        try:
            state.apply(action)
        except GameError as error:
            problem = f"move {number} does not replay: {error} (the engine changed since the match was played?)"
            break
        stand_in = seat is not None and seat in stand_in_from and number - 1 >= stand_in_from[seat]
        frame({"number": number, "seat": seat, "action": action, "stand_in": stand_in})
    if not problem and match.status == MatchStatus.PLAYED and not state.is_over():
        problem = "the recorded moves end before the match does"
    return Replay(frames, problem)
