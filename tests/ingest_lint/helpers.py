"""Fixture builders shared by the ingest-lint tests."""

from __future__ import annotations

from mishkan_core.ingest_lint._detectors import get
from mishkan_core.ingest_lint._document import build
from mishkan_core.ingest_lint._engine import FileResult, lint_text
from mishkan_core.ingest_lint._model import Document, Hit
from mishkan_core.ingest_lint._reader import split_lines

FRONT = "---\nmishkan: ingest\nkind: learning\n---\n"

PROSE = (
    "We chose to keep the ingest store small and curated. The decision follows from the cost\n"
    "of stale nodes: every commit that moves a function would otherwise leave a dangling fact\n"
    "behind, and agents would keep retrieving it long after the code changed. The alternatives\n"
    "we weighed were a nightly rebuild of the whole store, which is slow and noisy, and tagging\n"
    "facts with the commit they came from, which pushes staleness onto every reader.\n"
)


def artifact(body: str, front: str = FRONT) -> str:
    return front + body


def fence(body: str, lang: str = "") -> str:
    return f"```{lang}\n{body.rstrip()}\n```\n"


def document(body: str) -> Document:
    """A Document for ``body`` behind a plain artifact front matter."""
    lines = split_lines(artifact(body))
    return build("t.md", lines, 4)


def hits(code: str, body: str) -> list[Hit]:
    """Run one detector alone over ``body``."""
    return list(get(code).check(document(body)))


def lint(body: str, front: str = FRONT) -> FileResult:
    return lint_text("t.md", artifact(body, front))


def rules(body: str, front: str = FRONT) -> set[str]:
    """The codes of unsuppressed findings for ``body``."""
    return {f.rule for f in lint(body, front).findings if not f.suppressed}


def intro(text: str = "Kept here for the next session.") -> str:
    return f"# Note\n\n{text}\n\n"
