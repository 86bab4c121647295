"""`ladder report` at the scale of an overnight tournament: size per match and build time, full and incremental.

    python tests/bench/bench_report.py [--matches 10000] [--added 200] [--seed-pairings 2] [--keep DIR] [--json]

How the database is made (cheaply, and said so in the output): a small real
tournament of every game with the built-in ``random``, ``thumb`` and ``thumb-50`` bots at 2
and 3 players is played through the CLI (``--seed-pairings`` deals per
pairing), then its match rows (action logs, seats, scores) are **replicated**
with new keys until the database holds ``--matches`` matches, and ``ladder
rerate`` stores the ratings, as a finished tournament has them. Replicated
matches replay the real action logs, so every replay costs what a real one of
that game costs.

Then, each in-process (:func:`ladder.report.site.write_site`) with wall and
CPU time:

1. the **full** build into an empty folder;
2. a rebuild with **no change**;
3. ``--added`` more matches recorded (replicated again, ratings rerated), and
   the **incremental** build.

Printed: the size on disk per match (its viewer page and its data script:
the replay's bytes), by game; the site's total; files written and matches
replayed by each build. The machine's load average is printed beside the
times: other processes on the same cores make them rough.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ladder.report.site import SiteSummary, write_site  # noqa: E402
from ladder.store.database import session_for  # noqa: E402


def cli(where: Path, db: Path, *args: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", f"sqlite:///{db}"],
        capture_output=True,
        text=True,
        cwd=where,
        env={**os.environ, "LADDER_RESULTS": str(where / "results")},
        timeout=3600,
    )
    if run.returncode:
        raise SystemExit(f"ladder {' '.join(args)} failed:\n{run.stderr}")


def seed_database(where: Path, db: Path, pairings: int) -> None:
    """A real tournament: every game, random, thumb and thumb-50, 2 and 3 players (the quick tournament's tables)."""
    (where / "seed.toml").write_text(
        f'name = "seed"\nseed = 20240611\ngames = "all"\nbots = ["random", "thumb", "thumb-50"]\n'
        f"players = [2, 3]\ngames_per_pairing = {pairings}\nworkers = 1\n"
    )
    cli(where, db, "run", "seed.toml", "--no-progress")


def replicate(db: Path, total: int, tag: str) -> int:
    """Copy the database's played matches (and their seats) with new keys until it holds ``total``; return how
    many were added."""
    con = sqlite3.connect(db)
    try:
        columns = [row[1] for row in con.execute("PRAGMA table_info(match)") if row[1] != "id"]
        seat_columns = [
            row[1] for row in con.execute("PRAGMA table_info(seat_result)") if row[1] not in ("id", "match_id")
        ]
        originals = [
            row[0]
            for row in con.execute("SELECT id FROM match WHERE status = 'played' AND key NOT LIKE '%#%' ORDER BY id")
        ]
        have = con.execute("SELECT count(*) FROM match").fetchone()[0]
        added = 0
        copy = 0
        while have + added < total:
            source = originals[copy % len(originals)]
            copy += 1
            picked = ", ".join("key || ?" if c == "key" else c for c in columns)
            cursor = con.execute(
                f"INSERT INTO match ({', '.join(columns)}) SELECT {picked} FROM match WHERE id = ?",
                (f"#{tag}{copy}", source),
            )
            con.execute(
                f"INSERT INTO seat_result (match_id, {', '.join(seat_columns)}) "
                f"SELECT ?, {', '.join(seat_columns)} FROM seat_result WHERE match_id = ?",
                (cursor.lastrowid, source),
            )
            added += 1
        con.commit()
        return added
    finally:
        con.close()


def build(db: Path, out: Path) -> tuple[SiteSummary, float, float, str]:
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    with session_for(f"sqlite:///{db}") as session:
        wall, cpu = time.perf_counter(), time.process_time()
        summary = write_site(session, out)
        return summary, time.perf_counter() - wall, time.process_time() - cpu, load


def sizes_by_game(db: Path, site: Path) -> dict[str, list[int]]:
    con = sqlite3.connect(db)
    games = dict(con.execute("SELECT id, game || '/' || num_players || 'p' FROM match").fetchall())
    con.close()
    found: dict[str, list[int]] = defaultdict(list)
    for script in (site / "matches").glob("*.js"):
        match_id = int(script.stem)
        found[games[match_id]].append(script.stat().st_size + script.with_suffix(".html").stat().st_size)
    return found


def run(args: argparse.Namespace) -> dict[str, Any]:
    where = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-report-"))
    where.mkdir(parents=True, exist_ok=True)
    db = where / "bench.db"
    tick = time.perf_counter()
    seed_database(where, db, args.seed_pairings)
    real = sqlite3.connect(db).execute("SELECT count(*) FROM match").fetchone()[0]
    replicate(db, args.matches, "a")
    cli(where, db, "rerate")
    made = time.perf_counter() - tick
    site = where / "site"
    results: dict[str, Any] = {
        "machine": f"{platform.node()} ({os.cpu_count()} CPUs, {platform.python_implementation()} "
        f"{platform.python_version()})",
        "real_matches": real,
        "matches": args.matches,
        "database_seconds": made,
        "builds": {},
    }
    for name in ("full", "unchanged", "incremental"):
        if name == "incremental":
            replicate(db, args.matches + args.added, "b")
            cli(where, db, "rerate")
        summary, wall, cpu, load = build(db, site)
        results["builds"][name] = {
            "wall_s": wall,
            "cpu_s": cpu,
            "load": load,
            "written": summary.written,
            "unchanged": summary.unchanged,
            "replayed": summary.replayed,
            "bytes": summary.bytes,
            "replay_bytes": summary.replay_bytes,
            "replays": summary.replays,
        }
        print(
            f"{name:>11}: {wall:7.1f} s wall, {cpu:7.1f} s CPU (load {load}); {summary.written} files written, "
            f"{summary.unchanged} unchanged, {summary.replayed} matches replayed; site {summary.bytes / 1e6:.1f} MB",
            file=sys.stderr,
        )
    by_game = sizes_by_game(db, site)
    results["per_match_bytes"] = {
        game: {"mean": statistics.fmean(v), "max": max(v), "matches": len(v)} for game, v in sorted(by_game.items())
    }
    full = results["builds"]["incremental"]
    results["mean_bytes_per_match"] = full["replay_bytes"] / full["replays"]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--added", type=int, default=200, help="matches recorded before the incremental build")
    parser.add_argument("--seed-pairings", type=int, default=2, help="deals per pairing of the real seed tournament")
    parser.add_argument("--keep", help="work in this folder (kept) instead of a temporary one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"machine: {results['machine']}")
    print(
        f"database: {results['real_matches']} real matches replicated to {results['matches']} "
        f"({results['database_seconds']:.0f} s to make)"
    )
    for name, b in results["builds"].items():
        print(
            f"| {name} | {b['wall_s']:.1f} s | {b['cpu_s']:.1f} s | {b['load']} | {b['written']} | {b['replayed']} | "
            f"{b['bytes'] / 1e6:.1f} MB |"
        )
    print(f"mean size on disk per match: {results['mean_bytes_per_match'] / 1000:.1f} KB")
    for game, figures in results["per_match_bytes"].items():
        print(f"| {game} | {figures['matches']} | {figures['mean'] / 1000:.1f} KB | {figures['max'] / 1000:.1f} KB |")


if __name__ == "__main__":
    main()
