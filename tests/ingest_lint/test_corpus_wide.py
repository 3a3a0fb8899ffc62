"""The wider corpus (``corpus_wide/``, issue 12): real tool output from 30+ formats in
6+ languages, written and real accept documents, and two held-out splits.

The bars: precision >= 0.98 and recall >= 0.95 on everything, and leave one
family out (every family's detectors off in turn) still catching 0.95 of the
family with precision >= 0.98. The labelled public corpus joins in when
``../shared`` is present (tests/shared_data.py decides skip or fail otherwise).
"""

from __future__ import annotations

from collections import Counter

import pytest

from mishkan_core.ingest_lint._model import (
    BULK_SOURCE,
    CALL_GRAPH,
    GRAPH_DUMP,
    PARSE_TREE,
    SYMBOL_TABLE,
)
from tests.ingest_lint.corpus import (
    CORPUS_ENV,
    PRECISION_BAR,
    SUMMARIES,
    WIDE_DIR,
    Labelled,
    corpus_dir,
    family_table,
    leave_one_family_out,
    score_documents,
    shape_documents,
    shared_documents,
    wide_documents,
)
from tests.ingest_lint.test_shape_fixtures import EXPECTED
from tests.shared_data import missing

RECALL_BAR = 0.95
FAMILIES = frozenset((GRAPH_DUMP, PARSE_TREE, SYMBOL_TABLE, CALL_GRAPH, BULK_SOURCE))
SPLITS = frozenset(
    (
        "tune",
        "heldout",
        "heldout2",
        "shape-tune",
        "first-contact",
        "first-contact-2",
        "first-contact-3",
    )
)


#: scored once, at the end, and reported (test_first_contact_splits_are_reported), never tuned on
FIRST_CONTACT = ("first-contact", "first-contact-2", "first-contact-3")


def _ours() -> list[Labelled]:
    return [
        d
        for d in wide_documents() + shape_documents(EXPECTED)
        if d.label != "borderline" and d.split not in FIRST_CONTACT
    ]


def _shared() -> list[Labelled]:
    root = corpus_dir()
    if not (root / "LABELS.tsv").is_file():
        missing(f"the labelled ingest corpus (LABELS.tsv; or set {CORPUS_ENV})", root)
    return [d for d in shared_documents(root) if d.label != "borderline"]


def test_the_manifest_lists_every_document_once() -> None:
    listed = [d.path for d in wide_documents()]
    on_disk = sorted(WIDE_DIR.glob("*/*.fixture"))
    assert sorted(listed) == on_disk
    assert len(set(listed)) == len(listed)
    for doc in wide_documents():
        assert doc.split in SPLITS, doc.name
        if doc.label == "reject":
            assert doc.family in FAMILIES and doc.fmt and doc.language, doc.name
        else:
            assert doc.label in ("accept", "borderline"), doc.name


def test_the_rejects_cover_30_formats_in_6_languages() -> None:
    rejects = [d for d in wide_documents() if d.label == "reject"]
    formats = Counter(d.fmt for d in rejects)
    languages = Counter(d.language for d in rejects)
    assert len(formats) >= 30, formats
    assert len(languages) >= 6, languages
    assert {d.family for d in rejects} == FAMILIES


def _bar(documents: list[Labelled], title: str) -> None:
    result = score_documents(documents)
    report = result.table(title)
    SUMMARIES.append(report)
    assert result.precision >= PRECISION_BAR, report
    assert result.recall >= RECALL_BAR, report


def _families(documents: list[Labelled], title: str) -> None:
    rows = leave_one_family_out(documents)
    table = f"{title}\n{family_table(rows)}"
    SUMMARIES.append(table)
    assert all(row.rate >= RECALL_BAR and row.meets_bar for row in rows), table


def test_precision_and_recall_on_our_corpus() -> None:
    _bar(_ours(), "ingest-lint wider corpus and shape fixtures")


def test_leave_one_family_out_on_our_corpus() -> None:
    _families(_ours(), "leave one family out: wider corpus and shape fixtures")


@pytest.mark.parametrize("split", ["heldout", "heldout2"])
def test_held_out_splits_are_reported(split: str) -> None:
    """Reported, not barred: the first scores of the held-out splits are in
    tests/ingest_lint/corpus_wide/first_scores/; after each was scored, the
    fixes it prompted made it no longer held out."""
    documents = [d for d in _ours() if d.split == split]
    assert documents
    result = score_documents(documents)
    SUMMARIES.append(result.table(f"ingest-lint {split} split (scored after its fixes)"))
    assert result.precision >= PRECISION_BAR, result.table()


def test_everything_together() -> None:
    documents = _shared() + _ours()
    _bar(documents, "ingest-lint, every labelled document")
    _families(documents, "leave one family out: every labelled document")


@pytest.mark.parametrize("split", FIRST_CONTACT)
def test_first_contact_splits_are_reported(split: str) -> None:
    """Reported, not barred: issue 24's first-contact splits, scored once after the
    model was frozen (the first figures are in docs/ingest_lint.md and
    bench/results/ingest_lint_first_contact.txt); a fix they prompt makes them held out
    no longer."""
    documents = [d for d in wide_documents() if d.split == split and d.label != "borderline"]
    assert len(documents) >= 50
    result = score_documents(documents)
    SUMMARIES.append(result.table(f"ingest-lint {split} split"))
    assert result.recall >= 0.85 and result.precision >= 0.9, result.table()
