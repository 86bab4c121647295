"""The bot store: checking a submitted bot in the sandbox and registering it.

``ladder validate PATH`` runs :func:`check_submitted_bot`; ``ladder submit PATH`` runs
it and then :func:`register`:

1. the files are read (one ``.py`` file, or a folder with ``bot.py`` or
   ``bot.toml``) and hashed (:mod:`ladder.sandbox.submission`); a ``bot.toml`` with a
   ``build`` is built in the build sandbox (:mod:`ladder.sandbox.build`), and the
   folder the build leaves is the bot from here on (a failed build fails the
   check with the end of its output);
2. the bot is loaded *in the sandbox* and describes itself (name, author,
   version, games); the ladder never imports it;
3. the description is checked: a usable name that is not a built-in bot's,
   and games that are on the ladder (``"*"`` means every game);
4. it plays a few matches of each game it claims in every seat of every table
   size the game allows, against the cheap built-in bots (random, thumb), within the limits, on fresh
   secret deals and with fresh secret bot seeds each time (a bot cannot
   recognise the check by its seeds and behave only then). Any failure
   (timeout, crash, garbage, illegal move, exception, memory) fails the
   check, with the bot's own traceback or stderr; so does CPU use while it
   waits between matches (a background thread);
5. on submit, its files (as built) are copied to ``results/bots/<sha256>/`` and it is
   recorded (:class:`~ladder.store.tables.BotRow`,
   :class:`~ladder.store.tables.BotVersionRow`). Changed files make a new version
   of the same name; unchanged files are recognised and nothing is added.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from bots.registry import bots_for_game
from engine import game_ids, get_game
from ladder.errors import UserError
from ladder.matches.deals import fresh_seed
from ladder.matches.match import BotFailure, MatchSpec, play_match
from ladder.paths import results_dir
from ladder.sandbox.bot_info import BotInfo
from ladder.sandbox.build import BuildFailure, BuildLimits, stage_bot
from ladder.sandbox.host_load import worker_cpus
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.submission import MANIFEST_FILE, Submission, content_hash, read_files, read_manifest, write_tree
from ladder.seats.builtin_players import builtin_player
from ladder.seats.names import check_name
from ladder.seats.players import PlayerPool, failure_line, store_folder
from ladder.store import bot_queries
from ladder.store.database import session_for
from ladder.store.tables import BotRow, BotVersionRow
from ladder.text import clean_text

IDLE_WINDOW = 0.3  # seconds the check watches an idle bot process for CPU use
CHECK_OPPONENTS = ("random", "thumb")  # fast built-in bots: the search bots think up to 50 ms a decision


@dataclass
class CheckReport:
    """What the check found: the bot's description, the matches it played, or why it failed."""

    path: str
    content_hash: str = ""
    info: BotInfo | None = None
    name: str = ""
    games: list[str] = field(default_factory=list)
    matches: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""  # one sentence, empty when the check passed
    explanation: str = ""  # the bot's own traceback or stderr tail, when it has one
    process_tags: list[str] = field(default_factory=list)  # the sandboxed processes the check started (all stopped)
    source_hash: str = ""  # the hash of the submitted files (content_hash is that of what runs: after a build)
    built_dir: str = ""  # where the files the build left are, when the bot has a build
    build_failed: bool = False  # the explanation is the end of what the build printed, not the bot's stderr

    @property
    def ok(self) -> bool:
        return not self.problem

    def fail(self, problem: str, explanation: str = "") -> CheckReport:
        self.problem = problem
        self.explanation = explanation
        return self


def claimed_games(info: BotInfo) -> tuple[list[str], str | None]:
    """The registered games the bot claims, and why the claim is wrong (or ``None``)."""
    known = game_ids()
    if not info.games:
        return [], 'the bot claims no game: set `games = ("<game id>", ...)` or `("*",)` for every game'
    if "*" in info.games:
        if not known:
            return [], "the bot claims every game, but no game is registered on this ladder"
        return list(known), None
    unknown = [g for g in info.games if g not in known]
    if unknown:
        return (
            [],
            f"the bot claims {', '.join(repr(g) for g in unknown)}, not on this ladder (its games: {', '.join(known)})",
        )
    return list(dict.fromkeys(info.games)), None


