"""Per-file decisions, claims, and suppressions (reported, and flagged when unused)."""

from __future__ import annotations

import json

from mishkan_core.ingest_lint._detectors import detectors
from mishkan_core.ingest_lint._engine import all_rules, lint_text
from tests.ingest_lint.helpers import FRONT, PROSE, fence, intro, lint, rules

GRAPH = fence(
    json.dumps(
        [{"source": f"m.f{i}", "target": f"m.g{i}", "relation": "calls"} for i in range(15)],
        indent=1,
    ),
    "json",
)


def test_plain_prose_is_clean() -> None:
    result = lint(intro() + PROSE * 5)
    assert result.artifact and not result.findings and not result.rejected


def test_non_artifacts_are_not_linted_unless_all() -> None:
    text = "# Notes\n\n" + GRAPH
    assert not lint_text("x.md", text).findings
    assert {f.rule for f in lint_text("x.md", text, include_all=True).findings} == {"IL101"}


def test_a_block_is_reported_by_its_most_specific_rule_only() -> None:
    assert rules(intro() + GRAPH) == {"IL101"}


def test_suppression_is_reported_and_does_not_reject() -> None:
    front = (
        "---\nmishkan: ingest\nmishkan-lint: allow IL101 -- the example graph is the decision\n"
        "---\n"
    )
    result = lint(intro() + GRAPH, front)
    assert not result.rejected
    [finding] = result.findings
    assert finding.suppressed and finding.justification == "the example graph is the decision"


def test_unused_suppression_is_flagged() -> None:
    front = "---\nmishkan: ingest\nmishkan-lint: allow IL502 -- long listing\n---\n"
    result = lint(intro() + PROSE, front)
    assert [(f.rule, f.line) for f in result.findings] == [("IL003", 3)]
    assert result.rejected


def test_invalid_suppression_leaves_the_finding_active() -> None:
    front = "---\nmishkan: ingest\nmishkan-lint: allow IL101\n---\n"
    assert rules(intro() + GRAPH, front) == {"IL002", "IL101"}


def test_findings_carry_line_level_evidence() -> None:
    result = lint(intro() + GRAPH)
    [finding] = result.findings
    assert finding.line == 10 and finding.end_line > finding.line
    assert '"source"' in finding.evidence


def test_rule_codes_are_unique_and_ordered() -> None:
    codes = [d.rule.code for d in detectors()]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert len({r.code for r in all_rules()}) == len(all_rules())


def test_empty_and_front_matter_only_files() -> None:
    assert not lint_text("e.md", "").findings
    assert not lint_text("f.md", FRONT).findings
