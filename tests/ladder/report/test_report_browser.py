"""The report in a real browser: headless Chromium (Debian's `chromium` + `chromium-driver`) driven by Selenium.

A small real tournament is run through the CLI into a temporary database, its report is written with
`ladder report`, and the pages are loaded from file:// as a user would open them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from tests.browser import CHROMEDRIVER as DRIVER
from tests.browser import CHROMIUM, chromium

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
    with chromium() as driver:
        yield driver


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
        # the verdict and the rank intervals are those of `ladder rankings`
        section = browser.find_element(By.ID, f"pool-{pool.replace('/', '-')}")
        verdict = section.find_element(By.CSS_SELECTOR, ".verdict")
        assert verdict.get_attribute("data-verdict") == board["verdict"] and board["reason"] in verdict.text
        intervals = [cell.text for cell in section.find_elements(By.CSS_SELECTOR, "td.rank-interval")]
        assert intervals == [
            f"{low}" if low == high else f"{low}–{high}"
            for low, high in (row["rank_interval"] for row in board["table"])
        ]
    assert (
        "better than the next one down, from a paired sequential test"
        in browser.find_element(By.CSS_SELECTOR, ".above-next-note").text
    )
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


def wait_ready(browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20).until(lambda b: b.find_element("tag name", "body").get_attribute("data-ready"))
    assert browser.find_element("tag name", "body").get_attribute("data-ready") == "true"


def recorded(site: Path, game: str) -> tuple[Any, list[dict[str, Any]]]:
    """A played match of ``game`` in the site's database, and its action log."""
    from ladder.store.database import session_for
    from ladder.store.tables import MatchRow
    from ladder.views.records import load

    with session_for(f"sqlite:///{site.parent / 'l.db'}") as session:
        match = next(m for m in load(session).matches if m.game == game and m.status == "played" and m.action_count > 3)
        actions = session.get(MatchRow, match.match_id).actions  # type: ignore[union-attr]
    return match, actions


def state_after(match: Any, actions: list[dict[str, Any]], steps: int) -> Any:
    state = get_game(match.game).new_state(match.num_players, match.seed, match.options)
    for action in actions[:steps]:
        state.apply(action)
    return state


def cards_in(browser: Any, selector: str) -> list[str]:
    return [e.get_attribute("data-card") for e in browser.find_elements("css selector", selector)]


def show_step(browser: Any, step: int, view: str = "full") -> None:
    """Go to ``step`` the way a user does: the step box (and the view menu)."""
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "view")).select_by_value(view)
    jump = browser.find_element("id", "jump")
    jump.clear()
    jump.send_keys(f"{step}\n")
    assert browser.find_element("tag name", "body").get_attribute("data-frame") == str(step)


def check_elfer_raus(browser: Any, state: Any) -> None:
    for seat in range(state.num_players):
        hand = [f"{colour} {number}" for colour, number in state.observation(seat)["hand"]]
        assert cards_in(browser, f'[data-zone="hand-{seat}"] .card[data-card]') == hand, seat
    rows = state.observation(0)["rows"]
    for colour, span in rows.items():
        expected = [] if span is None else [f"{colour} {n}" for n in range(span[0], span[1] + 1)]
        assert cards_in(browser, f'[data-zone="row-{colour}"] .card[data-card]') == expected, colour
    pack = browser.find_element("css selector", '[data-zone="pack"]').text
    size = state.observation(0)["pack_size"]
    assert f"the pack: {size} card{'' if size == 1 else 's'}" in pack
    totals = browser.find_element("css selector", '[data-zone="scores"]').text
    assert all(f" {t}" in totals for t in state.observation(0)["totals"])
    # seat 1's own view: its hand face up, the other hands face down, as many cards as they hold
    show_step(browser, int(browser.find_element("tag name", "body").get_attribute("data-frame")), "1")
    mine = [f"{c} {n}" for c, n in state.observation(1)["hand"]]
    assert cards_in(browser, '[data-zone="hand-1"] .card[data-card]') == mine
    sizes = state.observation(1)["hand_sizes"]
    assert len(browser.find_elements("css selector", '[data-zone="hand-0"] .card.back')) == sizes[0]
    assert not browser.find_elements("css selector", '[data-zone="hand-0"] .card[data-card]')


