"""`ladder serve`, `ladder author`, `ladder login` and `ladder admin`: the served ladder (service/)."""

from __future__ import annotations

import enum
import getpass
import os
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from cli.commands.options import DbOption
from ladder.errors import UserError


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; keep 127.0.0.1 behind a TLS reverse proxy.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=0, help="Local match workers (0: one per core).")] = 0,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="Play on the Dask cluster of this scheduler instead of local workers.",
        ),
    ] = None,
    db: DbOption = None,
    placement: Annotated[
        int,
        typer.Option(
            "--placement",
            min=1,
            max=20,
            help="Deals a new version plays against each bot of each pool it claims, first.",
        ),
    ] = 2,
    active_versions: Annotated[
        int,
        typer.Option(
            "--active-versions",
            min=1,
            max=20,
            help="Versions of each bot on the schedule (an author's newest N of every bot); older ones retire from it "
            "(keeping their ratings). A new version supersedes only its own bot's older ones.",
        ),
    ] = 2,
    house: Annotated[
        list[str] | None,
        typer.Option(
            "--house", metavar="BOT", help="A built-in bot entered in every pool it plays, as a yardstick; repeatable."
        ),
    ] = None,
    per_hour: Annotated[
        int, typer.Option("--submissions-per-hour", min=1, help="Submissions each author may send per hour.")
    ] = 12,
    refresh: Annotated[
        float,
        typer.Option(
            "--refresh-seconds",
            min=1,
            help="Once every leaderboard is settled, play one deal per pool this often (to keep checking the order).",
        ),
    ] = 60.0,
    check_matches: Annotated[
        int,
        typer.Option(
            "--check-matches",
            min=1,
            max=50,
            help="Matches per game and table size in a submission's check (as `ladder validate --matches`).",
        ),
    ] = 2,
    secure_cookies: Annotated[
        bool, typer.Option("--secure-cookies", help="Send the login cookie over HTTPS only (behind a TLS proxy).")
    ] = False,
) -> None:
    """Serve the ladder: authors submit bots over HTTP, a scheduler plays them all the time, live pages and a JSON API show the results."""
    from bots.registry import bot_names
    from service.server import serve as run_server
    from service.settings import ServeSettings
    from tournaments.formats.config import check_scheduler_address

    for name in house or ():
        if name not in bot_names():
            raise UserError(f"--house {name}: no built-in bot of that name; built-in bots: {', '.join(bot_names())}")
    settings = ServeSettings(
        db_url=db,
        host=host,
        port=port,
        workers=workers,
        scheduler=check_scheduler_address(scheduler) if scheduler else None,
        placement_deals=placement,
        active_versions_per_author=active_versions,
        house_bots=tuple(house or ()),
        submissions_per_hour=per_hour,
        secure_cookies=secure_cookies,
        check_matches=check_matches,
        refresh_seconds=refresh,
        worker_setup=os.environ.get("LADDER_WORKER_SETUP") or None,
    )
    run_server(settings)


class AuthorAction(enum.StrEnum):
    ADD = "add"
    REVOKE = "revoke"
    LIST = "list"


