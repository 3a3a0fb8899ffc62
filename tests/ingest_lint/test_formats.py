"""The four output formats; SARIF checked against the 2.1.0 structure GitHub reads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mishkan_core.ingest_lint._engine import all_rules
from mishkan_core.ingest_lint._formats import Report, github, render, sarif
from mishkan_core.ingest_lint._model import Finding

ACTIVE = Finding(
    "docs/a b.md", "IL101", 9, 40, "graph dump: 15 graph records, 100% of it", '"source": "m.f0",'
)
SUPPRESSED = Finding(
    "docs/c.md",
    "IL502",
    5,
    60,
    "bulk source: 90%",
    "def f():",
    suppressed=True,
    justification="the listing is the decision",
)
ERROR = Finding("docs/bin.md", "IL902", 1, 1, "binary file (NUL byte at offset 3)", error=True)


def _report(*findings: Finding) -> Report:
    return Report(list(findings), all_rules(), files=3, artifacts=2)


def test_text_is_ruff_like() -> None:
    out, err = render(_report(ACTIVE, SUPPRESSED, ERROR), "text")
    lines = out.splitlines()
    assert lines[0] == "docs/a b.md:9:1: IL101 graph dump: 15 graph records, 100% of it"
    assert lines[1] == '    evidence: "source": "m.f0",'
    assert "suppressed: docs/c.md:5 IL502 -- the listing is the decision" in lines
    # only active findings match the path:line:col: CODE shape problem matchers use
    shaped = [line for line in lines if re.match(r"^(.+):(\d+):(\d+): ([A-Z]+\d+) ", line)]
    assert shaped == [lines[0]]
    assert (
        err == "mishkan ingest-lint: error: docs/bin.md: IL902 binary file (NUL byte at offset 3)\n"
    )


def test_text_clean_run() -> None:
    out, err = render(_report(), "text")
    assert out.startswith("All checks passed!") and err == ""


def test_github_commands_are_escaped_like_the_toolkit() -> None:
    tricky = Finding("a,b:c%.md", "IL401", 3, 2, "100% edges\nsecond line", "x -> y")
    out = github(_report(tricky, SUPPRESSED))
    first, second = out.splitlines()
    assert first.startswith(
        "::error file=a%2Cb%3Ac%25.md,line=3,endLine=3,title=IL401 call-edges::"
    )
    assert first.endswith("::100%25 edges%0Asecond line%0Aevidence: x -> y")
    assert second.startswith(
        "::notice file=docs/c.md,line=5,endLine=60,title=IL502 bulk-source::suppressed: "
    )


def _skipped(*findings: Finding, artifacts: int = 0) -> Report:
    """A run that named two files without the marker."""
    rules = all_rules()
    return Report(list(findings), rules, files=3, artifacts=artifacts, skipped=["a.md", "b c.md"])


SKIP = 'skipped: no "mishkan: ingest" marker (only marked files are Cognee work artifacts)'


def test_text_names_each_skipped_file_and_never_says_passed_when_nothing_was_checked() -> None:
    out, err = render(_skipped(), "text")
    assert out.splitlines() == [
        f"a.md: {SKIP}",
        f"b c.md: {SKIP}",
        'Nothing checked: none of the 3 file(s) read has the "mishkan: ingest" marker (only '
        "marked files are Cognee work artifacts; --all lints them anyway).",
    ]
    assert err == ""
    out, _ = render(_skipped(artifacts=1), "text")
    assert (
        out.splitlines()[-1]
        == "All checks passed! (1 artifact(s) checked, 2 skipped, 0 suppressed)"
    )
    out, _ = render(_skipped(ACTIVE, artifacts=1), "text")
    assert out.splitlines()[-1] == (
        "Found 1 finding(s) in 1 file(s) (1 artifact(s) checked, 2 skipped, 0 suppressed)."
    )
    out, _ = render(Report([], [], files=0, artifacts=0), "text")
    assert out.startswith("Nothing checked: no .md, .markdown, .mdx or .txt file")


def test_json_and_sarif_and_github_say_which_files_were_skipped(tmp_path: Path) -> None:
    doc = json.loads(render(_skipped(), "json")[0])
    assert (doc["files"], doc["checked"], doc["findings"]) == (3, 0, [])
    assert doc["skipped"] == [{"path": "a.md", "why": SKIP}, {"path": "b c.md", "why": SKIP}]
    log = json.loads(sarif(_skipped(), root=str(tmp_path)))
    check_sarif(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True  # a skip is no failure to run
    notes = invocation["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["note", "note"]
    assert notes[1]["message"]["text"] == f"b c.md: {SKIP}"
    where = notes[1]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert where["uri"].endswith("b%20c.md")
    assert log["runs"][0]["results"] == []
    # a log line, not an annotation on every unmarked file of a PR
    assert github(_skipped()).splitlines() == [f"a.md: {SKIP}", f"b c.md: {SKIP}"]


def test_json_is_an_object_with_the_findings() -> None:
    out, _ = render(_report(ACTIVE, SUPPRESSED), "json")
    doc = json.loads(out)
    assert (doc["files"], doc["checked"], doc["skipped"]) == (3, 2, [])
    items = doc["findings"]
    assert isinstance(items, list) and len(items) == 2
    for item in items:
        assert {"path", "rule", "line", "end_line", "message", "evidence"} <= set(item)
    assert items[0]["path"] == "docs/a b.md" and items[0]["rule"] == "IL101"
    assert items[0]["line"] == 9 and items[0]["end_line"] == 40
    assert items[1]["suppressed"] is True


# --------------------------------------------------------------------------- SARIF structure

LEVELS = {"none", "note", "warning", "error"}


def check_sarif(log: dict[str, Any]) -> None:
    """The parts of the SARIF 2.1.0 schema that GitHub code scanning relies on."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rules = driver["rules"]
        ids = [rule["id"] for rule in rules]
        assert len(ids) == len(set(ids))
        for rule in rules:
            assert isinstance(rule["shortDescription"]["text"], str)
            assert rule["defaultConfiguration"]["level"] in LEVELS
        for base in run.get("originalUriBaseIds", {}).values():
            assert base["uri"].endswith("/")
        for result in run["results"]:
            assert result["ruleId"] in ids
            if "ruleIndex" in result:
                assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            assert result["level"] in LEVELS
            assert isinstance(result["message"]["text"], str) and result["message"]["text"]
            assert result["locations"], "GitHub needs a location"
            for location in result["locations"]:
                physical = location["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                assert " " not in uri
                if "uriBaseId" in physical["artifactLocation"]:
                    assert not uri.startswith("/") and "://" not in uri
                    assert physical["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
                region = physical["region"]
                assert region["startLine"] >= 1 and region["endLine"] >= region["startLine"]
                assert region.get("startColumn", 1) >= 1
            fingerprints = result["partialFingerprints"]
            assert fingerprints and all(isinstance(v, str) and v for v in fingerprints.values())
            for suppression in result.get("suppressions", []):
                assert suppression["kind"] in {"inSource", "external"}
        for invocation in run.get("invocations", []):
            assert isinstance(invocation["executionSuccessful"], bool)


def test_sarif_structure(tmp_path: Path) -> None:
    inside = Finding(str(tmp_path / "docs" / "a b.md"), "IL101", 9, 40, "graph dump", "ev")
    outside = Finding("/elsewhere/x.md", "IL303", 2, 3, "table", "ev")
    log = json.loads(sarif(_report(inside, outside, SUPPRESSED, ERROR), root=str(tmp_path)))
    check_sarif(log)
    run = log["runs"][0]
    first = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert "docs/a%20b.md" in uris and "file:///elsewhere/x.md" in uris
    assert first["uri"] == "docs/a%20b.md" or first["uri"].startswith("file://")
    suppressed = [r for r in run["results"] if r["ruleId"] == "IL502"]
    assert suppressed[0]["suppressions"] == [
        {"kind": "inSource", "justification": "the listing is the decision"}
    ]
    assert run["invocations"][0]["executionSuccessful"] is False  # the binary file


def test_sarif_fingerprints_are_stable_and_distinct() -> None:
    one = json.loads(sarif(_report(ACTIVE, SUPPRESSED)))
    two = json.loads(sarif(_report(SUPPRESSED, ACTIVE)))

    def prints(log: dict[str, Any]) -> list[str]:
        return sorted(
            r["partialFingerprints"]["mishkanIngestLint/v1"] for r in log["runs"][0]["results"]
        )

    assert prints(one) == prints(two)
    assert len(set(prints(one))) == 2


def test_sarif_for_a_clean_run() -> None:
    log = json.loads(sarif(_report()))
    check_sarif(log)
    assert log["runs"][0]["results"] == []
    assert {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]} >= {
        "IL101",
        "IL502",
        "IL003",
    }


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        render(_report(), "xml")
