"""Stopping and crashing `ladder serve`, through the real command on 127.0.0.1: after `kill -9` no process the
server started (checks, workers, bots) outlives it by more than 2 s, and the interrupted check is run again on
restart; after Ctrl-C no match starts, even while a request holds the web server open; a second Ctrl-C says what
it abandoned and exits.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import Server, add_author, author_env, ladder_as, start_server, wait_for, write_bot

pytestmark = [pytest.mark.slow, pytest.mark.needs_bot_sandbox]
HANDOVER = timedelta(seconds=0.3)
"""How long after it was handed out a match may start on its worker (the task crosses a pipe)."""


def rows(home: LadderHome, sql: str) -> list[tuple]:
    with sqlite3.connect(home.db_path) as connection:
        return connection.execute(sql).fetchall()


def descendants(pid: int) -> dict[int, str]:
    """Every living process below ``pid`` (whatever its session or process group), with its command line."""
    parents: dict[int, int] = {}
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(stat_file.parent.name)] = int(fields[1])
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                try:
                    found[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                except OSError:
                    found[child] = "?"
                frontier.append(child)
    return found


def alive(pids: dict[int, str]) -> dict[int, str]:
    left = {}
    for pid, command in pids.items():
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left[pid] = command
    return left


def in_flight(home: LadderHome) -> set[str]:
    return {key for (key,) in rows(home, "SELECT key FROM serve_planned WHERE key NOT IN (SELECT key FROM match)")}


def matches(home: LadderHome) -> int:
    return len(rows(home, "SELECT id FROM match"))


class Field:
    def __init__(self, home: LadderHome, token: str) -> None:
        self.home = home
        self.env = author_env(home, home.root / "home-alice", token)
        self.versions = 0

    def submit(self, server: Server, wait: bool = True, slow: bool = False) -> None:
        """A new version of alice's bot: its placement keeps the workers busy (for seconds per match if ``slow``)."""
        self.versions += 1
        tag = f"v{self.versions}"
        bot = write_bot(self.home.root / "home-alice" / f"bot-{tag}", "alice-rand", "alice", f"stderr {tag}")
        if slow:
            source = (bot / "bot.py").read_text().replace("import random\n", "import random\nimport time\n")
            (bot / "bot.py").write_text(
                source.replace("        return random", "        time.sleep(0.3)\n        return random")
            )
        done = ladder_as(self.env, "submit", str(bot), "--server", server.url, *(() if wait else ("--no-wait",)))
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture()
def field(tmp_path: Path) -> Iterator[tuple[Field, list[Server]]]:
    home = LadderHome(tmp_path)
    token = add_author(home, "alice")
    servers: list[Server] = []
    try:
        yield Field(home, token), servers
    finally:
        for server in servers:
            server.end()


def serve(field: Field, servers: list[Server]) -> Server:
    server = start_server(field.home, "--workers", "2", "--check-matches", "1", "--house", "random")
    servers.append(server)
    return server


def busy(field: Field, server: Server) -> None:
    """Wait until matches are being played and some are in flight."""
    start = matches(field.home)
    wait_for(
        lambda: matches(field.home) > start and in_flight(field.home),
        300,
        lambda: f"no match was played:\n{server.output()[-3000:]}",
    )


def test_kill_9_leaves_no_process_of_the_server_and_the_check_is_run_again(
    field: tuple[Field, list[Server]],
) -> None:
    bots, servers = field
    server = serve(bots, servers)
    bots.submit(server)
    busy(bots, server)
    bots.submit(server, wait=False)
    wait_for(
        lambda: any("check_job" in command for command in descendants(server.process.pid).values()),
        60,
        lambda: f"no check was started:\n{server.output()[-3000:]}",
    )
    tree = descendants(server.process.pid)
    assert any("check_job" in command for command in tree.values())
    assert sum("forkserver" in command or "ladder-worker" in command for command in tree.values()) >= 1, tree
    server.kill()  # kill -9 of the server alone
    killed = time.monotonic()
    while alive(tree) and time.monotonic() - killed < 2.0:
        time.sleep(0.05)
    assert not alive(tree), f"processes of the killed server outlived it by 2 s: {alive(tree)}"
    [(state,)] = rows(bots.home, "SELECT state FROM serve_submission ORDER BY id DESC LIMIT 1")
    assert state == "checking"  # interrupted: nothing wrote its verdict after the kill

    server = serve(bots, servers)
    wait_for(
        lambda: rows(bots.home, "SELECT state FROM serve_submission ORDER BY id DESC LIMIT 1") == [("active",)],
        300,
        lambda: f"the interrupted check was not run again:\n{server.output()[-3000:]}",
    )


def _hold_a_request_open(server: Server, token: str) -> socket.socket:
    """An author in the middle of an upload: the web server's graceful stop waits for it (a few seconds at most)."""
    held = socket.create_connection(("127.0.0.1", server.port))
    held.sendall(
        b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token.encode() + b"\r\n"
        b"Content-Type: multipart/form-data; boundary=cut\r\nContent-Length: 1000000\r\n\r\n"
        b'--cut\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n\r\n' + b"#" * 1000
    )
    return held


def test_no_match_starts_after_ctrl_c_and_the_stop_is_quick(field: tuple[Field, list[Server]]) -> None:
    bots, servers = field
    server = serve(bots, servers)
    bots.submit(server)
    busy(bots, server)
    held = _hold_a_request_open(server, bots.env["LADDER_TOKEN"])
    try:
        time.sleep(0.5)
        signalled = datetime.now(UTC).replace(tzinfo=None)
        tick = time.monotonic()
        server.kill(signal.SIGINT)
        took = time.monotonic() - tick
    finally:
        held.close()
    output = server.output()
    assert server.process.returncode == 0, output[-3000:]
    assert "no match is handed out now" in output and "stopped" in output and "ladder.serve ERROR" not in output
    # the held upload was cut off after the grace (uvicorn reports the cancelled request with its traceback)
    assert "timeout graceful shutdown exceeded" in output
    assert "Traceback" not in output.split("timeout graceful shutdown exceeded")[0]
    late = rows(
        bots.home,
        f"SELECT key, started_at FROM match WHERE started_at > '{signalled.isoformat(sep=' ')}' "
        "AND status != 'skipped'",
    )
    # a match handed out before the signal reaches its worker within milliseconds; none is handed out after it
    assert all(datetime.fromisoformat(started) < signalled + HANDOVER for _key, started in late), late
    assert took < 10, f"the stop took {took:.1f} s:\n{output[-3000:]}"
    assert rows(bots.home, "SELECT state, pid FROM tournament WHERE name = 'serve'") == [("stopped", None)]


def test_a_second_ctrl_c_says_what_it_abandoned_and_exits(field: tuple[Field, list[Server]]) -> None:
    bots, servers = field
    server = serve(bots, servers)
    bots.submit(server, slow=True)
    busy(bots, server)
    assert in_flight(bots.home)
    os.kill(server.process.pid, signal.SIGINT)
    time.sleep(0.3)
    tick = time.monotonic()
    server.kill(signal.SIGINT)
    took = time.monotonic() - tick
    output = server.output()
    assert server.process.returncode == 0, output[-3000:]
    said = re.findall(r"abandoned (\d+) match(?:es)? in flight(: [^;]*)?; (.*)", output)
    assert len(said) == 1, output[-3000:]
    count, listed, _checks = said[0]
    assert int(count) >= 1 and listed, output[-3000:]
    assert took < 10, f"exiting took {took:.1f} s after the second Ctrl-C"
    assert rows(bots.home, "SELECT state FROM tournament WHERE name = 'serve'") == [("stopped",)]
