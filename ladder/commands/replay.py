"""`ladder replay MATCH`: a recorded match step by step, rebuilt with the engine from its log."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from engine import IllegalActionError, get_game
from ladder.commands.dbview import DbOption, database, failure_lines, find_match, ordinal, version_names
from ladder.errors import UserError
from ladder.statuses import MatchStatus

MAX_LEGAL_SHOWN = 40  # a long list of legal actions is cut here (the chosen one is always shown)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def observation_lines(observation: Any) -> list[str]:
    """A seat's observation, readable: the simple facts on one line, each bigger part on a line of its own,
    then the events it saw since its last decision, one per line."""
    if not isinstance(observation, dict):
        return [compact(observation)]
    simple = [f"{key} {compact(value)}" for key, value in observation.items()
              if not isinstance(value, (dict, list)) and key != "events"]
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
    view: Annotated[list[int] | None, typer.Option("--view", help="At this seat's decisions, show what it saw, the legal actions offered and its choice; repeatable.")] = None,
    board: Annotated[bool, typer.Option("--board", help="Show the whole state (every card) after each move.")] = False,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each move.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the replay as JSON: every move, with the --view seats' raw observations and legal actions.")] = False,
    db: DbOption = None,
) -> None:
    """Replay a recorded match move by move: game + seed + options + the action log, through the engine."""
    from sqlmodel import col, select

    from ladder.storage import SeatResultRow

    console = Console()
    with database(db) as session:
        match = find_match(session, match_ref)
        seats = session.exec(select(SeatResultRow).where(SeatResultRow.match_id == match.id).order_by(col(SeatResultRow.seat))).all()
        names = version_names(session)
    who = [names[s.bot_version_id].bot if s.bot_version_id in names else "?" for s in seats]
    failures = [s for s in seats if s.failure_reason]
    if match.status != MatchStatus.PLAYED:
        if not as_json:
            for s in failures:
                console.print(failure_lines(match.id, s.seat, who[s.seat], s.failure_reason or "", s.failure_detail, s.stderr_tail))
        raise UserError(f"match {match.id} was not played ({match.status}{': ' + match.error if match.error else ''}); nothing to replay")
    game = get_game(match.game)
    for seat in view or []:
        if not 0 <= seat < match.num_players:
            raise UserError(f"--view {seat}: match {match.id} has seats 0 to {match.num_players - 1}")
    viewers = list(dict.fromkeys(view or []))
    out = (lambda *args, **kwargs: None) if as_json else console.print
    out(f"[bold]match {match.id}[/bold] {match.game}, {match.num_players} player(s), seed {match.seed}, "
        f"options {json.dumps(match.options)}", highlight=False)
    out(Text("seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(who))), highlight=False)
    state = game.new_state(match.num_players, match.seed, match.options)
    if board:
        out(state.render(), highlight=False, markup=False)
    failed_at = {s.seat: s.at_action for s in seats if s.failure_reason and s.at_action is not None}
    moves: list[dict[str, Any]] = []
    for number, action in enumerate(match.actions, start=1):
        mover = state.current_player
        assert mover is not None
        seat = mover
        stand_in = seat in failed_at and number - 1 >= failed_at[seat]
        actor = f"{who[seat]} (random stand-in)" if stand_in else who[seat]
        move: dict[str, Any] = {"number": number, "seat": seat, "bot": who[seat], "stand_in": stand_in, "action": action}
        if seat in viewers:
            observation, legal = state.observation(seat), state.legal_actions()
            move |= {"observation": observation, "legal": legal}
            out(Text(f"  seat {seat} sees ({actor}, deciding move {number}):", style="dim"))
            for line in observation_lines(observation):
                out(Text(f"    {line}"), soft_wrap=True)
            out(Text(f"  legal actions ({len(legal)}), the choice marked ->:", style="dim"))
            for line in legal_lines(legal, action):
                out(Text(f"    {line}"), soft_wrap=True)
        try:
            state.apply(action)
        except IllegalActionError as error:
            raise UserError(f"match {match.id} does not replay at move {number}: {error} (the engine changed since it was played?)") from None
        moves.append(move)
        out(Text(f"{number:>4}. seat {seat} {actor}: {json.dumps(action)}"), highlight=False)
        if board:
            out(state.render(), highlight=False, markup=False)
        if step and not as_json:
            input()
    result = state.result()
    recorded = [s.score for s in seats]
    replays = state.is_over() and list(result.scores) == recorded
    if as_json:
        print(json.dumps({
            "match": match.id, "key": match.key, "game": match.game, "players": match.num_players, "seed": match.seed,
            "options": match.options, "seats": who, "moves": moves, "scores": list(result.scores), "recorded_scores": recorded,
            "replays": replays,
            "failures": [{"seat": s.seat, "bot": who[s.seat], "reason": s.failure_reason, "detail": s.failure_detail,
                          "traceback": s.stderr_tail, "at_action": s.at_action} for s in failures],
        }, indent=2))
    else:
        console.print(Text("result: " + ", ".join(
            f"seat {s.seat} {who[s.seat]} score {result.scores[s.seat]:g}, recorded {ordinal(s.rank)}" for s in seats)))
        for s in failures:
            console.print(failure_lines(None, s.seat, who[s.seat], s.failure_reason or "", s.failure_detail, s.stderr_tail, s.at_action))
    if not replays:
        raise UserError(f"match {match.id} replays to scores {list(result.scores)}, not the recorded {recorded}")
    if not as_json:
        console.print("the replay ends with the recorded scores", style="green")
