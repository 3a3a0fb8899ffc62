"""graphify-nudge's index builder: the sidecar index of graph.json the hook reads.

The hook (graphify_nudge.py, section 6) answers "what does the graph hold for
this file or name" with a binary search in ``<telemetry dir>/.index/<name>.idx``;
this module writes that file. It runs off the hot path only:

* ``main``: the detached process the hook spawns when a trigger finds the
  index missing or outdated (``<python> -I -S -c '...import
  graphify_nudge_index;graphify_nudge_index.main()' <hooks dir> <graph>
  <directory fd>``), niced, in its own session, one per graph at a time;
* ``build_graph_index``: ``mishkan graph-index``, synchronously.

Why a second file: the hook is a fresh interpreter on every tool call, and
its import *is* its cost. The builder (json, re, and graphify's resolution
rules below) is about half of the hook's compiled size and is never used by a
call, so it lives here and a call never unmarshals it. ``mishkan install``
copies both files into the hooks directory; without this one the hook works
as it does without an index (the index state is then ``no_builder``).

What the two share (the graph location rule, the index name, key and header,
the file helpers that never follow a link) is imported from graphify_nudge,
never copied. Here ``json`` and ``re`` are fine to import.
"""

import json
import posix
import re
import sys

from graphify_nudge import (
    _READ,
    _S_IFMT,
    _S_IFREG,
    _WRITE,
    DEFAULT_TELEMETRY_DIR,
    INDEX_DIR,
    INDEX_MAGIC,
    INDEX_MAX_FIELD,
    INDEX_MAX_LINE,
    TRIGGER_EXTENSIONS,
    Store,
    _absolute,
    _dumps,
    _extension,
    _graph_key,
    _index_header,
    _index_name,
    _index_site,
    _is_name,
    _is_regular,
    _lock,
    _plain,
    _read_file,
    _settings_of,
    _stat,
    _write_small,
    built_at_commit,
    find_graph,
    graph_candidates,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NoReturn, Optional

    from graphify_nudge import Environ

__all__ = [
    "INDEX_BUILD_SECONDS",
    "INDEX_MAX_GRAPH_BYTES",
    "INDEX_MAX_SITES",
    "GraphIndexError",
    "build_graph_index",
    "main",
]

INDEX_BUILD_SECONDS: "Final" = 600  # a background build never outlives this
INDEX_MAX_GRAPH_BYTES: "Final" = 512 << 20
INDEX_MAX_SITES: "Final" = 64  # definition sites stored per name


# ---------------------------------------------------------------------------
# 1. Entry points: `mishkan graph-index` and the process the hook spawns


class GraphIndexError(Exception):
    """No graph, or a graph the index cannot be built from (one line, for exit 2)."""


def build_graph_index(environ: "Environ", root: str) -> str:
    """Build the index for the graph the hook would use in `root`, synchronously
    (`mishkan graph-index`). Returns "built" or "current"; raises GraphIndexError."""
    settings = _settings_of(environ)
    root = _absolute(root, posix.getcwd())
    graph = find_graph(settings, root)
    if graph.path is None:
        raise GraphIndexError(
            f"no graph: none of {', '.join(graph_candidates(settings, root))} is a file"
        )
    store = Store(settings, root, "")
    try:
        directory = store.directory(INDEX_DIR)
        if directory is None:
            where = settings.telemetry_dir or f"{root}/{DEFAULT_TELEMETRY_DIR}"
            raise GraphIndexError(f"cannot open the index directory under {where}")
        return _build_locked(graph.path, directory, wait=True)
    finally:
        store.close()


def main() -> "NoReturn":
    """The detached builder the hook spawns: argv is the hooks dir, the graph
    path and the inherited descriptor of the index directory. Low priority,
    bounded in time, silent, exit 0 or 1."""
    code = 1
    try:
        graph_path, directory = sys.argv[2], int(sys.argv[3])
        posix.closerange(3, directory)
        posix.closerange(directory + 1, 1 << 16)
        import signal

        signal.alarm(INDEX_BUILD_SECONDS)  # never outlive a stuck build
        posix.nice(10)
        _build_locked(graph_path, directory, wait=False)
        code = 0
    except BaseException:
        pass
    finally:
        posix._exit(code)


# ---------------------------------------------------------------------------
# 2. One build: locked, keyed to the graph version, written atomically


def _build_locked(graph_path: str, directory: int, wait: bool) -> str:
    """Build under `<name>.lock`: one builder at a time per graph; a second
    one (wait=False) leaves at once, and anyone finds the work already done."""
    name = _index_name(graph_path)
    fd = posix.open(f"{name}.lock", _WRITE | posix.O_RDWR, 0o600, dir_fd=directory)
    try:
        if not _is_regular(fd):
            raise GraphIndexError("the index lock is not a regular file")
        if wait:
            posix.lockf(fd, posix.F_LOCK, 0)
        elif not _lock(fd, 0):
            return "busy"
        key = _graph_key_of(graph_path)
        if _index_key(directory, name) == key:
            return "current"
        _write_small(f"{name}.attempt", f"{key}\tbuilding".encode(), directory)
        try:
            nodes = _load_nodes(graph_path)
            lines = _index_lines(nodes)
            if _graph_key_of(graph_path) != key:
                raise GraphIndexError(f"{graph_path} changed while it was read")
        except (GraphIndexError, OSError, ValueError, MemoryError, RecursionError) as exc:
            _write_small(f"{name}.attempt", f"{key}\tfailed: {exc}"[:400].encode(), directory)
            raise GraphIndexError(f"{graph_path}: {exc}") from None
        header = f"{INDEX_MAGIC}\t{key}\t{len(nodes)}\n".encode()
        _write_index(f"{name}.idx", header + b"".join(line + b"\n" for line in lines), directory)
        _write_small(f"{name}.attempt", f"{key}\tbuilt".encode(), directory)
        return "built"
    finally:
        posix.close(fd)


def _graph_key_of(path: str) -> str:
    st = _stat(path)
    if st is None or st.st_mode & _S_IFMT != _S_IFREG:
        raise GraphIndexError(f"{path}: not a regular file")
    return _graph_key(built_at_commit(path), st)


def _index_key(directory: int, name: str) -> "Optional[str]":
    """The graph key an index on disk was built for, if any."""
    try:
        fd = posix.open(f"{name}.idx", _READ | posix.O_NOFOLLOW, dir_fd=directory)
    except OSError:
        return None
    try:
        return _index_header(fd)[0]
    finally:
        posix.close(fd)


def _write_index(name: str, data: bytes, directory: int) -> None:
    """Write a temporary file and rename it into place: readers see the old
    index or the new one, never half of one."""
    temp = f".{name}.{posix.getpid()}.tmp"
    fd = posix.open(temp, _WRITE | posix.O_WRONLY | posix.O_TRUNC, 0o600, dir_fd=directory)
    try:
        view = memoryview(data)
        while view:
            view = view[posix.write(fd, view) :]
        posix.close(fd)
        posix.rename(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        try:
            posix.unlink(temp, dir_fd=directory)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------
# 3. The index lines (their format: graphify_nudge.py, section 6)


def _load_nodes(graph_path: str) -> "list[dict[str, Any]]":
    data = _read_file(graph_path, INDEX_MAX_GRAPH_BYTES)
    if data is None:
        raise GraphIndexError(
            f"unreadable, not a regular file, or over {INDEX_MAX_GRAPH_BYTES >> 20} MiB"
        )
    graph = json.loads(data)
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    if not isinstance(nodes, list):
        raise GraphIndexError("no `nodes` list: not a graphify graph.json")
    return [node for node in nodes if isinstance(node, dict) and isinstance(node.get("id"), str)]


def _index_lines(nodes: "list[dict[str, Any]]") -> "list[bytes]":
    """The sorted body lines of the index for these graph nodes. Every row is
    checked with the hook's own `_index_site` (and every file line's text with
    `_plain`), the very checks the hook makes on read; a name's sites are cut
    where its line would pass INDEX_MAX_LINE (its total still counts them all)."""
    resolver = _Resolver(nodes)
    lines: list[bytes] = []
    for path in sorted(resolver.files):
        arg = resolver.file_argument(path)
        if arg is not None:
            lines.append(f"f\t{path}\t{arg}".encode())
    by_name: dict[str, list[tuple[tuple[int, int, str, int], list[object]]]] = {}
    for i, name, path, line in resolver.definitions():
        arg = resolver.symbol_argument(i, name, path)
        row: list[object] = [name, path, line, arg, resolver.ids[i]]
        if arg is None or _index_site(row) is None:
            continue
        by_name.setdefault(name.lower(), []).append((_site_rank(path, line), row))
    for key, ranked in by_name.items():
        ranked.sort(key=lambda pair: pair[0])
        head = f"s\t{key}\t[{len(ranked)},["
        rows: list[str] = []
        size = len(head) + 2
        for _, row in ranked[:INDEX_MAX_SITES]:
            text = _dumps(row)  # ASCII: its length is its size
            if size + len(text) + 1 > INDEX_MAX_LINE:
                break
            rows.append(text)
            size += len(text) + 1
        if rows:
            lines.append(f"{head}{','.join(rows)}]]".encode())
    lines.sort()
    return lines


def _site_rank(path: str, line: int) -> "tuple[int, int, str, int]":
    """Project source first, tests and generated declarations (.d.ts) last."""
    lowered = "/" + path.lower()
    test = any(mark in lowered for mark in ("/test", "_test.", ".test.", ".spec.", "/spec/"))
    generated = any(lowered.endswith(ext) for ext in (".d.ts", ".d.cts", ".d.mts"))
    return (int(test), int(generated), path, line)


# ---------------------------------------------------------------------------
# 4. graphify's resolution rules: which `explain` argument names one node
#
# This mirrors graphify 0.9.96's own rules (graphify/serve.py:
# `_find_node_tiers`, `_resolve_path_scoped_symbol`, `_tier_refusal`) to
# choose, for every definition, an `explain` argument that resolves to exactly
# that node: `path::name` when that is unique, else the node id.
# tests/e2e/test_e2e_advice.py checks every choice on a real graph against
# graphify itself.


# Source files whose nodes are definitions. graphify also turns the keys of
# package.json and other data files into `code` nodes (`type` in zod's
# package.json); those define nothing an agent greps for.
_CODE_EXTENSIONS: "Final" = TRIGGER_EXTENSIONS | frozenset(
    {".pyi", ".mts", ".cts", ".kt", ".kts", ".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp",
     ".hh", ".cs", ".swift", ".lua", ".zig", ".ex", ".exs", ".jl", ".m", ".mm", ".groovy",
     ".dart", ".vue", ".svelte", ".sh", ".bash", ".ps1", ".f90", ".v", ".sv", ".erl", ".hs"}
)  # fmt: skip


def _is_file_label(label: str, source: str) -> bool:
    """The node graphify makes for a file itself: labelled with its name."""
    return label == source.rsplit("/", 1)[-1] or source.endswith("/" + label)


class _Resolver:
    """graphify 0.9.96's node matching, reduced to what `explain ARG` needs."""

    def __init__(self, nodes: "list[dict[str, Any]]") -> None:
        self._token_re = re.compile(r"[^\W_]+")
        self._py_qualified = re.compile(
            r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[.:]([A-Za-z_]\w*)(?:\(\))?$"
        )
        self.nodes = nodes
        self.ids: list[str] = []
        self.files: set[str] = set()
        self._by_term: dict[str, list[int]] = {}  # norm/bare label, label tokens, id (lower)
        self._by_query: dict[str, list[int]] = {}  # norm/bare label, normalised id
        self._by_label: dict[str, list[int]] = {}  # norm/bare label only
        self._sources_by_tokens: dict[str, set[str]] = {}
        self._source: list[tuple[str, str, str]] = []  # (file, tokens, normalised)
        self._file_node: dict[str, int] = {}  # file -> its own node (label: the base name)
        for i, node in enumerate(nodes):
            nid = str(node["id"])
            label = node.get("label") or ""
            label = label if isinstance(label, str) else str(label)
            norm_label = node.get("norm_label") or self._strip(label).lower()
            norm_label = norm_label if isinstance(norm_label, str) else str(norm_label)
            bare = norm_label.rstrip("()")
            tokens = self._tokens(label)
            source = node.get("source_file") or ""
            source = source if isinstance(source, str) else str(source)
            source_tokens = self._tokens(source)
            self.ids.append(nid)
            self._source.append((source, source_tokens, self._strip(source).lower().strip()))
            for key in {norm_label, bare, tokens, nid.lower()}:
                self._by_term.setdefault(key, []).append(i)
            nid_norm = nid.lower() if nid.isascii() else self._strip(nid).lower()
            for key in {norm_label, bare, nid_norm}:
                self._by_query.setdefault(key, []).append(i)
            for key in {norm_label, bare}:
                self._by_label.setdefault(key, []).append(i)
            if source:
                self.files.add(source)
                self._sources_by_tokens.setdefault(source_tokens, set()).add(source)
                if label and _is_file_label(label, source):
                    self._file_node.setdefault(source, i)

    @staticmethod
    def _strip(text: str) -> str:
        if text.isascii():
            return text
        import unicodedata

        nfkd = unicodedata.normalize("NFKD", text)
        return "".join(c for c in nfkd if not unicodedata.combining(c))

    def _tokens(self, text: str) -> str:
        return " ".join(self._token_re.findall(self._strip(text).lower()))

    def _exact(self, query: str) -> "set[int]":
        """graphify's `exact` tier for `query` (label, tokens or id equal)."""
        term, norm_query = self._tokens(query), self._strip(query).lower().strip()
        return set(self._by_term.get(term, ())) | set(self._by_query.get(norm_query, ()))

    def _scoped(self, path_part: str, symbol_part: str) -> "set[int]":
        """`_resolve_path_scoped_symbol`: nodes of a file matching `path_part`
        whose label or id matches `symbol_part`."""
        path_tokens = self._tokens(path_part)
        norm_path = self._strip(path_part).lower().strip()
        term = self._tokens(symbol_part)
        candidates = set(self._by_term.get(term, ()))
        candidates |= set(self._by_label.get(self._strip(symbol_part).lower().strip(), ()))
        out = set()
        for i in candidates:
            _, tokens, normalised = self._source[i]
            if (
                tokens == path_tokens
                or normalised == norm_path
                or (norm_path and normalised.endswith("/" + norm_path))
                or (path_tokens and tokens.endswith(" " + path_tokens))
            ):
                out.add(i)
        return out

    def _py_scoped(self, query: str) -> "set[int]":
        match = self._py_qualified.match(query.strip())
        if not match:
            return set()
        module = match.group(1).replace(".", "/")
        for path_part in (f"{module}.py", f"{module}/__init__.py"):
            found = self._scoped(path_part, match.group(2))
            if found:
                return found
        return set()

    def definitions(self) -> "list[tuple[int, str, str, int]]":
        """(node, name, file, line) for every code node that defines a name."""
        out = []
        for i, node in enumerate(self.nodes):
            source = self._source[i][0]
            location = node.get("source_location")
            label = node.get("label")
            if node.get("file_type") != "code" or not source or not isinstance(label, str):
                continue
            if not (isinstance(location, str) and location[:1] == "L" and location[1:].isdigit()):
                continue
            if _is_file_label(label, source):
                continue  # the file's own node
            name = label[1:] if label.startswith(".") else label
            name = name[:-2] if name.endswith("()") else name
            if (
                len(name) <= INDEX_MAX_FIELD and _is_name(name) and _plain(source)
                and _extension(source) in _CODE_EXTENSIONS and len(location) < 12
            ):  # fmt: skip
                out.append((i, name, source, int(location[1:])))
        return out

    def _id_resolves(self, i: int) -> bool:
        nid = self.ids[i]
        if not _plain(nid) or "::" in nid or self._py_qualified.match(nid.strip()):
            return False
        if self._sources_by_tokens.get(self._tokens(nid)):
            return False  # the id reads as a file path: the source tier wins
        return self._exact(nid) == {i}

    def symbol_argument(self, i: int, name: str, path: str) -> "Optional[str]":
        """`path::name` when graphify resolves it to node i alone, else the node id."""
        scoped = f"{path}::{name}"
        if (
            ":" not in path and _plain(scoped) and not self._exact(scoped)
            and self._scoped(path, name) == {i}
        ):  # fmt: skip
            return scoped
        return self.ids[i] if self._id_resolves(i) else None

    def file_argument(self, path: str) -> "Optional[str]":
        """ "" when `graphify explain PATH` resolves within this file, else the
        file node's id, else None (the file is then left out: no advice). Only
        `_plain` paths: the hook would not write another into a command."""
        if not _plain(path) or ":" in path:
            return None
        tier = self._sources_by_tokens.get(self._tokens(path), set())
        py_qualified = self._py_qualified.match(path.strip()) and not self._exact(path)
        if tier == {path} and not (py_qualified and self._py_scoped(path)):
            return ""
        i = self._file_node.get(path)
        return self.ids[i] if i is not None and self._id_resolves(i) else None
