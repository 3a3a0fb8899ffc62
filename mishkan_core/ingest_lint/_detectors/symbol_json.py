"""IL302: symbol indexes as JSON: SCIP/LSIF-like dumps, LSP symbols, ctags JSON."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, key_lines, scan
from mishkan_core.ingest_lint._model import SYMBOL_TABLE, Block, Document, Hit
from mishkan_core.ingest_lint._structure import load_json, records

NAME_KEYS = ("name", "symbol", "label", "moniker", "identifier", "fullName", "qualifiedName")
RANGE_KEYS = (
    "range",
    "selectionRange",
    "location",
    "position",
    "span",
    "source_location",
    "loc",
    "line",
    "lineno",
    "start_line",
    "startLine",
    "line_number",
)
# one C-level test for each: most records have neither a name nor a position key
_NAME_KEY_SET = frozenset(NAME_KEYS)
_RANGE_KEY_SET = frozenset(RANGE_KEYS)


def _has_position(record: dict[str, Any]) -> bool:
    # any position will do: only the keys the record has are looked at
    for key in _RANGE_KEY_SET.intersection(record):
        value = record[key]
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return True
        if (
            isinstance(value, list)
            and 2 <= len(value) <= 4
            and all(isinstance(v, int) for v in value)
        ):
            return True
        if isinstance(value, dict) and ("start" in value or "line" in value or "range" in value):
            return True
        if isinstance(value, str) and value[:1] in "Ll" and value[1:].isdigit():
            return True
    return False


def _measure(block: Block) -> Measure | None:
    if block.count('"') < 30:
        return None
    value = load_json(block)
    if value is None:
        return None
    located = 0
    names: set[str] = set()
    for record, _parent in records(block, value):
        if _NAME_KEY_SET.isdisjoint(record):
            continue
        name = next((record[k] for k in NAME_KEYS if isinstance(record.get(k), str)), None)
        if name is None or not _has_position(record):
            continue
        located += 1
        names.add(name)
    if len(names) < 0.5 * located:
        return None
    hits = key_lines(block)
    return Measure(located, hits, f"{len(names)} distinct symbols")


@register("IL302", "symbol-index-json", SYMBOL_TABLE, "symbol index as JSON (SCIP, LSIF, LSP)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc,
        _measure,
        10,
        0.0,
        what="symbol table",
        noun="symbol records with source positions",
        records=True,
    )