@contextmanager
def _pinned_like_a_worker() -> Iterator[None]:
    """Run the check pinned to the CPU a tournament's first worker gets (the first this process may use).

    A tournament's local workers are pinned one per CPU, and the bots they start inherit that CPU
    (tournaments/executors/local_pool.py). A bot can read its CPU affinity, so the check pins its bots the same way:
    otherwise a bot could tell the check from a tournament and behave only while it is being checked.
    """
    first = worker_cpus(1)  # None where a tournament would not pin either (pinning off, or no affinity)
    if first is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(first))  # this thread: the bot processes it starts inherit it
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def check_submitted_bot(
    path: str,
    name: str | None = None,
    limits: SandboxLimits | None = None,
    layers: tuple[str, ...] | None = None,
    matches_per_table: int = 2,
    progress: Callable[[str], None] | None = None,
    allow_root: bool = False,
    build_limits: BuildLimits | None = None,
) -> CheckReport:
    """Load the bot at ``path`` in the sandbox and play a few matches of every game it claims.

    A bot whose ``bot.toml`` has a ``build`` is built first, in the build sandbox (:mod:`ladder.sandbox.build`);
    a failed build fails the check with the end of what it printed. Raises :class:`UserError` only for
    a path that is not a bot at all (missing, not Python, no entry file); anything the bot does wrong is
    in the report.
    """
    files = read_files(path)
    report = CheckReport(path, content_hash(files), source_hash=content_hash(files))
    if name is not None and (why := check_name(name)):  # a name given outright is refused before any sandbox work
        return report.fail(why)
    say = progress or (lambda _message: None)
    with (
        _pinned_like_a_worker(),
        PlayerPool(limits=limits or SandboxLimits(), layers=layers, allow_root=allow_root, keep_idle=4) as pool,
    ):
        report.process_tags = pool.tags  # the same list: filled in as processes start
        try:
            submission = _build(pool, path, files, build_limits, say)
        except BuildFailure as failure:
            report.build_failed = True
            return report.fail(str(failure), failure.stderr_tail)
        report.content_hash = submission.content_hash
        if report.content_hash != report.source_hash:
            report.built_dir = submission.host_dir
        if not _describe(pool, path, name, report, say):
            return report
        for game_id in report.games:
            for count, index in check_schedule(get_game(game_id).player_counts(), matches_per_table):
                if not _check_match(pool, path, game_id, count, index, report, say):
                    return report
        say("checking that the bot rests between turns")
        busy = pool.idle_cpu(path, IDLE_WINDOW)
        if busy > IDLE_WINDOW / 3:
            return report.fail(
                f"the bot kept working while it was not its turn ({busy:.2f} s of CPU in {IDLE_WINDOW:g} s of waiting, "
                "e.g. a background thread): that is not allowed and loses matches by timeout"
            )
    return report


def _build(
    pool: PlayerPool, path: str, files: dict[str, bytes], limits: BuildLimits | None, say: Callable[[str], None]
) -> Submission:
    """The submission the check plays: built first (once, with ``limits``) when its ``bot.toml`` has a build."""
    manifest = read_manifest(files, path) if MANIFEST_FILE in files else None
    if manifest is not None and manifest.build:
        say(f"building {path} in the build sandbox: {' '.join(manifest.build)}")
        stage_bot(path, pool.layers, limits)  # kept for this process: the pool's matches play this build
    return pool.submission(path)


def _describe(pool: PlayerPool, path: str, name: str | None, report: CheckReport, say: Callable[[str], None]) -> bool:
    """Load the bot and check what it says about itself (name, games) into ``report``; False when it failed."""
    say(f"loading {path} in the sandbox ({'+'.join(pool.layers)})")
    try:
        info = pool.describe(path)
    except BotFailure as failure:
        report.fail(f"the bot does not load: {failure_line(failure)}", failure.stderr_tail)
        return False
    report.info = info
    report.name = name or info.name
    why = check_name(report.name)
    if why:
        report.fail(why)
        return False
    games, why = claimed_games(info)
    if why:
        report.fail(why)
        return False
    report.games = games
    return True


def check_schedule(player_counts: Iterable[int], matches_per_table: int) -> list[tuple[int, int]]:
    """The check's matches of one game as (table size, match index): every seat of every table size at least once.

    The bot sits in seat ``index % size``, so a table of ``size`` players gets ``max(matches_per_table, size)``
    matches (a bug in the last seat at 3 players only must show here). The table sizes take turns, smallest
    first, so the check's matches come in the order a tournament's could (never all the 2-player ones in a row).
    """
    sizes = sorted(player_counts)
    per_size = {size: max(matches_per_table, size) for size in sizes}
    rounds = max(per_size.values(), default=0)
    return [(size, index) for index in range(rounds) for size in sizes if index < per_size[size]]


def check_opponents(game_id: str) -> list[str]:
    """The built-in bots the check seats beside the bot: the cheap ones (it tests the bot, not its strength)."""
    cheap = [name for name in bots_for_game(game_id) if name in CHECK_OPPONENTS]
    return cheap or ["random"]


