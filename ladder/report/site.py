"""Writing the report: Jinja2 templates (package data) filled from the read model (:mod:`ladder.views.records`, :mod:`ladder.views.figures`).

The site is plain files with relative links, so it works from ``file://`` as
well as from any web server, and needs no network: one style sheet and the
replay viewer (one script and its style sheet) are copied along; plots are SVG
files. Every text that comes from a bot (names, authors, failure details,
stderr) goes through Jinja2's autoescape, or the viewer's ``textContent``.

Each match is a tiny page (the viewer's shell) and a script holding its
replay as gzip'd JSON (:func:`ladder.report.replay.replay_bytes`, base64 in a
``LadderReplay.load(...)`` call: a ``<script>`` tag loads it from ``file://``,
where ``fetch`` is refused). The build is incremental: a manifest in the
folder keeps the hash of every file written and of every replay's inputs, so
a second build replays only new or changed matches and rewrites only the
files whose content changed; files of the last build that are no longer
produced are removed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlmodel import Session

from ladder.ratings import across_pools as ratings_across_pools
from ladder.ratings import certainty
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.summary import ordinal, score_histogram
from ladder.report import plots
from ladder.report.replay import SeatLabel, replay_bytes, replay_input_hash
from ladder.store.action_log import unpack_actions
from ladder.views import figures, leaderboard, records, served
from ladder.views.catalog import VersionName

STATIC_FILES = ("report.css", "replay.js", "replay.css")
LEADERBOARD_JSON = "leaderboards.json"  # the leaderboards as data: the one schema (docs/leaderboard-json.md)
MANIFEST = ".ladder-report.json"
"""The incremental build's record, in the site's folder: ``{"files": {path: sha256}, "replays": {match id: input hash}}``."""
MANIFEST_FORMAT = 1
MATCHES_PER_PAGE = 500
"""A tournament's match list is split into pages of this many matches (``ladder report --matches-per-page``)."""