def check_elevenses(browser: Any, state: Any) -> None:
    n = state.num_players
    for seat in range(n):
        for place in range(1, 11):
            card = state.card_at[seat][place]
            node = browser.find_element("css selector", f'[data-zone="spread-{seat}"] [data-place="{place}"]')
            expected = None if card < 0 else f"{card % 11 + 1}/{card // 11}"  # the full view shows face-down cards too
            assert node.get_attribute("data-card") == expected, (seat, place)
        kitchen = sorted(f"{c % 11 + 1}/{c // 11}" for c in state.kitchen[seat])
        assert sorted(cards_in(browser, f'[data-zone="kitchen-{seat}"] .card[data-card]')) == kitchen
        cubes = browser.find_element("css selector", f'[data-zone="cubes-{seat}"]')
        assert cubes.get_attribute("data-count") == str(state.cubes[seat])
        assert len(cubes.find_elements("css selector", ".cube")) == state.cubes[seat]
    show_step(browser, int(browser.find_element("tag name", "body").get_attribute("data-frame")), "0")
    # seat 0's view: the other kitchens are backs; face-down spread cards are backs unless a Sugar shows them
    other = state.observation(0)["kitchens"][1]["backs"]
    assert len(browser.find_elements("css selector", '[data-zone="kitchen-1"] .card.back')) == len(other)
    assert not browser.find_elements("css selector", '[data-zone="kitchen-1"] .card[data-card]')
    face_up = {tuple(c) for c in state.observation(0)["spreads"][1]["face_up"]}
    shown = {tuple(int(x) for x in c.split("/")) for c in cards_in(browser, '[data-zone="spread-1"] .card[data-card]')}
    assert shown == face_up


def check_elevenses_for_one(browser: Any, state: Any) -> None:
    seen = state.observation(0)
    assert cards_in(browser, '[data-zone="pantry"] .card') == [str(p["card"]) for p in seen["pantry"]]
    down = [
        e.get_attribute("data-card")
        for e in browser.find_elements("css selector", '[data-zone="pantry"] .card.seen-down')
    ]
    assert down == [str(p["card"]) for p in seen["pantry"] if not p["face_up"]]
    assert cards_in(browser, '[data-zone="trolley"] .card') == [str(c) for c in seen["trolley"]]
    assert browser.find_element("css selector", "svg.clock").get_attribute("data-minutes") == str(seen["minutes"])
    assert f"score {seen['score']} " in browser.find_element("css selector", '[data-zone="scores"]').text


def check_bowling(browser: Any, state: Any) -> None:
    seen = state.observation(0)
    standing = {
        e.get_attribute("data-pin"): e.get_attribute("data-card")
        for e in browser.find_elements("css selector", '[data-zone="pins"] .pin.up')
    }
    assert standing == {name: str(number) for name, number in seen["pins"].items()}
    for pile in range(3):
        shown = cards_in(browser, f'[data-zone="pile-{pile}"] .card[data-card]')
        assert shown == [str(c) for c in state.piles[pile]], pile  # the full view: every card of the pile, top last
    totals = [e.text for e in browser.find_elements("css selector", '[data-zone="score-sheet"] td.total')]
    assert totals == ["" if t is None else str(t) for t in seen["score_sheet"]]


