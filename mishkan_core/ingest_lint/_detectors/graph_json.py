"""IL101: JSON node/edge lists (graph.json, node-link data, code-graph DataPoints, LSIF)."""

from __future__ import annotations

from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, key_lines, scan
from mishkan_core.ingest_lint._detectors._graphs import describe, graph_stats
from mishkan_core.ingest_lint._model import GRAPH_DUMP, Block, Document, Hit
from mishkan_core.ingest_lint._structure import load_json, records


def _measure(block: Block) -> Measure | None:
    if block.count('"') < 12 or not block.count("{"):
        return None
    value = load_json(block)
    if value is None:
        return None
    stats = graph_stats(records(block, value))
    hits = key_lines(block)
    return Measure(stats.size, hits, describe(stats))


@register("IL101", "graph-json", GRAPH_DUMP, "JSON node/edge list (a code-graph dump)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc, _measure, 10, 0.0, what="graph dump", noun="graph records in JSON", records=True
    )
