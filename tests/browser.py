"""Headless Chromium for the browser tests: where it is, and a driver that keeps the page's console log."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from typing import Any

CHROMIUM = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)
CHROMEDRIVER = shutil.which("chromedriver")


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Selenium) that keeps the page's console, so a JavaScript error can be asserted away."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM or ""
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
