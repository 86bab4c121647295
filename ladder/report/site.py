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
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlmodel import Session

from ladder import ratings
from ladder.report import data as reportdata
from ladder.report import plots
from ladder.report.replay import build_replay
from ladder.summary import ordinal, score_histogram

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
    env = Environment(loader=PackageLoader("ladder.report", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
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
        self.generated = datetime.now(timezone.utc)

    def page(self, path: str, template: str, **context: Any) -> None:
        depth = path.count("/")
        html = self.env.get_template(template).render(
            root="../" * depth, data=self.data, generated=self.generated, version=self.data.versions.get, **context)
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
    static = resources.files("ladder.report") / "static"
    for name in STATIC_FILES:
        writer.file(f"static/{name}", (static / name).read_text(encoding="utf-8"))

    pools = data.rated.pools()
    overall = ratings.overall(data.rated)
    writer.page("index.html", "index.html", pools=pools, boards={p: reportdata.leaderboard(data, p) for p in pools},
                overall=overall, method=ratings.METHOD, overall_method=ratings.OVERALL_METHOD)

    say(f"head-to-head matrices of {len(pools)} pools")
    played_pools = sorted({m.pool for m in data.matches})
    for pool in played_pools:
        writer.page(f"pools/{reportdata.slug(pool)}.html", "pool.html", pool=pool,
                    order=reportdata.pool_versions(data, pool), counts=reportdata.head_to_head(data, pool))

    for tournament in data.tournaments.values():
        matches = [m for m in data.matches if m.tournament_id == tournament.tournament_id]
        statuses = Counter(m.status for m in matches)
        by_pool = Counter(m.pool for m in matches)
        writer.page(tournament.page, "tournament.html", tournament=tournament, matches=matches, statuses=statuses,
                    by_pool=sorted(by_pool.items()))

    say(f"pages of {len(data.versions)} bot versions")
    playing = {s.version_id for m in data.matches for s in m.seats}
    bots = [v for v in data.versions.values() if v.version_id in playing]
    h2h = {pool: reportdata.head_to_head(data, pool) for pool in played_pools}
    for info in bots:
        version_id = info.version_id
        history = reportdata.history_of(data, version_id)
        plot = f"plots/rating-{reportdata.slug(info.bot)}-{info.content_hash[:8]}.svg"
        writer.file(plot, plots.rating_history(history))
        solos = []
        for pool, scores in sorted(reportdata.solitaire_scores(data, version_id).items()):
            picture = f"plots/scores-{reportdata.slug(info.bot)}-{info.content_hash[:8]}-{reportdata.slug(pool)}.svg"
            writer.file(picture, plots.score_histogram(scores, pool))
            solos.append({"pool": pool, "plot": picture, "count": len(scores), "mean": statistics.fmean(scores),
                          "median": statistics.median(scores), "low": min(scores), "high": max(scores),
                          "buckets": score_histogram(scores)})
        standings = [(pool, standing, position) for pool in pools
                     for position, standing in enumerate(data.rated.table(pool), start=1)
                     if standing.bot_version_id == version_id]
        opponents = []
        for pool in played_pools:
            for (a, b), pair in sorted(h2h[pool].items(), key=lambda item: -item[1].met):
                if a == version_id:
                    opponents.append((pool, b, pair))
        best, worst = reportdata.notable_matches(data, version_id)
        writer.page(info.page, "bot.html", info=info, plot=plot, standings=standings, record=reportdata.record(data, version_id),
                    opponents=opponents, failures=reportdata.failures(data, [version_id]), best=best, worst=worst,
                    solos=solos)

    say(f"replays of {len(data.matches)} matches")
    by_id = {m.match_id: m for m in data.matches}
    for match_id, actions in reportdata.match_actions(session, list(by_id)):
        match = by_id[match_id]
        writer.page(match.page, "match.html", match=match, replay=build_replay(match, actions).to_json(),
                    tournament=data.tournaments.get(match.tournament_id),
                    seat_names=[data.name(s.version_id) for s in match.seats])

    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return SiteSummary(out, writer.pages, len(bots), len(played_pools), len(data.tournaments), len(data.matches), size)
