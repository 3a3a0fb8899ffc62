"""Show the corpus confusion matrix in the terminal summary, even under -q."""

from __future__ import annotations

from typing import Any

from tests.ingest_lint.corpus import SUMMARIES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for summary in SUMMARIES:
        terminalreporter.write_sep("-", "ingest-lint corpus")
        terminalreporter.write_line(summary)
