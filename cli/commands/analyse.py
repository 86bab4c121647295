"""`ladder analyse MATCH` and `ladder blunders BOT`: which decisions cost a seat the most, and what was better."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from cli.commands.options import DbOption
from ladder.errors import UserError

if TYPE_CHECKING:
    from ladder.analysis.blunders import BlunderReport
    from ladder.analysis.model import DecisionAnalysis, Interval, SeatAnalysis

SHOWN = 10  # the costliest decisions listed without --json

ReferenceOption = Annotated[
    str,
    typer.Option(
        "--reference",
        help="How actions are valued: thumb (rollouts by thumb at every seat) or search (the search bot's own values).",
    ),
]
SamplesOption = Annotated[
    int | None,
    typer.Option("--samples", min=2, help="Worlds drawn per decision (default: 16 for thumb, 12 for search)."),
]
SeedOption = Annotated[int, typer.Option("--seed", help="The analysis's own seed (its worlds and luck).")]
WorkersOption = Annotated[
    int | None, typer.Option("--workers", min=1, help="Local worker processes (default: the CPU count).")
]


def _reference(text: str) -> Any:
    from ladder.analysis.model import Reference

    try:
        return Reference(text)
    except ValueError:
        raise UserError(f"--reference is thumb or search, not {text!r}") from None


def _interval(value: Interval) -> str:
    return f"{value.mean:.3g} [{value.low:.3g}, {value.high:.3g}]"


def _decision_lines(decision: DecisionAnalysis, cumulative: float) -> list[str]:
    from ladder.analysis.core import action_text

    chosen = decision.actions[decision.chosen]
    best = decision.actions[decision.best]
    return [
        f"move {decision.move}: loss {_interval(decision.loss)}, held-out {_interval(decision.held_out)} "
        f"(cumulative {cumulative:.3g})",
        f"  saw     {decision.seen}",
        f"  chose   {action_text(chosen.action)}  value {chosen.value:.3g}",
        f"  best    {action_text(best.action)}  value {best.value:.3g}",
    ]


def _print_analysis(console: Console, analysis: SeatAnalysis, from_cache: bool, seconds: float) -> None:
    cumulative = dict(zip((d.move for d in analysis.decisions), analysis.cumulative()))
    ranked = analysis.costliest()
    unranked = [d for d in analysis.decisions if d.indistinguishable]
    key = analysis.key
    how = "from the cache" if from_cache else f"computed in {seconds:.1f} s"
    console.print(
        f"match {analysis.match_id} ({analysis.game}), seat {key.seat} ({analysis.bot or '?'}): "
        f"{len(analysis.decisions)} decisions analysed, {len(ranked)} with a loss, {len(unranked)} "
        f"indistinguishable (not ranked; their losses add {sum(d.loss.mean for d in unranked):.3g}); "
        f"reference {key.reference.value}, "
        f"{key.samples} samples, seed {key.seed}; values in {analysis.measure.value} ({how})",
        highlight=False,
    )
    for decision in ranked[:SHOWN]:
        for line in _decision_lines(decision, cumulative[decision.move]):
            console.print(line, highlight=False, markup=False)
    if len(ranked) > SHOWN:
        console.print(f"... {len(ranked) - SHOWN} more ranked decisions (--json lists them all)", highlight=False)
    console.print(f"total loss {_interval(analysis.total_loss)} {analysis.measure.value}", highlight=False)
    console.print(f"watch it: ladder replay {analysis.match_id} --view {key.seat}", highlight=False, style="dim")


def analyse(
    match_ref: Annotated[str, typer.Argument(metavar="MATCH", help="A match id (see `ladder matches`) or key.")],
    seat: Annotated[
        int | None, typer.Option("--seat", min=0, help="The seat to analyse (default: every seat).")
    ] = None,
    reference: ReferenceOption = "thumb",
    samples: SamplesOption = None,
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every analysed decision as JSON.")] = False,
    db: DbOption = None,
) -> None:
    """Which decisions of a seat cost it the most in a match: every action valued over worlds drawn from what it saw."""
    from cli.commands.dbview import database, find_match
    from ladder.analysis.cache import analyse_stored
    from ladder.analysis.core import AnalysisError
    from ladder.analysis.model import AnalysisKey

    chosen_reference = _reference(reference)
    count = samples if samples is not None else chosen_reference.default_samples()
    console = Console()
    results = []
    with database(db) as session:
        row = find_match(session, match_ref)
        seats = [seat] if seat is not None else list(range(row.num_players))
        if seat is not None and seat >= row.num_players:
            raise UserError(f"match {row.id} has seats 0 to {row.num_players - 1}, not {seat}")
        for each in seats:
            key = AnalysisKey(each, chosen_reference, count, seed)
            try:
                results.append(analyse_stored(session, row, key, workers or os.cpu_count() or 1))
            except AnalysisError as error:
                raise UserError(f"match {row.id}: {error}") from None
    if as_json:
        print(json.dumps([r.analysis.to_json() for r in results], indent=1))
        return
    for result in results:
        _print_analysis(console, result.analysis, result.from_cache, result.seconds)


def _print_blunders(console: Console, name: str, report: BlunderReport, measure: str) -> None:
    from ladder.analysis.core import action_text

    console.print(
        f"{name}: {report.seats} seats, {report.decisions} decisions ({report.ranked} ranked); mean loss per "
        f"decision {_interval(report.mean_loss)} {measure} (held-out)",
        highlight=False,
    )
    for situation in report.situations[:SHOWN]:
        console.print(
            f"{situation.chosen_type} where {situation.better_type} was better: {situation.count} decisions, "
            f"total loss {situation.total_loss:.3g}",
            highlight=False,
            markup=False,
        )
        for blunder in situation.worst:
            decision = blunder.decision
            console.print(
                f"  match {blunder.match_id} move {decision.move}: chose "
                f"{action_text(decision.actions[decision.chosen].action)}, best "
                f"{action_text(decision.actions[decision.best].action)}, loss {_interval(decision.loss)}"
                f"  (ladder replay {blunder.match_id} --view {blunder.seat}; report matches/{blunder.match_id}.html)",
                highlight=False,
                markup=False,
            )


def blunders(
    name: Annotated[str, typer.Argument(metavar="BOT", help="A bot's name.")],
    pool: Annotated[
        str | None, typer.Option("--pool", help="Only this game, or game and player count (elfer-raus/3p).")
    ] = None,
    matches: Annotated[int, typer.Option("--matches", min=1, help="How many of its latest matches to analyse.")] = 10,
    reference: ReferenceOption = "thumb",
    samples: SamplesOption = None,
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures and every situation as JSON.")] = False,
    db: DbOption = None,
) -> None:
    """A bot's mean loss per decision over its latest matches, and the decisions it gets most wrong, by situation."""
    from cli.commands.dbview import database
    from ladder.analysis.blunders import blunder_report
    from ladder.analysis.cache import analyse_stored
    from ladder.analysis.model import AnalysisKey
    from ladder.views.match_lists import latest_clean_seats

    chosen_reference = _reference(reference)
    count = samples if samples is not None else chosen_reference.default_samples()
    game, _, players = (pool or "").partition("/")
    console = Console()
    with database(db) as session:
        rows = latest_clean_seats(
            session, name, game or None, int(players.removesuffix("p")) if players else None, matches
        )
        if not rows:
            raise UserError(f"{name} has no played match{' in ' + pool if pool else ''} to analyse")
        analyses = [
            analyse_stored(
                session, match, AnalysisKey(seat.seat, chosen_reference, count, seed), workers or os.cpu_count() or 1
            ).analysis
            for match, seat in rows
        ]
    report = blunder_report(analyses)
    measures = sorted({a.measure.value for a in analyses})
    if as_json:
        print(json.dumps(_blunders_json(name, report, measures), indent=1))
        return
    _print_blunders(console, name, report, " / ".join(measures))


def _blunders_json(name: str, report: BlunderReport, measures: list[str]) -> dict[str, Any]:
    return {
        "bot": name,
        "seats": report.seats,
        "decisions": report.decisions,
        "ranked": report.ranked,
        "measures": measures,
        "mean_loss": report.mean_loss.to_json(),
        "situations": [
            {
                "chosen_type": s.chosen_type,
                "better_type": s.better_type,
                "count": s.count,
                "total_loss": s.total_loss,
                "worst": [
                    {
                        "match": b.match_id,
                        "seat": b.seat,
                        "replay": f"ladder replay {b.match_id} --view {b.seat}",
                        **b.decision.to_json(),
                    }
                    for b in s.worst
                ],
            }
            for s in report.situations
        ],
    }
