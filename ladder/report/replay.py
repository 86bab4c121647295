"""A recorded match rebuilt with the engine, frame by frame, as compact bytes for the shared replay viewer.

Frame 0 is the deal; frame k is the table after the k-th action. The viewer
(``static/replay.js``) draws each game from these frames and computes nothing
of the game itself. What a frame holds (docs/architecture.md, "The report"):

- every seat's own view, exactly :meth:`engine.State.observation` of that seat
  (what a bot in that seat was sent), split into the top-level keys every seat
  sees alike (``pub``) and those that differ by seat (``own``), each stored as
  the change from the previous frame (``{"set": {...}, "drop": [...]}``);
- ``hidden``: what no seat sees (the pack, face-down cards, the ball piles),
  read from the state for the full view, stored as a change too;
- the events the move logged, each with the seats that witnessed it;
- at a decision, the legal actions offered (``offer``), which one was
  chosen (``chose``, an index into ``offer``) and how long the seat thought
  (``think_us``, where the match recorded it).

:func:`replay_bytes` turns a match into gzip'd JSON: a pure function of the
match (its record, action log and seat names), so the static site and a live
server produce the same bytes.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import GameError, get_game
from engine.core import EventLog, State
from ladder.matches.statuses import MatchStatus
from ladder.views.records import MatchRecord, pool_title

REPLAY_FORMAT = 2
"""The version of the frames' layout: a change re-renders every replay of an incremental build."""


@dataclass(frozen=True)
class Replay:
    """What the viewer shows; ``problem`` says why it stops early (a log that no longer replays)."""

    frames: list[dict[str, Any]]
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"frames": self.frames, "problem": self.problem}


@dataclass(frozen=True)
class SeatLabel:
    """How the viewer names a seat: the bot, and its page (relative to the site's root; empty: no page)."""

    name: str
    page: str = ""


def _events(state: State, since: int) -> tuple[list[list[Any]], int]:
    """The events logged since ``since``: ``[witnesses or null (every seat), event]``."""
    log = getattr(state, "log", None)
    if not isinstance(log, EventLog):
        return [], since
    shown = [[None if witnesses is None else sorted(witnesses), event] for witnesses, event in log.entries[since:]]
    return shown, len(log.entries)


# ---- what no seat sees, for the full view ---------------------------------------------------------------


def _elfer_raus_hidden(state: Any) -> dict[str, Any]:
    from engine.elfer_raus import card_json

    return {
        "pack": [card_json(card) for card in sorted(state.pack)],
        "drawn": card_json(state.pending_draw) if state.pending_draw >= 0 else None,
    }


