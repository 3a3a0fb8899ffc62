"""Regression fixtures for shapes found on a held-out set built from other tools and
repositories (hand-written, small): each file under ``fixtures/shapes/reject`` is
rejected by the rule named here, each under ``accept`` passes. The files end in
``.fixture``, not ``.md``, so a run of the gate over this repository (or a markdown
pre-commit hook) does not trip on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mishkan_core.ingest_lint._engine import lint_file

ROOT = Path(__file__).parent / "fixtures" / "shapes"
# fmt: off
EXPECTED = {
    "ast-dump-one-line-per-function.fixture": "IL202",
    "calls-per-function.fixture": "IL402",
    "code-diff-with-context.fixture": "IL501",
    "edgelist-no-arrows.fixture": "IL401",
    "explain-neighbours.fixture": "IL401",
    "god-nodes-short.fixture": "IL403",
    "imports-arrows-relative.fixture": "IL402",
    "imports-dash-colon.fixture": "IL402",
    "imports-space-separated.fixture": "IL402",
    "imports-table.fixture": "IL402",
    "note-schema-with-a-line.fixture": "IL502",
    "report-in-sections.fixture": "IL601",
    "reverse-call-index.fixture": "IL303",
    "short-drawn-tree.fixture": "IL601",
    "ruby-unlabelled-fence.fixture": "IL502",
    "symbol-bullets-line-n.fixture": "IL303",
    "symbol-table-line-column.fixture": "IL303",
}
# fmt: on


def _names(label: str) -> list[str]:
    return sorted(path.name for path in (ROOT / label).glob("*.fixture"))


def test_every_reject_fixture_has_an_expected_rule() -> None:
    assert _names("reject") == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reject_fixture_is_rejected(name: str) -> None:
    result = lint_file(str(ROOT / "reject" / name))
    assert result.artifact and result.rejected
    assert EXPECTED[name] in {f.rule for f in result.findings}, result.findings


@pytest.mark.parametrize("name", _names("accept"))
def test_accept_fixture_passes(name: str) -> None:
    result = lint_file(str(ROOT / "accept" / name))
    assert result.artifact and not result.rejected, result.findings
