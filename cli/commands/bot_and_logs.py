"""`ladder bot NAME` and `ladder logs NAME`: one bot as its author sees it, from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.dbview import DbOption, database
from cli.commands.tables import fitted_table, number_column, print_table
from ladder.errors import UserError
from ladder.matches.statuses import MatchStatus
from ladder.paths import results_dir
from ladder.views import figures
from ladder.views.records import ReportData, VersionInfo, load
from ladder.views.states import VersionStates
from ladder.views.states import states as served_states

BotArgument = Annotated[str, typer.Argument(metavar="NAME", help="A bot name (every version), or name@hash.")]
ReportOption = Annotated[
    Path | None,
    typer.Option("--report", metavar="DIR", help="Where `ladder report` writes the site (default: results/report)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print it as JSON.")]
# A bot's seat in these was never played (benched, or the match could not be played): not one of its failures, and
# nothing to replay; its record counts them apart (`skipped`, `errors`).
NOT_PLAYED = (MatchStatus.SKIPPED, MatchStatus.ERROR)


def _load(db: str | None, ref: str) -> tuple[ReportData, list[VersionInfo]]:
    data, versions, _ = _load_with_states(db, ref)
    return data, versions


def _load_with_states(db: str | None, ref: str) -> tuple[ReportData, list[VersionInfo], VersionStates]:
    """The database as the report reads it, the versions ``ref`` names, and every served version's state."""
    with database(db) as session:
        data = load(session)
        shown = served_states(session)
    found = data.versions_named(ref)
    if not found:
        known = sorted({v.bot for v in data.versions.values()})
        raise UserError(f"no bot {ref!r} in the database; bots: {', '.join(known) or 'none yet'}")
    return data, sorted(found, key=lambda v: v.version_id), shown


def _quoted(console: Console, text: str) -> None:
    for line in text.rstrip().splitlines():
        console.print(f"  [dim]|[/dim] {escape(line)}", highlight=False, soft_wrap=True)


