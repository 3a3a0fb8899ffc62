"""IL203: ASTs serialised as JSON (ESTree, Babel, and other typed node trees)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, key_lines, scan
from mishkan_core.ingest_lint._model import PARSE_TREE, Block, Document, Hit
from mishkan_core.ingest_lint._structure import load_json, records

TYPE_KEYS = (
    "type",
    "kind",
    "_type",
    "nodeType",
    "node_type",
    "ast_type",
    "$type",
    "@type",
    "_kind",
)
_TYPE_KEY_SET = frozenset(TYPE_KEYS)  # most records have none: one C-level test
# fmt: off
POSITION_KEYS = frozenset((
    "start", "end", "loc", "range", "span", "position", "pos", "startPosition", "endPosition",
    "lineno", "col_offset", "end_lineno", "end_col_offset", "line", "column", "start_byte",
    "end_byte", "startIndex", "endIndex", "src",
))
# fmt: on
# a positioned node takes a dozen pretty-printed lines ("loc", "start", "end"): 300 lines
# of ESTree with locations hold fewer than 20 nodes
MIN_NODES = 12
_CAMEL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*\Z")
_SNAKE = re.compile(r"[a-z]+(?:_[a-z0-9]+)+\Z")


def _node_type(record: dict[str, Any]) -> str | None:
    if _TYPE_KEY_SET.isdisjoint(record):
        return None
    for key in TYPE_KEYS:
        value = record.get(key)
        if isinstance(value, str) and (_CAMEL.match(value) or _SNAKE.match(value)):
            return value
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and POSITION_KEYS.intersection(record)
        ):
            return f"#{value}"  # numeric kinds (TypeScript's SyntaxKind) with positions
    return None


def _measure(block: Block) -> Measure | None:
    if block.count('"') < 40:
        return None
    value = load_json(block)
    if value is None:
        return None
    typed = nested = positioned = camel = 0
    kinds: set[str] = set()
    for record, parent in records(block, value):
        kind = _node_type(record)
        if kind is None:
            continue
        typed += 1
        kinds.add(kind)
        camel += kind[0].isupper()
        if parent is not None and _node_type(parent) is not None:
            nested += 1
        if POSITION_KEYS.intersection(record):
            positioned += 1
    if typed < 10 or nested < 0.5 * typed or len(kinds) < 4:
        return None
    if positioned < 0.5 * typed and not (camel >= 0.8 * typed and typed >= 40):
        return None
    hits = key_lines(block)
    return Measure(typed, hits, f"{len(kinds)} node types, {nested} nested")


@register("IL203", "ast-json", PARSE_TREE, "AST serialised as JSON (ESTree, Babel)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc,
        _measure,
        MIN_NODES,
        0.0,
        what="parse tree",
        noun="typed AST nodes in JSON",
        records=True,
    )
