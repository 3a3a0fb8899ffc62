"""IL103: Cypher exports: runs of MERGE/CREATE/MATCH statements that carry data."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import GRAPH_DUMP, Block, Document, Hit
from mishkan_core.ingest_lint._shape import count_lines, line_led, sample_reaches

# A statement that writes or matches a node or relationship with literal property
# values: the shape of an export, not of a query or a schema (CREATE NODE TABLE ...).
_DATA_STATEMENT = re.compile(
    r"^[ \t]*(?:OPTIONAL[ \t]+)?(?:MERGE|CREATE|MATCH)[ \t]*\([ \t]*(?:\w+[ \t]*)?"
    r"(?::[ \t]*`?\w+`?[ \t]*)*"
    r"(?:\{[ \t]*`?\w+`?[ \t]*:[ \t]*(?:'|\"|-?\d)"
    r"|\)[ \t]*-[ \t]*\[|\)[ \t]*<-[ \t]*\[|\)[ \t]*,[ \t]*\()",
    re.IGNORECASE | re.MULTILINE,
)
_DATA_STATEMENTS = re.compile(line_led(_DATA_STATEMENT), _DATA_STATEMENT.flags)


def _measure(block: Block) -> Measure | None:
    if block.count("(") < max(4, 0.5 * block.nonblank) or block.count("{") + block.count("[") < 4:
        return None
    head = block.text[:4096].upper()
    if "MERGE" not in head and "CREATE" not in head and "MATCH" not in head:
        return None
    if not sample_reaches(block, _DATA_STATEMENT.match, 0.25):
        return None
    return Measure(*count_lines(block, _DATA_STATEMENTS))


@register("IL103", "cypher-export", GRAPH_DUMP, "Cypher export of a code graph")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc,
        _measure,
        15,
        0.5,
        what="graph dump",
        noun="Cypher statements writing nodes and relationships",
    )
