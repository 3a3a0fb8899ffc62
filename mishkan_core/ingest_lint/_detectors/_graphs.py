"""Node/edge structure in a parsed JSON or YAML value (shared by IL101 and IL102)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mishkan_core.ingest_lint._structure import Records

# key pairs that make a record an edge
EDGE_KEYS = (
    ("source", "target"),
    ("from", "to"),
    ("src", "dst"),
    ("source_id", "target_id"),
    ("sourceId", "targetId"),
    ("from_id", "to_id"),
    ("start_id", "end_id"),
    ("startNode", "endNode"),
    ("outV", "inV"),
    ("outV", "inVs"),
    ("caller", "callee"),
    ("head", "tail"),
    ("start", "end"),
)
NODE_LISTS = ("nodes", "vertices", "node", "vertex")
EDGE_LISTS = ("edges", "links", "relationships", "relations", "arcs", "edge", "link")
ID_KEYS = ("id", "_id", "uid", "uuid", "node_id", "nodeId", "key")
_LOCATION_KEYS = ("source_file", "file", "path", "uri", "filename", "file_path", "filepath")
# the same keys as sets: one C-level test tells that a record holds none of them,
# which is the answer for most records of most documents
_NODE_LIST_SET = frozenset(NODE_LISTS)
_EDGE_LIST_SET = frozenset(EDGE_LISTS)
#: the second keys of the EDGE_KEYS pairs, by their first key ("outV": ("inV", "inVs"))
_TARGETS: dict[str, tuple[str, ...]] = {}
for _source, _target in EDGE_KEYS:
    _TARGETS[_source] = (*_TARGETS.get(_source, ()), _target)
_SOURCE_KEYS = frozenset(_TARGETS)
_ID_KEY_SET = frozenset(ID_KEYS)
_LOCATION_KEY_SET = frozenset(_LOCATION_KEYS)


@dataclass
class GraphStats:
    nodes: int = 0
    edges: int = 0
    references: int = 0
    container: bool = False

    @property
    def size(self) -> int:
        """Graph evidence: edges, id references, and nodes when inside a graph container."""
        return self.edges + self.references + (self.nodes if self.container else 0)


def _endpoint(value: Any, key: str) -> bool:
    if isinstance(value, str):
        # an identifier, not a date or a number range ("2024-01-01", "1.2")
        return (
            0 < len(value) <= 200 and "\n" not in value and " " not in value and _has_letter(value)
        )
    if isinstance(value, list):
        return key == "inVs" and bool(value) and all(isinstance(v, (int, str)) for v in value)
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return key not in ("start", "end", "from", "to")  # numeric from/to/start/end are ranges
    if isinstance(value, dict):
        return any(k in value for k in ID_KEYS)
    return False


_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _has_letter(value: str) -> bool:
    """``any(ch.isalpha() for ch in value)``, in C for the usual ASCII identifier."""
    if value.isascii():
        return _ASCII_LETTER.search(value) is not None
    return any(ch.isalpha() for ch in value)


def _is_edge(record: dict[str, Any]) -> bool:
    # any EDGE_KEYS pair will do, so only the pairs whose first key the record has are
    # tried (most records have none: one C-level test)
    if _SOURCE_KEYS.isdisjoint(record):
        return False
    for a in _SOURCE_KEYS.intersection(record):
        for b in _TARGETS[a]:
            if b in record and _endpoint(record[a], a) and _endpoint(record[b], b):
                return True
    return False


def graph_stats(found: Records) -> GraphStats:
    stats = GraphStats()
    ids: set[str] = set()
    # counted in locals, and the calls made only for records holding the keys they look
    # for (one C-level test each): a dump has thousands of records
    container = False
    edges = nodes = 0
    for record, _parent in found:
        if not _NODE_LIST_SET.isdisjoint(record) and not _EDGE_LIST_SET.isdisjoint(record):
            container = True
        if not _SOURCE_KEYS.isdisjoint(record) and _is_edge(record):
            edges += 1
            continue
        if _ID_KEY_SET.isdisjoint(record):
            continue  # no id: not a node
        ident = _first_id(record)
        if isinstance(ident, (str, int)) and not isinstance(ident, bool):
            if isinstance(ident, str):
                ids.add(ident)
            if container or len(record) >= 2 or not _LOCATION_KEY_SET.isdisjoint(record):
                nodes += 1
    stats.container, stats.edges, stats.nodes = container, edges, nodes
    if stats.edges >= 10 or stats.container:
        return stats  # a graph already: the reference counts would only add detail
    stats.references += _nested_references(found)
    if len(ids) >= 5 and stats.edges + stats.references < 10 and not stats.container:
        # references by id from one record to another (code-graph DataPoints, adjacency maps)
        for record, _parent in found:
            own = _first_id(record)
            for key, item in record.items():
                if key in ID_KEYS:
                    continue
                values = item if isinstance(item, list) else [item]
                for entry in values:
                    if isinstance(entry, str) and entry != own and entry in ids:
                        stats.references += 1
    return stats


def _first_id(record: dict[str, Any]) -> Any:
    """The value of the record's first id key (in ``ID_KEYS`` order), or None."""
    if _ID_KEY_SET.isdisjoint(record):
        return None
    for key in ID_KEYS:
        if key in record:
            return record[key]
    return None


def _ident(record: dict[str, Any] | None) -> Any:
    if record is None:
        return None
    value = _first_id(record)
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


_CODE_ENTITY = re.compile(
    r"file|module|class|function|method|package|symbol|interface|struct|variable|import|call|namespace",
    re.IGNORECASE,
)


def _code_entity(record: dict[str, Any]) -> bool:
    if not _LOCATION_KEY_SET.isdisjoint(record):
        return True
    kind = record.get("type", record.get("kind"))
    return isinstance(kind, str) and bool(_CODE_ENTITY.search(kind))


def _nested_references(found: Records) -> int:
    """Code entities with an id held inside another record with an id: embedded edges,
    the way code-graph DataPoints nest the points they link to. (Nested ids in an
    API example are not code entities and do not count.)"""
    return sum(
        1
        for record, parent in found
        if _ident(record) is not None and _ident(parent) is not None and _code_entity(record)
    )


def describe(stats: GraphStats) -> str:
    parts = []
    if stats.nodes:
        parts.append(f"{stats.nodes} nodes")
    if stats.edges:
        parts.append(f"{stats.edges} edges")
    if stats.references:
        parts.append(f"{stats.references} id references between records")
    return ", ".join(parts) if parts else "no graph"
