"""Leave one family out: does ingest-lint still catch a family's documents when the
detectors written for that family are switched off?

    python bench/ingest_lint_families.py [--corpus DIR] [--split SPLIT] [--markdown FILE] [-v]

For each D-008 family (graph dump, parse tree, symbol table, call graph, bulk
source) the detectors registered for it are disabled, and the rest (the other
families' detectors and the format-agnostic backstop, IL601) lint every reject
document of that family and every accept document. The bar (issue 24; issue 12's
was 0.90): at least 0.95 of each family still caught, with precision held at 0.98 or more on all
accept documents. The same run reports precision and recall with every detector
on, per collection and split, and what the backstop catches alone.

Collections: the labelled public corpus (``../shared/corpus/ingest``, when
present), the wider corpus of real tool output and documents in
``tests/ingest_lint/corpus_wide`` (splits ``tune``, ``heldout``, ``heldout2``,
reported apart; ``--split`` keeps one), and the shape fixtures in
``tests/ingest_lint/fixtures/shapes``. Borderline documents are not scored.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mishkan_core.ingest_lint._detectors import detectors  # noqa: E402
from mishkan_core.ingest_lint._model import BACKSTOP  # noqa: E402
from tests.ingest_lint.corpus import (  # noqa: E402
    FAMILY_BAR,
    Labelled,
    corpus_dir,
    family_table,
    leave_one_family_out,
    score_documents,
    shape_documents,
    shared_documents,
    wide_documents,
)
from tests.ingest_lint.test_shape_fixtures import EXPECTED  # noqa: E402


def documents(corpus: Path, split: str = "all") -> list[Labelled]:
    """Every labelled document: shared (when present), wide (one split or all), shapes."""
    found: list[Labelled] = []
    if (corpus / "LABELS.tsv").is_file():
        found += shared_documents(corpus)
    if split.startswith("first-contact"):  # scored alone: never part of "all"
        return [d for d in wide_documents() if d.split == split]
    found += [
        d for d in wide_documents() if split in ("all", d.split) and not d.split.startswith("first")
    ]
    found += shape_documents(EXPECTED)
    return found


def report(docs: list[Labelled], verbose: bool = False) -> tuple[str, bool]:
    scored = [d for d in docs if d.label != "borderline"]
    out = ["## All detectors on\n"]
    out.append("| collection | split | reject caught | accept passed | precision | recall |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    groups: dict[tuple[str, str], list[Labelled]] = defaultdict(list)
    for doc in scored:
        groups[(doc.collection, doc.split)].append(doc)
    for (collection, split), group in [*sorted(groups.items()), (("all", "all"), scored)]:
        result = score_documents(group)
        out.append(
            f"| {collection} | {split} | {len(result.tp)}/{len(result.tp) + len(result.fn)} | "
            f"{len(result.tn)}/{len(result.tn) + len(result.fp)} | {result.precision:.3f} | "
            f"{result.recall:.3f} |"
        )
        if verbose and collection != "all":
            out += [f"|   missed | {name} | | | | |" for name in result.fn]
            out += [f"|   false positive | {name} | | | | |" for name in result.fp]

    rows = leave_one_family_out(scored)
    accepts = sum(1 for d in scored if d.label == "accept")
    out.append("\n## Leave one family out\n")
    out.append(
        f"Bar: >= {FAMILY_BAR:.2f} of the family caught by the other detectors, precision "
        ">= 0.98 on "
        f"all {accepts} accept documents.\n"
    )
    out.append(family_table(rows))
    if verbose:
        for row in rows:
            out += [f"- {row.family}: missed {name}" for name in row.missed]
            out += [f"- {row.family}: false positive {name}" for name in row.false_positives]

    specific = frozenset(d.rule.code for d in detectors() if d.rule.family != BACKSTOP)
    alone = score_documents(scored, specific)
    out.append("\n## The backstop alone (every specific detector off)\n")
    out.append("| family | caught |")
    out.append("| --- | --- |")
    for row in rows:
        family = [d.name for d in scored if d.label == "reject" and d.family == row.family]
        caught = sum(1 for name in family if name in alone.tp)
        out.append(f"| {row.family} | {caught}/{len(family)} ({caught / len(family):.3f}) |")
    out.append(f"| accept (false positives) | {len(alone.fp)}/{accepts} |")

    met = all(row.meets_bar for row in rows)
    out.append(f"\nbar (leave one family out): {'met' if met else 'NOT met'}")
    return "\n".join(out), met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("MISHKAN_INGEST_CORPUS") or None)
    parser.add_argument(
        "--split",
        default="all",
        help="tune, heldout, heldout2, shape-tune, all (these together), first-contact, "
        "first-contact-2 or first-contact-3 (alone)",
    )
    parser.add_argument("--markdown", help="also write the report to FILE")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus) if args.corpus else corpus_dir()
    text, met = report(documents(corpus, args.split), args.verbose)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
