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


def test_smaller_change_in_a_large_hunk_of_code_fires() -> None:
    lines = ["--- a/svc/jobs.py", "+++ b/svc/jobs.py", "@@ -10,90 +10,120 @@ class Job:"]
    for i in range(80):
        lines.append(f"     self.step_{i} = compute_{i}(self.queue, timeout={i})")
        if i % 3 == 0:
            lines.append(f"+    self.retry_{i} = Retry(total={i})")
    found = hits("IL501", intro("The change, as merged.") + fence("\n".join(lines), "diff"))
    assert len(found) == 1


def test_small_change_with_little_context_passes() -> None:
    lines = ["--- a/svc/jobs.py", "+++ b/svc/jobs.py", "@@ -10,40 +10,50 @@"]
    lines += [f"+    self.retry_{i} = Retry(total={i})" for i in range(30)]
    assert not hits("IL501", PROSE * 6 + fence("\n".join(lines), "diff") + PROSE * 6)
