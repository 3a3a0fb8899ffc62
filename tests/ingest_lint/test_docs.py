"""docs/ingest_lint.md documents the rules the registry has (issue 14): its
rule table lists every detector, with the code, name and family it registers."""

from __future__ import annotations

import re
from pathlib import Path

from mishkan_core.ingest_lint._detectors import detectors
from mishkan_core.ingest_lint._engine import INPUT_RULES, META_RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "ingest_lint.md"
_ROW = re.compile(r"^\| (IL\d{3}) \| ([\w-]+) \| ([\w -]+) \| .+ \|$", re.MULTILINE)


def test_the_rule_table_matches_the_registry() -> None:
    documented = {
        code: (name, family) for code, name, family in _ROW.findall(DOC.read_text("utf-8"))
    }
    registered = {d.rule.code: (d.rule.name, d.rule.family.replace("-", " ")) for d in detectors()}
    assert documented == registered


def test_meta_rules_and_input_errors_are_named() -> None:
    text = DOC.read_text("utf-8")
    for rule in (*META_RULES, *INPUT_RULES):
        assert rule.code in text, rule
