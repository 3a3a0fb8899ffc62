"""docs/metrics.md shows real output: re-run its examples and compare."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.metrics.helpers import cli
from tests.metrics.scenario import REPO

DOC = REPO / "docs" / "metrics.md"


def _examples() -> list[tuple[list[str], str]]:
    """(argv after `mishkan metrics`, printed output) of each console block
    that runs a plain `mishkan metrics ...` (no pipe)."""
    text = DOC.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        first, _, output = block.partition("\n")
        if first.startswith("$ mishkan metrics ") and "|" not in first and "\\" not in first:
            found.append((shlex.split(first)[3:], output))
    return found


def test_the_worked_examples_print_what_the_doc_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the examples use paths relative to the repository
    examples = _examples()
    assert len(examples) >= 2
    for argv, want in examples:
        code, out, err = cli(*argv)
        assert code == 0, err
        assert out == want, argv
    assert os.getcwd() == str(Path(REPO))
