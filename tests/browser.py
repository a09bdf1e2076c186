"""Headless Chromium for the HTML report's tests (and bench/html_report.py): Debian's `chromium` and
`chromium-driver` packages, driven by Selenium. The console is recorded (goog:loggingPrefs), so a
test can assert that a page logged nothing: no script error, no Content-Security-Policy refusal,
no failed fetch.

A browser that cannot start raises (its message says which package is missing): tests that need
one then error, they never skip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = os.environ.get("SCHEMACITE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("SCHEMACITE_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
# screenshots the tests keep for a person to look at (ignored by git); SCHEMACITE_ARTIFACTS moves them
ARTIFACTS = Path(os.environ.get("SCHEMACITE_ARTIFACTS") or Path(__file__).with_name("artifacts"))


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator:
    """A headless Chromium (a Selenium WebDriver) with a window of this size, quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).exists():
            raise RuntimeError(f"{path} not found: apt-get install {package}")
    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # the tests run as root in a container
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        resize(driver, width, height)
        yield driver
    finally:
        driver.quit()


def resize(driver, width: int, height: int) -> None:
    """Make the viewport this size. Through the DevTools protocol, as a phone's would be: a desktop
    window is never narrower than 500 pixels."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def scripts(driver, enabled: bool) -> None:
    """Let the pages loaded from now on run their scripts, or not (as a reader with JavaScript off
    sees them); the test's own `execute_script` runs either way."""
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not enabled})


def console(driver) -> list[dict]:
    """What the page wrote to the console since the last call (every level)."""
    return list(driver.get_log("browser"))


def keep(name: str, png: bytes) -> Path:
    """Save a screenshot under ARTIFACTS; returns its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(png)
    return path
