"""Helpers for tests that go through the ladder's front door: the real `ladder` command into a temporary home.

A :class:`LadderHome` is a results folder and a SQLite database of its own;
:meth:`LadderHome.ladder` runs ``python -m cli`` there as a user
would. After an attack the tests ask it what was stored
(:meth:`LadderHome.matches`), whether any process of this home is left
(:meth:`LadderHome.leftover_processes`), and whether an error was one clear
line (:func:`assert_one_clear_line`).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TRUST_BOTS = Path(__file__).resolve().parent / "trust_bots"
TERMINAL_CONTROLS = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\ud800")


@dataclass
class LadderHome:
    """A results folder and database for one test, and the `ladder` command pointed at them."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.results.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "LADDER_RESULTS": str(self.results),
            "LADDER_DB": f"sqlite:///{self.db_path}",
            "COLUMNS": "200",
            "PYTHONIOENCODING": "utf-8",
        }

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def db_path(self) -> Path:
        return self.results / "ladder.db"

    def ladder(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """Run ``ladder ARGS`` here; text out and err (invalid bytes shown as escapes, never hidden)."""
        return subprocess.run(
            [sys.executable, "-m", "cli", *args],
            capture_output=True,
            text=True,
            errors="backslashreplace",
            timeout=timeout,
            env=self.env,
            cwd=ROOT,
        )

    def ladder_ok(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        run = self.ladder(*args, timeout=timeout)
        assert run.returncode == 0, f"ladder {' '.join(args)} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
        return run

    def bot(self, name: str, replacements: dict[str, str] | None = None, with_engine: bool = False) -> Path:
        """A copy of ``trust_bots/NAME.py`` with its placeholders filled in: a file, or a folder with the engine."""
        source = (TRUST_BOTS / f"{name}.py").read_text()
        for old, new in (replacements or {}).items():
            assert old in source, f"{name}.py has no {old!r}"
            source = source.replace(old, new)
        if not with_engine:
            path = self.root / f"{name}.py"
            path.write_text(source)
            return path
        folder = self.root / name
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        shutil.copytree(ROOT / "engine", folder / "engine", ignore=shutil.ignore_patterns("__pycache__"))
        return folder

    def write_tournament(self, name: str, data: dict[str, Any]) -> Path:
        """A tournament file from plain values (strings, numbers, lists, and tables one level deep)."""
        lines = [f"name = {json.dumps(name)}"]
        tables = {key: value for key, value in data.items() if isinstance(value, dict)}
        lines += [f"{key} = {json.dumps(value)}" for key, value in data.items() if key not in tables]
        for table, values in tables.items():
            lines.append(f"[{table}]")
            lines += [f"{key} = {json.dumps(value)}" for key, value in values.items()]
        path = self.root / f"{name}.toml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db_path, timeout=30) as connection:
            return connection.execute(sql, params).fetchall()

    def matches(self, tournament_id: int | None = None) -> list[dict[str, Any]]:
        """Every stored match (of one tournament) with its seats: bot name, score, rank, failure."""
        where = "" if tournament_id is None else " where m.tournament_id = ?"
        params = () if tournament_id is None else (tournament_id,)
        rows = self.query(
            "select m.id, m.key, m.deal, m.cycle, m.game, m.num_players, m.seed, m.status, m.error, "
            f"m.tournament_id from match m{where} order by m.id",
            *params,
        )
        seats = self.query(
            "select s.match_id, s.seat, b.name, s.score, s.rank, s.failure_reason, s.failure_detail, "
            "s.stderr_tail from seat_result s join bot_version v on v.id = s.bot_version_id "
            "join bot b on b.id = v.bot_id order by s.match_id, s.seat"
        )
        by_match: dict[int, list[dict[str, Any]]] = {}
        for match_id, seat, bot, score, rank, reason, detail, stderr in seats:
            by_match.setdefault(match_id, []).append(
                {
                    "seat": seat,
                    "bot": bot,
                    "score": score,
                    "rank": rank,
                    "failure": reason,
                    "detail": detail,
                    "stderr": stderr,
                }
            )
        return [
            {
                "id": mid,
                "key": key,
                "deal": deal,
                "cycle": cycle,
                "game": game,
                "players": players,
                "seed": seed,
                "status": status,
                "error": error,
                "tournament": tid,
                "seats": by_match.get(mid, []),
            }
            for mid, key, deal, cycle, game, players, seed, status, error, tid in rows
        ]

    def tournaments(self) -> list[dict[str, Any]]:
        return json.loads(self.ladder_ok("tournaments", "--json").stdout)

    def leftover_processes(self, wait: float = 10.0) -> list[str]:
        """Processes whose command line mentions this home (bot processes, bubblewrap, workers), after ``wait`` s."""
        deadline = time.monotonic() + wait
        while True:
            found = [
                f"pid {pid}: {text.replace(chr(0), ' ')[:200]}"
                for pid, text in command_lines()
                if str(self.root) in text and pid != os.getpid()
            ]
            if not found or time.monotonic() >= deadline:
                return found
            time.sleep(0.2)

    def run_log(self) -> str:
        logs = sorted((self.results / "logs").glob("*.log"))
        return "\n".join(path.read_text(encoding="utf-8", errors="backslashreplace") for path in logs)


def command_lines() -> Iterator[tuple[int, str]]:
    """(pid, command line) of every process on the machine that can still be read."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                yield int(entry), cmdline.read().decode(errors="replace")
        except OSError:
            continue


def assert_one_clear_line(run: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """The command failed with status 2 and one ``error:`` line holding ``fragments``, no traceback."""
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr  # (stdout may show the bot's own traceback: that is the explanation)
    text = run.stderr.strip()
    assert text.startswith("error:") and text.count("error:") == 1, text
    flat = " ".join(text.split())
    for fragment in fragments:
        assert fragment in flat, flat


def assert_no_terminal_controls(*texts: str) -> None:
    """None of ``texts`` holds an escape sequence, a C1 control or a lone surrogate."""
    for text in texts:
        found = [repr(c) for c in TERMINAL_CONTROLS if c in text]
        assert not found, f"{', '.join(found)} reached the terminal in: {text[:2000]!r}"


def assert_every_match_recorded(home: LadderHome, tournament_id: int, scheduled: int) -> list[dict[str, Any]]:
    """Every scheduled match is stored once, with all its seat rows, and every failure and error has a reason."""
    stored = home.matches(tournament_id)
    assert len(stored) == scheduled, f"{len(stored)} of {scheduled} matches stored"
    assert len({m["key"] for m in stored}) == scheduled
    for match in stored:
        assert len(match["seats"]) == match["players"], f"match {match['key']} lacks seat rows"
        if match["status"] == "error":
            assert match["error"], f"match {match['key']} is an error without a reason"
        for seat in match["seats"]:
            if seat["failure"]:
                assert seat["detail"], f"seat {seat['seat']} of {match['key']} failed without a reason"
    return stored