def _elevenses_hidden(state: Any) -> dict[str, Any]:
    from engine.elevenses.cards import CARDS_PER_SET

    def card(c: int) -> list[int]:
        return [c % CARDS_PER_SET + 1, c // CARDS_PER_SET]

    return {
        "face_down": [
            [None if (state.up[s][p] or state.card_at[s][p] < 0) else card(state.card_at[s][p]) for p in range(1, 11)]
            for s in range(state.num_players)
        ],
        "kitchens": [[card(c) for c in state.kitchen[s]] for s in range(state.num_players)],
        "transit": card(state.transit) if state.transit >= 0 else None,
    }


def _bowling_hidden(state: Any) -> dict[str, Any]:
    return {"piles": [list(pile) for pile in state.piles]}  # each pile bottom first: the last card is face up


HIDDEN: dict[str, Callable[[Any], dict[str, Any]]] = {
    "elfer-raus": _elfer_raus_hidden,
    "elevenses": _elevenses_hidden,
    "bowling-solitaire": _bowling_hidden,
}
"""What the full view adds to the seats' views, by game; a game absent here hides nothing from its seat."""


def hidden_of(state: State) -> dict[str, Any]:
    reader = HIDDEN.get(state.game.id)
    return reader(state) if reader else {}


# ---- changes between frames ----------------------------------------------------------------------------------


def dict_change(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """What turns ``before`` into ``after`` on its top-level keys (``{}`` when nothing changed)."""
    if before is None:
        return {"set": after} if after else {}
    change: dict[str, Any] = {}
    changed = {key: value for key, value in after.items() if key not in before or before[key] != value}
    dropped = [key for key in before if key not in after]
    if changed:
        change["set"] = changed
    if dropped:
        change["drop"] = dropped
    return change


def split_views(views: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The keys every seat sees alike, and each seat's own keys (the others)."""
    first = views[0]
    shared = {key: value for key, value in first.items() if all(key in v and v[key] == value for v in views[1:])}
    own = [{key: value for key, value in view.items() if key not in shared} for view in views]
    return shared, own


class _Framer:
    """Turns the states of a match into frames, each stored as the change from the previous one."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.shared: dict[str, Any] | None = None
        self.own: list[dict[str, Any] | None] = [None] * num_players
        self.hidden: dict[str, Any] | None = None
        self.logged = 0
        self.frames: list[dict[str, Any]] = []

    def add(self, state: State, move: dict[str, Any] | None) -> None:
        views = []
        for seat in range(self.num_players):
            view = state.observation(seat)  # the state's own copy; tuples become lists when the frames are written
            view.pop("events", None)  # stored once per frame below, with who witnessed each
            views.append(view)
        shared, own = split_views(views)
        hidden = hidden_of(state)
        events, self.logged = _events(state, self.logged)
        frame: dict[str, Any] = {"to_move": state.current_player}
        if move is not None:
            frame["move"] = move
        for name, change in (("pub", dict_change(self.shared, shared)), ("hidden", dict_change(self.hidden, hidden))):
            if change:
                frame[name] = change
        own_changes = [dict_change(self.own[seat], own[seat]) for seat in range(self.num_players)]
        if any(own_changes):
            frame["own"] = own_changes
        if events:
            frame["events"] = events
        if state.current_player is not None:
            frame["offer"] = list(state.legal_actions())  # never mutated (the engine's contract); written as JSON
        self.shared, self.own, self.hidden = shared, list(own), hidden
        self.frames.append(frame)


def build_replay(match: MatchRecord, actions: list[dict[str, Any]], move_us: Sequence[int] = ()) -> Replay:
    """Replay ``match`` through the engine; a match that was skipped or never played shows its deal only.
    ``move_us``: the thinking time of each action in microseconds, where recorded (a decision's ``think_us``)."""
    game = get_game(match.game)
    try:
        state = game.new_state(match.num_players, match.seed, match.options)
    except GameError as error:
        return Replay([], f"the deal cannot be rebuilt: {error}")
    stand_in_from = {s.seat: s.at_action for s in match.seats if s.failure_reason and s.at_action is not None}
    framer = _Framer(match.num_players)
    problem = ""
    framer.add(state, None)
    for number, action in enumerate(actions, start=1):
        seat = state.current_player
        offered = framer.frames[-1].get("offer", [])
        try:
            state.apply(action)
        except GameError as error:
            problem = f"move {number} does not replay: {error} (the engine changed since the match was played?)"
            break
        framer.frames[-1]["chose"] = next((i for i, a in enumerate(offered) if a == action), None)
        if number <= len(move_us):
            framer.frames[-1]["think_us"] = move_us[number - 1]
        stand_in = seat is not None and seat in stand_in_from and number - 1 >= stand_in_from[seat]
        framer.add(state, {"number": number, "seat": seat, "stand_in": stand_in})
    if not problem and match.status == MatchStatus.PLAYED and not state.is_over():
        problem = "the recorded moves end before the match does"
    return Replay(framer.frames, problem)


# ---- the bytes the viewer loads ---------------------------------------------------------------------------


def replay_document(
    match: MatchRecord,
    actions: list[dict[str, Any]],
    seats: Sequence[SeatLabel],
    tournament: str = "",
    move_us: Sequence[int] = (),
) -> dict[str, Any]:
    """Everything the viewer shows of ``match`` (``seats``: the label of each seat, in seat order)."""
    replay = build_replay(match, actions, move_us)
    return {
        "format": REPLAY_FORMAT,
        "match": {
            "id": match.match_id,
            "game": match.game,
            "title": pool_title(match.pool),
            "players": match.num_players,
            "seed": match.seed,
            "key": match.key,
            "status": str(match.status),
            "error": match.error,
            "options": match.options,
            "seconds": match.seconds,
            "tournament": tournament,
            "tournament_id": match.tournament_id,
        },
        "seats": [
            {
                "seat": s.seat,
                "name": seats[s.seat].name if s.seat < len(seats) else f"seat {s.seat}",
                "page": seats[s.seat].page if s.seat < len(seats) else "",
                "score": s.score,
                "rank": s.rank,
                "failure": s.failure_reason,
                "detail": s.failure_detail,
                "at_action": s.at_action,
                "stderr": s.stderr_tail,
                "hidden": s.hidden,
                "think": match.think[s.seat] if s.seat < len(match.think) else None,
            }
            for s in match.seats
        ],
        "problem": replay.problem,
        "frames": replay.frames,
    }


def replay_bytes(
    match: MatchRecord,
    actions: list[dict[str, Any]],
    seats: Sequence[SeatLabel],
    tournament: str = "",
    move_us: Sequence[int] = (),
) -> bytes:
    """The viewer's data for ``match``: gzip'd compact JSON (the browser inflates it with DecompressionStream).

    The gzip header's time stamp is zero, so the same match gives the same bytes (the incremental build
    compares them).
    """
    text = json.dumps(
        replay_document(match, actions, seats, tournament, move_us), separators=(",", ":"), ensure_ascii=False
    )
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


@functools.cache
def engine_fingerprint() -> str:
    """A hash of the engine's source: a changed engine may replay a match differently, so its replays are redone."""
    import engine

    digest = hashlib.sha256()
    root = Path(engine.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def replay_input_hash(
    match: MatchRecord, actions_z: bytes, seats: Sequence[SeatLabel], tournament: str = "", move_us_z: bytes = b""
) -> str:
    """A hash of everything :func:`replay_bytes` reads (the engine's source included), so an incremental build
    skips replaying an unchanged match."""
    digest = hashlib.sha256()
    digest.update(
        json.dumps(
            [REPLAY_FORMAT, engine_fingerprint(), repr(match), [(s.name, s.page) for s in seats], tournament],
            default=str,
        ).encode()
    )
    digest.update(actions_z)
    digest.update(b"\0" + move_us_z)
    return digest.hexdigest()