def bot(
    name: BotArgument,
    failures: Annotated[int, typer.Option("--failures", min=0, help="How many of the latest failures to show.")] = 5,
    report_dir: ReportOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """One bot: its ratings per pool with their uncertainty, its record, its latest failures with the end of its
    stderr, and where to watch them (the report's replay pages, `ladder replay ID`)."""
    data, versions, shown = _load_with_states(db, name)
    site = report_dir if report_dir is not None else results_dir() / "report"
    site_written = (site / "index.html").is_file()
    items = [
        _version_json(data, info, site, failures) | {"state": shown.of(info.version_id).value} for info in versions
    ]
    if as_json:
        print(json.dumps({"versions": items, "report_written": site_written}, indent=2))
        return
    console = Console()
    for item in items:
        _print_version(console, item)
    if not site_written:
        console.print("(the report is not written there yet: `ladder report` writes it)", highlight=False, style="dim")


def _version_json(data: ReportData, info: VersionInfo, site: Path, failures: int) -> dict[str, Any]:
    """One bot version as --json shows it: who, its record, its place in every pool, its latest ``failures``
    failures and where the report shows it."""

    standings = []
    for pool in data.rated.pools():
        for position, standing in enumerate(data.rated.table(pool), start=1):
            if standing.bot_version_id == info.version_id:
                standings.append(
                    {
                        "pool": pool,
                        "rank": position,
                        "of": len(data.rated.standings[pool]),
                        "mu": standing.mu,
                        "sigma": standing.sigma,
                        "conservative": standing.conservative,
                        "matches": standing.matches,
                        "win_rate": standing.win_rate,
                        "failures": standing.failures,
                    }
                )
    found = [f for f in figures.failures(data, [info.version_id]) if f.match.status not in NOT_PLAYED]
    record = figures.record(data, info.version_id)
    return {
        "bot": info.bot,
        "version": info.version,
        "hash": info.content_hash,
        "author": info.author,
        "source": info.source,
        "record": {
            "matches": record.matches,
            "firsts": record.firsts,
            "failures": record.failures,
            "skipped": record.skipped,
            "errors": record.errors,
        },
        "ratings": standings,
        # `ladder report` writes a page only for a version with a seat in a recorded match
        "page": str(site / info.page) if data.matches_of(info.version_id) else None,
        "failures": [
            {
                "match": f.match.match_id,
                "pool": f.match.pool,
                "seat": f.seat.seat,
                "reason": f.seat.failure_reason,
                "detail": f.seat.failure_detail,
                "at_action": f.seat.at_action,
                "stderr_tail": f.seat.stderr_tail,
                "replay": str(site / f.match.page),
            }
            for f in found[:failures]
        ],
        "failure_count": len(found),
    }


def _print_version(console: Console, item: dict[str, Any]) -> None:
    """One bot version for its author: who, its record, its ratings table, its latest failures, its page."""
    record = item["record"]
    console.print(
        f"[bold]{escape(item['bot'])}[/bold] version {escape(item['version'])} ({item['hash'][:12]}), by "
        f"{escape(item['author'] or '(no author given)')}, {item['source']}"
        + (f"; {item['state']} on the served ladder" if item.get("state", "house") != "house" else ""),
        highlight=False,
    )
    console.print(
        f"{record['matches']} matches played, {record['firsts']} won at a table, {record['failures']} lost "
        f"by failure"
        + (f", {record['skipped']} skipped (benched)" if record["skipped"] else "")
        + (f", {record['errors']} could not be played" if record["errors"] else ""),
        highlight=False,
    )
    if item["ratings"]:
        table = fitted_table("Ratings")
        for column in ("pool", "rank", "mu", "sigma", "mu-3σ", "matches", "win rate", "failed"):
            number_column(table, column, left=column == "pool")
        for row in item["ratings"]:
            table.add_row(
                row["pool"],
                f"{row['rank']} of {row['of']}",
                f"{row['mu']:.2f}",
                f"{row['sigma']:.2f}",
                f"{row['conservative']:.2f}",
                str(row["matches"]),
                "-" if row["win_rate"] is None else f"{row['win_rate']:.0%}",
                str(row["failures"] or "-"),
            )
        print_table(
            console,
            table,
            "rank: by mu - 3 sigma in the pool; sigma: the rating's uncertainty "
            "(the true skill is within mu ± 2 sigma with 95% belief)",
        )
    else:
        console.print("not rated in any pool yet", style="dim")
    _print_failures(console, item)
    if item["page"] is None:
        console.print("no page in the report until it has played a match", highlight=False, style="dim")
        return
    console.print("its page in the report:", highlight=False)
    console.print(escape(item["page"]), highlight=False, soft_wrap=True)


def _print_failures(console: Console, item: dict[str, Any]) -> None:
    """A version's latest failures, each with the end of its stderr and where to watch it."""
    if not item["failures"]:
        console.print("no failure", style="dim")
        return
    shown = len(item["failures"])
    console.print(f"[bold]Failures[/bold] (latest {shown} of {item['failure_count']}):", highlight=False)
    for failure in item["failures"]:
        where = f", after {failure['at_action']} moves" if failure["at_action"] is not None else ""
        console.print(
            f"match {failure['match']} ({failure['pool']}, seat {failure['seat']}{where}): "
            f"[red]{escape(failure['reason'])}[/red]: {escape(failure['detail'])}",
            highlight=False,
        )
        if failure["stderr_tail"].strip():
            _quoted(console, failure["stderr_tail"])
        console.print(f"  watch it: ladder replay {failure['match']}, or in the report:", highlight=False, style="dim")
        console.print(f"  {escape(failure['replay'])}", highlight=False, soft_wrap=True, style="dim")


def logs(
    name: BotArgument,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many of its latest matches.")] = 10,
    all_matches: Annotated[bool, typer.Option("--all", help="Also list matches in which it wrote nothing.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The bot's own stderr (the end of it, per match) from its latest matches, newest last."""
    data, versions = _load(db, name)
    wanted = {v.version_id for v in versions}
    entries: list[dict[str, Any]] = []
    for match in data.matches:
        for seat in match.seats:
            if seat.version_id in wanted and (all_matches or seat.stderr_tail.strip()):
                entries.append(
                    {
                        "match": match.match_id,
                        "pool": match.pool,
                        "seat": seat.seat,
                        "version": data.versions[seat.version_id].label,
                        "status": match.status,
                        "failure": seat.failure_reason,
                        "stderr": seat.stderr_tail,
                        "finished": match.finished_at.strftime("%Y-%m-%d %H:%M:%S"),
                    }
                )
    entries = entries[-limit:]
    if as_json:
        print(json.dumps(entries, indent=2))
        return
    console = Console()
    if not entries:
        console.print(
            f"{escape(name)} wrote nothing to stderr in its recorded matches (sandboxed bots' stderr is kept; "
            "built-in bots run in the worker and have none)",
            highlight=False,
        )
        return
    for entry in entries:
        failed = f", failed: [red]{escape(entry['failure'])}[/red]" if entry["failure"] else ""
        console.print(
            f"[bold]match {entry['match']}[/bold] {entry['pool']}, seat {entry['seat']}, {escape(entry['version'])}, "
            f"{entry['finished']}{failed}",
            highlight=False,
        )
        if entry["stderr"].strip():
            _quoted(console, entry["stderr"])
        else:
            console.print("  (nothing on stderr)", style="dim")
