"""Leave one family out: does ingest-lint still catch a family's documents when the
detectors written for that family are switched off?

    python bench/ingest_lint_families.py [--corpus DIR] [--split tune|heldout|all] [--markdown FILE]

For each D-008 family (graph dump, parse tree, symbol table, call graph, bulk
source) the detectors registered for it are disabled, and the rest (the other
families' detectors and the format-agnostic backstop, IL601) lint every reject
document of that family and every accept document. The bar (issue 12): at least
0.90 of each family still caught, with precision held at 0.98 or more on all
accept documents. The same run reports precision and recall with every detector
on, per collection and split, and the backstop alone.

Collections: the labelled public corpus (``../shared/corpus/ingest``, when
present), the wider corpus of real tool output in
``tests/ingest_lint/corpus_wide`` (its ``tune`` and ``heldout`` splits reported
apart), and the shape fixtures in ``tests/ingest_lint/fixtures/shapes``.
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
from mishkan_core.ingest_lint._engine import lint_file  # noqa: E402
from mishkan_core.ingest_lint._model import (  # noqa: E402
    BACKSTOP,
    BULK_SOURCE,
    CALL_GRAPH,
    GRAPH_DUMP,
    PARSE_TREE,
    SYMBOL_TABLE,
)
from tests.ingest_lint.corpus import (  # noqa: E402
    Labelled,
    corpus_dir,
    shape_documents,
    shared_documents,
    wide_documents,
)
from tests.ingest_lint.test_shape_fixtures import EXPECTED  # noqa: E402

FAMILIES = (GRAPH_DUMP, PARSE_TREE, SYMBOL_TABLE, CALL_GRAPH, BULK_SOURCE)
FAMILY_BAR = 0.90
PRECISION_BAR = 0.98


def documents(corpus: Path, split: str) -> list[Labelled]:
    found: list[Labelled] = []
    if (corpus / "LABELS.tsv").is_file():
        found += shared_documents(corpus)
    found += [d for d in wide_documents() if split == "all" or d.split == split]
    found += shape_documents(EXPECTED)
    return found


def codes_for(family: str) -> frozenset[str]:
    return frozenset(d.rule.code for d in detectors() if d.rule.family == family)


def rejected(doc: Labelled, disabled: frozenset[str]) -> bool:
    return lint_file(str(doc.path), disabled=disabled).rejected


def rate(hits: int, total: int) -> str:
    return f"{hits / total:.3f}" if total else "  n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("MISHKAN_INGEST_CORPUS") or None)
    parser.add_argument("--split", default="all", help="a split of the wide corpus (tune, heldout, heldout2) or all")
    parser.add_argument("--markdown", help="also write the report as markdown to FILE")
    parser.add_argument("--verbose", action="store_true", help="list every miss")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus) if args.corpus else corpus_dir()
    docs = [d for d in documents(corpus, args.split) if d.label != "borderline"]
    accepts = [d for d in docs if d.label == "accept"]
    out: list[str] = []
    ok = True

    # ------------------------------------------------------------ everything on
    out.append("## All detectors on\n")
    out.append("| collection | split | reject caught | accept passed | precision | recall |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    groups: dict[tuple[str, str], list[Labelled]] = defaultdict(list)
    for doc in docs:
        groups[(doc.collection, doc.split)].append(doc)
        groups[("all", "all")].append(doc)
    verdicts = {doc.path: rejected(doc, frozenset()) for doc in docs}
    for (collection, split), group in sorted(
        groups.items(), key=lambda kv: kv[0] == ("all", "all")
    ):
        tp = sum(verdicts[d.path] for d in group if d.label == "reject")
        fn = sum(not verdicts[d.path] for d in group if d.label == "reject")
        fp = sum(verdicts[d.path] for d in group if d.label == "accept")
        tn = sum(not verdicts[d.path] for d in group if d.label == "accept")
        out.append(
            f"| {collection} | {split} | {tp}/{tp + fn} | {tn}/{tn + fp} | "
            f"{rate(tp, tp + fp)} | {rate(tp, tp + fn)} |"
        )
        if args.verbose:
            out += [
                f"|   miss | {d.name} | | | | |"
                for d in group
                if d.label == "reject" and not verdicts[d.path]
            ]
            out += [
                f"|   false positive | {d.name} | | | | |"
                for d in group
                if d.label == "accept" and verdicts[d.path]
            ]

    # ------------------------------------------------------------ leave one family out
    out.append("\n## Leave one family out\n")
    out.append(
        f"Bar: >= {FAMILY_BAR:.2f} of the family caught by the other detectors, precision "
        f">= {PRECISION_BAR:.2f} on all {len(accepts)} accept documents.\n"
    )
    out.append("| family | disabled | caught | rate | false positives | precision | by |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for family in FAMILIES:
        disabled = codes_for(family)
        members = [d for d in docs if d.label == "reject" and d.family == family]
        caught = 0
        by: dict[str, int] = defaultdict(int)
        misses = []
        for doc in members:
            result = lint_file(str(doc.path), disabled=disabled)
            if result.rejected:
                caught += 1
                for code in sorted({f.rule for f in result.findings if not f.suppressed}):
                    by[code] += 1
            else:
                misses.append(doc.name)
        false_positives = [d.name for d in accepts if rejected(d, disabled)]
        precision = caught / (caught + len(false_positives)) if caught else 0.0
        good = caught >= FAMILY_BAR * len(members) and precision >= PRECISION_BAR
        ok = ok and good
        top = ", ".join(f"{code} {n}" for code, n in sorted(by.items(), key=lambda kv: -kv[1])[:4])
        out.append(
            f"| {family} | {','.join(sorted(disabled))} | {caught}/{len(members)} | "
            f"{rate(caught, len(members))} | {len(false_positives)} | {precision:.3f} | {top} |"
        )
        if args.verbose:
            out += [f"|   miss | {name} | | | | | |" for name in misses]
            out += [f"|   false positive | {name} | | | | | |" for name in false_positives]

    # ------------------------------------------------------------ the backstop alone
    specific = frozenset(d.rule.code for d in detectors() if d.rule.family != BACKSTOP)
    out.append("\n## The backstop alone (every specific detector off)\n")
    out.append("| family | caught |")
    out.append("| --- | --- |")
    alone = {doc.path: rejected(doc, specific) for doc in docs}
    for family in FAMILIES:
        members = [d for d in docs if d.label == "reject" and d.family == family]
        caught = sum(alone[d.path] for d in members)
        out.append(f"| {family} | {caught}/{len(members)} ({rate(caught, len(members))}) |")
    false_alone = sum(alone[d.path] for d in accepts)
    out.append(f"| accept (false positives) | {false_alone}/{len(accepts)} |")

    out.append(f"\nbar (leave one family out): {'met' if ok else 'NOT met'}")
    report = "\n".join(out)
    print(report)
    if args.markdown:
        Path(args.markdown).write_text(report + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