def _check_match(
    pool: PlayerPool, path: str, game_id: str, count: int, index: int, report: CheckReport, say: Callable[[str], None]
) -> bool:
    """Play one match of the check (the bot in seat ``index % count``), recorded in ``report``; False if it failed."""
    opponents = check_opponents(game_id)
    seat = index % count
    seats = [opponents[(index + s) % len(opponents)] for s in range(count)]
    seats[seat] = path
    seed = fresh_seed()  # shown in the report once the match is over: nothing left to guess
    say(f"{game_id}: {count} player{'s' if count > 1 else ''}, match {index + 1}, seat {seat}")
    spec = MatchSpec(
        game_id,
        tuple(seats),
        seed,
        {},
        key=f"check-{game_id}-{count}-{index}",
        bot_seeds=tuple(fresh_seed() for _ in range(count)),
    )
    players = [pool.player(ref, game_id) if s == seat else builtin_player(ref, game_id) for s, ref in enumerate(seats)]
    outcome = play_match(spec, players)
    record = {
        "game": game_id,
        "players": count,
        "seat": seat,
        "seed": seed,
        "score": outcome.result.scores[seat],
        "rank": outcome.result.ranks[seat],
        "actions": len(outcome.actions),
        "think_seconds": round(outcome.think_seconds[seat], 4),
    }
    report.matches.append(record)
    failure = outcome.failures.get(seat)
    if failure is None and seat in outcome.after_game:  # in a tournament the result would stand; the check is strict
        note = outcome.after_game[seat]
        record["after_game"] = note
        report.fail(
            f"in {game_id} at {count} player{'s' if count > 1 else ''} (seed {seed}, seat {seat}) the bot "
            f"failed {note.removeprefix('[ladder] ')}",
            outcome.stderr[seat] if seat < len(outcome.stderr) else "",
        )
        return False
    if failure is None:
        return True
    record["failure"] = failure.to_json()
    said = failure_line(BotFailure(failure.reason, failure.detail, failure.stderr_tail))
    report.fail(
        f"in {game_id} at {count} player{'s' if count > 1 else ''} (seed {seed}, seat {seat}, "
        f"after {failure.at_action} actions) the bot lost by {said}",
        failure.stderr_tail,
    )
    return False


# ---------------------------------------------------------------- registration


@dataclass(frozen=True)
class Registration:
    """What :func:`register` did."""

    name: str
    version: str
    content_hash: str
    store_path: str
    created: bool  # False: the same files were already registered under that name
    version_count: int


def _copy_to_store(files: dict[str, bytes], digest: str) -> Path:
    target = store_folder(digest)
    if target.exists():
        existing = {}
        for dirpath, _dirnames, filenames in os.walk(target):
            for filename in filenames:
                full = Path(dirpath) / filename
                existing[full.relative_to(target).as_posix()] = full.read_bytes()
        if content_hash(existing) == digest:
            return target
        shutil.rmtree(target)  # a damaged copy: replace it
    partial = target.parent / f".{digest}.{os.getpid()}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    write_tree(files, partial)
    os.replace(partial, target)
    return target


def register(report: CheckReport, db_url: str | None = None) -> Registration:
    """Record a bot that passed :func:`check_submitted_bot` and copy its files into the bot store."""
    if not report.ok or report.info is None:
        raise ValueError("only a bot that passed the check can be registered")
    files = _files_to_store(report)
    digest = report.content_hash
    info = report.info
    author, version_label = clean_text(info.author, one_line=True), clean_text(info.version, one_line=True)
    with session_for(db_url) as session:
        same = bot_queries.version_with_hash(session, digest)
        if same is not None:
            owner = session.get(BotRow, same.bot_id)
            owner_name = owner.name if owner else "?"
            if owner_name != report.name:
                raise UserError(
                    f"these files are already registered as bot {owner_name!r} (version {same.version}, "
                    f"{digest[:12]}); the same code cannot be entered twice"
                )
            count = _version_count(session, same.bot_id)
            return Registration(owner_name, same.version, digest, same.store_path, False, count)
        new_folder = not store_folder(digest).exists()
        try:
            store = _copy_to_store(files, digest)
            bot = bot_queries.bot_named(session, report.name)
            if bot is None:
                bot = BotRow(name=report.name, author=author)
                session.add(bot)
                session.flush()
            elif author:
                bot.author = author
                session.add(bot)
            assert bot.id is not None
            version = _version_row(bot.id, version_label, digest, info.games, store)
            session.add(version)
            session.commit()
        except BaseException as error:  # nothing half-registered: no row, no orphan folder in the bot store
            session.rollback()
            if new_folder:
                shutil.rmtree(store_folder(digest), ignore_errors=True)
            if isinstance(error, (SQLAlchemyError, ValueError)):  # a value the database refuses
                said = clean_text(str(error).splitlines()[0] if str(error) else "", one_line=True)[:200]
                raise UserError(f"{report.path} could not be registered: {type(error).__name__}: {said}") from None
            raise
        return Registration(
            report.name, version_label, digest, version.store_path, True, _version_count(session, bot.id)
        )


def _files_to_store(report: CheckReport) -> dict[str, bytes]:
    """The files of the version the check played: as submitted, or as its build left them."""
    files = read_files(report.path)
    if content_hash(files) != (report.source_hash or report.content_hash):
        raise UserError(f"{report.path} changed while it was being checked; submit it again")
    if report.built_dir:
        files = read_files(report.built_dir)
        if content_hash(files) != report.content_hash:
            raise UserError(f"the build of {report.path} changed after the check ({report.built_dir}); submit it again")
    return files


def _version_row(bot_id: int, version: str, digest: str, games: tuple[str, ...], store: Path) -> BotVersionRow:
    return BotVersionRow(
        bot_id=bot_id,
        version=version,
        content_hash=digest,
        games_json=json.dumps(sorted(set(games))),
        source="submitted",
        store_path=store.relative_to(results_dir()).as_posix() if store.is_relative_to(results_dir()) else str(store),
    )


def _version_count(session: Session, bot_id: int) -> int:
    return bot_queries.version_count(session, bot_id)
