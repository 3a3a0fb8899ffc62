"""IL404: prose that only narrates a call graph, paragraph after located paragraph."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import excerpt
from mishkan_core.ingest_lint._model import CALL_GRAPH, Document, Hit
from mishkan_core.ingest_lint._shape import CODE_REF, locate, location_lines, may_hold_locations

_SPAN = re.compile(r"`([^`\n]+)`")
_QUALIFIED = re.compile(r"(?<![\w$])[\w$]+(?:\.|::|#)[\w$]+")
_NEW_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _narrating(unit: str) -> bool:
    """A paragraph that places a symbol in a file and names the symbols it touches."""
    if locate(unit) is None:
        return False
    spans = [span for span in _SPAN.findall(unit) if CODE_REF.fullmatch(span.strip())]
    qualified = sum(1 for span in spans if _QUALIFIED.search(span))
    words = len(unit.split())
    return len(spans) >= 2 and qualified >= 2 and words <= 12 * len(spans)


@register("IL404", "call-narration", CALL_GRAPH, "prose that only narrates a call graph")
def check(doc: Document) -> Iterator[Hit]:
    units: list[tuple[int, int, str]] = []  # (first line, last line, text)
    for block in doc.unclaimed():
        if block.fenced or block.count("`") < 20 or not may_hold_locations(block, 10):
            continue
        if len(location_lines(block)) < 10:
            continue
        start = -1
        buffer: list[str] = []
        for i, line in enumerate([*block.lines, ""]):
            stripped = line.strip()
            new_item = bool(_NEW_ITEM.match(line))
            if (not stripped or new_item) and buffer:
                units.append((block.start + start, block.start + i - 1, " ".join(buffer)))
                buffer = []
            if stripped and not stripped.startswith("#"):
                if not buffer:
                    start = i
                buffer.append(stripped)
    if len(units) < 10:
        return
    narrating = [unit for unit in units if _narrating(unit[2])]
    if len(narrating) >= 10 and len(narrating) >= 0.5 * len(units):
        covered = tuple(b.index for b in doc.unclaimed() if not b.fenced)
        yield Hit(
            narrating[0][0],
            narrating[-1][1],
            f"call graph: {len(narrating)} of {len(units)} paragraphs only place symbols in "
            "files and name the symbols they reach",
            excerpt(narrating[0][2]),
            covered,
        )
