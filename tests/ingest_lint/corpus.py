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


#: the wider corpus of real tool output and written documents, in the repository
WIDE_DIR = Path(__file__).parent / "corpus_wide"
#: hand-written regression fixtures for shapes found on earlier held-out sets
SHAPES_DIR = Path(__file__).parent / "fixtures" / "shapes"


@dataclass(frozen=True)
class Labelled:
    """One labelled document: where it is, its label, and where it comes from."""

    path: Path
    label: str  # "reject", "accept" or "borderline"
    family: str  # the D-008 family of a reject ("" for the others)
    collection: str  # "shared", "wide" or "shapes"
    split: str = "tune"  # "tune" or "heldout"
    fmt: str = ""  # the tool's output format (wide corpus)
    language: str = ""

    @property
    def name(self) -> str:
        return f"{self.collection}:{self.path.name}"


def shared_documents(root: Path) -> list[Labelled]:
    """The labelled public corpus (shared/corpus/ingest/LABELS.tsv)."""
    with open(root / "LABELS.tsv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        Labelled(
            root / row["path"],
            row["label"],
            row["family_or_kind"] if row["label"] == "reject" else "",
            "shared",
        )
        for row in rows
    ]


def wide_documents(root: Path = WIDE_DIR) -> list[Labelled]:
    """The wider corpus (corpus_wide/MANIFEST.tsv): real tool output, written and
    real accept documents, each with its split."""
    with open(root / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        rows = list(
            csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        )
    return [
        Labelled(
            root / row["path"],
            row["label"],
            row["family"] if row["label"] == "reject" else "",
            "wide",
            row["split"],
            row["format"],
            row["language"],
        )
        for row in rows
    ]


def shape_documents(expected: dict[str, str]) -> list[Labelled]:
    """The shape fixtures; ``expected`` maps each reject fixture to its rule."""
    from mishkan_core.ingest_lint._detectors import get

    documents = [
        Labelled(SHAPES_DIR / "reject" / name, "reject", get(rule).rule.family, "shapes")
        for name, rule in sorted(expected.items())
    ]
    documents += [
        Labelled(path, "accept", "", "shapes")
        for path in sorted((SHAPES_DIR / "accept").glob("*.fixture"))
    ]
    return documents


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

    def counts(self) -> str:
        return f"({len(self.tp)} {len(self.fp)} {len(self.fn)} {len(self.tn)})"

    def table(self, title: str = "ingest-lint corpus") -> str:
        lines = [
            f"{title} (positive class: reject)",
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


def score_documents(
    documents: list[Labelled],
    disabled: frozenset[str] = frozenset(),
    *,
    relative: Path | None = None,
) -> Score:
    """Lint each document (``disabled`` rules off) and score it against its label."""
    result = Score()
    for doc in documents:
        name = str(doc.path.relative_to(relative)) if relative else doc.name
        linted = lint_file(str(doc.path), disabled=disabled)
        assert linted.artifact and not linted.errored, f"{name}: {linted.findings}"
        rejected = linted.rejected
        codes = ",".join(sorted({f.rule for f in linted.findings if not f.suppressed}))
        if doc.label == "borderline":
            result.borderline.append((name, f"reject ({codes})" if rejected else "accept"))
        elif doc.label == "reject":
            (result.tp if rejected else result.fn).append(name)
        elif doc.label == "accept":
            (result.fp if rejected else result.tn).append(f"{name} ({codes})" if rejected else name)
        else:
            raise AssertionError(f"unknown label {doc.label!r} for {name}")
    return result


#: the bar for leaving one family out: issue 12 set 0.90, issue 24 raised it to the
#: recall bar
FAMILY_BAR = 0.95
PRECISION_BAR = 0.98


@dataclass
class FamilyOut:
    """One row of the leave-one-family-out table."""

    family: str
    disabled: frozenset[str]
    caught: list[str] = field(default_factory=list)  # the family's rejects still caught
    missed: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)  # accepts rejected without it
    by: dict[str, int] = field(default_factory=dict)  # rule -> documents it caught

    @property
    def rate(self) -> float:
        total = len(self.caught) + len(self.missed)
        return len(self.caught) / total if total else 0.0

    @property
    def precision(self) -> float:
        flagged = len(self.caught) + len(self.false_positives)
        return len(self.caught) / flagged if flagged else 0.0

    @property
    def meets_bar(self) -> bool:
        return self.rate >= FAMILY_BAR and self.precision >= PRECISION_BAR


def leave_one_family_out(documents: list[Labelled]) -> list[FamilyOut]:
    """For each D-008 family: switch off its detectors, lint the family's rejects and
    every accept document with the rest (the other families' and the backstop)."""
    from mishkan_core.ingest_lint._detectors import detectors
    from mishkan_core.ingest_lint._model import (
        BULK_SOURCE,
        CALL_GRAPH,
        GRAPH_DUMP,
        PARSE_TREE,
        SYMBOL_TABLE,
    )

    accepts = [doc for doc in documents if doc.label == "accept"]
    rows = []
    for family in (GRAPH_DUMP, PARSE_TREE, SYMBOL_TABLE, CALL_GRAPH, BULK_SOURCE):
        disabled = frozenset(d.rule.code for d in detectors() if d.rule.family == family)
        row = FamilyOut(family, disabled)
        for doc in documents:
            if doc.label != "reject" or doc.family != family:
                continue
            result = lint_file(str(doc.path), disabled=disabled)
            if not result.rejected:
                row.missed.append(doc.name)
                continue
            row.caught.append(doc.name)
            for code in {f.rule for f in result.findings if not f.suppressed}:
                row.by[code] = row.by.get(code, 0) + 1
        row.false_positives = [
            doc.name for doc in accepts if lint_file(str(doc.path), disabled=disabled).rejected
        ]
        rows.append(row)
    return rows


def family_table(rows: list[FamilyOut]) -> str:
    lines = [
        "| family | disabled | caught | rate | false positives | precision | caught by |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        top = ", ".join(f"{code} {n}" for code, n in sorted(row.by.items(), key=lambda kv: -kv[1]))
        lines.append(
            f"| {row.family} | {','.join(sorted(row.disabled))} | "
            f"{len(row.caught)}/{len(row.caught) + len(row.missed)} | {row.rate:.3f} | "
            f"{len(row.false_positives)} | {row.precision:.3f} | {top} |"
        )
    return "\n".join(lines)


def score(root: Path) -> Score:
    """The labelled public corpus, scored."""
    return score_documents(shared_documents(root), relative=root)


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
