"""Helpers for the served ladder's front-door tests: `ladder serve` as a real process on 127.0.0.1, real HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.ladder.front_door import ROOT, LadderHome

RANDOM_BOT = """import random
import sys

from ladder.bot import Bot


class RandomPlayer(Bot):
    name = "{name}"
    author = "{author}"
    version = "1"
    games = ("elevenses",)

    def act(self, observation, legal_actions):
        print("{secret}", file=sys.stderr)
        return random.choice(legal_actions)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_bot(folder: Path, name: str, author: str, secret: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(RANDOM_BOT.format(name=name, author=author, secret=secret))
    return folder


@dataclass
class Server:
    """A running `ladder serve` (its own process group, so the test can end what it started)."""

    home: LadderHome
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.get(self.url + path, headers=headers, timeout=30, **kwargs)

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.post(self.url + path, headers=headers, timeout=60, **kwargs)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the server process alone (SIGKILL: as `kill -9 PID`)."""
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
        self.process.wait(timeout=120)

    def end(self) -> None:
        """Stop the server and everything it started (its process group)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=60)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def start_server(home: LadderHome, *args: str, timeout: float = 120) -> Server:
    port = free_port()
    log = home.root / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", str(port), *args],
            env=home.env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = Server(home, port, process, log)
    wait_for(lambda: _ready(server), timeout, lambda: f"the server did not start:\n{server.output()}")
    return server


def _ready(server: Server) -> bool:
    if server.process.poll() is not None:
        raise AssertionError(f"the server exited ({server.process.returncode}):\n{server.output()}")
    try:
        return server.get("/api/status").status_code == 200
    except httpx.HTTPError:
        return False


def wait_for(condition: Callable[[], Any], timeout: float, why: Callable[[], str]) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(why())


def add_author(home: LadderHome, name: str, *flags: str) -> str:
    """`ladder author add NAME`: the token it printed once (its last line)."""
    run = home.ladder_ok("author", "add", name, *flags)
    return run.stdout.strip().splitlines()[-1]


def author_env(home: LadderHome, user_home: Path, token: str | None) -> dict[str, str]:
    """The environment of an author on their own machine: their home folder, their token (or none)."""
    user_home.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in home.env.items() if key not in ("LADDER_TOKEN", "XDG_CONFIG_HOME", "LADDER_DB")}
    env["HOME"] = str(user_home)
    env["LADDER_RESULTS"] = str(user_home / "results")  # nothing of the server's on the author's machine
    if token is not None:
        env["LADDER_TOKEN"] = token
    return env


def ladder_as(env: dict[str, str], *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout
    )


def played(server: Server) -> dict[str, int]:
    """Matches per bot on the live leaderboard (JSON API)."""
    counts: dict[str, int] = {}
    for board in server.get("/api/leaderboards").json()["pools"].values():
        for row in board["table"]:
            counts[row["bot"]] = counts.get(row["bot"], 0) + row["matches"]
    return counts


# ---- the replay viewer in headless Chromium (tests/service/test_served_replays.py and the front door) ----------

from tests.browser import CHROMEDRIVER, CHROMIUM, chromium  # noqa: E402, F401 (re-exported for the service tests)


def browser_login(driver: Any, url: str, token: str) -> None:
    """Log in through the login form, as an author does in a browser."""
    driver.get(url + "/login")
    driver.find_element("name", "token").send_keys(token)
    driver.find_element("css selector", "form[action='/login'] button").click()
    wait_in_browser(driver, lambda d: d.current_url.endswith("/me"))


def wait_in_browser(driver: Any, condition: Callable[[Any], Any], timeout: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def step_viewer_to_the_end(driver: Any, page_url: str) -> int:
    """Open a served replay page, wait for its data, press "next" until the end; return how many steps the viewer
    counted. Fails on a load error, a step that is not the next one, or a JavaScript error in the console."""
    driver.get_log("browser")  # start with an empty console
    driver.get(page_url)
    wait_in_browser(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready"))
    assert driver.find_element("tag name", "body").get_attribute("data-ready") == "true", driver.page_source[-2000:]
    total = int(driver.find_element("id", "total").text)
    frames = driver.execute_script(
        "var seen = []; for (var i = 0; i < arguments[0]; i++) { document.getElementById('next').click();"
        " seen.push(document.body.getAttribute('data-frame')); } return seen;",
        total,
    )
    assert frames == [str(k) for k in range(1, total + 1)]
    assert driver.find_element("id", "next").get_attribute("disabled")
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
    return total
