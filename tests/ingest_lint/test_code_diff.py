"""IL501 code-diff."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _diff(changed: int) -> str:
    head = [
        "diff --git a/svc/api.py b/svc/api.py",
        "index 28d8ba1..c674846 100644",
        "--- a/svc/api.py",
        "+++ b/svc/api.py",
        f"@@ -1,{changed} +1,{changed} @@",
    ]
    body = []
    for i in range(changed // 2):
        body.append(f"-    value_{i} = compute(arg_{i})")
        body.append(f"+    value_{i} = compute(arg_{i}, strict=True)")
    return "\n".join(head + body)


def test_large_code_diff_fires() -> None:
    found = hits("IL501", intro("Full diff below.") + fence(_diff(120), "diff"))
    assert len(found) == 1
    assert "changed lines" in found[0].message


def test_small_diff_in_an_rfc_passes() -> None:
    assert not hits("IL501", PROSE * 4 + fence(_diff(10), "diff") + PROSE * 4)


def test_prose_diff_passes() -> None:
    lines = ["--- a/docs/adr.md", "+++ b/docs/adr.md", "@@ -1,80 +1,80 @@"]
    lines += [f"-The old wording of paragraph {i} said something else." for i in range(40)]
    lines += [f"+The new wording of paragraph {i} says what we decided." for i in range(40)]
    assert not hits("IL501", intro() + fence("\n".join(lines), "diff"))
