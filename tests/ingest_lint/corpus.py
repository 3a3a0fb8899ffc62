"""Locating the labelled corpus and the seed ADRs, and scoring the linter on them."""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from mishkan_core.ingest_lint._engine import lint_file, lint_text
from tests.shared_data import shared_dir

REPO = Path(__file__).resolve().parents[2]
CORPUS_ENV = "MISHKAN_INGEST_CORPUS"
SEEDS_ENV = "MISHKAN_SEEDS"
#: reports the corpus tests leave for the terminal summary (see conftest.py)
SUMMARIES: list[str] = []


def corpus_dir() -> Path:
    """$MISHKAN_INGEST_CORPUS, else shared/corpus/ingest (tests/shared_data.py)."""
    configured = os.environ.get(CORPUS_ENV)
    return Path(configured) if configured else shared_dir() / "corpus" / "ingest"


def seeds_dir() -> Path:
    configured = os.environ.get(SEEDS_ENV)
    if configured:
        return Path(configured)
    return corpus_dir().parent.parent / "seeds"


@dataclass
class Score:
    tp: list[str] = field(default_factory=list)
    fp: list[str] = field(default_factory=list)
    tn: list[str] = field(default_factory=list)
    fn: list[str] = field(default_factory=list)
    borderline: list[tuple[str, str]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        flagged = len(self.tp) + len(self.fp)
        return len(self.tp) / flagged if flagged else 0.0

    @property
    def recall(self) -> float:
        positives = len(self.tp) + len(self.fn)
        return len(self.tp) / positives if positives else 0.0

    def table(self) -> str:
        lines = [
            "ingest-lint corpus (positive class: reject)",
            "                 predicted reject   predicted accept",
            f"  label reject   {len(self.tp):>16}   {len(self.fn):>16}",
            f"  label accept   {len(self.fp):>16}   {len(self.tn):>16}",
            f"  precision {self.precision:.3f}   recall {self.recall:.3f}",
        ]
        lines += [f"  false positive: {path}" for path in self.fp]
        lines += [f"  false negative: {path}" for path in self.fn]
        lines += [
            f"  borderline (not scored): {path} -> {outcome}" for path, outcome in self.borderline
        ]
        return "\n".join(lines)


def score(root: Path) -> Score:
    result = Score()
    with open(root / "LABELS.tsv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for row in rows:
        path = row["path"]
        linted = lint_file(str(root / path))
        assert not linted.errored, f"{path}: {[f.message for f in linted.findings]}"
        rejected = linted.rejected
        codes = ",".join(sorted({f.rule for f in linted.findings if not f.suppressed}))
        label = row["label"]
        if label == "borderline":
            result.borderline.append((path, f"reject ({codes})" if rejected else "accept"))
        elif label == "reject":
            (result.tp if rejected else result.fn).append(path)
        elif label == "accept":
            (result.fp if rejected else result.tn).append(f"{path} ({codes})" if rejected else path)
        else:
            raise AssertionError(f"unknown label {label!r} for {path}")
    return result


_FILE_HEADER = re.compile(r"^(?P<path>\S+\.\w+)$")


def seed_documents(path: Path) -> list[tuple[str, str]]:
    """The markdown files a seed wraps, rebuilt from their '+' lines: (name, text)."""
    documents: list[tuple[str, str]] = []
    name = ""
    body: list[str] = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        header = _FILE_HEADER.match(line)
        if header:
            if name.endswith(".md") and body:
                documents.append((name, "\n".join(body)))
            name, body = header.group("path"), []
        elif line.startswith("+"):
            body.append(line[1:])
    if name.endswith(".md") and body:
        documents.append((name, "\n".join(body)))
    return documents


def lint_seed(name: str, text: str) -> list[str]:
    """Findings for a seed document linted as an ingest artifact."""
    result = lint_text(name, "---\nmishkan: ingest\nkind: adr\n---\n" + text)
    return [f"{f.rule} {f.message}" for f in result.findings if not f.suppressed]
