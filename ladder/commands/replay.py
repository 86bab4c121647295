"""`ladder replay MATCH`: a recorded match step by step, rebuilt with the engine from its log."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from engine import IllegalActionError, get_game
from ladder.commands.dbview import DbOption, database, find_match, ordinal, version_names
from ladder.errors import UserError
from ladder.text import clean_text


def replay(
    match_ref: Annotated[str, typer.Argument(metavar="MATCH", help="A match id (see `ladder matches`) or key.")],
    view: Annotated[list[int] | None, typer.Option("--view", help="Show this seat's observation before each move; repeatable.")] = None,
    board: Annotated[bool, typer.Option("--board", help="Show the whole state (every card) after each move.")] = False,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each move.")] = False,
    db: DbOption = None,
) -> None:
    """Replay a recorded match move by move: game + seed + options + the action log, through the engine."""
    from sqlmodel import select

    from ladder.storage import SeatResultRow

    console = Console()
    with database(db) as session:
        match = find_match(session, match_ref)
        seats = session.exec(select(SeatResultRow).where(SeatResultRow.match_id == match.id).order_by(SeatResultRow.seat)).all()
        names = version_names(session)
    if match.status != "played":
        raise UserError(f"match {match.id} was not played ({match.status}{': ' + match.error if match.error else ''}); nothing to replay")
    game = get_game(match.game)
    for seat in view or []:
        if not 0 <= seat < match.num_players:
            raise UserError(f"--view {seat}: match {match.id} has seats 0 to {match.num_players - 1}")
    who = [names[s.bot_version_id].bot if s.bot_version_id in names else "?" for s in seats]
    console.print(f"[bold]match {match.id}[/bold] {match.game}, {match.num_players} player(s), seed {match.seed}, "
                  f"options {json.dumps(match.options)}", highlight=False)
    console.print("seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(who)), highlight=False)
    state = game.new_state(match.num_players, match.seed, match.options)
    if board:
        console.print(state.render(), highlight=False, markup=False)
    failed_at = {s.seat: s.at_action for s in seats if s.failure_reason and s.at_action is not None}
    for number, action in enumerate(match.actions, start=1):
        seat = state.current_player
        assert seat is not None
        for viewer in view or []:
            console.print(f"  [dim]seat {viewer} sees:[/dim] {json.dumps(state.observation(viewer), separators=(',', ':'))}",
                          highlight=False)
        stand_in = seat in failed_at and number - 1 >= failed_at[seat]
        actor = f"{who[seat]} (random stand-in)" if stand_in else who[seat]
        try:
            state.apply(action)
        except IllegalActionError as error:
            raise UserError(f"match {match.id} does not replay at move {number}: {error} (the engine changed since it was played?)") from None
        console.print(f"{number:>4}. seat {seat} {actor}: {json.dumps(action)}", highlight=False)
        if board:
            console.print(state.render(), highlight=False, markup=False)
        if step:
            input()
    result = state.result()
    console.print("result: " + ", ".join(
        f"seat {s.seat} {who[s.seat]} score {result.scores[s.seat]:g}, recorded {ordinal(s.rank)}"
        + (f" (failed: {s.failure_reason}: {escape(clean_text(s.failure_detail, one_line=True))})" if s.failure_reason else "")
        for s in seats
    ), highlight=False)
    recorded = [s.score for s in seats]
    if not state.is_over() or list(result.scores) != recorded:
        raise UserError(f"match {match.id} replays to scores {list(result.scores)}, not the recorded {recorded}")
    console.print("the replay ends with the recorded scores", style="green")
