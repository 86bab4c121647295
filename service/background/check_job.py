"""One submission's check, in a process of its own: ``python -m service.background.check_job --db URL --submission ID``.

The same check as ``ladder validate`` (:func:`ladder.seats.botstore.check_submitted_bot`: the build in the build sandbox, then
the bot loaded and played in the sandbox), then the served ladder's own rules (a bot's name belongs to the
author who first submitted it; a retired bot takes no new version), then ``ladder submit``'s registration and
the version's activation (:func:`activate`). It writes its verdict into the submission's row itself, so the
server only starts it and waits; run twice (a server killed mid-check starts it again), it ends the same way:
registering the same files again adds nothing.
"""

from __future__ import annotations

import argparse
import json
import sys

from sqlmodel import Session

from bots.registry import bot_names
from ladder.errors import UserError
from ladder.paths import results_dir
from ladder.sandbox.build import BuildLimits
from ladder.sandbox.parent_death import die_with_parent
from ladder.seats.botstore import CheckReport, check_submitted_bot, register
from ladder.seats.names import lookalike_of, reserved_because
from ladder.store import bot_queries, served_checks
from ladder.store.served_tables import (
    AuthorRow,
    BotState,
    ServedBotRow,
    ServedVersionRow,
    SubmissionRow,
    SubmissionState,
    VersionState,
)
from ladder.store.tables import BotVersionRow, utcnow
from ladder.text import clean_text
from service.db import service_session

EXPLANATION_CHARS = 4000


def _shown(text: str, folder: str, filename: str) -> str:
    """Text for the author: the server's folder replaced by the name they uploaded."""
    return clean_text(text.replace(folder, filename or "the upload"))


def lookalike_problem(session: Session, author: AuthorRow, name: str) -> str | None:
    """Why ``name`` may not be a new bot's name: it passes for a built-in bot or looks like another author's
    (the one rule of :mod:`ladder.seats.names`; a bot of ``author``'s own may be spelled another way)."""
    reserved = reserved_because(name, bot_names())
    if reserved is not None:
        return reserved
    owners = served_checks.served_owners(session)
    others = (bot.name for bot in served_checks.all_bots(session) if owners.get(bot.id or 0) != author.id)
    clash = lookalike_of(name, (other for other in others if other != name))
    if clash is not None:
        return (
            f"the name {name!r} looks like {clash!r}, a bot of another author's (or the operator's) on this ladder; "
            "choose a name that does not (set `name = ...` or pass --name)"
        )
    return None


def ownership_problem(session: Session, author: AuthorRow, name: str) -> str | None:
    """Why ``author`` may not submit a bot named ``name`` here, or None."""
    bot = bot_queries.bot_named(session, name)
    if bot is None:
        return lookalike_problem(session, author, name)
    served = session.get(ServedBotRow, bot.id)
    if served is None:
        return f"the name {name!r} belongs to a bot registered on this ladder by its operator; choose another name"
    if served.author_id != author.id:
        return (
            f"the name {name!r} belongs to another author's bot; choose another name (set `name = ...` or pass --name)"
        )
    if served.state == BotState.RETIRED.value:
        return f"the bot {name!r} was retired by the operator and takes no new version"
    return None


def activate(session: Session, author: AuthorRow, version: BotVersionRow, cap: int) -> list[int]:
    """Put ``version`` on the schedule (its bot owned by ``author``); the bot's versions past the cap (the oldest
    first) retire from scheduling and keep their ratings. The superseded versions' ids.

    The cap is per bot: an author's newest ``cap`` versions of *each* bot play, so a burst of versions of one bot
    supersedes only that bot's older versions and never takes the author's other bots off the schedule.
    """
    assert version.id is not None and author.id is not None
    if session.get(ServedBotRow, version.bot_id) is None:
        session.add(ServedBotRow(bot_id=version.bot_id, author_id=author.id))
    served = session.get(ServedVersionRow, version.id) or ServedVersionRow(
        bot_version_id=version.id, bot_id=version.bot_id, author_id=author.id
    )
    served.state, served.activated_at = VersionState.ACTIVE.value, utcnow()
    session.add(served)
    session.flush()
    active = served_checks.placed_versions(session, author.id, version.bot_id)  # this bot's: the cap is per bot
    superseded = []
    for old in active[max(1, cap) :]:
        old.state = VersionState.SUPERSEDED.value
        session.add(old)
        superseded.append(old.bot_version_id)
    return superseded


def _fail(session: Session, row: SubmissionRow, problem: str, explanation: str = "") -> None:
    row.state, row.problem = SubmissionState.FAILED.value, problem[:2000]
    row.explanation, row.finished_at = explanation[-EXPLANATION_CHARS:], utcnow()
    session.add(row)
    session.commit()


def _check_json(report: CheckReport) -> str:
    return json.dumps(
        {"games": report.games, "matches": report.matches, "bot": report.info.to_json() if report.info else None}
    )


def run(db_url: str | None, submission_id: int, matches: int, cap: int) -> SubmissionState:
    """Check, register and activate one submission; its final state (also written to its row)."""
    with service_session(db_url) as session:
        row = session.get(SubmissionRow, submission_id)
        if row is None:
            raise UserError(f"no submission #{submission_id}")
        if SubmissionState(row.state).final:
            return SubmissionState(row.state)
        author = session.get(AuthorRow, row.author_id)
        assert author is not None
        if author.revoked_at is not None:  # revoked while it waited: the operator has stopped this author
            _fail(
                session,
                row,
                f"the token of {author.name!r} was revoked before this submission was checked; "
                "it was not checked and goes on no schedule",
            )
            return SubmissionState.FAILED
        folder = str(results_dir() / row.upload_dir)
        try:
            report = check_submitted_bot(
                folder, name=row.name_override or None, matches_per_table=matches, build_limits=BuildLimits()
            )
        except UserError as error:
            _fail(session, row, _shown(str(error), folder, row.filename))
            return SubmissionState.FAILED
        row.bot_name, row.content_hash, row.check_json = report.name, report.content_hash, _check_json(report)
        session.add(row)
        session.commit()  # no write transaction left open: the registration below writes through its own connection
        if not report.ok:
            _fail(
                session,
                row,
                _shown(report.problem, folder, row.filename),
                _shown(report.explanation, folder, row.filename),
            )
            return SubmissionState.FAILED
        refusal = ownership_problem(session, author, report.name)
        if refusal is not None:
            _fail(session, row, refusal)
            return SubmissionState.FAILED
        session.commit()
        try:
            registration = register(report, db_url)
        except UserError as error:
            _fail(session, row, _shown(str(error), folder, row.filename))
            return SubmissionState.FAILED
        version = served_checks.registered_version(session, registration.content_hash)
        activate(session, author, version, cap)
        row.state, row.bot_version_id, row.finished_at = SubmissionState.ACTIVE.value, version.id, utcnow()
        session.add(row)
        session.commit()
        return SubmissionState.ACTIVE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.background.check_job", description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--submission", type=int, required=True)
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--cap", type=int, default=2)
    parser.add_argument("--parent-pid", type=int, default=0, help="The server: this check dies with it.")
    args = parser.parse_args(argv)
    if args.parent_pid:
        die_with_parent(args.parent_pid)  # a killed server's check must not go on writing to its database
    try:
        state = run(args.db, args.submission, args.matches, args.cap)
    except UserError as error:
        print(f"error: {clean_text(str(error), one_line=True)}", file=sys.stderr)
        return 2
    print(state.value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
