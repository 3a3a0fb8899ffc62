"""The HTML report in a real headless browser (Debian's ``chromium``).

Runs when chromium is installed. When it is not: skipped on a developer
machine, but FAILS when ``CI`` is set, so CI cannot pass without having looked
at the page (``.ci/run`` must ``apt-get install -y chromium``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.metrics.helpers import cli, report
from tests.metrics.test_formats import EXAMPLE, assert_page_equals_json, page_figures

BROWSERS = ("chromium", "chromium-browser")


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail(
            "CI is set but no chromium is installed: the HTML report must be checked in a "
            "real browser. Install it (`apt-get install -y chromium`) in .ci/run."
        )
    pytest.skip("chromium not installed (set CI=1 to make this a failure)")


def _chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_chromium_renders_the_report_and_its_numbers_equal_the_json(tmp_path: Path) -> None:
    browser = _browser()
    code, html, err = cli("--telemetry-dir", str(EXAMPLE), "--format", "html", "--sprint", "W49")
    assert code == 0, err
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    data = report("--telemetry-dir", str(EXAMPLE), "--sprint", "W49")

    dumped = _chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = dumped.stdout
    assert "<svg" in dom and 'id="agent-bars"' in dom and 'id="session-rates"' in dom
    # what the browser parsed (not just what we wrote) says what the JSON says
    assert_page_equals_json(dom, data)
    figures = page_figures(dom).found
    assert figures[("total", "nudge_respect_ratio")] == (0.625, "62.5%")
    assert figures[("total", "pre_read_consultation_rate")] == (9 / 11, "81.8%")

    shot = tmp_path / "report.png"
    shotted = _chromium(
        browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1100,1600",
        page.as_uri(),
    )  # fmt: skip
    assert shotted.returncode == 0, shotted.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000  # a rendered, non-blank page
