"""IL105: XML graph exports (GraphML, GEXF, and the like)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import GRAPH_DUMP, Block, Document, Hit
from mishkan_core.ingest_lint._shape import count_lines, line_led

_ELEMENT = re.compile(
    r"^[ \t]*</?(?:[\w-]+:)?(?:node|edge|data|attvalue|key|attribute)\b", re.I | re.M
)
_ELEMENTS = re.compile(line_led(_ELEMENT), _ELEMENT.flags)
_OPEN = re.compile(r"<(?:[\w-]+:)?(node|edge)\b", re.IGNORECASE)


def _measure(block: Block) -> Measure | None:
    if block.count("<") < 20:
        return None
    text = block.text
    if "<node" not in text and "<edge" not in text and "<NODE" not in text:
        return None
    opened = _OPEN.findall(text)
    nodes = sum(1 for name in opened if name.lower() == "node")
    edges = len(opened) - nodes
    if nodes + edges < 10:
        return None
    count, first = count_lines(block, _ELEMENTS)
    return Measure(count, first, f"{nodes} node and {edges} edge elements")


@register("IL105", "graph-xml", GRAPH_DUMP, "XML graph export (GraphML, GEXF)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(doc, _measure, 15, 0.5, what="graph dump", noun="lines of XML graph elements")
