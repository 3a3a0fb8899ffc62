"""IL303: long listings or tables that map many symbols to ``file:line``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import SYMBOL_TABLE, Block, Document, Hit
from mishkan_core.ingest_lint._shape import (
    diagnostic_pieces,
    is_diagnostic,
    locate,
    location_lines,
    may_hold_locations,
)

_WORDY = 14  # a row with more words than this is a sentence that cites code, not a row
_NAME = re.compile(r"[A-Za-z_$][\w$]{2,}")
MINIMUM = 15
RATIO = 0.4


def _measure(block: Block) -> Measure | None:
    # scan() drops a count under RATIO of the block's lines: fewer lines that could
    # hold a location need no look at the lines themselves
    least = max(4, RATIO * block.nonblank)
    if not may_hold_locations(block, least):
        return None
    candidates = location_lines(block)
    if len(candidates) < least:
        return None
    hits: list[int] = []
    places: set[str] = set()
    words = diagnostic_pieces(block.text)  # once for the block, not once per line
    for i in candidates:
        line = block.lines[i]
        span = locate(line)
        if span is None:
            continue
        rest = line[: span[0]] + " " + line[span[1] :]
        if len(rest.split()) > _WORDY and not line.lstrip().startswith("|"):
            continue
        if not _NAME.search(rest) or is_diagnostic(line, words=words):
            continue
        hits.append(i)
        places.add(line[span[0] : span[1]])
    if len(places) < 0.6 * len(hits):
        return None
    return Measure(len(hits), hits, f"{len(places)} distinct locations")


@register("IL303", "symbol-locations", SYMBOL_TABLE, "listing of many symbols with file:line")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc,
        _measure,
        MINIMUM,
        RATIO,
        what="symbol table",
        noun="lines map symbols to source locations",
    )
