"""Writing the report: Jinja2 templates (package data) filled from :mod:`ladder.report.data`.

The site is plain files with relative links, so it works from ``file://`` as
well as from any web server, and needs no network: one style sheet and one
small script (the replay viewer's stepping) are copied along; plots are SVG
files. Every text that comes from a bot (names, authors, failure details,
stderr) goes through Jinja2's autoescape.
"""

from __future__ import annotations

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

from ladder.matches.summary import ordinal, score_histogram
from ladder.ratings import across_pools as ratings_across_pools
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.report import data as reportdata
from ladder.report import plots
from ladder.report.replay import build_replay

STATIC_FILES = ("report.css", "replay.js")


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
    env.filters["pool_title"] = reportdata.pool_title
    env.filters["num"] = lambda value, digits=2: "-" if value is None else f"{value:.{digits}f}"
    env.filters["pct"] = lambda value: "-" if value is None else f"{value:.0%}"
    env.filters["when"] = lambda value: "-" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")
    env.filters["score"] = lambda value: "-" if value is None else f"{value:g}"
    env.filters["slug"] = reportdata.slug
    env.tests["solitaire"] = reportdata.is_solitaire  # `pool is solitaire`: the game's declared fact
    env.globals["ordinal"] = ordinal
    return env


class _Writer:
    def __init__(self, out: Path, data: reportdata.ReportData) -> None:
        self.out = out
        self.data = data
        self.env = _environment()
        self.pages = 0
        self.generated = datetime.now(UTC)

    def page(self, path: str, template: str, **context: Any) -> None:
        depth = path.count("/")
        html = self.env.get_template(template).render(
            root="../" * depth, data=self.data, generated=self.generated, version=self.data.versions.get, **context
        )
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        self.pages += 1

    def file(self, path: str, text: str) -> None:
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def write_site(session: Session, out: Path, progress: Callable[[str], None] | None = None) -> SiteSummary:
    """Write the whole report of ``session``'s database into ``out`` (created; earlier pages replaced)."""
    say = progress or (lambda _message: None)
    say("reading the database")
    data = reportdata.load(session)
    out.mkdir(parents=True, exist_ok=True)
    for folder in ("bots", "pools", "tournaments", "matches", "plots", "static"):
        shutil.rmtree(out / folder, ignore_errors=True)
    writer = _Writer(out, data)
    _write_static(writer)
    pools = data.rated.pools()
    _write_index(writer, pools)

    say(f"head-to-head matrices of {len(pools)} pools")
    played_pools = sorted({m.pool for m in data.matches})
    _write_pools(writer, played_pools)
    _write_tournaments(writer)

    say(f"pages of {len(data.versions)} bot versions")
    bots = _write_bot_pages(writer, pools, played_pools)

    say(f"replays of {len(data.matches)} matches")
    _write_replays(session, writer)

    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return SiteSummary(out, writer.pages, bots, len(played_pools), len(data.tournaments), len(data.matches), size)


def _write_static(writer: _Writer) -> None:
    """Copy the style sheet and the replay script (package data) beside the pages: the site needs no network."""
    static = resources.files("ladder.report") / "static"
    for name in STATIC_FILES:
        writer.file(f"static/{name}", (static / name).read_text(encoding="utf-8"))


def _write_index(writer: _Writer, pools: list[str]) -> None:
    """The front page: every pool's leaderboard and the overall table, with how they are computed."""
    data = writer.data
    overall = ratings_across_pools.overall(data.rated)
    writer.page(
        "index.html",
        "index.html",
        pools=pools,
        boards={p: reportdata.leaderboard(data, p) for p in pools},
        overall=overall,
        method=ratings_trueskill_model.METHOD,
        overall_method=ratings_trueskill_model.OVERALL_METHOD,
    )


def _write_pools(writer: _Writer, played_pools: list[str]) -> None:
    """A head-to-head matrix page for every pool with a recorded match."""
    data = writer.data
    for pool in played_pools:
        writer.page(
            f"pools/{reportdata.slug(pool)}.html",
            "pool.html",
            pool=pool,
            order=reportdata.pool_versions(data, pool),
            counts=reportdata.head_to_head(data, pool),
        )


def _write_tournaments(writer: _Writer) -> None:
    """A page for every tournament run: its matches, counted by status and by pool."""
    data = writer.data
    for tournament in data.tournaments.values():
        matches = [m for m in data.matches if m.tournament_id == tournament.tournament_id]
        statuses = data.tournament_statuses(tournament.tournament_id)
        by_pool = Counter(m.pool for m in matches)
        writer.page(
            tournament.page,
            "tournament.html",
            tournament=tournament,
            matches=matches,
            statuses=statuses,
            by_pool=sorted(by_pool.items()),
        )


def _write_bot_pages(writer: _Writer, pools: list[str], played_pools: list[str]) -> int:
    """A page (and plots) for every bot version that has a seat in a recorded match; return how many.

    The head-to-head counts are computed once for every pool here, not once per bot page.
    """
    data = writer.data
    playing = {s.version_id for m in data.matches for s in m.seats}
    bots = [v for v in data.versions.values() if v.version_id in playing]
    h2h = {pool: reportdata.head_to_head(data, pool) for pool in played_pools}
    for info in bots:
        _write_bot_page(writer, info, pools, h2h)
    return len(bots)


def _write_bot_page(
    writer: _Writer,
    info: reportdata.VersionInfo,
    pools: list[str],
    h2h: dict[str, dict[tuple[int, int], reportdata.PairCount]],
) -> None:
    """One bot version's page: its rating history plot, its place in every pool, its opponents (most met
    first), its solitaire scores, failures and notable matches."""
    data = writer.data
    version_id = info.version_id
    history = reportdata.history_of(data, version_id)
    plot = f"plots/rating-{reportdata.slug(info.bot)}-{info.content_hash[:8]}.svg"
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
    best, worst = reportdata.notable_matches(data, version_id)
    writer.page(
        info.page,
        "bot.html",
        info=info,
        plot=plot,
        standings=standings,
        record=reportdata.record(data, version_id),
        opponents=opponents,
        failures=reportdata.failures(data, [version_id]),
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


def _write_solitaire_plots(writer: _Writer, info: reportdata.VersionInfo) -> list[SolitaireScores]:
    """Plot a bot version's score histogram in every solitaire pool it played; return the figures."""
    solos = []
    for pool, scores in sorted(reportdata.solitaire_scores(writer.data, info.version_id).items()):
        picture = f"plots/scores-{reportdata.slug(info.bot)}-{info.content_hash[:8]}-{reportdata.slug(pool)}.svg"
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


def _write_replays(session: Session, writer: _Writer) -> None:
    """A replay page for every recorded match (the action logs, the bulk of the database, read one match at a time)."""
    data = writer.data
    by_id = {m.match_id: m for m in data.matches}
    for match_id, actions in reportdata.match_actions(session, list(by_id)):
        match = by_id[match_id]
        writer.page(
            match.page,
            "match.html",
            match=match,
            replay=build_replay(match, actions).to_json(),
            tournament=data.tournaments.get(match.tournament_id),
            seat_names=[data.name(s.version_id) for s in match.seats],
        )
