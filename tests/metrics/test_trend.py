"""``mishkan metrics --trend``: three sprints closed by the real hook and sprint-close.

Each sprint is the metrics scenario (tests/metrics/scenario.py) played
through the real hook file (``python -I -S graphify_nudge.py``) in its own
telemetry directory, its events moved into its ISO week (the hook stamps the
wall clock; the shift keeps every event's order and content), then closed by
``python -m mishkan_core sprint-close --sprint 2026-Www``, which writes the
report the trend reads back:

========  =========  =====================================  ==========  ============
sprint    mode       script                                 respect     consultation
========  =========  =====================================  ==========  ============
2026-W10  telemetry  the scenario                           n/a         7/9
2026-W11  advise     without hizkiah's two lookups;         1/7 (<50%)  7/9
                     advisories that only pointed
2026-W12  advise     both agents look the graph up first;   n/a         9/9
                     advisories that answer (7 of 7)
========  =========  =====================================  ==========  ============

W11's telemetry is the hook's with `answered` taken off every line: what a
hook that only pointed to a lookup (43bb0be and before) wrote. So the verdict
is D-009's: after the first sprint of phase 2 (W11), a nudge-respect ratio
under 50% asks for a follow-up ADR (decision record); in W12 every advisory answered, so no
lookup was needed and the ratio has nothing to measure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import sprint_close
from tests.metrics import scenario as sc
from tests.metrics.helpers import cli, report
from tests.metrics.test_formats import page_figures
from tests.metrics.test_html_browser import _browser, _chromium

REPO = Path(__file__).resolve().parents[2]
#: the reports of this run, committed for docs/metrics.md's worked example
FIXTURE = Path(__file__).parent / "fixtures" / "sprint-close-reports"
LOOKUP_FIRST = [
    sc.Step("hizkiah", "Bash", {"command": "graphify query overview", "description": "q"}),
    sc.Step("salma", "Bash", {"command": "graphify query overview", "description": "q"}),
]
#: sprint -> (hook mode, which steps of the scenario)
SPRINTS = {
    "2026-W10": ("telemetry", "all"),
    "2026-W11": ("advise", "no-hizkiah-lookups"),
    "2026-W12": ("advise", "lookup-first"),
}
#: the sprint whose telemetry is a pointing hook's (no `answered` field)
POINTING = "2026-W11"


def _steps(root: Path, which: str) -> list[sc.Step]:
    steps = sc.script(str(root))
    if which == "no-hizkiah-lookups":  # steps 5 and 15 of the scenario
        return [s for i, s in enumerate(steps) if i not in (4, 14)]
    if which == "lookup-first":
        return LOOKUP_FIRST + steps
    return steps


def _into_week(telemetry: Path, sprint: str, pointing: bool = False) -> None:
    """Move the sprint's events to the Wednesday of its ISO week, in order
    (`pointing`: as a hook that only pointed wrote them, without `answered`)."""
    week = sprint_close.iso_week(sprint)
    assert week is not None
    target = (week[0] + timedelta(days=2, hours=9)).timestamp()
    for path in telemetry.glob("*.jsonl"):
        events = [json.loads(line) for line in path.read_text().splitlines()]
        first = min(e["ts"] for e in events)
        for e in events:
            e["ts"] = round(target + (e["ts"] - first), 3)
            if pointing:
                e.pop("answered", None)
        path.write_text("".join(json.dumps(e) + "\n" for e in events))


def _env(root: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root.parent)}


@pytest.fixture(scope="module")
def sprints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("trend")
    root = sc.make_project(tmp)
    windows: dict[str, tuple[str, str, Path]] = {}
    for sprint, (mode, which) in SPRINTS.items():
        telemetry = root / ".mishkan" / f"telemetry-{sprint}"
        telemetry.mkdir(parents=True)
        hook = sc.Hook(root, telemetry, mode)
        sc.play(hook, f"session-{sprint}", _steps(root, which))
        _into_week(telemetry, sprint, pointing=sprint == POINTING)
        done = subprocess.run(
            [sys.executable, "-m", "mishkan_core", "sprint-close", "--project", str(root),
             "--telemetry-dir", str(telemetry), "--sprint", sprint, "--extract", "print"],
            cwd=REPO, env=_env(root), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        week = sprint_close.iso_week(sprint)
        assert week is not None
        windows[sprint] = (week[0].isoformat(), week[1].isoformat(), telemetry)
    return {"root": root, "reports": root / "docs" / "sprint-close", "windows": windows}


def _trend(sprints: dict[str, Any], *extra: str) -> dict[str, Any]:
    code, out, err = cli("--trend", str(sprints["reports"]), "--format", "json", *extra)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_each_sprint_is_what_its_sprint_close_measured(sprints: dict[str, Any]) -> None:
    trend = _trend(sprints)
    assert [s["sprint"] for s in trend["sprints"]] == list(SPRINTS)
    assert [s["phase"] for s in trend["sprints"]] == [1, 2, 2]
    assert [s["recommendation"] for s in trend["sprints"]] == [
        "enable-phase-2", "follow-up-adr", "keep-phase-2",
    ]  # fmt: skip
    keys = ("nudge_respect_ratio", "pre_read_consultation_rate", "nudges", "nudges_respected",
            "triggers", "triggers_consulted")  # fmt: skip
    for row in trend["sprints"]:
        since, until, telemetry = sprints["windows"][row["sprint"]]
        measured = report("--telemetry-dir", str(telemetry), "--since", since, "--until", until)
        assert row["figures"] == "front matter"
        assert {k: row[k] for k in keys} == {k: measured[k] for k in keys}
        assert {a: {k: f[k] for k in keys} for a, f in row["per_agent"].items()} == {
            agent: {k: fig[k] for k in keys} for agent, fig in measured["per_agent"].items()
        }
    w10, w11, w12 = trend["sprints"]
    assert (w10["nudge_respect_ratio"], w10["pre_read_consultation_rate"]) == (None, 7 / 9)
    assert (w11["nudges_respected"], w11["nudges"], w11["nudges_answered"]) == (1, 7, 0)
    # W12: the lookups are there (4 of them) but the 7 advisories answered: no window
    assert (w12["nudge_respect_ratio"], w12["nudges"], w12["nudges_answered"]) == (None, 7, 7)
    assert (w12["triggers_consulted"], w12["triggers"]) == (9, 9)
    assert trend["agents"] == ["hizkiah", "salma"]


def test_the_committed_reports_are_this_runs(sprints: dict[str, Any]) -> None:
    """docs/metrics.md shows the trend of tests/metrics/fixtures/sprint-close-reports;
    they must be what sprint-close writes today (else copy these over them)."""
    written = sorted(sprints["reports"].glob("*.md"))
    assert [p.name for p in written] == sorted(p.name for p in FIXTURE.glob("*.md"))
    for path in written:
        assert path.read_text() == (FIXTURE / path.name).read_text(), (
            f"{FIXTURE / path.name} is stale: cp {sprints['reports']}/*.md {FIXTURE}/"
        )


def test_the_verdict_is_d009s(sprints: dict[str, Any]) -> None:
    assert _trend(sprints)["verdict"] == [
        "after one sprint of phase 2 (2026-W11): nudge-respect ratio 14.3% < 50%: agents "
        "followed under half of the advice: write a follow-up decision record (ADR) on what "
        "to change, and do not make the hook block calls instead (D-009)",
        "2026-W11: pre-Read consultation rate 77.8% < 80%: target not met",
        "latest sprint 2026-W12 against 2026-W11: nudge-respect n/a (7 advisories answered "
        "themselves), pre-Read consultation 100.0% (up 22.2 points)",
        "pre-Read consultation 77.8% in the phase-1 baseline (2026-W10), 100.0% in 2026-W12",
    ]


def test_the_text_report(sprints: dict[str, Any]) -> None:
    code, out, err = cli("--trend", str(sprints["reports"]))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "D-009 phase-2 trend: 3 sprints"
    table = lines[lines.index("") + 1 : lines.index("verdict:") - 1]
    assert [line.split()[:2] for line in table] == [
        ["sprint", "phase"], ["2026-W10", "1"], ["2026-W11", "2"], ["2026-W12", "2"],
    ]  # fmt: skip
    words = [" ".join(line.split()) for line in table]
    assert words[2] == "2026-W11 2 14.3% (1/7) < 50% 77.8% (7/9) < 80% follow-up-adr"
    assert words[1] == "2026-W10 1 n/a 77.8% (7/9) < 80% enable-phase-2"
    assert words[3] == "2026-W12 2 n/a 100.0% (9/9) keep-phase-2"
    assert "nudge-respect ratio 14.3% < 50%: agents followed under half" in out
    # the terms it uses, glossed once, at the end
    terms = lines[lines.index("terms:") + 1 :]
    assert [t.split(":")[0].strip() for t in terms] == [
        "trigger", "nudge-respect ratio", "pre-Read consultation rate", "phase 1, phase 2", "ADR",
    ]  # fmt: skip
    assert out.count("architecture decision record") == 1
    grid = lines[lines.index("nudge-respect ratio per agent:") + 1 :][:3]
    assert grid[0].split() == ["agent", "2026-W10", "2026-W11", "2026-W12"]
    assert grid[2].split() == ["salma", "n/a", "33.3%", "(<", "50%)", "n/a"]


def test_since_and_until_keep_the_sprints_that_ended_between(sprints: dict[str, Any]) -> None:
    kept = _trend(sprints, "--since", "2026-03-10", "--until", "2026-03-20")
    assert [s["sprint"] for s in kept["sprints"]] == ["2026-W11"]
    empty = _trend(sprints, "--since", "2030-01-01")
    assert (empty["sprints"], empty["verdict"]) == ([], ["no sprint with figures in the window"])


def test_a_report_from_an_older_sprint_close_gives_its_tables(
    sprints: dict[str, Any], tmp_path: Path
) -> None:
    """Reports written before the figures: line (main at 9707cc6) still count."""
    old = tmp_path / "reports"
    shutil.copytree(sprints["reports"], old)
    for path in old.glob("*.md"):
        text = path.read_text()
        path.write_text("".join(line for line in text.splitlines(keepends=True)
                                if not line.startswith("figures: ")))  # fmt: skip
    new, older = _trend(sprints), json.loads(cli("--trend", str(old), "--format", "json")[1])
    assert [s["figures"] for s in older["sprints"]] == ["tables"] * 3
    for a, b in zip(new["sprints"], older["sprints"]):
        for key in ("nudges", "nudges_respected", "triggers", "triggers_consulted",
                    "nudge_respect_ratio", "pre_read_consultation_rate"):  # fmt: skip
            assert a[key] == b[key]
        for agent, fig in a["per_agent"].items():
            for key in ("nudge_respect_ratio", "pre_read_consultation_rate"):
                if fig[key] is None:
                    assert b["per_agent"][agent][key] is None
                else:
                    assert abs(fig[key] - b["per_agent"][agent][key]) < 0.0005
    assert older["verdict"] == new["verdict"]
    _code, out, _err = cli("--trend", str(old))
    assert "from an older sprint-close" in out


@pytest.mark.slow
def test_chromium_renders_the_trend_and_its_numbers_equal_the_json(
    sprints: dict[str, Any], tmp_path: Path
) -> None:
    browser = _browser()
    code, html, err = cli("--trend", str(sprints["reports"]), "--format", "html")
    assert code == 0, err
    assert "<script" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    page = tmp_path / "trend.html"
    page.write_text(html, encoding="utf-8")
    data = _trend(sprints)
    dumped = _chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = dumped.stdout
    for chart in ("trend-total", "trend-agent-hizkiah", "trend-agent-salma"):
        assert f'id="{chart}"' in dom
    assert dom.count('class="respect-floor"') == 3 and dom.count('class="consultation-target"') == 3
    # what the browser parsed says what the JSON says, sprint by sprint and agent by agent
    found = page_figures(dom).found
    want: dict[tuple[str, str], Any] = {}
    for row in data["sprints"]:
        want[(f"sprint:{row['sprint']}", "phase")] = row["phase"]
        for key in ("nudge_respect_ratio", "pre_read_consultation_rate"):
            want[(f"sprint:{row['sprint']}", key)] = row[key]
            for agent, fig in row["per_agent"].items():
                want[(f"agent:{agent}@{row['sprint']}", key)] = fig[key]
    assert {k: v for k, (v, _text) in found.items()} == want
    assert found[("sprint:2026-W11", "nudge_respect_ratio")][1] == "14.3% (1/7)"
    assert "write a follow-up decision record (ADR)" in dom

    shot = tmp_path / "trend.png"
    shotted = _chromium(browser, tmp_path / "profile", f"--screenshot={shot}",
                        "--window-size=1100,1500", page.as_uri())  # fmt: skip
    assert shotted.returncode == 0, shotted.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000  # a rendered, non-blank page
    keep = os.environ.get("MISHKAN_TREND_SCREENSHOT")
    if keep:  # to look at it: MISHKAN_TREND_SCREENSHOT=/tmp/trend.png pytest -k chromium
        shutil.copyfile(shot, keep)
