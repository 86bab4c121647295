"""A worker never imports the database layer: its fork server starts in a fifth of a second, not half a second.

Every worker start waits for the fork server's imports (``tournaments.executors.local_pool.PRELOAD``), and SQLModel with
SQLAlchemy were most of them (docs/benchmarks.md, "Fixed costs, fourth session"). A worker is handed bot
references and returns records; it has no use for the tables. The check runs in a fresh interpreter, as the
fork server does, and plays a match of built-in bots there the way a worker plays it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, json, sys
from tournaments.executors.local_pool import PRELOAD
for name in PRELOAD:
    importlib.import_module(name)
after_preload = sorted(m for m in sys.modules if m.split(".")[0] in ("sqlalchemy", "sqlmodel"))
from ladder.seats.versions import builtin_hash
from tournaments.executors.tasks import MatchTask
from tournaments.executors.worker import play_task
task = MatchTask(key="k", game="elfer-raus", seats=("random", "thumb"),
                 hashes=(builtin_hash("random"), builtin_hash("thumb")), seed=7, options={})
record = play_task(task.to_wire())
after_match = sorted(m for m in sys.modules if m.split(".")[0] in ("sqlalchemy", "sqlmodel"))
print(json.dumps({"preload": after_preload, "match": after_match, "actions": record["action_count"]}))
"""


def test_the_fork_servers_modules_and_a_played_match_never_import_the_database_layer(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**os.environ, "LADDER_RESULTS": str(tmp_path), "PYTHONPATH": str(ROOT)},  # a Python may need its env
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["actions"] > 0  # the match was really played
    assert found["preload"] == [], "the fork server's modules import the database layer"
    assert found["match"] == [], "playing a match imports the database layer in the worker"
