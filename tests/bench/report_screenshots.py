"""Screenshots of the replay viewer, one per game (and a seat's own view of the table games), for docs/images/.

    python tests/bench/report_screenshots.py [--out docs/images] [--keep DIR]

Plays a small real tournament through the CLI (every game, the built-in
``random``, ``thumb`` and ``thumb-50`` bots at 3 players where the game has
seats), writes its report with ``ladder report``, opens a replay of each game
in headless Chromium (Selenium, as the browser tests do) at a step a third
of the way through, and saves the window as PNG. Fails if a page logs a
JavaScript error. Needs chromium and chromedriver.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("elfer-raus", "elevenses", "elevenses-for-one", "bowling-solitaire")
SEAT_VIEWS = ("elfer-raus", "elevenses")  # a seat's own view too: the others' hidden cards face down


def cli(where: Path, *args: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", f"sqlite:///{where / 'shots.db'}"],
        capture_output=True,
        text=True,
        cwd=where,
        env={**os.environ, "LADDER_RESULTS": str(where / "results")},
        timeout=1800,
    )
    if run.returncode:
        raise SystemExit(f"ladder {' '.join(args)} failed:\n{run.stderr}")


def browser(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium = next(
        (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None
    )
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise SystemExit("needs chromium and chromedriver (apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def shoot(chrome: Any, url: str, target: Path, replay: bool = True) -> None:
    chrome.get_log("browser")
    chrome.get(url)
    for _ in range(100 if replay else 0):
        if chrome.find_element("tag name", "body").get_attribute("data-ready"):
            break
        time.sleep(0.1)
    if replay and chrome.find_element("tag name", "body").get_attribute("data-ready") != "true":
        raise SystemExit(f"{url}: the replay did not load")
    errors = [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        raise SystemExit(f"{url}: JavaScript errors: {errors}")
    chrome.save_screenshot(str(target))
    print(f"wrote {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--keep", type=Path, help="work in this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="report-shots-"))
    where.mkdir(parents=True, exist_ok=True)
    if not (where / "shots.db").exists():
        (where / "shots.toml").write_text(
            'name = "screenshots"\nseed = 20240611\ngames = "all"\n'
            'bots = ["random", "thumb", "thumb-50"]\nplayers = [3]\ngames_per_pairing = 1\n'
            "workers = 1\n"
        )
        cli(where, "run", "shots.toml", "--no-progress")
    site = where / "site"
    cli(where, "report", "--out", str(site))
    con = sqlite3.connect(where / "shots.db")
    args.out.mkdir(parents=True, exist_ok=True)
    chrome = browser(1400, 1150)
    try:
        for game in GAMES:
            found = con.execute(
                "SELECT id, action_count FROM match WHERE game = ? AND status = 'played' "
                "ORDER BY action_count DESC LIMIT 1",
                (game,),
            ).fetchone()
            if found is None:
                raise SystemExit(f"no played match of {game}")
            match_id, actions = found
            page = (site / "matches" / f"{match_id}.html").resolve().as_uri()
            step = max(1, actions // 3)
            shoot(chrome, f"{page}#step={step}", args.out / f"replay-{game}.png")
            if game in SEAT_VIEWS:
                shoot(chrome, f"{page}#step={step}&view=1", args.out / f"replay-{game}-seat-1.png")
        shoot(chrome, (site / "index.html").resolve().as_uri(), args.out / "report-index.png", replay=False)
    finally:
        chrome.quit()
        con.close()


if __name__ == "__main__":
    main()
