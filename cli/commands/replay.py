"""`ladder replay MATCH`: a recorded match step by step, rebuilt with the engine from its log."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from cli.commands.dbview import DbOption, database, failure_lines, find_match, version_names
from engine import IllegalActionError, get_game
from ladder.errors import UserError
from ladder.ratings.summary import ordinal
from ladder.views import match_lists

if TYPE_CHECKING:
    from engine.core import Game, State
    from ladder.store.tables import MatchRow, SeatResultRow

MAX_LEGAL_SHOWN = 40  # a long list of legal actions is cut here (the chosen one is always shown)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def observation_lines(observation: Any) -> list[str]:
    """A seat's observation, readable: the simple facts on one line, each bigger part on a line of its own,
    then the events it saw since its last decision, one per line."""
    if not isinstance(observation, dict):
        return [compact(observation)]
    simple = [
        f"{key} {compact(value)}"
        for key, value in observation.items()
        if not isinstance(value, (dict, list)) and key != "events"
    ]
    lines = [", ".join(simple)] if simple else []
    for key, value in observation.items():
        if isinstance(value, (dict, list)) and key != "events":
            lines.append(f"{key}: {compact(value)}")
    for event in observation.get("events") or []:
        lines.append(f"event: {compact(event)}")
    return lines


def legal_lines(legal: list[Any], chosen: Any) -> list[str]:
    """The legal actions offered, numbered from 0 as the bot saw them, the chosen one marked."""
    chosen_at = next((i for i, action in enumerate(legal) if action == chosen), None)
    shown = set(range(min(len(legal), MAX_LEGAL_SHOWN))) | ({chosen_at} if chosen_at is not None else set())
    lines = []
    for index in sorted(shown):
        mark = "->" if index == chosen_at else "  "
        lines.append(f"{mark} {index:>3}. {compact(legal[index])}")
    if len(legal) > len(shown):
        lines.append(f"       ... {len(legal) - len(shown)} more")
    return lines


def replay(
    match_ref: Annotated[str, typer.Argument(metavar="MATCH", help="A match id (see `ladder matches`) or key.")],
    view: Annotated[
        list[int] | None,
        typer.Option(
            "--view",
            help="At this seat's decisions, show what it saw, the legal actions offered and its choice; repeatable.",
        ),
    ] = None,
    board: Annotated[bool, typer.Option("--board", help="Show the whole state (every card) after each move.")] = False,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each move.")] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the replay as JSON: every move, with the --view seats' raw observations and legal actions.",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Replay a recorded match move by move: game + seed + options + the action log, through the engine."""
    console = Console()
    match, seats, who = _recorded(db, match_ref)
    failures = [s for s in seats if s.failure_reason]
    if match.status != "played":
        _refuse_unplayed(None if as_json else console, match, failures, who)
    game = get_game(match.game)
    _check_view(view or [], match)
    player = _Replayer.of(
        match,
        seats,
        who,
        view or [],
        board=board,
        step=step and not as_json,
        out=(lambda *args, **kwargs: None) if as_json else console.print,
    )
    state, moves = player.play(game)
    result = state.result()
    recorded = [s.score for s in seats]
    replays = state.is_over() and list(result.scores) == recorded
    if as_json:
        print(
            json.dumps(
                {
                    "match": match.id,
                    "key": match.key,
                    "game": match.game,
                    "players": match.num_players,
                    "seed": match.seed,
                    "options": match.options,
                    "seats": who,
                    "moves": moves,
                    "scores": list(result.scores),
                    "recorded_scores": recorded,
                    "replays": replays,
                    "failures": _failures_json(failures, who),
                },
                indent=2,
            )
        )
    else:
        _print_result(console, seats, who, result.scores)
    if not replays:
        raise UserError(f"match {match.id} replays to scores {list(result.scores)}, not the recorded {recorded}")
    if not as_json:
        console.print("the replay ends with the recorded scores", style="green")


def _recorded(db: str | None, match_ref: str) -> tuple[MatchRow, Sequence[SeatResultRow], list[str]]:
    """The match meant by ``match_ref``, its seats in seat order and the bot at each seat ("?" for a version
    no longer in the database)."""
    with database(db) as session:
        match = find_match(session, match_ref)
        seats = match_lists.match_seats(session, match.id or 0)
        names = version_names(session)
    who = [names[s.bot_version_id].bot if s.bot_version_id in names else "?" for s in seats]
    return match, seats, who


def _refuse_unplayed(
    console: Console | None, match: MatchRow, failures: Sequence[SeatResultRow], who: list[str]
) -> NoReturn:
    """A skipped or errored match has no complete log to replay: say why it was not played (its failed seats
    in full, unless ``console`` is None: --json) and stop."""
    if console is not None:
        for s in failures:
            console.print(
                failure_lines(match.id, s.seat, who[s.seat], s.failure_reason or "", s.failure_detail, s.stderr_tail)
            )
    raise UserError(
        f"match {match.id} was not played ({match.status}{': ' + match.error if match.error else ''}); nothing to replay"
    )