@dataclass(frozen=True)
class SiteSummary:
    """What :func:`write_site` wrote."""

    out: Path
    pages: int
    bots: int
    pools: int
    tournaments: int
    replays: int
    bytes: int
    written: int = 0  # files written (new or changed content)
    unchanged: int = 0  # files left as they were
    removed: int = 0  # files of the last build no longer produced
    replayed: int = 0  # matches replayed through the engine (the others were unchanged)
    replay_bytes: int = 0  # the replays' share of ``bytes`` (their pages and data scripts)
    privacy: str = ""  # what the report did with the authors' private data (:func:`privacy_note`)
    private_left_out: bool = False

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("ladder.report", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pool_title"] = records.pool_title
    env.filters["num"] = lambda value, digits=2: "-" if value is None else f"{value:.{digits}f}"
    env.filters["pct"] = lambda value: "-" if value is None else f"{value:.0%}"
    env.filters["when"] = lambda value: "-" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")
    env.filters["score"] = lambda value: "-" if value is None else f"{value:g}"
    env.filters["slug"] = records.slug
    env.tests["solitaire"] = records.is_solitaire  # `pool is solitaire`: the game's declared fact
    env.globals["ordinal"] = ordinal
    return env


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class _Writer:
    """Writes the site's files, skipping those whose content is already on disk (by the manifest's hashes)."""

    def __init__(self, out: Path, data: records.ReportData, manifest: dict[str, Any]) -> None:
        self.out = out
        self.data = data
        self.env = _environment()
        self.pages = 0
        # the newest match's time, not the clock's: an unchanged database gives unchanged pages
        self.generated = max((m.finished_at for m in data.matches), default=None) or datetime.now(UTC)
        self.known: dict[str, str] = dict(manifest.get("files", {}))
        self.replays_known: dict[str, str] = dict(manifest.get("replays", {}))
        self.files: dict[str, str] = {}
        self.replays: dict[str, str] = {}
        self.written = 0
        self.replayed = 0

    def page(self, path: str, template: str, **context: Any) -> None:
        depth = path.count("/")
        html = self.env.get_template(template).render(
            root="../" * depth, data=self.data, generated=self.generated, version=self.data.versions.get, **context
        )
        self.file(path, html)
        self.pages += 1

    def file(self, path: str, text: str) -> None:
        self.raw(path, text.encode("utf-8"))

    def raw(self, path: str, content: bytes) -> None:
        digest = _digest(content)
        self.files[path] = digest
        target = self.out / path
        if self.known.get(path) == digest and target.is_file():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        self.written += 1

    def keep(self, path: str) -> bool:
        """Count ``path`` as produced without rewriting it; False when it is not on disk as the manifest says."""
        digest = self.known.get(path)
        if digest is None or not (self.out / path).is_file():
            return False
        self.files[path] = digest
        return True

    def finish(self) -> int:
        """Remove the files of the last build no longer produced, save the manifest; return how many were removed."""
        removed = 0
        for path in set(self.known) - set(self.files):
            target = self.out / path
            if target.is_file():
                target.unlink()
                removed += 1
        manifest = {"format": MANIFEST_FORMAT, "files": self.files, "replays": self.replays}
        (self.out / MANIFEST).write_text(json.dumps(manifest, separators=(",", ":"), sort_keys=True), encoding="utf-8")
        return removed


def _read_manifest(out: Path) -> dict[str, Any] | None:
    """The last build's manifest, or None when there is none (or it is unreadable: then the build is full)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT else None


def privacy_note(served_authors: bool, include_private: bool) -> str:
    """One sentence on the authors' private data (stderr, tracebacks, exception messages): left out of the report
    of a served ladder's database unless asked for; a database with no served author (a ``ladder run``
    tournament: the operator's own bots) shows it all, as its only author's report."""
    if not served_authors:
        return "stderr, tracebacks and exception messages are shown: this database has no served author's bot"
    if include_private:
        return (
            "stderr, tracebacks and exception messages of every author's bots are shown (--include-private): "
            "do not publish this report"
        )
    return (
        "stderr, tracebacks and exception messages are left out (hidden): they are private to each bot's author "
        "on a served ladder (--include-private shows them)"
    )


def write_site(
    session: Session,
    out: Path,
    progress: Callable[[str], None] | None = None,
    matches_per_page: int = MATCHES_PER_PAGE,
    include_private: bool = False,
) -> SiteSummary:
    """Write the report of ``session``'s database into ``out`` (created); only what changed since the last build.

    ``matches_per_page``: a tournament's match list is split into pages of this many matches. The authors'
    private data is left out of the report of a database with served authors unless ``include_private``
    (:func:`privacy_note`, the privacy model of docs/serve.md)."""
    if matches_per_page < 1:
        raise ValueError("matches_per_page must be at least 1")
    say = progress or (lambda _message: None)
    say("reading the database")
    data = records.load(session)
    served_authors = served.has_served_authors(session)
    left_out = served_authors and not include_private
    if left_out:
        data = served.public_report_data(data)
    privacy = privacy_note(served_authors, include_private)
    out.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(out)
    if manifest is None:  # no record of what is there: start clean (the pages of an older report format go too)
        for folder in ("bots", "pools", "tournaments", "matches", "plots", "static"):
            shutil.rmtree(out / folder, ignore_errors=True)
    writer = _Writer(out, data, manifest or {})
    _write_static(writer)
    pools = data.rated.pools()
    _write_index(writer, pools, leaderboard.owners(session), privacy)

    say(f"head-to-head matrices of {len(pools)} pools")
    played_pools = sorted({m.pool for m in data.matches})
    _write_pools(writer, played_pools)
    listed_on = _write_tournaments(writer, matches_per_page)

    say(f"pages of {len(data.versions)} bot versions")
    bots = _write_bot_pages(writer, pools, played_pools)

    say(f"replays of {len(data.matches)} matches")
    _write_replays(session, writer, listed_on)
    removed = writer.finish()

    sizes = {path: (out / path).stat().st_size for path in writer.files}
    replay_size = sum(size for path, size in sizes.items() if path.startswith("matches/"))
    return SiteSummary(
        out,
        writer.pages,
        bots,
        len(played_pools),
        len(data.tournaments),
        len(data.matches),
        sum(sizes.values()),
        writer.written,
        len(writer.files) - writer.written,
        removed,
        writer.replayed,
        replay_size,
        privacy,
        left_out,
    )


def _write_static(writer: _Writer) -> None:
    """Copy the style sheet and the replay script (package data) beside the pages: the site needs no network."""
    static = resources.files("ladder.report") / "static"
    for name in STATIC_FILES:
        writer.file(f"static/{name}", (static / name).read_text(encoding="utf-8"))


def _write_index(writer: _Writer, pools: list[str], owned: leaderboard.Owners, privacy: str) -> None:
    """The front page: every pool's leaderboard and the overall table, with how they are computed; and the same
    as data, ``leaderboards.json``, in the one schema of ``ladder rankings --json`` (docs/leaderboard-json.md)."""
    data = writer.data
    overall = ratings_across_pools.overall(data.rated)
    sure = {pool: figures.pool_certainty(data, pool) for pool in pools}
    names = {v: VersionName(v, info.bot, info.version, info.content_hash) for v, info in data.versions.items()}
    document = leaderboard.rankings_of(data.rated, names, pools, sure, owned=owned)
    writer.file(LEADERBOARD_JSON, json.dumps(document.model_dump(mode="json"), indent=2) + "\n")
    writer.page(
        "index.html",
        "index.html",
        pools=pools,
        sure=sure,
        boards={p: figures.leaderboard(data, p, sure[p]) for p in pools},
        overall=overall,
        spread=certainty.overall_intervals(data.rated) if len(pools) > 1 else {},
        method=ratings_trueskill_model.METHOD,
        overall_method=ratings_trueskill_model.OVERALL_METHOD,
        privacy=privacy,
    )


def _write_pools(writer: _Writer, played_pools: list[str]) -> None:
    """A head-to-head matrix page for every pool with a recorded match."""
    data = writer.data
    rated = set(data.rated.pools())
    for pool in played_pools:
        sure = figures.pool_certainty(data, pool) if pool in rated else None
        writer.page(
            f"pools/{records.slug(pool)}.html",
            "pool.html",
            pool=pool,
            sure=sure,
            board=figures.leaderboard(data, pool, sure) if sure else [],
            order=figures.pool_versions(data, pool),
            counts=figures.head_to_head(data, pool),
        )


@dataclass(frozen=True)
class MatchPages:
    """Where one page of a tournament's match list sits among the others (``number`` counts from 1)."""

    number: int
    paths: tuple[str, ...]
    first: int  # the position (from 1) of the page's first match in the whole list
    last: int
    total: int


def _write_tournaments(writer: _Writer, per_page: int) -> dict[int, str]:
    """Pages for every tournament run: its facts, its matches counted by status and by pool, and the list of its
    matches, ``per_page`` to a page (an overnight tournament's 10,000 would make one page of megabytes). Returns
    the page that lists each match (by match id): a match page links back to it."""
    data = writer.data
    listed_on: dict[int, str] = {}
    for tournament in data.tournaments.values():
        matches = [m for m in data.matches if m.tournament_id == tournament.tournament_id]
        statuses = data.tournament_statuses(tournament.tournament_id)
        by_pool = Counter(m.pool for m in matches)
        chunks = [matches[start : start + per_page] for start in range(0, len(matches), per_page)] or [[]]
        stem = tournament.page.removesuffix(".html")
        paths = (tournament.page, *(f"{stem}-matches-{number}.html" for number in range(2, len(chunks) + 1)))
        for number, (path, chunk) in enumerate(zip(paths, chunks, strict=True), start=1):
            listed_on.update((m.match_id, path) for m in chunk)
            first = (number - 1) * per_page + 1
            writer.page(
                path,
                "tournament.html",
                tournament=tournament,
                matches=chunk,
                statuses=statuses,
                by_pool=sorted(by_pool.items()),
                pages=MatchPages(number, paths, first, first + len(chunk) - 1, len(matches)),
            )
    return listed_on


def _write_bot_pages(writer: _Writer, pools: list[str], played_pools: list[str]) -> int:
    """A page (and plots) for every bot version that has a seat in a recorded match; return how many.

    The head-to-head counts are computed once for every pool here, not once per bot page.
    """
    data = writer.data
    playing = {s.version_id for m in data.matches for s in m.seats}
    bots = [v for v in data.versions.values() if v.version_id in playing]
    h2h = {pool: figures.head_to_head(data, pool) for pool in played_pools}
    for info in bots:
        _write_bot_page(writer, info, pools, h2h)
    return len(bots)


def _write_bot_page(
    writer: _Writer,
    info: records.VersionInfo,
    pools: list[str],
    h2h: dict[str, dict[tuple[int, int], figures.PairCount]],
) -> None:
    """One bot version's page: its rating history plot, its place in every pool, its opponents (most met
    first), its solitaire scores, failures and notable matches."""
    data = writer.data
    version_id = info.version_id
    history = figures.history_of(data, version_id)
    plot = f"plots/rating-{records.slug(info.bot)}-{info.content_hash[:8]}.svg"
    writer.file(plot, plots.rating_history(history))
    solos = _write_solitaire_plots(writer, info)
    standings = [
        (pool, standing, position)
        for pool in pools
        for position, standing in enumerate(data.rated.table(pool), start=1)
        if standing.bot_version_id == version_id
    ]
    opponents = []
    for pool, counts in h2h.items():
        for (a, b), pair in sorted(counts.items(), key=lambda item: -item[1].met):
            if a == version_id:
                opponents.append((pool, b, pair))
    best, worst = figures.notable_matches(data, version_id)
    writer.page(
        info.page,
        "bot.html",
        info=info,
        plot=plot,
        standings=standings,
        record=figures.record(data, version_id),
        opponents=opponents,
        failures=figures.failure_groups(figures.failures(data, [version_id])),
        best=best,
        worst=worst,
        solos=solos,
    )


@dataclass(frozen=True)
class SolitaireScores:
    """One bot version's scores in one solitaire pool, as its page shows them (``plot`` is the histogram's
    SVG file, relative to the site)."""

    pool: str
    plot: str
    count: int
    mean: float
    median: float
    low: float
    high: float
    buckets: list[tuple[str, int]]


def _write_solitaire_plots(writer: _Writer, info: records.VersionInfo) -> list[SolitaireScores]:
    """Plot a bot version's score histogram in every solitaire pool it played; return the figures."""
    solos = []
    for pool, scores in sorted(figures.solitaire_scores(writer.data, info.version_id).items()):
        picture = f"plots/scores-{records.slug(info.bot)}-{info.content_hash[:8]}-{records.slug(pool)}.svg"
        writer.file(picture, plots.score_histogram(scores, pool))
        solos.append(
            SolitaireScores(
                pool=pool,
                plot=picture,
                count=len(scores),
                mean=statistics.fmean(scores),
                median=statistics.median(scores),
                low=min(scores),
                high=max(scores),
                buckets=score_histogram(scores),
            )
        )
    return solos


def seat_labels(data: records.ReportData, match: records.MatchRecord) -> list[SeatLabel]:
    """The viewer's name and page link (relative to the site's root) of each seat of ``match``."""
    labels = []
    for seat in match.seats:
        info = data.versions.get(seat.version_id)
        labels.append(SeatLabel(info.bot, info.page) if info else SeatLabel(f"#{seat.version_id}"))
    return labels


def replay_script(content: bytes) -> str:
    """A match's data script: its gzip'd replay, base64-encoded, handed to the viewer (works from ``file://``)."""
    return f'LadderReplay.load("{base64.b64encode(content).decode("ascii")}");\n'


def _write_replays(session: Session, writer: _Writer, listed_on: dict[int, str]) -> None:
    """A viewer page and a data script for every recorded match (its page links to the tournament page that
    lists it, ``listed_on``). A match whose inputs (its record, action log and seat labels) are those of the
    last build is not replayed again; the action logs, the bulk of the database, are read one match at a time."""
    data = writer.data
    for match in data.matches:
        tournament = data.tournaments.get(match.tournament_id)
        labels = seat_labels(data, match)
        title = f"{tournament.name} #{tournament.tournament_id}" if tournament else ""
        blob, timing = records.match_blobs(session, match.match_id)
        key = replay_input_hash(match, blob, labels, title, timing)
        script = f"matches/{match.match_id}.js"
        back = listed_on.get(match.match_id, tournament.page if tournament else "")
        writer.page(match.page, "match.html", match=match, tournament=tournament, tournament_page=back)
        if writer.replays_known.get(str(match.match_id)) == key and writer.keep(script):
            writer.replays[str(match.match_id)] = key
            continue
        content = replay_bytes(match, unpack_actions(blob), labels, title, records.unpack_move_us(timing))
        writer.raw(script, replay_script(content).encode("ascii"))
        writer.replays[str(match.match_id)] = key
        writer.replayed += 1