CHECKS = {
    "elfer-raus": check_elfer_raus,
    "elevenses": check_elevenses,
    "elevenses-for-one": check_elevenses_for_one,
    "bowling-solitaire": check_bowling,
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(CHECKS))
def test_the_replay_draws_what_the_engine_holds_at_every_checked_step(site: Path, browser: Any, game: str) -> None:
    """Step through a whole match of each game; at the deal, a middle step and the end, what is drawn is
    the engine's state (cards in each hand, on the table, the score); the links, keys and play work."""
    from selenium.webdriver.common.keys import Keys

    match, actions = recorded(site, game)
    open_page(browser, site / "matches" / f"{match.match_id}.html")
    wait_ready(browser)
    total = int(browser.find_element("id", "total").text)
    assert total == len(actions)
    # every step drawn in turn, as the next button does it (a JavaScript error at any step fails below)
    frames = browser.execute_script(
        "var seen = []; for (var i = 0; i < arguments[0]; i++) { document.getElementById('next').click();"
        " seen.push(document.body.getAttribute('data-frame')); } return seen;",
        total,
    )
    assert frames == [str(k) for k in range(1, total + 1)]
    assert "the match is over" in browser.find_element("id", "move").text
    assert browser.find_element("id", "next").get_attribute("disabled")
    assert not browser.find_elements("css selector", "#offer")  # no decision after the end
    browser.find_element("tag name", "body").send_keys(Keys.ARROW_LEFT)
    assert browser.find_element("tag name", "body").get_attribute("data-frame") == str(total - 1)
    chosen = browser.find_elements("css selector", "#offer li.chosen")
    assert len(chosen) == 1  # the last decision: the action played is highlighted among those offered
    offered = state_after(match, actions, total - 1).legal_actions()
    assert len(browser.find_elements("css selector", "#offer li")) == len(offered)
    assert int(chosen[0].get_attribute("data-index")) == offered.index(actions[-1])
    assert browser.find_element("id", "think-here").text.startswith("Thought ")  # the time of this very decision
    for step in sorted({0, total // 2, total}):
        show_step(browser, step)
        CHECKS[game](browser, state_after(match, actions, step))
    scores = [browser.find_element("css selector", f'[data-score-seat="{s.seat}"]').text for s in match.seats]
    assert scores == [f"{s.score:g}" for s in match.seats]
    # a link to a step opens on that step
    browser.get((site / "matches" / f"{match.match_id}.html").resolve().as_uri() + "#step=2")
    wait_ready(browser)
    assert browser.find_element("tag name", "body").get_attribute("data-frame") == "2"
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


def test_a_failure_is_one_key_away_and_the_bots_words_stay_text(tmp_path: Path, browser: Any) -> None:
    """A match where seat 1's bot crashed after 5 moves (a random stand-in played on): `f` jumps to the step
    of the failure, its stand-in's moves are marked, and what the bot wrote is shown as text, never run."""
    from datetime import datetime
    from importlib import resources

    from selenium.webdriver.common.by import By

    from ladder.report.replay import SeatLabel, replay_bytes
    from ladder.report.site import STATIC_FILES, _environment, replay_script
    from ladder.views.records import MatchRecord, SeatRecord

    state = get_game("elfer-raus").new_state(2, 3, {})
    actions, movers = [], []
    while not state.is_over():
        movers.append(state.current_player)
        actions.append(state.legal_actions()[-1])
        state.apply(actions[-1])
    hostile = "<script>window.pwned = 1</script><img src=x onerror=window.pwned=2>"
    seats = (
        SeatRecord(0, 1, 10.0, 1, None, "", "", None),
        SeatRecord(1, 2, 90.0, 2, "crash", f"raised {hostile}", f"Traceback (most recent call last):\n{hostile}\n", 5),
    )
    match = MatchRecord(
        7,
        1,
        "k",
        "d",
        "elfer-raus",
        {},
        2,
        3,
        "played",
        "",
        1.0,
        (0.5, 0.25),
        len(actions),
        datetime(2026, 1, 1),
        seats,
    )
    site = tmp_path / "site"
    (site / "matches").mkdir(parents=True)
    (site / "static").mkdir()
    for name in STATIC_FILES:
        (site / "static" / name).write_text((resources.files("ladder.report") / "static" / name).read_text())
    labels = [SeatLabel("steady"), SeatLabel(hostile)]
    (site / "matches" / "7.js").write_text(replay_script(replay_bytes(match, actions, labels)))
    (site / "matches" / "7.html").write_text(
        _environment().get_template("match.html").render(match=match, tournament=None)
    )
    open_page(browser, site / "matches" / "7.html")
    wait_ready(browser)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "0"
    browser.find_element(By.TAG_NAME, "body").send_keys("f")
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "5"
    stand_in = next(number for number, seat in enumerate(movers, start=1) if seat == 1 and number > 5)
    show_step(browser, stand_in)
    assert (
        "seat 1" in browser.find_element(By.ID, "move").text
        and "random stand-in" in browser.find_element(By.ID, "move").text
    )
    show_step(browser, next(number for number, seat in enumerate(movers, start=1) if seat == 0 and number > 5))
    assert "stand-in" not in browser.find_element(By.ID, "move").text
    stderr = browser.find_element(By.ID, "stderr").text
    assert "onerror=window.pwned=2" in stderr and "raised <script>" in stderr
    assert browser.execute_script("return window.pwned === undefined")
    assert not browser.find_elements(By.CSS_SELECTOR, "#stderr script, #stderr img, #match-header img")
    assert_no_javascript_error(browser)
