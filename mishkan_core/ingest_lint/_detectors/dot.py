"""IL104: DOT digraphs of calls or imports."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import GRAPH_DUMP, Block, Document, Hit
from mishkan_core.ingest_lint._shape import count_lines, led_text, line_led, sample_reaches

_HEADER = re.compile(
    r"^[ \t]*(?:strict[ \t]+)?(?:di)?graph\b[^{\n]*\{", re.IGNORECASE | re.MULTILINE
)
# a quoted or bare id (speed: see _shape.line_led)
_ID = r'(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[\w.$:]+(?![\w.$:]))'
_EDGE = re.compile(
    rf"^[ \t]*(?![ \t]){_ID}(?:[ \t]*(?:->|--)[ \t]*{_ID})+[ \t]*(?:\[[^\n]*\][ \t]*)?"
    r"(?:;[ \t]*)?$",
    re.M,
)
_NODE = re.compile(rf"^[ \t]*(?![ \t]){_ID}[ \t]*\[[^\n]*\][ \t]*(?:;[ \t]*)?$", re.M)
_EDGES = re.compile(line_led(_EDGE), _EDGE.flags)
_NODES = re.compile(line_led(_NODE), _NODE.flags)


def _measure(block: Block) -> Measure | None:
    if not block.count("{"):
        return None  # a DOT graph opens with "digraph ... {" (_HEADER)
    # an undirected graph's edges are " -- ": prose has dashes enough, so they are bounded
    # in the punctuation before the text is scanned for them
    if block.count(">") < 10 and (
        block.count("-") < 20 or block.at_most(" -- ") < 10 or block.count(" -- ") < 10
    ):
        return None
    text = block.text
    if "graph" not in text and "Graph" not in text and "GRAPH" not in text:
        return None
    if not _HEADER.search(text) or not sample_reaches(block, _EDGE.match, 0.2):
        return None
    edges, first = count_lines(block, _EDGES)
    nodes = len(_NODES.findall(led_text(block)))
    if edges < 10:
        return None
    return Measure(edges + nodes, first, f"{edges} edges, {nodes} node statements")


@register("IL104", "dot-graph", GRAPH_DUMP, "DOT graph of calls or imports")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(doc, _measure, 15, 0.5, what="graph dump", noun="DOT statements")
