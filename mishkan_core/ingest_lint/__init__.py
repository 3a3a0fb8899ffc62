"""``mishkan ingest-lint``: the CI gate that keeps AST-shaped content out of Cognee work.

An ingest artifact (front matter ``mishkan: ingest``) must be curated prose:
decisions, rationale, reports, learnings. Graph dumps, parse trees, symbol
tables, call listings and bulk source belong in the code graph, which
rebuilds them on every commit. See docs/ingest_lint.md.

The command is :mod:`mishkan_core.ingest_lint.cli`; the library entry points
are :func:`lint_text` and :func:`lint_file`.
"""

from __future__ import annotations

from mishkan_core.ingest_lint._engine import lint_file, lint_text

__all__ = ["lint_file", "lint_text"]