def author(
    action: Annotated[AuthorAction, typer.Argument(help="add (prints a new token once), revoke, or list.")],
    name: Annotated[str | None, typer.Argument(help="The author's name.")] = None,
    operator: Annotated[
        bool,
        typer.Option(
            "--operator", help="With add: the operator (may pause, bench and retire bots, sees every submission)."
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Add an author of the served ladder (their token is printed once, stored only as a hash), revoke one, or list them."""
    from ladder.store.authors import add_author, revoke_author
    from ladder.store.served_tables import Role
    from ladder.views import catalog
    from service.db import service_session

    console = Console()
    with service_session(db) as session:
        if action is AuthorAction.LIST:
            for row in catalog.authors(session):
                state = "revoked" if row.revoked_at else "active"
                console.print(f"{escape(row.name)}  {row.role}  {state}", highlight=False)
            return
        if not name:
            raise UserError(f"`ladder author {action.value}` needs the author's name")
        if action is AuthorAction.REVOKE:
            revoke_author(session, name)
            console.print(f"revoked the token of {escape(name)}; their bots and submissions stay", highlight=False)
            return
        token = add_author(session, name, Role.OPERATOR if operator else Role.AUTHOR)
    console.print(
        f"added {'operator' if operator else 'author'} {escape(name)}; their token (shown once, keep it secret):",
        highlight=False,
    )
    print(token)


def login(
    url: Annotated[str, typer.Argument(metavar="URL", help="The server, e.g. https://ladder.example.org")],
) -> None:
    """Store your token for a ladder server (asked without echo; kept in your config folder, readable by you only)."""
    from service.client import Client, normal_url, save_token

    token = os.environ.get("LADDER_TOKEN", "").strip() or getpass.getpass(f"token for {normal_url(url)}: ").strip()
    if not token:
        raise UserError("no token given")
    client = Client(url, token)
    try:
        me = client.me()
    finally:
        client.close()
    path = save_token(url, token)
    Console().print(
        f"logged in to {escape(normal_url(url))} as {escape(me['name'])} ({me['role']}); token stored in "
        f"{escape(str(path))}",
        highlight=False,
    )


class AdminAction(enum.StrEnum):
    PAUSE = "pause"
    BENCH = "bench"
    RETIRE = "retire"
    RESUME = "resume"


def admin(
    action: Annotated[
        AdminAction,
        typer.Argument(help="pause, bench (with a reason shown on its page), retire (for good), or resume."),
    ],
    bot: Annotated[str, typer.Argument(help="The bot's name.")],
    reason: Annotated[str, typer.Option("--reason", help="Why: shown on the bot's page.")] = "",
    db: DbOption = None,
) -> None:
    """The operator's hand on the served ladder's schedule: pause, bench, retire or resume a bot (ratings are kept)."""
    from ladder.store.served_bots import Action, set_bot_state
    from service.db import service_session

    with service_session(db) as session:
        state = set_bot_state(session, bot, Action(action.value), reason)
    Console().print(f"{escape(bot)} is now {state.value}", highlight=False)


def _quota_sentence(accepted: dict[str, object]) -> str:
    """The quota the server says is left: "N of M submissions left this hour; the next frees up at HH:MM UTC"."""
    from datetime import datetime

    quota = accepted.get("quota")
    if not isinstance(quota, dict):
        return "the server said nothing of the quota"
    said = f"{quota.get('left')} of {quota.get('per_hour')} submissions left this hour"
    if quota.get("next_free_at"):
        said += f"; the next frees up at {datetime.fromisoformat(str(quota['next_free_at'])):%H:%M} UTC"
    return said


def submit_to_server(path: str, name: str | None, url: str, as_json: bool, wait: bool = True) -> None:
    """`ladder submit PATH --server URL`: upload, then wait for the server's check and print its verdict."""
    import json

    from ladder.text import clean_text
    from service.client import Client, token_for

    console = Console()
    client = Client(url, token_for(url))
    try:
        accepted = client.submit(path, name)
        if accepted.get("unchanged"):  # the same files as the author's latest: nothing checked, no quota spent
            if as_json:
                print(json.dumps(accepted, indent=2))
            else:
                console.print(escape(clean_text(str(accepted.get("message", "")), one_line=True)), highlight=False)
            return
        if not as_json:
            console.print(
                f"submitted {escape(path)} as submission #{accepted['id']} "
                f"({escape(clean_text(_quota_sentence(accepted), one_line=True))})",
                highlight=False,
            )
        if not wait:
            if as_json:
                print(json.dumps(accepted))
            return
        status = client.wait(
            accepted["id"],
            (lambda _s: None) if as_json else (lambda state: console.print(f"[dim]  {state}[/dim]", highlight=False)),
        )
    finally:
        client.close()
    if as_json:
        print(json.dumps(status, indent=2))
    if status["state"] == "active":
        if not as_json:
            console.print(
                f"[green]active[/green]: {escape(status['bot'])} ({status['content_hash'][:12]}) passed the "
                "check and is on the schedule",
                highlight=False,
            )
        return
    if status["state"] != "failed":
        raise UserError(
            f"submission #{accepted['id']} is still {status['state']}; see it later with "
            f"`ladder submissions --server {url}` or on {url}/me"
        )
    if not as_json and status.get("explanation", "").strip():
        console.print("  What the bot said (the end of its output):", highlight=False)
        for line in clean_text(status["explanation"]).strip().splitlines()[-30:]:
            console.print(f"  [dim]|[/dim] {escape(clean_text(line, one_line=True))}", highlight=False)
    raise UserError(f"submission #{accepted['id']} failed the check: {status['problem']}")


def submissions(
    server: Annotated[str, typer.Option("--server", metavar="URL", help="The ladder server.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON.")] = False,
) -> None:
    """Your submissions to a ladder server, newest first: state (queued, checking, active, failed) and why one failed."""
    import json

    from service.client import Client, token_for

    client = Client(server, token_for(server))
    try:
        me = client.me()
    finally:
        client.close()
    if as_json:
        print(json.dumps(me["submissions"], indent=2))
        return
    console = Console()
    console.print(f"{escape(me['name'])} ({me['role']}) on {escape(server)}", highlight=False)
    for row in me["submissions"]:
        problem = f": {escape(row['problem'])}" if row["problem"] else ""
        console.print(
            f"#{row['id']}  {row['state']:<9} {escape(row['bot'] or row['filename'])}{problem}", highlight=False
        )
