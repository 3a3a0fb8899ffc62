"""``--trend`` on report directories a clone shaped: by class, never a traceback.

The reports live in the project (``docs/sprint-close/``), so anything can be
there. What the trend promises: a report whose figures do not hold is listed
as skipped with the reason, a link, FIFO or oversized file is never read
through, a file sprint-close did not write is ignored, every name it prints
is one printable line, and an unusable directory is one line and exit 2.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mishkan_core.metrics import sprint_reports
from tests.metrics.helpers import cli, no_hang

COUNTS = {"nudges": 4, "nudges_respected": 1, "triggers": 6, "triggers_consulted": 3}


def _report(directory: Path, name: str, *, sprint: str | None = None, until: str,
            figures: Any = None, phase: int = 2, raw: str | None = None) -> Path:  # fmt: skip
    if figures is None:
        figures = {"v": 1, **COUNTS, "per_agent": {"hizkiah": dict(COUNTS)}}
    line = raw if raw is not None else json.dumps(figures)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(
        "---\nmishkan: ingest\nkind: sprint-report\n"
        f"sprint: {json.dumps(sprint or name[:-3])}\ngenerator: {sprint_reports.GENERATOR}\n"
        f'since: ""\nuntil: {json.dumps(until)}\nphase: {phase}\n'
        f"recommendation: keep-phase-2\nfigures: {line}\n---\n\n# report\n"
    )
    return path


def _trend(directory: Path) -> dict[str, Any]:
    code, out, err = cli("--trend", str(directory), "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_the_figures_line_read_back(tmp_path: Path) -> None:
    _report(tmp_path, "s1.md", until="2026-03-01T00:00:00Z")
    (row,) = _trend(tmp_path)["sprints"]
    assert (row["nudge_respect_ratio"], row["pre_read_consultation_rate"]) == (0.25, 0.5)
    assert row["per_agent"]["hizkiah"]["nudges"] == 4


@pytest.mark.parametrize(
    "figures",
    [
        {"v": 2, **COUNTS, "per_agent": {}},  # a newer schema
        {"v": 1, **COUNTS},  # no per_agent
        {"v": 1, **{**COUNTS, "nudges_respected": 5}, "per_agent": {}},  # more than given
        {"v": 1, **{**COUNTS, "nudges": -1}, "per_agent": {}},
        {"v": 1, **{**COUNTS, "nudges": True}, "per_agent": {}},
        {"v": 1, **{**COUNTS, "nudges": 4.0}, "per_agent": {}},
        {"v": 1, **{**COUNTS, "triggers": "6"}, "per_agent": {}},
        {"v": 1, **{**COUNTS, "triggers": 10**30}, "per_agent": {}},
        [1, 2, 3],
        "figures",
    ],
    ids=["v2", "no-agents", "num>den", "negative", "bool", "float", "string", "huge",
         "list", "scalar"],
)  # fmt: skip
def test_figures_that_do_not_hold_are_skipped_with_the_reason(figures: Any, tmp_path: Path) -> None:
    _report(tmp_path, "good.md", until="2026-03-01T00:00:00Z")
    _report(tmp_path, "bad.md", until="2026-03-08T00:00:00Z", figures=figures)
    data = _trend(tmp_path)
    assert [s["file"] for s in data["sprints"]] == ["good.md"]
    assert data["skipped"] == [
        {"file": "bad.md", "why": "its figures: line is not what sprint-close writes"}
    ]
    code, out, _err = cli("--trend", str(tmp_path))
    assert code == 0 and "skipped bad.md: its figures: line" in out


@pytest.mark.parametrize(
    "raw", ["[" * 100_000, '{"v": 1', "NaN", '{"v": 1, "nudges": 1e400}', "\x00\x1b[2J"],
    ids=["deep", "torn", "nan", "overflow", "control"],
)  # fmt: skip
def test_a_figures_line_that_is_not_json_is_skipped(raw: str, tmp_path: Path) -> None:
    _report(tmp_path, "bad.md", until="2026-03-08T00:00:00Z", raw=raw)
    data = _trend(tmp_path)
    assert data["sprints"] == [] and [s["file"] for s in data["skipped"]] == ["bad.md"]


def test_bad_agent_entries_are_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    agents = {"hizkiah": COUNTS, "x" * 65: COUNTS, "salma": {"nudges": "many"}, "": COUNTS}
    _report(tmp_path, "s.md", until="2026-03-01T00:00:00Z",
            figures={"v": 1, **COUNTS, "per_agent": agents})  # fmt: skip
    (row,) = _trend(tmp_path)["sprints"]
    assert list(row["per_agent"]) == ["hizkiah"]


def test_names_are_printed_on_one_printable_line(tmp_path: Path) -> None:
    evil = "W1\x1b]0;pwned\x07\n| injected |\r"
    _report(tmp_path, "s.md", sprint=evil, until="2026-03-01T00:00:00Z",
            figures={"v": 1, **COUNTS, "per_agent": {"a\x1b[31mred": COUNTS}})  # fmt: skip
    for fmt in ("text", "markdown"):
        code, out, _err = cli("--trend", str(tmp_path), "--format", fmt)
        assert code == 0
        assert "\x1b" not in out and "\x07" not in out and "\r" not in out
        shown = "W1?]0;pwned??" if fmt == "text" else "W1?\\]0;pwned??"  # Markdown: no link
        assert shown in out  # the name, on its line
        if fmt == "markdown":  # and no table cell of its own
            assert "| injected |" not in out
    code, html, _err = cli("--trend", str(tmp_path), "--format", "html")
    assert code == 0 and "<script" not in html and "\x1b" not in html


def test_links_fifos_big_files_and_strangers_are_never_read(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    _report(reports, "good.md", until="2026-03-01T00:00:00Z")
    outside = _report(tmp_path / "elsewhere", "theirs.md", until="2026-03-08T00:00:00Z")
    (reports / "link.md").symlink_to(outside)
    os.mkfifo(reports / "fifo.md")
    big = _report(reports, "big.md", until="2026-03-15T00:00:00Z")
    with big.open("a") as fh:
        fh.write("x" * (sprint_reports.REPORT_LIMIT + 1))
    (reports / "notes.md").write_text("---\ntitle: not a sprint-close report\n---\n")
    with no_hang():
        data = _trend(reports)
    assert [s["file"] for s in data["sprints"]] == ["good.md"]
    assert data["skipped"] == []


@pytest.mark.parametrize("case", ["missing", "file", "empty", "strangers-only"])
def test_an_unusable_directory_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    target = tmp_path / "reports"
    if case == "file":
        target.write_text("x")
    elif case == "empty":
        target.mkdir()
    elif case == "strangers-only":
        target.mkdir()
        (target / "a.md").write_text("# notes\n")
    code, out, err = cli("--trend", str(target))
    assert (code, out) == (2, "")
    assert err.startswith("mishkan metrics: no sprint-close report") and err.count("\n") == 1


def test_trend_and_telemetry_dir_are_one_or_the_other(tmp_path: Path) -> None:
    code, _out, err = cli("--trend", str(tmp_path), "--telemetry-dir", str(tmp_path))
    assert code == 2 and "not allowed with argument" in err


def test_the_default_directory_is_sprint_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _report(tmp_path / "docs" / "sprint-close", "s.md", until="2026-03-01T00:00:00Z")
    monkeypatch.delenv(sprint_reports.REPORT_DIR_ENV, raising=False)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    code, out, _err = cli("--trend")
    assert code == 0 and "1 sprint" in out
    monkeypatch.setenv(sprint_reports.REPORT_DIR_ENV, str(tmp_path / "nowhere"))
    assert cli("--trend")[0] == 2
