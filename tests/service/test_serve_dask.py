"""`ladder serve --scheduler ADDRESS`: the served ladder on a Dask cluster, `kill -9` and restart included.

The cluster's workers have a results folder (so a bot store) of their own: the submitted bots reach them with
each match task (:mod:`service.background.dispatch`), not through a shared folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import add_author, author_env, ladder_as, played, start_server, wait_for, write_bot
from tests.tournaments.test_dask import cluster  # noqa: F401 (the Dask tests' LocalCluster fixture, used here)

pytestmark = [pytest.mark.slow, pytest.mark.needs_bot_sandbox]


def test_the_served_ladder_plays_on_a_dask_cluster_and_survives_kill_9(
    tmp_path: Path, cluster: tuple[Any, Path]
) -> None:
    cluster_, worker_results = cluster
    home = LadderHome(tmp_path)
    tokens = {name: add_author(home, name) for name in ("ann", "ben")}
    server = start_server(home, "--scheduler", cluster_.scheduler_address, "--check-matches", "1")
    try:
        for name, token in tokens.items():
            bot = write_bot(tmp_path / f"{name}-bot", f"{name}-rand", name, f"{name} on dask")
            done = ladder_as(
                author_env(home, tmp_path / f"home-{name}", token), "submit", str(bot), "--server", server.url
            )
            assert done.returncode == 0, done.stdout + done.stderr
        wait_for(
            lambda: (c := played(server)).get("ann-rand", 0) >= 2 and c.get("ben-rand", 0) >= 2,
            600,
            lambda: f"not played on the cluster: {played(server)}\n{server.output()[-3000:]}",
        )
        assert "dask backend: scheduler" in server.output()
        hashes = {digest for (digest,) in home.query("SELECT content_hash FROM serve_submission")}
        assert hashes <= {folder.name for folder in (worker_results / "bots").iterdir()}  # shipped with the tasks

        server.kill()
        before = home.query("SELECT id, key FROM match ORDER BY id")
        planned = {key for (key,) in home.query("SELECT key FROM serve_planned")}
        server = start_server(home, "--scheduler", cluster_.scheduler_address, "--check-matches", "1")
        wait_for(
            lambda: planned <= {key for (key,) in home.query("SELECT key FROM match")},
            300,
            lambda: f"the planned matches were not played after the restart:\n{server.output()[-3000:]}",
        )
        after = home.query("SELECT id, key FROM match ORDER BY id")
        assert after[: len(before)] == before
        assert len({key for _id, key in after}) == len(after)
        assert home.query("SELECT state FROM serve_submission ORDER BY id") == [("active",), ("active",)]
    finally:
        server.end()
