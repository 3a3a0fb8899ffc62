"""IL102: YAML node/edge lists (a graph.json converted to YAML, graph exports in YAML)."""

from __future__ import annotations

from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, key_lines, scan
from mishkan_core.ingest_lint._detectors._graphs import describe, graph_stats
from mishkan_core.ingest_lint._model import GRAPH_DUMP, Block, Document, Hit
from mishkan_core.ingest_lint._structure import load_yaml, records


def _measure(block: Block) -> Measure | None:
    if block.nonblank < 8 or block.count(":") < 0.6 * block.nonblank or block.count("-") < 4:
        return None
    text = block.text
    first = len(text) - len(text[:200].lstrip()) if text[:200].strip() else 0
    if block.count('"') > 2 * block.nonblank or text[first : first + 1] in ("{", "["):
        return None  # JSON: IL101's business
    value = load_yaml(block)
    if value is None:
        return None
    stats = graph_stats(records(block, value))
    hits = key_lines(block)
    return Measure(stats.size, hits, describe(stats))


@register("IL102", "graph-yaml", GRAPH_DUMP, "YAML node/edge list (a code-graph dump)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc, _measure, 10, 0.0, what="graph dump", noun="graph records in YAML", records=True
    )
