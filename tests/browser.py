"""Headless Chromium for the HTML report tests: what a reader's browser makes of a report page.

One launch both takes the screenshot and prints the DOM (headless Chromium runs every command it
is given), as starting a browser is most of what such a check costs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def render(page: Path, shot: Path, window: str) -> str:
    """Render `page` into the PNG `shot` in a `window` ("width,height") and return the DOM the browser
    built; skips the test where Chromium is not installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it)")
    shot.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="toolworlds-chromium-", ignore_cleanup_errors=True) as profile:
        shown = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", f"--user-data-dir={profile}", f"--window-size={window}",
                                f"--screenshot={shot}", "--dump-dom", page.as_uri()],
                               capture_output=True, text=True, timeout=120, check=True)
    return shown.stdout
