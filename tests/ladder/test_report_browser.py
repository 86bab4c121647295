"""The report in a real browser: headless Chromium (Debian's `chromium` + `chromium-driver`) driven by Selenium.

A small real tournament is run through the CLI into a temporary database, its report is written with
`ladder report`, and the pages are loaded from file:// as a user would open them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import get_game

CHROMIUM = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs chromium and chromedriver (apt-get install chromium chromium-driver)",
)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")


def ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", f"sqlite:///{where / 'l.db'}"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env={**os.environ, "COLUMNS": "120", "LADDER_RESULTS": str(where / "results")},
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("report")
    (where / "tiny.toml").write_text(
        'name = "tiny"\nseed = 7\ngames = "all"\nbots = "all"\nplayers = [2]\ngames_per_pairing = 1\nworkers = 2\n'
    )
    run = ladder(where, "run", "tiny.toml", "--no-progress")
    assert run.returncode == 0, run.stderr
    written = ladder(where, "report", "--out", str(where / "site"))
    assert written.returncode == 0, written.stderr
    assert "report written" in written.stdout
    return where / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(browser: Any, path: Path) -> None:
    browser.get_log("browser")  # what earlier pages logged was checked already: start with an empty console
    browser.get(path.resolve().as_uri())


def assert_no_javascript_error(browser: Any) -> None:
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def database_bots(site: Path) -> set[str]:
    run = ladder(site.parent, "rankings", "--json")
    data = json.loads(run.stdout)
    return {row["bot"] for pool in data["pools"].values() for row in pool["table"]}


@pytest.mark.slow
def test_the_leaderboard_lists_every_bot_of_every_pool(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, site / "index.html")
    tables = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard")
    shown = {
        table.get_attribute("data-pool"): {a.text for a in table.find_elements(By.CSS_SELECTOR, "a.bot")}
        for table in tables
    }
    rankings = json.loads(ladder(site.parent, "rankings", "--json").stdout)
    for pool, board in rankings["pools"].items():
        assert shown[pool] == {row["bot"] for row in board["table"]}, pool
        header = tables[list(shown).index(pool)].text
        assert "sigma" in header and "P(above next)" in header
    assert shown["overall"] == database_bots(site)
    assert_no_javascript_error(browser)


@pytest.mark.slow
def test_a_bot_page_shows_its_rating_plot(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, site / "index.html")
    link = browser.find_element(By.CSS_SELECTOR, "table.leaderboard a.bot")
    name = link.text
    link.click()
    assert browser.find_element(By.CSS_SELECTOR, "h1.bot-name").text == name
    plot = browser.find_element(By.ID, "rating-plot")
    width = browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", plot)
    assert width and width > 100, "the rating plot did not load"
    svg = (site / plot.get_attribute("src").split("/site/", 1)[1]).read_text()
    assert "<svg" in svg and "mu" in svg
    assert_no_javascript_error(browser)


@pytest.mark.slow
def test_the_replay_viewer_steps_through_a_whole_match_and_shows_a_seat_view(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from ladder.report.data import load
    from ladder.store.database import session_for

    with session_for(f"sqlite:///{site.parent / 'l.db'}") as session:
        data = load(session)
        match = next(m for m in data.matches if m.num_players == 2 and m.status == "played")
        from ladder.store.tables import MatchRow

        actions = session.get(MatchRow, match.match_id).actions  # type: ignore[union-attr]
    open_page(browser, site / "matches" / f"{match.match_id}.html")
    total = int(browser.find_element(By.ID, "total").text)
    assert total == len(actions) > 0
    frame = lambda: int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-frame"))  # noqa: E731
    step = browser.find_element(By.ID, "next")
    for expected in range(1, total + 1):
        step.click()
        assert frame() == expected
    assert "the match is over" in browser.find_element(By.ID, "move").text
    assert browser.find_element(By.ID, "next").get_attribute("disabled")
    browser.find_element(By.ID, "prev").click()
    assert frame() == total - 1
    jump = browser.find_element(By.ID, "jump")
    jump.clear()
    jump.send_keys("3\n")
    assert frame() == 3
    # seat 1's view is exactly the engine's observation for seat 1 after three moves
    state = get_game(match.game).new_state(match.num_players, match.seed, match.options)
    for action in actions[:3]:
        state.apply(action)
    Select(browser.find_element(By.ID, "view")).select_by_value("1")
    shown = json.loads(browser.find_element(By.ID, "board").text)
    assert shown == json.loads(json.dumps(state.observation(1)))
    assert "seat 1" in browser.find_element(By.ID, "board-title").text
    Select(browser.find_element(By.ID, "view")).select_by_value("full")
    assert browser.find_element(By.ID, "board").text.strip() == state.render().strip()
    assert_no_javascript_error(browser)


@pytest.mark.slow
def test_no_page_logs_a_javascript_error(site: Path, browser: Any) -> None:
    pages = [
        site / "index.html",
        *sorted((site / "pools").glob("*.html")),
        *sorted((site / "tournaments").glob("*.html")),
        *sorted((site / "bots").glob("*.html")),
        *sorted((site / "matches").glob("*.html"))[:6],
    ]
    for page in pages:
        open_page(browser, page)
        assert_no_javascript_error(browser)
