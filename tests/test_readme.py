"""The README's promises that a test can hold: its first-contact steps are the
ones the e2e test runs (docs/install.md's), and it stays near 12 KB."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARKER = "<!-- first-contact steps:"


def _steps(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    block = text.split(MARKER, 1)[1].split("```console\n", 1)[1].split("\n```", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


def test_the_readme_gives_the_steps_the_e2e_test_runs() -> None:
    """tests/e2e/test_e2e_first_contact.py runs docs/install.md's `$` lines as
    written; the README shows the same lines, in the same order."""
    readme = _steps(REPO / "README.md")
    assert readme and readme == _steps(REPO / "docs" / "install.md")


def test_the_readme_stays_near_12_kb_and_holds_no_placeholder() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 12 * 1024  # issue 29: depth goes to docs/
    assert "<owner>" not in text and "TODO" not in text
