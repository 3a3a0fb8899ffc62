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

import bisect
import contextlib
import json
import posix
import re
import sys

from graphify_nudge import (
    _S_IFMT,
    _S_IFREG,
    DEFAULT_TELEMETRY_DIR,
    INDEX_DIR,
    INDEX_MAGIC,
    INDEX_MAX_FIELD,
    INDEX_MAX_LINE,
    TRIGGER_EXTENSIONS,
    Store,
    _absolute,
    _dumps,
    _env,
    _extension,
    _graph_key,
    _index_header,
    _index_name,
    _index_site,
    _is_name,
    _lock,
    _open_private,
    _open_regular,
    _plain,
    _read_at,
    _read_file,
    _replace,
    _Settings,
    _settings_of,
    _stat,
    built_at_commit,
    find_graph,
    graph_candidates,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Final, NoReturn, Optional

    from graphify_nudge import Environ

__all__ = [
    "INDEX_BUILD_SECONDS",
    "INDEX_CPU_SECONDS",
    "INDEX_MAX_GRAPH_BYTES",
    "INDEX_MAX_SITES",
    "INDEX_MEMORY_BASE",
    "INDEX_MEMORY_PER_BYTE",
    "GraphIndexError",
    "build_graph_index",
    "main",
]

INDEX_BUILD_SECONDS: "Final" = 600  # a background build never outlives this (wall clock)
INDEX_MAX_GRAPH_BYTES: "Final" = 512 << 20
INDEX_MAX_SITES: "Final" = 64  # definition sites stored per name
# A build's own limits, also under `mishkan graph-index`: CPU time
# (RLIMIT_CPU; a 50 MiB graph takes ~5 s) and address space (RLIMIT_AS: a base
# plus a multiple of graph.json's size; a 50 MiB graph peaks at ~7.5x).
INDEX_CPU_SECONDS: "Final" = 120
INDEX_MEMORY_BASE: "Final" = 256 << 20
INDEX_MEMORY_PER_BYTE: "Final" = 16
INDEX_REASON_CHARS: "Final" = 300  # a failed attempt's reason, on one line


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
        path_value = None if isinstance(environ, _Settings) else _env(environ, "PATH")
        return _build_locked(graph.path, directory, wait=True, path_value=path_value)
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

        signal.signal(signal.SIGALRM, _out_of_time)  # a failure with its reason, recorded
        signal.alarm(INDEX_BUILD_SECONDS)  # never outlive a stuck build
        posix.nice(10)
        _build_locked(
            graph_path, directory, wait=False, hard=True, path_value=_env(posix.environ, "PATH")
        )
        code = 0
    except BaseException:
        pass
    finally:
        posix._exit(code)


def _out_of_time(signum: int, frame: object) -> None:
    raise GraphIndexError(f"over its time limit ({INDEX_BUILD_SECONDS} s)")


# ---------------------------------------------------------------------------
# 2. One build: locked, keyed to the graph version, written atomically


def _build_locked(
    graph_path: str,
    directory: int,
    wait: bool,
    hard: bool = False,
    path_value: "Optional[str]" = None,
) -> str:
    """Build under `<name>.lock`: one builder at a time per graph; a second
    one (wait=False) leaves at once, and anyone finds the work already done.
    The reading and indexing run under the build's limits (`_limited`).
    `path_value` is the PATH whose `graphify` the advice will run (section 5)."""
    name = _index_name(graph_path)
    fd = _open_lock(f"{name}.lock", directory)
    try:
        if wait:
            posix.lockf(fd, posix.F_LOCK, 0)
        elif not _lock(fd, 0):
            return "busy"
        key = _graph_key_of(graph_path)
        if _index_key(directory, name) == key:
            return "current"
        _replace(f"{name}.attempt", f"{key}\tbuilding".encode(), directory)
        try:
            with _limited(_graph_size(graph_path), hard):
                nodes, links, recorded = _load_graph(graph_path)
                version = graphify_dialect(path_value, recorded)
                accepts = capabilities(version)
                lines = _index_lines(nodes, links, graph_path, accepts)
            if _graph_key_of(graph_path) != key:
                raise GraphIndexError(f"{graph_path} changed while it was read")
            # the dialect (section 5) after the node count: the hook reads the
            # capabilities, the version is for people
            dialect = ",".join(sorted(accepts)) or "-"
            header = f"{INDEX_MAGIC}\t{key}\t{len(nodes)}\t{dialect}\t{version}\n".encode()
            body = b"".join(line + b"\n" for line in lines)
            if not _replace(f"{name}.idx", header + body, directory):
                raise OSError(f"{name}.idx: cannot be written")
        except Exception as exc:
            # Whatever graph.json holds (a list where a string was, a torn file,
            # a shape no graphify writes) and whatever stops the build (its
            # limits, a full disk): the attempt says why, so the hook waits a
            # day (INDEX_FAILED_RETRY_SECONDS), not ten minutes, before the same
            # graph version is parsed again; the caller gets one line.
            why = _reason(exc)
            _replace(f"{name}.attempt", f"{key}\tfailed: {why}".encode(), directory)
            raise GraphIndexError(f"{graph_path}: {why}") from None
        _replace(f"{name}.attempt", f"{key}\tbuilt".encode(), directory)
        return "built"
    finally:
        posix.close(fd)


def _reason(exc: BaseException) -> str:
    """Why a build failed, on one line of at most INDEX_REASON_CHARS: the
    builder's own words, else the exception's kind (a graph no graphify
    writes: a list where graphify writes a string raises a TypeError)."""
    if isinstance(exc, MemoryError):
        text = "over its memory limit"
    elif isinstance(exc, (GraphIndexError, OSError)):
        text = str(exc)
    else:
        text = f"not a graph this builder reads ({type(exc).__name__}: {exc})"
    return " ".join(text.split())[:INDEX_REASON_CHARS]


def _graph_stat(path: str) -> "posix.stat_result":
    st = _stat(path)
    if st is None or st.st_mode & _S_IFMT != _S_IFREG:
        raise GraphIndexError(f"{path}: not a regular file")
    return st


def _graph_key_of(path: str) -> str:
    st = _graph_stat(path)  # a regular file before it is opened
    return _graph_key(built_at_commit(path), st)


def _graph_size(path: str) -> int:
    size = _graph_stat(path).st_size
    if size > INDEX_MAX_GRAPH_BYTES:
        raise GraphIndexError(f"over {INDEX_MAX_GRAPH_BYTES >> 20} MiB")
    return size


@contextlib.contextmanager
def _limited(graph_bytes: int, hard: bool = False) -> "Iterator[None]":
    """The build's limits: INDEX_CPU_SECONDS more CPU time (RLIMIT_CPU, with a
    SIGXCPU handler that fails the build with a reason) and INDEX_MEMORY_BASE
    plus INDEX_MEMORY_PER_BYTE times the graph's size more address space
    (RLIMIT_AS: MemoryError). Only soft limits are lowered, and restored after,
    so `mishkan graph-index` gets its own back; `hard` (the detached builder,
    which exits after) also lowers the hard CPU limit, a SIGKILL 10 s later for
    a build stuck where no handler runs."""
    import resource
    import signal

    def over(signum: int, frame: object) -> None:
        raise GraphIndexError(f"over its CPU limit ({INDEX_CPU_SECONDS} s)")

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = resource.getrlimit(resource.RLIMIT_CPU)
    memory = resource.getrlimit(resource.RLIMIT_AS)
    try:
        previous = signal.signal(signal.SIGXCPU, over)
    except ValueError:  # not the main thread: no handler, so no CPU limit either
        previous = None
    try:
        if previous is not None:
            soft = int(usage.ru_utime + usage.ru_stime) + 1 + INDEX_CPU_SECONDS
            top = soft + 10 if hard else cpu[1]
            if _below(soft, cpu[1]):
                resource.setrlimit(resource.RLIMIT_CPU, (soft, min(top, cpu[1], key=_limit)))
        space = _address_space() + INDEX_MEMORY_BASE + INDEX_MEMORY_PER_BYTE * graph_bytes
        if _below(space, memory[0]):
            resource.setrlimit(resource.RLIMIT_AS, (space, memory[1]))
        yield
    finally:
        if not hard:
            resource.setrlimit(resource.RLIMIT_AS, memory)
            resource.setrlimit(resource.RLIMIT_CPU, cpu)
        if previous is not None:
            signal.signal(signal.SIGXCPU, previous)


def _limit(value: int) -> float:
    """A resource limit as a number: RLIM_INFINITY (-1) is no limit."""
    return float("inf") if value < 0 else value


def _below(value: int, limit: int) -> bool:
    return value < _limit(limit)


def _address_space() -> int:
    """This process's address space now (Linux: /proc/self/statm), else 0."""
    data = _read_file("/proc/self/statm", 4096)
    try:
        return int((data or b"").split()[0]) * posix.sysconf("SC_PAGE_SIZE")
    except (IndexError, ValueError, OSError):
        return 0


def _index_key(directory: int, name: str) -> "Optional[str]":
    """The graph key an index on disk was built for, if any."""
    try:
        fd = _open_regular(f"{name}.idx", directory, follow=False)
    except OSError:
        return None
    try:
        return _index_header(fd)[0]
    finally:
        posix.close(fd)


def _open_lock(name: str, directory: int) -> int:
    """The build's lock file, opened for lockf(3) (`_open_private`). Whatever
    else stands at its name (a link, a FIFO, a hard link a tarball shipped)
    is not the lock: its name is removed and a new lock made."""
    try:
        return _open_private(name, directory, posix.O_RDWR)
    except OSError:
        pass
    try:
        posix.unlink(name, dir_fd=directory)
        return _open_private(name, directory, posix.O_RDWR)
    except OSError:
        raise GraphIndexError("the index lock is not a regular file") from None


# ---------------------------------------------------------------------------
# 3. The index lines (their format: graphify_nudge.py, section 6)


def _load_graph(graph_path: str) -> "tuple[list[dict[str, Any]], list[dict[str, Any]], object]":
    """(nodes, links) of a graphify graph.json, and the `graph.graphify_version` it
    records (anything: it is repository content) or None."""
    data = _read_file(graph_path, INDEX_MAX_GRAPH_BYTES)
    if data is None:
        raise GraphIndexError(
            f"unreadable, not a regular file, or over {INDEX_MAX_GRAPH_BYTES >> 20} MiB"
        )
    graph = json.loads(data)
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    if not isinstance(nodes, list):
        raise GraphIndexError("no `nodes` list: not a graphify graph.json")
    links = graph.get("links", graph.get("edges"))
    links = links if isinstance(links, list) else []
    meta = graph.get("graph")
    recorded = meta.get("graphify_version") if isinstance(meta, dict) else None
    return (
        [node for node in nodes if isinstance(node, dict) and isinstance(node.get("id"), str)],
        [link for link in links if isinstance(link, dict)],
        recorded,
    )


def _placeholders(links: object) -> "frozenset[str]":
    """Nodes that are referenced but never contained: graphify 0.8.x keeps an
    unresolved type reference (`str`, `Any`, `BinaryIO` in click) as a node at
    the referring line, with only `references` edges into it; it defines
    nothing. (0.9.96's graphs of click and zod have none; its definitions are
    all `contains` or `method` targets or unreferenced.)"""
    referenced: set[str] = set()
    contained: set[str] = set()
    for edge in links if isinstance(links, list) else ():
        target = edge.get("target") if isinstance(edge, dict) else None
        if isinstance(target, str):
            relation = edge.get("relation")
            if relation == "references":
                referenced.add(target)
            elif relation in ("contains", "method"):
                contained.add(target)
    return frozenset(referenced - contained)


def _index_lines(
    nodes: "list[dict[str, Any]]",
    links: "Optional[list[dict[str, Any]]]" = None,
    graph_path: str = "",
    accepts: "Optional[frozenset[str]]" = None,
) -> "list[bytes]":
    """The sorted body lines of the index for these graph nodes and links, with
    the explain arguments of a graphify that `accepts` those capabilities
    (section 5; default: the newest supported release's). Every row is checked
    with the hook's own `_index_site` (and every file line's text with
    `_plain`), the very checks the hook makes on read; a name's sites are cut
    where its line would pass INDEX_MAX_LINE (its total still counts them all)."""
    resolver = _Resolver(nodes, capabilities(GRAPHIFY_NEWEST) if accepts is None else accepts)
    defined = _Definitions(resolver, links or [], graph_path)
    lines: list[bytes] = []
    for path in sorted(resolver.files):
        if path not in defined.answering_files:
            continue  # a file node with no symbols and no connections: nothing to explain
        arg = resolver.file_argument(path)
        if arg is not None:
            lines.append(f"f\t{path}\t{arg}".encode())
    by_name: dict[str, list[tuple[tuple[int, int, str, int], list[object]]]] = {}
    for i, name, path, line, scope in defined.sites():
        arg = resolver.symbol_argument(i, name, path)
        row: list[object] = [name, path, line, arg, resolver.ids[i], " ".join(scope)]
        if arg is None or _index_site(row) is None:
            continue
        by_name.setdefault(name, []).append((_site_rank(path, line), row))
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


# What a node defines, per language, as graphify 0.9.96's extractors build
# them (graphify/extractors/go.py, rust.py; extract.py for the others):
#
# * Labels: functions `name()`, methods `.name()`, everything else `name`;
#   Ruby classes and modules by their qualified name (`Hashie::Extensions::Mash`),
#   which is the name `Mash` in the scope `Hashie Extensions`.
# * Go and Rust declare each type, constant and variable with a `contains`
#   edge from its file's node, at the declaration's line. Their other
#   type-named nodes are not definitions: a Rust `impl Display for Version` in
#   another file is a node `Version` there (its methods hang off it), and a Go
#   method's receiver makes a node of its type at the method's line (merged by
#   id with the type's own node, whose location may then be the receiver's).
#   So a Go or Rust type is defined where a file `contains` it; a Rust type
#   declared once in its file has `_rust_declaration_count` too, and an enum
#   variant hangs off its enum (`case_of`).
# * A method's scope is the node it hangs off (`method`, `contains` or
#   `case_of` from a symbol node), then that node's scope; every site's scope
#   starts with its file's directories and module name (`click core` for
#   src/click/core.py), and Go's package is its directory, graphify's own
#   `pkg_scope` (for files at the project root: the project directory's name).
# * TypeScript and JavaScript accessors (`get shape()`, `set value(v)`) are
#   method nodes, but to the language they are properties, which the
#   interfaces and types that declare them also define, and graphify has no
#   node for those (zod: `shape` has 12 definitions, the graph holds the one
#   getter). The graph cannot answer for an accessor, so the index leaves it
#   out and the hook stays silent; telling one needs its source line, the one
#   thing the builder reads from the repository (bounded, never followed
#   through a link, and only ever compared, never copied into the index).
_TYPE_DEFINING_EXTENSIONS: "Final" = frozenset({".go", ".rs"})
_SCRIPT_EXTENSIONS: "Final" = frozenset(
    {".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}
)
_ACCESSOR_MODIFIERS: "Final" = frozenset(
    {"static", "public", "private", "protected", "override", "declare", "abstract"}
)
_SOURCE_MAX_BYTES: "Final" = 4 << 20  # per file; a larger one is not looked at
_SOURCES_MAX_BYTES: "Final" = 256 << 20  # per build
_PARENT_RELATIONS: "Final" = frozenset({"method", "contains", "case_of"})
_MAX_SCOPE_DEPTH: "Final" = 8


class _Definitions:
    def __init__(self, resolver: "_Resolver", links: "list[dict[str, Any]]", graph_path: str):
        self.resolver = resolver
        by_id = {nid: i for i, nid in enumerate(resolver.ids)}
        self.file_nodes = set(resolver._file_node.values())
        self.declared_at: dict[int, list[tuple[str, int]]] = {}  # Go/Rust: file contains it
        self.parent: dict[int, int] = {}
        connected: set[int] = set()
        for link in links:
            source, target = by_id.get(link.get("source")), by_id.get(link.get("target"))  # type: ignore[arg-type]
            if source is None or target is None:
                continue
            connected.update((source, target))
            relation = link.get("relation")
            if relation == "contains":
                # also from itself: graphify merges a Go file's node with the
                # type of the same id (`type Widget` in widget/widget.go)
                where = _site_of(link.get("source_file"), link.get("source_location"))
                if where is not None:
                    self.declared_at.setdefault(target, []).append(where)
            if relation in _PARENT_RELATIONS and source != target and source not in self.file_nodes:
                self.parent.setdefault(target, source)
        self._connected = connected
        # graphify 0.8.x's unresolved type references: nodes that define nothing
        self.placeholders = {by_id[nid] for nid in _placeholders(links) if nid in by_id}
        # A method whose `method` edge graphify dropped (cobra: 36 methods of
        # Command in other files) still carries its owner in its id, which
        # graphify builds as `<owner id>_<name>`; an owner whose id collided
        # got its file's path in front (`command_go_cobra_command`).
        slug = re.compile(r"[^a-z0-9]+")
        for i, nid in enumerate(resolver.ids):
            prefix = slug.sub("_", resolver._source[i][0].lower()).strip("_") + "_"
            if len(prefix) > 1 and nid.startswith(prefix):
                by_id.setdefault(nid[len(prefix) :], i)
        for i, node in enumerate(resolver.nodes):
            label = node.get("label")
            if i in self.parent or not isinstance(label, str) or not label.startswith("."):
                continue
            nid = resolver.ids[i]
            for _ in range(4):
                nid = nid[: nid.rfind("_")] if "_" in nid else ""
                owner = by_id.get(nid)
                if owner is not None and owner != i:
                    if owner not in self.file_nodes:
                        self.parent[i] = owner
                    break
        # graphify's Go package scope for a file at the project root: the
        # project directory, which holds the graph's directory
        parts = graph_path.split("/")
        self.root_name = parts[-3] if len(parts) >= 3 else ""
        # the project: graph.json sits in .graphify/ or graphify-out/ at its root
        self.root = "/".join(parts[:-2]) if len(parts) >= 3 and graph_path[:1] == "/" else ""
        self._lines: dict[str, list[bytes]] = {}
        self._read_budget = _SOURCES_MAX_BYTES
        self.answering_files = {resolver._source[i][0] for i in connected | set(self._named())} - {
            ""
        }

    def _named(self) -> "list[int]":
        out = []
        for i, node in enumerate(self.resolver.nodes):
            label = node.get("label")
            if (
                node.get("file_type") == "code"
                and isinstance(label, str)
                and i not in self.file_nodes
            ):
                out.append(i)
        return out

    @staticmethod
    def label_parts(label: str) -> "list[str]":
        """`.name()` -> [name]; `Hashie::Mash` -> [Hashie, Mash]."""
        name = label[1:] if label.startswith(".") else label
        name = name[:-2] if name.endswith("()") else name
        return name.split("::") if "::" in name else [name]

    def _scope_of(self, i: int) -> "list[str]":
        chain: list[str] = []
        seen = {i}
        parent = self.parent.get(i)
        while parent is not None and parent not in seen and len(seen) <= _MAX_SCOPE_DEPTH:
            seen.add(parent)
            label = self.resolver.nodes[parent].get("label")
            if isinstance(label, str):
                chain[:0] = self.label_parts(label)
            parent = self.parent.get(parent)
        return chain

    def _path_scope(self, path: str) -> "list[str]":
        parts = path.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        scope = [*parts[:-1], stem]
        if _extension(path) == ".go" and len(parts) == 1 and self.root_name:
            scope.insert(0, self.root_name)
        return scope

    def _is_accessor(self, path: str, line: int, name: str) -> bool:
        """Whether the declaration at path:line is `get name(` or `set name(`."""
        if not self.root or ".." in path.split("/"):
            return False
        if path not in self._lines:
            data = None
            if self._read_budget > 0:
                data = _read_file(f"{self.root}/{path}", _SOURCE_MAX_BYTES, follow=False)
            self._read_budget -= len(data) if data else 0
            self._lines[path] = data.split(b"\n") if data else []
        lines = self._lines[path]
        if not 0 < line <= len(lines):
            return False
        words = lines[line - 1].decode("utf-8", "replace").replace("(", " (").split()
        while words and words[0] in _ACCESSOR_MODIFIERS:
            words.pop(0)
        return len(words) >= 2 and words[0] in ("get", "set") and words[1] == name

    def sites(self) -> "list[tuple[int, str, str, int, list[str]]]":
        """(node, name, file, line, scope) for every definition site a node stands for."""
        out = []
        resolver = self.resolver
        for i in self._named():
            node = resolver.nodes[i]
            source = resolver._source[i][0]
            location = node.get("source_location")
            label = str(node.get("label"))
            if not source or _is_file_label(label, source) or not _plain(source):
                continue
            if i in self.placeholders:
                continue  # a reference placeholder (0.8.x), not a definition
            extension = _extension(source)
            if extension not in _CODE_EXTENSIONS:
                continue
            parts = self.label_parts(label)
            name = parts[-1]
            if len(name) > INDEX_MAX_FIELD or not _is_name(name):
                continue
            here = _site_of(source, location)
            callable_ = label.endswith("()") or label.startswith(".")
            if extension in _TYPE_DEFINING_EXTENSIONS and not callable_:
                where = list(self.declared_at.get(i, ()))
                if (
                    not where
                    and here is not None
                    and (node.get("_rust_declaration_count") or i in self.parent)
                ):
                    where = [here]  # a Rust type declared once; an enum variant
            else:
                where = [here] if here is not None else []
            script_method = extension in _SCRIPT_EXTENSIONS and label.startswith(".")
            if script_method and here is not None and self._is_accessor(*here, name):
                continue
            scope = parts[:-1] or self._scope_of(i)
            for path, line in where:
                if _plain(path):
                    out.append((i, name, path, line, _bounded(self._path_scope(path) + scope)))
        return out


def _bounded(scope: "list[str]") -> "list[str]":
    """A scope the hook accepts (`_index_site`): readable parts, at most
    INDEX_MAX_FIELD characters joined, the outermost directories dropped first."""
    parts = [part for part in scope if part and _plain(part) and " " not in part]
    while parts and len(" ".join(parts)) > INDEX_MAX_FIELD:
        parts.pop(0)
    return parts


def _site_of(path: object, location: object) -> "Optional[tuple[str, int]]":
    if not isinstance(path, str) or not path or not isinstance(location, str):
        return None
    if location[:1] != "L" or not location[1:].isdigit() or len(location) >= 12:
        return None
    return path, int(location[1:])


# ---------------------------------------------------------------------------
# 4. graphify's resolution rules: which `explain` argument names one node
#
# This mirrors graphify 0.9.96's own rules (graphify/serve.py:
# `_find_node_tiers`, `_resolve_path_scoped_symbol`, `_tier_refusal`) to
# choose, for every definition, an `explain` argument that resolves to exactly
# that node: `path::name` when that is unique, else the node id.
#
# Releases without `path::name` (section 5: EXPLAIN_PATH_NAME; 0.8.31, D-008's)
# match in tiers too (exact label or id, then prefix, then substring; from
# 0.8.51 a source-path tier first) but answer the first match of the first
# tier, or refuse a tie, depending on the release, and each release widened
# the exact tier (more spellings of the label and the id). There an argument
# is chosen only when it is in the exact tier of the narrowest rule (0.8.31:
# its tokens are the label, the bare label or the id) and alone in the exact
# tier of the widest (0.9.96), so every release between answers that node:
# the bare name when it is unique, else the node id; a file by its node's id
# (by its path only where that resolves and the id does not).
# tests/e2e/test_e2e_advice.py checks every choice on a real graph against
# graphify itself, on the oldest and the newest supported release.


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


#: candidate lists this short are checked one by one; longer ones are sorted
#: once (`_Endings`): a scan per query made N same-named nodes cost N squared
_SCAN_MEMBERS = 16


class _Endings:
    """The members of one candidate list (the nodes under one key of a lookup
    table), sorted by their source file's path components and tokens, each
    reversed: the members whose source *ends with* given components or tokens
    are then one range, found by binary search."""

    __slots__ = ("part_nodes", "parts", "token_nodes", "tokens")

    def __init__(self, members: "list[int]", resolver: "_Resolver") -> None:
        by_parts = sorted((resolver.reversed_source(i)[0], i) for i in members)
        by_tokens = sorted((resolver.reversed_source(i)[1], i) for i in members)
        self.parts = [key for key, _ in by_parts]
        self.part_nodes = [i for _, i in by_parts]
        self.tokens = [key for key, _ in by_tokens]
        self.token_nodes = [i for _, i in by_tokens]

    @staticmethod
    def ending(
        keys: "list[tuple[str, ...]]", nodes: "list[int]", end: "tuple[str, ...]", whole: bool
    ) -> "list[int]":
        """The first two members whose key starts with `end` (equals it: `whole`)."""
        at = bisect.bisect_left(keys, end)
        out: list[int] = []
        while at < len(keys) and len(out) < 2:
            key = keys[at]
            if not (key == end if whole else key[: len(end)] == end):
                break
            out.append(nodes[at])
            at += 1
        return out


class _Resolver:
    """graphify's node matching, reduced to what `explain ARG` needs: 0.9.96's
    rules, and the narrowest exact match of the supported range (0.8.31's).

    Every question is answered from tables built once (dicts of node lists,
    `_Endings` sorted once), never by scanning the nodes: O(n log n) in the
    graph. A scan per definition made 16,000 nodes sharing one label in one
    file take 188 s (issue 20)."""

    def __init__(self, nodes: "list[dict[str, Any]]", accepts: "frozenset[str]") -> None:
        self._scoped_names = EXPLAIN_PATH_NAME in accepts  # `path::name` resolves
        self._file_paths = EXPLAIN_PATH in accepts  # `explain PATH` resolves a file
        self._token_re = re.compile(r"[^\W_]+")
        self._word_re = re.compile(r"\w+")  # 0.8.31's tokens: `_` is a word character
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
        self._endings: dict[tuple[str, str], _Endings] = {}  # ("t"|"l", key), built on demand
        self._reversed: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # by source
        # 0.8.31's exact tier (norm/bare label, id lower-cased) and source paths in
        # 0.8.51's tokens, for `_everywhere`: built only for a release without
        # `path::name`, a key naming its one node, or -1 when several share it
        # (a 150,000-node graph's build stays within its memory limit)
        self._narrow: dict[str, int] = {}
        self._sources_by_words: set[str] = set()
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
            if not self._scoped_names:
                for key in {norm_label, bare, nid.lower()}:
                    self._narrow[key] = i if self._narrow.get(key, i) == i else -1
            if source:
                self.files.add(source)
                if not self._scoped_names:
                    self._sources_by_words.add(self._words(source))
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

    @staticmethod
    def _ends(normalised: str, tokens: str) -> "tuple[tuple[str, ...], tuple[str, ...]]":
        """A path's components and tokens, reversed (what `_Endings` sorts by)."""
        return tuple(reversed(normalised.split("/"))), tuple(reversed(tokens.split(" ")))

    def _words(self, text: str) -> str:
        """Tokens as releases before 0.9.x split them (`_` inside a word)."""
        return " ".join(self._word_re.findall(self._strip(text).lower()))

    def reversed_source(self, i: int) -> "tuple[tuple[str, ...], tuple[str, ...]]":
        """`_ends` of node i's source, made once per distinct source."""
        source, tokens, normalised = self._source[i]
        ends = self._reversed.get(source)
        if ends is None:
            ends = self._reversed[source] = self._ends(normalised, tokens)
        return ends

    def _exact_any(self, query: str) -> bool:
        """Whether graphify's `exact` tier for `query` (label, tokens or id equal) is not empty."""
        norm_query = self._strip(query).lower().strip()
        return bool(self._by_term.get(self._tokens(query)) or self._by_query.get(norm_query))

    def _exact_is(self, query: str, i: int) -> bool:
        """Whether graphify's `exact` tier for `query` is node i alone. (A node is in
        a table's list at most once, so a list within {i} has at most one entry.)"""
        norm_query = self._strip(query).lower().strip()
        lists = (self._by_term.get(self._tokens(query), []), self._by_query.get(norm_query, []))
        return any(lists) and all(not found or found == [i] for found in lists)

    def _scoped(self, path_part: str, symbol_part: str) -> "list[int]":
        """`_resolve_path_scoped_symbol`, to the first two nodes: those of a file
        matching `path_part` whose label or id matches `symbol_part`.

        A candidate's file matches when its tokens equal the path's or end with
        them (after a space), or its normalised path equals the path or ends
        with `/` and the path. A short candidate list is checked as that; a long
        one through its `_Endings`, where those candidates are the ones whose
        reversed tokens (components) start with the path's: one binary search."""
        path_tokens = self._tokens(path_part)
        norm_path = self._strip(path_part).lower().strip()
        found: list[int] = []
        for table, kind, key in (
            (self._by_term, "t", self._tokens(symbol_part)),
            (self._by_label, "l", self._strip(symbol_part).lower().strip()),
        ):
            members = table.get(key) or []
            if len(members) <= _SCAN_MEMBERS:
                found += [j for j in members if self._file_matches(j, path_tokens, norm_path)]
                continue
            endings = self._endings.get((kind, key))
            if endings is None:
                endings = self._endings[kind, key] = _Endings(members, self)
            parts, tokens = self._ends(norm_path, path_tokens)
            found += endings.ending(endings.parts, endings.part_nodes, parts, not norm_path)
            found += endings.ending(endings.tokens, endings.token_nodes, tokens, not path_tokens)
        return list(dict.fromkeys(found))[:2]

    def _file_matches(self, j: int, path_tokens: str, norm_path: str) -> bool:
        """graphify's test of one candidate's file against a path (tokens, normalised)."""
        _, tokens, normalised = self._source[j]
        return (
            tokens == path_tokens
            or normalised == norm_path
            or bool(norm_path and normalised.endswith("/" + norm_path))
            or bool(path_tokens and tokens.endswith(" " + path_tokens))
        )

    def _py_scoped(self, query: str) -> bool:
        match = self._py_qualified.match(query.strip())
        if not match:
            return False
        module = match.group(1).replace(".", "/")
        return any(
            self._scoped(path_part, match.group(2))
            for path_part in (f"{module}.py", f"{module}/__init__.py")
        )

    def _id_resolves(self, i: int) -> bool:
        nid = self.ids[i]
        if not _plain(nid) or "::" in nid or self._py_qualified.match(nid.strip()):
            return False
        if self._sources_by_tokens.get(self._tokens(nid)):
            return False  # the id reads as a file path: the source tier wins
        return self._exact_is(nid, i)

    def symbol_argument(self, i: int, name: str, path: str) -> "Optional[str]":
        """`path::name` when graphify resolves it to node i alone, else the node id;
        without `path::name`: the bare name, else the id, where every release resolves it."""
        if not self._scoped_names:
            if _plain(name) and self._everywhere(i, name):
                return name
            nid = self.ids[i]
            return nid if self._id_resolves(i) and self._everywhere(i, nid) else None
        scoped = f"{path}::{name}"
        if (
            ":" not in path and _plain(scoped) and not self._exact_any(scoped)
            and self._scoped(path, name) == [i]
        ):  # fmt: skip
            return scoped
        return self.ids[i] if self._id_resolves(i) else None

    def _everywhere(self, i: int, arg: str) -> bool:
        """`explain ARG` answers node i on every supported release: ARG is in i's
        exact tier by the narrowest rule and alone in the widest exact tier, with
        nothing in a source-path tier before it and no `::` or dotted-module form."""
        if "::" in arg or self._py_qualified.match(arg.strip()):
            return False
        words = self._words(arg)
        if self._sources_by_tokens.get(self._tokens(arg)) or words in self._sources_by_words:
            return False  # reads as a file path: the source tier answers first
        return self._narrow.get(words) == i and self._exact_is(arg, i)

    def file_argument(self, path: str) -> "Optional[str]":
        """ "" when `graphify explain PATH` resolves within this file, else the
        file node's id, else None (the file is then left out: no advice). Only
        `_plain` paths: the hook would not write another into a command."""
        if not _plain(path) or ":" in path:
            return None
        i = self._file_node.get(path)
        if (
            not self._scoped_names
            and i is not None
            and self._id_resolves(i)
            and self._everywhere(i, self.ids[i])
        ):
            return self.ids[i]  # a release without `path::name`: the id first
        if self._scoped_names or self._file_paths:
            tier = self._sources_by_tokens.get(self._tokens(path), set())
            py_qualified = self._py_qualified.match(path.strip()) and not self._exact_any(path)
            if tier == {path} and not (py_qualified and self._py_scoped(path)):
                return ""
        if not self._scoped_names:
            return None
        return self.ids[i] if i is not None and self._id_resolves(i) else None


# ---------------------------------------------------------------------------
# 5. graphify's releases: what each one accepts (the one table)
#
# The first release where each capability works, bisected over the PyPI
# releases by bench/graphify_versions.py on the e2e fixture (docs/versions.md).
# The builder chooses the explain arguments by it (section 4) and records the
# dialect in the index header for the hook; `mishkan install`, `routing
# check` and `sprint-close` print their graphify commands by it. A version,
# whoever wrote it (a graph is repository content), only ever selects between
# these fixed capabilities and the fixed command templates that use them.

#: `graphify explain 'path'` answers the file's node (a source-path tier)
EXPLAIN_PATH: "Final" = "explain-path"
#: `graphify explain 'path::name'` answers that file's `name`, with 0.9.96's
#: matching rules (section 4); before, only the bare name or the node id
EXPLAIN_PATH_NAME: "Final" = "explain-path-name"
#: `explain` exits 4 on no match (before: "No node matching", exit 0, so the
#: CLI's PostToolUseFailure never fires for it)
EXPLAIN_EXIT_CODES: "Final" = "explain-exit-codes"
#: `graphify extract . --code-only` builds the graph without an LLM key
#: (before: it exits 1 asking for one; `graphify update .` builds it)
EXTRACT_CODE_ONLY: "Final" = "extract-code-only"
#: `graphify hook install` also installs post-merge / post-rewrite; before, of the
#: four git hooks only post-commit and post-checkout (on every supported release)
HOOK_POST_MERGE: "Final" = "hook-post-merge"
HOOK_POST_REWRITE: "Final" = "hook-post-rewrite"
#: graph.json records `graph.graphify_version`; a graph without it is older
GRAPH_VERSION: "Final" = "graph-version"
#: a `.graphifyignore` adds to its directory's `.gitignore` (graphify #1363);
#: before, it replaced it, so what only `.gitignore` kept out went into the graph
GRAPHIFYIGNORE_ADDS: "Final" = "graphifyignore-adds"

GRAPHIFY_OLDEST: "Final" = "0.8.31"  # D-008's release, the oldest supported
GRAPHIFY_NEWEST: "Final" = "0.9.96"  # the newest proven (tox -e e2e, tox -e advice)
GRAPHIFY_SINCE: "Final" = {
    EXPLAIN_PATH: "0.8.51",
    EXPLAIN_PATH_NAME: "0.9.59",
    EXPLAIN_EXIT_CODES: "0.9.86",
    EXTRACT_CODE_ONLY: "0.9.11",
    HOOK_POST_MERGE: "0.9.90",
    HOOK_POST_REWRITE: "0.9.92",
    GRAPH_VERSION: "0.9.78",
    GRAPHIFYIGNORE_ADDS: "0.8.42",
}
GRAPHIFY_DIST: "Final" = "graphifyy"


def version_tuple(text: object) -> "Optional[tuple[int, ...]]":
    """`0.9.96` -> (0, 9, 96); anything that is not 1 to 4 dot-separated
    numbers (a pre-release, a hostile string) -> None."""
    if not isinstance(text, str) or not 0 < len(text) <= 32:
        return None
    parts = text.split(".")
    if len(parts) > 4 or not all(p.isascii() and p.isdigit() and len(p) <= 6 for p in parts):
        return None
    return tuple(int(p) for p in parts)


def capabilities(version: "Optional[str]") -> "frozenset[str]":
    """What graphify `version` accepts; an unknown or unparsable version is
    taken to be the newest proven one."""
    release = version_tuple(version) or version_tuple(GRAPHIFY_NEWEST) or ()
    return frozenset(
        name for name, since in GRAPHIFY_SINCE.items() if release >= (version_tuple(since) or ())
    )


def is_supported(version: str) -> "Optional[bool]":
    """Within GRAPHIFY_OLDEST..GRAPHIFY_NEWEST; None when not a plain version."""
    release = version_tuple(version)
    if release is None:
        return None
    low, high = version_tuple(GRAPHIFY_OLDEST), version_tuple(GRAPHIFY_NEWEST)
    return low is not None and high is not None and low <= release <= high


def find_graphify_script(path_value: "Optional[str]") -> "Optional[str]":
    """The first `graphify` on `path_value` (a PATH) that is an executable
    regular file, as a shell would find it, among its absolute entries only:
    a relative entry (`.`, `bin`, `node_modules/.bin`) or an empty one (the
    working directory) names the repository the hook or a command runs in,
    and a clone's `bin/graphify` beside a planted `graphifyy-*.dist-info`
    would choose the dialect the advice is written in. (The script is only
    ever read, for its version: graphify_version_of never runs it.)"""
    import os

    for entry in (path_value or "").split(":"):
        if not entry.startswith("/"):
            continue
        candidate = entry.rstrip("/") + "/graphify"
        st = _stat(candidate)
        if st is not None and st.st_mode & _S_IFMT == _S_IFREG and os.access(candidate, os.X_OK):
            return candidate
    return None


def graphify_version_of(script: str) -> "Optional[str]":
    """The graphifyy release a `graphify` console script belongs to, from its
    distribution's metadata (`graphifyy-X.dist-info` of the environment the
    script and its `#!` interpreter live in: a venv, pipx, uv, `pip --user`,
    /usr/local). Never runs it: the script may be anything on PATH."""
    import glob
    import os

    real = os.path.realpath(script)
    prefixes = [os.path.dirname(os.path.dirname(real))]
    python = None
    head = _read_at(real, 512) or b""
    if head.startswith(b"#!"):
        interpreter = head[2:].split(b"\n", 1)[0].strip().split(b" ", 1)[0]
        text = interpreter.decode("utf-8", "replace")
        if text.startswith("/") and not text.endswith("/env"):
            prefixes.append(os.path.dirname(os.path.dirname(text)))
            name = text.rsplit("/", 1)[-1]
            python = name[6:] if name.startswith("python3.") else None  # "3.11"
    found: dict[str, set[str]] = {}
    for prefix in dict.fromkeys(prefixes):
        for pattern in (
            "lib/python3*/site-packages",
            "lib/python3*/dist-packages",
            "lib/python3/dist-packages",
            "local/lib/python3*/dist-packages",
        ):
            for site in glob.glob(f"{glob.escape(prefix)}/{pattern}"):
                for info in glob.glob(f"{glob.escape(site)}/{GRAPHIFY_DIST}-*.dist-info"):
                    version = _dist_version(info)
                    if version is not None:
                        found.setdefault(version, set()).add(site)
    if len(found) > 1 and python is not None:  # several Pythons in one prefix: the script's
        found = {v: s for v, s in found.items() if any(f"/python{python}/" in x for x in s)}
    return next(iter(found)) if len(found) == 1 else None


def _dist_version(info: str) -> "Optional[str]":
    """The `Version:` of a dist-info's METADATA naming graphifyy, if it is a plain version."""
    data = _read_file(f"{info}/METADATA", 1 << 20)
    name = version = None
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        key, _, value = line.partition(":")
        if key.lower() == "name":
            name = value.strip()
        elif key.lower() == "version":
            version = value.strip()
    if name is None or name.lower().replace("_", "-") != GRAPHIFY_DIST:
        return None
    return version if version_tuple(version) is not None else None


def graphify_release(path_value: "Optional[str]") -> "tuple[Optional[str], Optional[str]]":
    """(the `graphify` script on `path_value`, its version): what an agent's or a
    human's `graphify ...` runs with that PATH."""
    script = find_graphify_script(path_value)
    return script, graphify_version_of(script) if script is not None else None


def graphify_dialect(path_value: "Optional[str]", recorded: object) -> str:
    """The graphify release whose dialect the advice is written in: the one on
    PATH (what the agent's `graphify` runs), else the one the graph records,
    else, for a graph that records none (written before GRAPH_VERSION), the
    oldest supported: its choices resolve on every supported release."""
    installed = graphify_release(path_value)[1]
    if installed is not None:
        return installed
    if isinstance(recorded, str) and version_tuple(recorded) is not None:
        return recorded
    return GRAPHIFY_OLDEST