def _check_view(view: list[int], match: MatchRow) -> None:
    """Refuse a --view seat the match does not have."""
    for seat in view:
        if not 0 <= seat < match.num_players:
            raise UserError(f"--view {seat}: match {match.id} has seats 0 to {match.num_players - 1}")


def _failures_json(failures: Sequence[SeatResultRow], who: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "bot": who[s.seat],
            "reason": s.failure_reason,
            "detail": s.failure_detail,
            "traceback": s.stderr_tail,
            "at_action": s.at_action,
        }
        for s in failures
    ]


@dataclass
class _Replayer:
    """Steps a recorded match through the engine one logged action at a time, saying each move (and, at the
    --view seats' decisions, what the seat saw) as it goes; under --json ``out`` says nothing."""

    match: MatchRow
    who: list[str]  # the bot at each seat
    viewers: list[int]  # the --view seats
    failed_at: dict[int, int]  # failed seat -> how many actions were played before a random stand-in took over
    out: Callable[..., None]
    board: bool
    step: bool  # wait for Enter after each move

    @classmethod
    def of(
        cls,
        match: MatchRow,
        seats: Sequence[SeatResultRow],
        who: list[str],
        view: list[int],
        *,
        board: bool,
        step: bool,
        out: Callable[..., None],
    ) -> _Replayer:
        return cls(
            match=match,
            who=who,
            viewers=list(dict.fromkeys(view)),
            board=board,
            step=step,
            out=out,
            failed_at={s.seat: s.at_action for s in seats if s.failure_reason and s.at_action is not None},
        )

    def header(self) -> None:
        match = self.match
        self.out(
            f"[bold]match {match.id}[/bold] {match.game}, {match.num_players} player(s), seed {match.seed}, "
            f"options {json.dumps(match.options)}",
            highlight=False,
        )
        self.out(Text("seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(self.who))), highlight=False)

    def play(self, game: Game) -> tuple[State, list[dict[str, Any]]]:
        """Replay the whole log from the deal; return the final state and the moves (for --json)."""
        match = self.match
        self.header()
        state = game.new_state(match.num_players, match.seed, match.options)
        if self.board:
            self.out(state.render(), highlight=False, markup=False)
        moves = [self.move(state, number, action) for number, action in enumerate(match.actions, start=1)]
        return state, moves

    def move(self, state: State, number: int, action: Any) -> dict[str, Any]:
        """Apply logged move ``number`` to ``state``, saying it; return it as the JSON output lists it."""
        seat = state.current_player
        assert seat is not None
        stand_in = seat in self.failed_at and number - 1 >= self.failed_at[seat]
        actor = f"{self.who[seat]} (random stand-in)" if stand_in else self.who[seat]
        move: dict[str, Any] = {
            "number": number,
            "seat": seat,
            "bot": self.who[seat],
            "stand_in": stand_in,
            "action": action,
        }
        if seat in self.viewers:
            move |= self.show_decision(state, seat, actor, number, action)
        try:
            state.apply(action)
        except IllegalActionError as error:
            raise UserError(
                f"match {self.match.id} does not replay at move {number}: {error} (the engine changed since it was played?)"
            ) from None
        self.out(Text(f"{number:>4}. seat {seat} {actor}: {json.dumps(action)}"), highlight=False)
        if self.board:
            self.out(state.render(), highlight=False, markup=False)
        if self.step:
            input()
        return move

    def show_decision(self, state: State, seat: int, actor: str, number: int, action: Any) -> dict[str, Any]:
        """Say what ``seat`` saw and could choose before move ``number``; return both (for --json)."""
        observation, legal = state.observation(seat), state.legal_actions()
        self.out(Text(f"  seat {seat} sees ({actor}, deciding move {number}):", style="dim"))
        for line in observation_lines(observation):
            self.out(Text(f"    {line}"), soft_wrap=True)
        self.out(Text(f"  legal actions ({len(legal)}), the choice marked ->:", style="dim"))
        for line in legal_lines(legal, action):
            self.out(Text(f"    {line}"), soft_wrap=True)
        return {"observation": observation, "legal": legal}


def _print_result(console: Console, seats: Sequence[SeatResultRow], who: list[str], scores: Sequence[float]) -> None:
    """Each seat's replayed score beside its recorded rank, then every failed seat told in full."""
    console.print(
        Text(
            "result: "
            + ", ".join(
                f"seat {s.seat} {who[s.seat]} score {scores[s.seat]:g}, recorded {ordinal(s.rank)}" for s in seats
            )
        )
    )
    for s in seats:
        if s.failure_reason:
            console.print(
                failure_lines(
                    None, s.seat, who[s.seat], s.failure_reason or "", s.failure_detail, s.stderr_tail, s.at_action
                )
            )
