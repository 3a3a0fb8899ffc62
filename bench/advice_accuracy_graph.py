"""What a graph.json holds, read the way graphify writes it (0.8.31 to 0.9.96).

The judge needs three things from the graph, none of them from the hook:
which files and symbols it holds (a target outside the graph must get
silence), its nodes by id (a cited node id must be the node of that name and
site), and its use edges (who the graph shows using a target: the
denominator of "answered", and the recount of an advisory's counts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_FILE_LABEL = re.compile(r"[/\\]|\.[A-Za-z0-9]{1,5}$")

# Edge relations that are a use of their target by their source (graphify's
# `relation`, both releases); every other relation is structure (`contains`,
# `method`, `declares`, `case_of`, `rationale_for`, `cites`, `defines`).
IMPORT_RELATIONS = frozenset({"imports", "imports_from", "re_exports", "dynamic_import"})
USE_RELATIONS = IMPORT_RELATIONS | frozenset(
    {
        "calls",
        "indirect_call",
        "references",
        "references_constant",
        "uses",
        "uses_static_prop",
        "inherits",
        "implements",
        "mixes_in",
        "embeds",
    }
)


def normalize_label(label: str) -> str:
    """graphify's label conventions: methods `.name()`, functions `name()`,
    Ruby classes and modules by qualified name (`Hashie::Mash`); a member
    named by a string literal (zod's `."~validate"()`) by the literal's text,
    as the TypeScript parser names it."""
    if label.startswith("."):
        label = label[1:]
    if label.endswith("()"):
        label = label[:-2]
    if len(label) > 2 and label[0] == label[-1] and label[0] in "\"'":
        label = label[1:-1]
    return label.rsplit("::", 1)[-1] if "::" in label and not label.endswith(":") else label


def _line(loc: object) -> int | None:
    if isinstance(loc, str) and loc[:1] == "L" and loc[1:].isdigit():
        return int(loc[1:])
    return None


@dataclass(frozen=True)
class Node:
    id: str
    label: str
    file: str
    line: int | None

    @property
    def name(self) -> str:
        return normalize_label(self.label)


@dataclass(frozen=True)
class Edge:
    """One use: `source` uses `target` at `file:line` (the user's line)."""

    source: str
    target: str
    relation: str
    confidence: str
    file: str
    line: int


@dataclass
class GraphView:
    """What a graph.json holds."""

    files: frozenset[str]
    symbols: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    # Files about which the graph has something to say: a symbol node in it, or
    # a file node with connections. A file whose node stands alone (graphify
    # extracted nothing from it) is held, but `explain` of it answers nothing.
    answering: frozenset[str] = frozenset()
    nodes: dict[str, Node] = field(default_factory=dict)
    uses_of: dict[str, list[Edge]] = field(default_factory=dict)  # by target node id

    @classmethod
    def load(cls, graph: Path) -> GraphView:
        data = json.loads(graph.read_text())
        return cls.from_nodes(data.get("nodes", ()), data.get("links", ()))

    @classmethod
    def from_nodes(
        cls, nodes: Iterable[dict[str, object]], links: Iterable[dict[str, object]] | None = None
    ) -> GraphView:
        files: set[str] = set()
        answering: set[str] = set()
        symbols: dict[str, list[tuple[str, int]]] = {}
        by_id: dict[str, Node] = {}
        nodes = list(nodes)
        links = list(links) if links is not None else None
        linked = {str(link.get(end)) for link in links or () for end in ("source", "target")}
        for node in nodes:
            file = node.get("source_file")
            label = node.get("label")
            if isinstance(node.get("id"), str) and isinstance(label, str):
                by_id[str(node["id"])] = Node(
                    str(node["id"]),
                    label,
                    file if isinstance(file, str) else "",
                    _line(node.get("source_location")),
                )
            if not isinstance(file, str) or not file:
                continue
            files.add(file)
            is_file_node = isinstance(label, str) and (label == file.rsplit("/", 1)[-1])
            if links is None or node.get("id") in linked or not is_file_node:
                answering.add(file)
            line = _line(node.get("source_location"))
            if node.get("file_type") != "code" or not isinstance(label, str) or line is None:
                continue
            if _FILE_LABEL.search(label):
                continue
            symbols.setdefault(normalize_label(label), []).append((file, line))
        uses_of: dict[str, list[Edge]] = {}
        for link in links or ():
            relation = str(link.get("relation") or "")
            line = _line(link.get("source_location"))
            source, target = str(link.get("source")), str(link.get("target"))
            if relation not in USE_RELATIONS or line is None or source not in by_id:
                continue
            where = link.get("source_file")
            edge = Edge(
                source,
                target,
                relation,
                str(link.get("confidence") or ""),
                where if isinstance(where, str) and where else by_id[source].file,
                line,
            )
            uses_of.setdefault(target, []).append(edge)
        return cls(frozenset(files), symbols, frozenset(answering), by_id, uses_of)

    def nodes_at(self, name: str, sites: Iterable[tuple[str, int]]) -> list[Node]:
        """The symbol nodes called `name` at any of `sites` (file, line)."""
        wanted = set(sites)
        return [
            n
            for n in self.nodes.values()
            if n.line is not None and (n.file, n.line) in wanted and n.name == name
        ]

    def nodes_in(self, file: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.file == file]
