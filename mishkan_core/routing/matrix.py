"""The D-008 routing matrix: load it from JSON and parse it into plain records.

The matrix ships as ``mishkan_core/data/routing_matrix.json``; a harness can
pass its own file with the same schema (``--matrix``). Parsing checks only the
*shape* (types, required keys): a shape error makes the file unusable and is
reported as :class:`MatrixError` (exit 2). Whether the values honour D-008 and
D-009 is the job of :mod:`mishkan_core.routing.check` (exit 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the three stores D-008 names, in consult order
STORE_NAMES = ("graphify", "cognee-work", "cognee-curated")
DEFAULT_MATRIX_LABEL = "mishkan_core/data/routing_matrix.json"


class MatrixError(Exception):
    """The input cannot be used at all (unreadable, not JSON, wrong shape)."""


@dataclass(frozen=True)
class Writer:
    id: str
    kind: str
    processes: tuple[str, ...]


@dataclass(frozen=True)
class Neo4j:
    container: str | None
    compose_service: str | None
    host_port: int | None
    container_port: int | None
    opt_in: bool


@dataclass(frozen=True)
class Store:
    name: str
    title: str
    question: str
    source_of_truth: str
    writers: tuple[Writer, ...]
    readers: tuple[str, ...]
    read_only_from_projects: bool
    ports: tuple[int, ...]
    mcp_server: str | None
    citation_shape: str
    citation_fields: tuple[str, ...]
    neo4j: Neo4j | None = None
    code_extensions: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Half:
    half: str
    store: str
    asks: str


@dataclass(frozen=True)
class QuestionClass:
    id: str
    stores: tuple[str, ...]
    asks: str
    ambiguous: bool = False
    halves: tuple[Half, ...] = ()


@dataclass(frozen=True)
class Gate:
    agents: tuple[str, ...]
    adr: str | None


@dataclass(frozen=True)
class Matrix:
    stores: dict[str, Store]
    classes: tuple[QuestionClass, ...]
    gate: Gate
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def store_for_class(self, class_id: str) -> QuestionClass | None:
        for qclass in self.classes:
            if qclass.id == class_id:
                return qclass
        return None


# ---------------------------------------------------------------------------
# JSON reading


def loads_strict(text: str) -> Any:
    """JSON that refuses duplicate keys (``json`` would keep the last) and
    hostile nesting; :class:`~mishkan_core.json_text.JsonError` otherwise."""
    from mishkan_core import json_text

    return json_text.parse(text, unique_keys=True)


def read_json(path: Path, what: str) -> Any:
    """Read a JSON file or raise :class:`MatrixError` with one clear line.
    Only a regular file is read: a FIFO or a device fails at once."""
    from mishkan_core import json_text
    from mishkan_core.safe_files import read_regular

    try:
        data = read_regular(path)
    except OSError as exc:
        raise MatrixError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if data is None:
        raise MatrixError(f"{path}: {what} not found")
    try:
        return json_text.parse(data, unique_keys=True)
    except json_text.JsonError as exc:
        raise MatrixError(f"{path}: {what} is {_article(exc)}{exc}") from None


def _article(exc: Exception) -> str:
    """'is not valid JSON ...' reads as a sentence; 'nests ...' needs 'a file that'."""
    return "" if str(exc).startswith("not ") else "a document that "


def default_matrix_text() -> str:
    from importlib import resources

    return (resources.files("mishkan_core") / "data" / "routing_matrix.json").read_text(
        encoding="utf-8"
    )


def load_matrix(path: Path | None = None) -> tuple[Matrix, str]:
    """Load and parse a matrix; return it with the label used in messages."""
    if path is None:
        label = DEFAULT_MATRIX_LABEL
        try:
            data = loads_strict(default_matrix_text())
        except (OSError, ValueError) as exc:  # pragma: no cover - broken install
            raise MatrixError(f"{label}: cannot read the packaged matrix: {exc}") from None
    else:
        label = str(path)
        data = read_json(path, "matrix")
    return parse_matrix(data, label), label


# ---------------------------------------------------------------------------
# Shape parsing


class _Reader:
    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, where: str, message: str) -> MatrixError:
        return MatrixError(f"{self.label}: {where}: {message}")

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {_type(value)}")
        return value

    def str_(self, parent: dict[str, Any], key: str, where: str) -> str:
        value = parent.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{where}.{key}", "expected a non-empty string")
        return value

    def opt_str(self, parent: dict[str, Any], key: str, where: str) -> str | None:
        value = parent.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.fail(f"{where}.{key}", f"expected a string or null, got {_type(value)}")
        return value

    def str_list(self, parent: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = parent.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{where}.{key}", "expected a list of strings")
        return tuple(value)

    def int_list(self, parent: dict[str, Any], key: str, where: str) -> tuple[int, ...]:
        value = parent.get(key, [])
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise self.fail(f"{where}.{key}", "expected a list of port numbers")
        return tuple(value)

    def opt_int(self, parent: dict[str, Any], key: str, where: str) -> int | None:
        value = parent.get(key)
        if value is None:
            return None
        if not _is_int(value):
            raise self.fail(f"{where}.{key}", f"expected an integer or null, got {_type(value)}")
        return int(value)

    def bool_(self, parent: dict[str, Any], key: str, where: str, default: bool) -> bool:
        value = parent.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f"{where}.{key}", f"expected true or false, got {_type(value)}")
        return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )


def _writer(r: _Reader, value: Any, where: str) -> Writer:
    obj = r.obj(value, where)
    processes = r.str_list(obj, "processes", where) if "processes" in obj else ()
    return Writer(id=r.str_(obj, "id", where), kind=r.str_(obj, "kind", where), processes=processes)


def _store(r: _Reader, name: str, value: Any) -> Store:
    where = f"stores.{name}"
    obj = r.obj(value, where)
    raw_writer = obj.get("writer", obj.get("writers"))
    if isinstance(raw_writer, list):
        writers = tuple(_writer(r, w, f"{where}.writer[{i}]") for i, w in enumerate(raw_writer))
    elif raw_writer is None:
        raise r.fail(f"{where}.writer", "missing")
    else:
        writers = (_writer(r, raw_writer, f"{where}.writer"),)
    citation = r.obj(obj.get("citation"), f"{where}.citation")
    neo4j: Neo4j | None = None
    if obj.get("neo4j") is not None:
        n = r.obj(obj["neo4j"], f"{where}.neo4j")
        nw = f"{where}.neo4j"
        neo4j = Neo4j(
            container=r.opt_str(n, "container", nw),
            compose_service=r.opt_str(n, "compose_service", nw),
            host_port=r.opt_int(n, "host_port", nw),
            container_port=r.opt_int(n, "container_port", nw),
            opt_in=r.bool_(n, "opt_in", nw, False),
        )
    code_extensions: tuple[str, ...] | None = None
    if obj.get("extracts") is not None:
        extracts = r.obj(obj["extracts"], f"{where}.extracts")
        code_extensions = r.str_list(extracts, "code_extensions", f"{where}.extracts")
    return Store(
        name=name,
        title=r.str_(obj, "title", where) if "title" in obj else name,
        question=r.str_(obj, "question", where),
        source_of_truth=r.str_(obj, "source_of_truth", where),
        writers=writers,
        readers=r.str_list(obj, "readers", where),
        read_only_from_projects=r.bool_(obj, "read_only_from_projects", where, False),
        ports=r.int_list(obj, "ports", where),
        mcp_server=r.opt_str(obj, "mcp_server", where),
        citation_shape=r.str_(citation, "shape", f"{where}.citation"),
        citation_fields=r.str_list(citation, "fields", f"{where}.citation"),
        neo4j=neo4j,
        code_extensions=code_extensions,
    )


def _qclass(r: _Reader, index: int, value: Any) -> QuestionClass:
    where = f"question_classes[{index}]"
    obj = r.obj(value, where)
    halves: list[Half] = []
    raw_halves = obj.get("halves", [])
    if not isinstance(raw_halves, list):
        raise r.fail(f"{where}.halves", "expected a list")
    for i, h in enumerate(raw_halves):
        hw = f"{where}.halves[{i}]"
        hobj = r.obj(h, hw)
        halves.append(
            Half(
                half=r.str_(hobj, "half", hw),
                store=r.str_(hobj, "store", hw),
                asks=r.str_(hobj, "asks", hw),
            )
        )
    return QuestionClass(
        id=r.str_(obj, "id", where),
        stores=r.str_list(obj, "stores", where),
        asks=r.str_(obj, "asks", where) if "asks" in obj else "",
        ambiguous=r.bool_(obj, "ambiguous", where, False),
        halves=tuple(halves),
    )


def parse_matrix(data: Any, label: str) -> Matrix:
    r = _Reader(label)
    top = r.obj(data, "top level")
    stores_obj = r.obj(top.get("stores"), "stores")
    stores = {name: _store(r, name, value) for name, value in stores_obj.items()}
    raw_classes = top.get("question_classes")
    if not isinstance(raw_classes, list):
        raise r.fail("question_classes", "expected a list")
    classes = tuple(_qclass(r, i, c) for i, c in enumerate(raw_classes))
    gate_obj = r.obj(top.get("gate"), "gate")
    gate = Gate(
        agents=r.str_list(gate_obj, "agents", "gate"), adr=r.opt_str(gate_obj, "adr", "gate")
    )
    return Matrix(stores=stores, classes=classes, gate=gate, raw=top)
