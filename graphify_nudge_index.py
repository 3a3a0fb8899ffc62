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
    CONFIDENCE,
    DEFAULT_TELEMETRY_DIR,
    HOOKS_DIR,
    INDEX_DIR,
    INDEX_MAGIC,
    INDEX_MAX_FIELD,
    INDEX_MAX_LINE,
    QUOTE_CHARS,
    TRIGGER_EXTENSIONS,
    Store,
    _absolute,
    _dumps,
    _env,
    _extension,
    _graph_key,
    _index_file,
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
        return _build_locked(
            graph.path, directory, wait=True, path_value=path_value, root=root,
            hooks_dir=_module_dir(),
        )  # fmt: skip
    finally:
        store.close()


def _module_dir() -> str:
    """The directory this module (and the hook beside it) runs from."""
    module = globals().get("__file__")
    return module[: module.rfind("/")] if isinstance(module, str) and "/" in module else ""


def main() -> "NoReturn":
    """The detached builder the hook spawns: argv is the hooks dir, the graph
    path, the inherited descriptor of the index directory and the project
    root. Low priority, bounded in time, silent, exit 0 or 1."""
    code = 1
    try:
        graph_path, directory = sys.argv[2], int(sys.argv[3])
        root = sys.argv[4] if len(sys.argv) > 4 else None
        posix.closerange(3, directory)
        posix.closerange(directory + 1, 1 << 16)
        import signal

        signal.signal(signal.SIGALRM, _out_of_time)  # a failure with its reason, recorded
        signal.alarm(INDEX_BUILD_SECONDS)  # never outlive a stuck build
        posix.nice(10)
        _build_locked(
            graph_path, directory, wait=False, hard=True, path_value=_env(posix.environ, "PATH"),
            root=root, hooks_dir=sys.argv[1],
        )  # fmt: skip
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
    *,
    hard: bool = False,
    path_value: "Optional[str]" = None,
    root: "Optional[str]" = None,
    hooks_dir: str = "",
) -> str:
    """Build under `<name>.lock`: one builder at a time per graph; a second
    one (wait=False) leaves at once, and anyone finds the work already done.
    The reading and indexing run under the build's limits (`_limited`).
    `path_value` is the PATH whose `graphify` the advice will run (section 5),
    `root` the project whose source the builder checks (section 3), and
    `hooks_dir` where the hook runs from: its files, like those under
    HOOKS_DIR, are never the subject of advice (even in a graph that holds them)."""
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
                project = root if root is not None else _project_of(graph_path)
                lines = _index_lines(
                    nodes, links, graph_path, accepts, root=project,
                    excluded=(HOOKS_DIR, _relative(_absolute(hooks_dir, "/"), project)),
                )  # fmt: skip
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


def _project_of(graph_path: str) -> str:
    """The project a graph describes: graph.json sits in `.graphify/` or
    `graphify-out/` at its root."""
    parts = graph_path.split("/")
    return "/".join(parts[:-2]) if len(parts) >= 3 and graph_path[:1] == "/" else ""


def _relative(path: str, root: str) -> str:
    """`path` relative to `root`, or "" when outside it (nothing to exclude)."""
    return path[len(root) + 1 :] if root and path.startswith(root.rstrip("/") + "/") else ""


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


#: graphify relations that are structure or prose, not one symbol using
#: another: a file `contains` its symbols, a class has its `method`s, an
#: enum its cases (`case_of`), `rationale_for` and `cites` tie comments and
#: documents to code, `defines` and `declares` name what a file declares.
#: Every other relation (`calls`, `references`, `uses`, `inherits`,
#: `implements`, `mixes_in`, `imports`, ...) is a use.
_STRUCTURE: "Final" = frozenset(
    {"contains", "method", "case_of", "rationale_for", "cites", "defines", "declares"}
)
#: uses of a file as a module: its importers (the rest are its dependents)
_IMPORTS: "Final" = frozenset({"imports", "imports_from", "re_exports", "dynamic_import"})
INDEX_USES: "Final" = 6  # use sites stored per definition (the hook shows at most 5)
#: definitions of a name stored with all their INDEX_USES rows; later ones (shown
#: only to a qualified search that picks them) keep INDEX_USES_LATER, so a name
#: every package defines reads as a short line (bench: index_go_many)
INDEX_FULL_SITES: "Final" = 8
INDEX_USES_LATER: "Final" = 2
INDEX_FILE_ROWS: "Final" = 6  # importers, dependents and definitions stored per file


def _index_lines(
    nodes: "list[dict[str, Any]]",
    links: "Optional[list[dict[str, Any]]]" = None,
    graph_path: str = "",
    accepts: "Optional[frozenset[str]]" = None,
    *,
    root: "Optional[str]" = None,
    excluded: "tuple[str, ...]" = (HOOKS_DIR,),
) -> "list[bytes]":
    """The sorted body lines of the index for these graph nodes and links, with
    the explain arguments of a graphify that `accepts` those capabilities
    (section 5; default: the newest supported release's), the source read
    under `root` (default: the directory that holds the graph's directory),
    and nothing about files under the `excluded` directories (the hook's own).

    The builder composes each answer here (docs/hook.md, "What the advice
    says"): every definition site, overload and use site is checked against
    its source line, ranked, counted and cut to what the hook may show. Every
    record is checked with the hook's own `_index_site` or `_index_file`, the
    very checks the hook makes on read; a name's sites are cut where its line
    would pass INDEX_MAX_LINE (its total still counts them all)."""
    resolver = _Resolver(nodes, capabilities(GRAPHIFY_NEWEST) if accepts is None else accepts)
    defined = _Definitions(resolver, links or [], graph_path, root, excluded)
    sites = defined.sites()
    lines: list[bytes] = []
    by_file: dict[str, list[tuple[int, str, int]]] = {}
    for i, name, path, line, _ in sites:
        by_file.setdefault(path, []).append((i, name, line))
    for path, more in defined.file_only.items():
        by_file.setdefault(path, []).extend(more)
    for path in sorted(resolver.files):
        if not defined.held(path):
            continue
        record = defined.file_record(path, by_file.get(path, []), resolver.file_argument(path))
        if record is not None and _index_file(record) is not None:
            lines.append(f"f\t{path}\t{_dumps(record)}".encode())
    by_name: dict[str, list[tuple[tuple[int, int, int, str, int], list[object]]]] = {}
    for i, name, path, line, scope in sites:
        row: list[object] = [
            name, path, line, resolver.symbol_argument(i, name, path), resolver.ids[i],
            " ".join(scope), defined.owner(i), defined.overloads(i, name, path, line),
            defined.uses(i, name, path),
        ]  # fmt: skip
        if _index_site(row) is None:
            continue
        # source before tests, then the most used first (the hook shows the first ones)
        test, generated, _, _ = _site_rank(path, line)
        used = row[8][0]  # type: ignore[index]
        by_name.setdefault(name, []).append(((test, generated, -used, path, line), row))
    # a Go struct field named like its type: a definition with no node of its own
    for name, path, line, struct, scope in defined.go_fields(sites):
        field: list[object] = [name, path, line, None, "", " ".join(scope), struct, [],
                               _use_record([], path, with_name=False)]  # fmt: skip
        if _index_site(field) is not None:
            test, generated, _, _ = _site_rank(path, line)
            by_name.setdefault(name, []).append(((test, generated, 0, path, line), field))
    for key, ranked in by_name.items():
        ranked.sort(key=lambda pair: pair[0])
        head = f"s\t{key}\t[{len(ranked)},["
        rows: list[str] = []
        size = len(head) + 2
        for rank, (_, row) in enumerate(ranked[:INDEX_MAX_SITES]):
            if rank >= INDEX_FULL_SITES:  # the hook shows 6 definitions: the rest keep 2 uses
                row[8][4] = row[8][4][:INDEX_USES_LATER]  # type: ignore[index]
            text = _dumps(row)  # ASCII: its length is its size
            if size + len(text) + 1 > INDEX_MAX_LINE:
                break
            rows.append(text)
            size += len(text) + 1
        if rows:
            lines.append(f"{head}{','.join(rows)}]]".encode())
    lines.sort()
    return lines


#: what marks a test file: a test directory, a test_ prefix, a _test/.test/.spec suffix
#: (`/test` alone also took src/click/testing.py, which is the library's own API)
_TEST_MARKS: "Final" = (
    "/test/", "/tests/", "/test_", "/__tests__/", "_test.", ".test.", ".spec.", "/spec/",
)  # fmt: skip


def _site_rank(path: str, line: int) -> "tuple[int, int, str, int]":
    """Project source first, tests and generated declarations (.d.ts) last."""
    lowered = "/" + path.lower()
    test = any(mark in lowered for mark in _TEST_MARKS)
    generated = any(lowered.endswith(ext) for ext in (".d.ts", ".d.cts", ".d.mts"))
    return (int(test), int(generated), path, line)


def _use_order(uses: "list[tuple[str, int, str, str, str, str]]", home: str) -> "list[int]":
    """The documented order of use sites (docs/hook.md, "Which uses are shown"):
    other files before `home` (the definition's own file), the first site of
    each file before second ones, source before tests and .d.ts, imports after
    every other use, EXTRACTED before INFERRED before AMBIGUOUS, calls before
    other relations, then path and line. Rows are (path, line, user, relation,
    confidence, ...)."""
    confidence = {word: rank for rank, word in enumerate(CONFIDENCE)}

    def within(k: int) -> "tuple[object, ...]":
        path, line, _, relation, conf = uses[k][:5]
        test, generated, _, _ = _site_rank(path, line)
        imports = relation in _IMPORTS
        return (test, generated, imports, confidence.get(conf, 3), relation != "calls", path, line)

    order = sorted(range(len(uses)), key=within)
    seen: dict[str, int] = {}
    nth = []
    for k in order:
        path = uses[k][0]
        nth.append((path == home, seen.get(path, 0), within(k), k))
        seen[path] = seen.get(path, 0) + 1
    return [k for *_, k in sorted(nth)]


def _counts(words: "list[str]", order: "tuple[str, ...]" = ()) -> "list[list[object]]":
    """[[word, count], ...]: in `order` when given, else most frequent first."""
    tally: dict[str, int] = {}
    for word in words:
        tally[word] = tally.get(word, 0) + 1
    if order:
        return [[word, tally[word]] for word in order if word in tally]
    return [[word, n] for word, n in sorted(tally.items(), key=lambda item: (-item[1], item[0]))]


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
#   out and the hook stays silent.
# * Every site is checked against its source line (`_Sources`: bounded, never
#   followed through a link, only ever compared, never copied into the
#   index): a definition's line must name it, and not only as `new Name`
#   (Java's anonymous `new Runnable() {` is a node `Runnable` at that line, a
#   use); a use's line must name what it uses. A site whose line cannot be
#   read is not cited.
# * Overloads: graphify makes one node of a Java method's overloads (and of
#   a TypeScript function's overload signatures), at the first one; the
#   builder finds the others in the same file by their declaration's shape
#   (`_OVERLOAD_SHAPES`), when the file has that one node of the name.
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
_WORD_CHARS: "Final" = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
#: a line that declares a name, by language: Java methods and constructors
#: (modifiers, type parameters, a return type that is no statement keyword:
#: `_NOT_TYPES`; a line with neither modifier nor type is a call), and
#: TypeScript function overload signatures
_OVERLOAD_SHAPES: "Final" = {
    ".java": re.compile(
        r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?P<mods>(?:(?:public|protected|private|static|final"
        r"|abstract|synchronized|native|default|strictfp)\s+)*)(?:<[^>]*>\s+)?"
        r"(?P<type>[\w$.]+(?:<[^;{}=()]*>)?(?:\[\s*\])*\s+)?(?P<name>[A-Za-z_$][\w$]*)\s*\("
    ),
    ".ts": re.compile(
        r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*"
        r"(?P<name>[A-Za-z_$][\w$]*)\s*[<(]"
    ),
}
for _ext in (".tsx", ".mts", ".cts"):
    _OVERLOAD_SHAPES[_ext] = _OVERLOAD_SHAPES[".ts"]
#: TypeScript methods: a signature with a return type (`alias(a: string): this;`)
_TS_METHOD: "Final" = re.compile(
    r"^\s*(?:(?:public|private|protected|static|readonly|abstract|override|declare|async)\s+)*"
    r"(?P<name>[A-Za-z_$][\w$]*)\s*\??\s*(?:<[^>]*>)?\s*\(.*\)\s*:"
)
#: how many lines a TypeScript method signature's parameters may run over
_SIGNATURE_LINES: "Final" = 16


def _signature(lines: "list[str]", k: int) -> str:
    """Line k, joined with the lines its parentheses run over (a `.d.ts`
    method whose parameters stand one per line: commander's `command(` /
    `nameAndArgs: string,` / `): ReturnType<...>;`), up to _SIGNATURE_LINES."""
    text = lines[k]
    if "(" not in text:
        return text
    depth = text.count("(") - text.count(")")
    parts = [text]
    while depth > 0 and len(parts) < _SIGNATURE_LINES and k + len(parts) < len(lines):
        more = lines[k + len(parts)]
        parts.append(more)
        depth += more.count("(") - more.count(")")
    return " ".join(part.strip() for part in parts)


_OVERLOAD_SHAPES[".py"] = re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>[A-Za-z_]\w*)\s*\(")
#: how far below an annotation graphify placed a node its declaration may be
_ANNOTATION_LINES: "Final" = 8
#: words that stand where a Java return type would, in a statement (`return f(x);`)
_NOT_TYPES: "Final" = frozenset(
    {"return", "new", "throw", "else", "case", "await", "yield", "typeof", "instanceof", "do",
     "assert", "goto"}
)  # fmt: skip


def _depths(lines: "list[str]", indented: bool) -> "tuple[list[int], list[bool]]":
    """Each line's nesting depth at its start, and whether it starts in a
    comment: its indentation (tabs as 8) for Python (a `#` line is a
    comment), else the braces opened before it, outside strings and comments
    (a file that mixes tabs and spaces still nests by its braces), and a line
    that starts inside `/* ... */` or with `//` is a comment (a Javadoc line
    `bsh eval() method` declares nothing)."""
    if indented:
        depths = [len(text.expandtabs(8)) - len(text.expandtabs(8).lstrip()) for text in lines]
        return depths, [text.lstrip().startswith("#") for text in lines]
    out, comments, depth, block, quote = [], [], 0, False, ""
    for text in lines:
        out.append(depth)
        comments.append(block or text.lstrip().startswith(("//", "/*")))
        k, end = 0, len(text)
        while k < end:
            char = text[k]
            if block:
                if text.startswith("*/", k):
                    block, k = False, k + 1
            elif quote:
                if char == "\\":
                    k += 1
                elif char == quote:
                    quote = ""
            elif text.startswith("//", k):
                break
            elif text.startswith("/*", k):
                block, k = True, k + 1
            elif char in "\"'`":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth = max(0, depth - 1)
            k += 1
        if quote != "`":
            quote = ""  # a string never runs past its line, but a template literal may
    return out, comments


def _word_at(text: str, name: str, start: int = 0) -> int:
    """Where `name` stands in `text` as a whole word at or after `start`, or -1."""
    at = text.find(name, start)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _WORD_CHARS) and (
            end == len(text) or text[end] not in _WORD_CHARS
        ):
            return at
        at = text.find(name, at + 1)
    return -1


#: words that declare the name right after them (`def name`, `fn name`, `class Name`)
_DECLARING: "Final" = frozenset(
    {"def", "function", "fn", "func", "class", "interface", "struct", "enum", "trait", "type",
     "module", "impl", "const", "let", "var", "val", "object", "record", "namespace", "union"}
)  # fmt: skip
#: words after which `name(` is an expression (a call), not a declaration
_EXPRESSION_WORDS: "Final" = frozenset(
    {"return", "await", "yield", "throw", "new", "else", "case", "typeof", "delete", "in", "of",
     "and", "or", "not", "if", "elif", "while", "assert", "raise", "echo", "print"}
)  # fmt: skip
#: characters after which `name(` is an expression: an operand, an argument, an element
_EXPRESSION_ENDS: "Final" = frozenset("=(,:!&|+-*/%<[{;?")


#: a binding initialised by an import (`const X = require('./x')`, TypeScript's
#: `import X = require('x')`): the TypeScript binder makes X an alias of what
#: the module exports, which is where X is defined
_IMPORTED: "Final" = re.compile(r"\s*(?::[^=]*)?=\s*require\s*\(")
#: qualifiers under which an assignment defines its name: CommonJS exports and
#: a constructor's prototype (`exports.X = `, `module.exports.X = `,
#: `Foo.prototype.x = `); any other attribute (`this.x = `, `self.x = `,
#: `obj.x = `) is set at run time on an object, like a local's value
_DEFINING_QUALIFIER: "Final" = re.compile(
    r"(?:^|[^\w$.])(?:(?:module\.)?exports|[\w$]+\.prototype)\.$"
)
#: `= ` that assigns (not `==`, `=>`)
_ASSIGNS: "Final" = re.compile(r"\s*=(?![=>])")
#: an export that assigns another name (`exports.Command = Command;`,
#: `exports.X = a.b`): the TypeScript binder makes it an alias of that name
_ALIAS_VALUE: "Final" = re.compile(r"\s*=\s*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*;?\s*$")


def _declares(text: str, name: str, extension: str = "") -> bool:
    """Whether a definition's line declares `name`: it names it somewhere other
    than as `new [pkg.]Name` (an instance, or an anonymous class: a use), as a
    call inside an expression (`return initObservable(...)`, `x = f(y)`,
    `obj.name(...)`: graphify makes nodes there too), as an attribute set on
    an object (`this.parseArg = (arg) => ...`), as a binding of an import
    (`const X = require('./x')`), or, in Java, as the type of a declared
    variable (`final Runnable task = new Runnable() {`: the JLS's
    LocalVariableDeclaration declares `task`). A name right after a declaring
    word (`def`, `function`, `fn`, `class`, Go's `func (r T)`), or not followed
    by `(`, or at the start of the line or after a type or a modifier (`public
    void name(`, `name(args) {`), is declared; so is a CommonJS export or a
    prototype's method (`exports.X = ...`, `Foo.prototype.x = ...`), unless it
    only exports another name (`exports.Command = Command`: an alias)."""
    at = _word_at(text, name)
    while at >= 0:
        head = at
        while head and (text[head - 1] in _WORD_CHARS or text[head - 1] in ".:"):
            head -= 1  # a qualifier: `new java.lang.Runnable`, `def self.name`, `obj.name`
        before = text[:head].rstrip()
        word = _last_word(before)
        qualified = head < at
        after = text[at + len(name) :]
        call = after.lstrip().startswith("(")
        if _IMPORTED.match(after):
            return False  # `const X = require('./x')`: the line imports X
        if word == "new":
            pass  # `new Name(`, `new Name() {`: a use
        elif word in _DECLARING or _GO_RECEIVER.search(text[:head]):
            return True
        elif not call and not qualified:
            if not (extension == ".java" and _last_word(after.lstrip()[:1])):
                return True  # a class header, an assignment target, a field, a type alias
            # `Runnable task`: a type followed by the name it declares
        elif not call:
            if (
                _ASSIGNS.match(after) and _DEFINING_QUALIFIER.search(text[:at])
                and not _ALIAS_VALUE.match(after)
            ):  # fmt: skip
                return True  # `exports.X = `, `Foo.prototype.x = function`
        elif word in _EXPRESSION_WORDS or (not word and before[-1:] in _EXPRESSION_ENDS):
            pass  # `return f(`, `x = f(`, `g(f(`: a call in an expression
        elif not qualified:
            return True  # `name(args) {`, `public void name(`, `static <T> T name(`
        at = _word_at(text, name, at + 1)
    return False


#: words a type, module or constant declaration may start with before its keyword
_MODIFIERS: "Final" = frozenset(
    {"pub", "export", "default", "abstract", "final", "public", "private", "protected",
     "internal", "sealed", "declare", "readonly", "partial", "data", "open"}
)  # fmt: skip
_TYPE_DECLARING: "Final" = _DECLARING | frozenset(
    {"static", "mod", "alias", "as"}
)  # `export * as ns`


def _declares_type(text: str, name: str) -> bool:
    """Whether the line declares the type-like `name`: a declaring keyword just
    before it (`pub struct Name`, `class Name`, `const NAME`), or the name first
    on the line (modifiers aside)."""
    at = _word_at(text, name)
    while at >= 0:
        words = text[:at].replace("(crate)", "").split()
        while words and words[0] in _MODIFIERS:
            words.pop(0)
        if not words or words[-1] in _TYPE_DECLARING:
            return True
        at = _word_at(text, name, at + 1)
    return False


_GO_RECEIVER: "Final" = re.compile(r"\bfunc\s*\([^()]*\)\s*$")
#: a Go struct type's line (`type Logger struct {`, or inside a grouped `type (`)
_GO_STRUCT: "Final" = re.compile(r"^\s*(?:type\s+)?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s+struct\s*\{")
#: a Go field declaration, the spec's `IdentifierList Type`: `Level Level`, `Out, Err *Writer`
_GO_FIELD: "Final" = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+([^\s=:,(].*)$")
_GO_KEYWORDS: "Final" = frozenset(
    {"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
     "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
     "return", "select", "struct", "switch", "type", "var"}
)  # fmt: skip
#: a Rust implementation's header (`impl Display for Version {`, `unsafe impl<T> Send for X`)
_RUST_IMPL: "Final" = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?impl\b")
#: Ruby's operator methods (`def [](key)`, `def <=>(other)`)
_RUBY_OPERATORS: "Final" = frozenset(
    {"[]", "[]=", "==", "===", "!=", "<=>", "=~", "!~", "+", "-", "*", "/", "%", "**", "<", ">",
     "<=", ">=", "<<", ">>", "&", "|", "^", "~", "!", "+@", "-@"}
)  # fmt: skip


def _is_member_name(name: str, extension: str) -> bool:
    """A definition's name no search is written with, which a file's Defines
    still counts: a Ruby setter (`cache_store=`) or operator (`[]`), a
    TypeScript or JavaScript member named by an expression (`[Symbol.iterator]`)
    or a string (`"~validate"`)."""
    if extension == ".rb":
        return name in _RUBY_OPERATORS or (name.endswith("=") and _is_name(name[:-1]))
    if extension in _SCRIPT_EXTENSIONS and len(name) > 2:
        return (name[0], name[-1]) in (("[", "]"), ('"', '"'), ("'", "'"))
    return False


def _last_word(text: str) -> str:
    """The identifier `text` ends with, or "" when it ends with anything else."""
    cut = len(text)
    while cut and text[cut - 1] in _WORD_CHARS:
        cut -= 1
    return text[cut:]


class _Sources:
    """The project's source lines, read only to check a site: bounded per file
    and per build, the file never followed through a link, the text only ever
    compared, never copied into the index."""

    def __init__(self, root: str) -> None:
        self.prefix = root.rstrip("/") + "/" if root else ""  # "": no source, nothing checks
        self._lines: dict[str, list[str]] = {}
        self._budget = _SOURCES_MAX_BYTES

    def lines(self, path: str) -> "list[str]":
        if path not in self._lines:
            data = None
            if self.prefix and ".." not in path.split("/") and self._budget > 0:
                data = _read_file(self.prefix + path, _SOURCE_MAX_BYTES, follow=False)
            self._budget -= len(data) if data else 0
            text = data.decode("utf-8", "replace") if data else ""
            self._lines[path] = text.split("\n") if text else []
        return self._lines[path]

    def line(self, path: str, line: int) -> "Optional[str]":
        lines = self.lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else None

    def names(self, path: str, line: int, name: str) -> bool:
        text = self.line(path, line)
        return text is not None and _word_at(text, name) >= 0


class _Definitions:
    def __init__(
        self,
        resolver: "_Resolver",
        links: "list[dict[str, Any]]",
        graph_path: str,
        root: "Optional[str]" = None,
        excluded: "tuple[str, ...]" = (),
    ) -> None:
        self.resolver = resolver
        by_id = {nid: i for i, nid in enumerate(resolver.ids)}
        self.file_nodes = set(resolver._file_node.values())
        self.declared_at: dict[int, list[tuple[str, int]]] = {}  # Go/Rust: file contains it
        self.parent: dict[int, int] = {}
        # what uses each node: (user, relation, confidence, path, line)
        self.incoming: dict[int, list[tuple[int, str, str, str, int]]] = {}
        self.excluded = tuple(prefix.strip("/") + "/" for prefix in excluded if prefix.strip("/"))
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
            if isinstance(relation, str) and relation not in _STRUCTURE and source != target:
                where = _site_of(link.get("source_file"), link.get("source_location"))
                confidence = link.get("confidence")
                if (
                    where is not None and confidence in CONFIDENCE
                    and relation.isascii() and relation.isidentifier() and len(relation) <= 32
                ):  # fmt: skip
                    self.incoming.setdefault(target, []).append(
                        (source, relation.lower(), str(confidence), *where)
                    )
        self._connected = connected
        # graphify 0.8.x's unresolved type references: nodes that define nothing
        # (a Rust type graphify records as declared, `_rust_declaration_count`, is
        # none, even when no `contains` edge reaches it: bytes' `pub struct Bytes`)
        self.placeholders = {
            by_id[nid] for nid in _placeholders(links)
            if nid in by_id and not resolver.nodes[by_id[nid]].get("_rust_declaration_count")
        }  # fmt: skip
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
        self.sources = _Sources(_project_of(graph_path) if root is None else root)
        self._sites: Optional[list[tuple[int, str, str, int, list[str]]]] = None
        # definitions a file's Defines counts that no symbol search is answered
        # with: accessors, and Ruby setters and operators (`name=`, `[]=`)
        self.file_only: dict[str, list[tuple[int, str, int]]] = {}
        self._code: dict[int, bool] = {}
        # (file, name, callable) -> the lines of its definition nodes there
        self._named_in: dict[tuple[str, str, bool], list[int]] = {}
        # file -> name -> (line, nesting depth, an overload) of each declaration-shaped line
        self._declared: dict[str, dict[str, list[tuple[int, int, bool]]]] = {}
        self._users: dict[int, str] = {}
        # each file's own nodes (its module): what an importer of the file points at
        self.modules: dict[str, list[int]] = {}
        for i, (file, _, _) in enumerate(resolver._source):
            label = resolver.nodes[i].get("label")
            if file and isinstance(label, str) and _is_file_label(label, file):
                self.modules.setdefault(file, []).append(i)

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

    def excludes(self, path: str) -> bool:
        """A file under an excluded directory (the hook's own): never the subject of advice."""
        return any(path.startswith(prefix) for prefix in self.excluded)

    def held(self, path: str) -> bool:
        return bool(path) and not self.excludes(path)

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
        text = self.sources.line(path, line)
        if text is None:
            return False
        words = text.replace("(", " (").split()
        while words and words[0] in _ACCESSOR_MODIFIERS:
            words.pop(0)
        return len(words) >= 2 and words[0] in ("get", "set") and words[1] == name

    def sites(self) -> "list[tuple[int, str, str, int, list[str]]]":
        """(node, name, file, line, scope) for every definition site a node
        stands for whose source line declares the name."""
        if self._sites is not None:
            return self._sites
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
            if len(name) > INDEX_MAX_FIELD:
                continue
            searchable = _is_name(name)
            if not (searchable or _is_member_name(name, extension)):
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
                searchable = False  # a property to the language: see above
            scope = parts[:-1] or self._scope_of(i)
            for path, line in where:
                typed = not callable_  # a class, type, module, constant: declared by a keyword
                declared = self._declared_at(path, line, name, typed) if _plain(path) else None
                if declared is None or self.excludes(path):
                    continue
                if not searchable:
                    self.file_only.setdefault(path, []).append((i, name, declared))
                    continue
                out.append((i, name, path, declared, _bounded(self._path_scope(path) + scope)))
        self._sites = out
        for i, name, path, line, _ in out:
            lines = self._named_in.setdefault((path, name, self._kind(i) > 0), [])
            lines.append(line)
        for lines in self._named_in.values():
            lines.sort()
        return out

    def go_fields(
        self, sites: "list[tuple[int, str, str, int, list[str]]]"
    ) -> "list[tuple[str, str, int, str, list[str]]]":
        """(name, file, line, struct, scope) of each Go struct field named like
        the type it is declared with (logrus's `Level Level` in `Logger`): a
        definition of the name (the Go spec's FieldDecl) that graphify makes no
        node for. The graph records it as the struct's `references` edge to the
        type at the field's line; the line must declare the name as a field of
        that type, and the struct's own line be `type S struct {`."""
        out: dict[tuple[str, int], tuple[str, str, int, str, list[str]]] = {}
        for i, name, path, _, _ in sites:
            if not path.endswith(".go"):
                continue
            for j, relation, _, where, line in self.incoming.get(i, ()):
                if relation != "references" or not where.endswith(".go") or self.excludes(where):
                    continue
                # the line first (most references are no field of that name), then its struct
                field = _GO_FIELD.match(self.sources.line(where, line) or "")
                if field is None or _word_at(field.group(2), name) < 0:
                    continue
                names = [word.strip() for word in field.group(1).split(",")]
                if name not in names or names[0] in _GO_KEYWORDS:
                    continue
                struct = self._go_struct(j)
                if struct is not None and struct[1] < line:
                    scope = _bounded([*self._path_scope(where), struct[0]])
                    out.setdefault((where, line), (name, where, line, struct[0], scope))
        return list(out.values())

    def _go_struct(self, j: int) -> "Optional[tuple[str, int]]":
        """(name, line) of node j when it is a Go struct type declared on its line."""
        source = self.resolver._source[j][0]
        here = _site_of(source, self.resolver.nodes[j].get("source_location"))
        label = self.resolver.nodes[j].get("label")
        if here is None or not source.endswith(".go") or not isinstance(label, str):
            return None
        struct = _GO_STRUCT.match(self.sources.line(*here) or "")
        if struct is None or struct.group(1) != label or not _is_name(label):
            return None
        return label, here[1]

    def _declared_at(self, path: str, line: int, name: str, typed: bool) -> "Optional[int]":
        """The line that declares `name` at graphify's `line`: that line, or,
        when graphify put the node on an annotation (`@Override`, `#[...]`:
        Java, PHP, TypeScript, Rust), the first line after the annotations;
        None when neither declares it (`new Runnable() {`, an unreadable file).
        A `typed` name (a class, type, module or constant) is declared by a
        keyword before it (`struct`, `class`, `const`, ...) or at the start of
        its line (a Go grouped `type (` member, a Rust variant, `X = ...`):
        graphify 0.8.x made nodes of types named in signatures (a Rust `fn
        comparator(..) -> Result<(Comparator, ..)>`, a PHP return type)."""
        extension = _extension(path)
        for at in range(line, line + _ANNOTATION_LINES):
            text = self.sources.line(path, at)
            if text is None:
                return None
            if _declares(text, name, extension) and (not typed or _declares_type(text, name)):
                return at
            if not text.lstrip().startswith(("@", "#[")):
                return None
        return None

    def _kind(self, i: int) -> int:
        """0 a type (or anything not called), 1 a function `f()`, 2 a method `.f()`."""
        label = str(self.resolver.nodes[i].get("label"))
        return 2 if label.startswith(".") else 1 if label.endswith("()") else 0

    def owner(self, i: int) -> str:
        """The name of the symbol node i hangs off (its class, module, impl or
        receiver type), "" for none or one that is no plain name."""
        parent = self.parent.get(i)
        label = self.resolver.nodes[parent].get("label") if parent is not None else None
        name = self.label_parts(label)[-1] if isinstance(label, str) else ""
        return name if name and _is_name(name) and len(name) <= INDEX_MAX_FIELD else ""

    def user(self, j: int) -> str:
        """How a use names its user: `Owner.name` for a method, `name` for a
        function or type, a file's base name for its top-level code."""
        if j not in self._users:
            self._users[j] = self._user(j)
        return self._users[j]

    def _user(self, j: int) -> str:
        label = self.resolver.nodes[j].get("label")
        source = self.resolver._source[j][0]
        if not isinstance(label, str) or not label:
            return ""
        if j in self.file_nodes or _is_file_label(label, source):
            shown = source.rsplit("/", 1)[-1]
        else:
            shown = self.label_parts(label)[-1]
            owner = self.owner(j)
            shown = f"{owner}.{shown}" if owner else shown
        return shown if _plain(shown) and len(shown) <= QUOTE_CHARS else ""

    def overloads(self, i: int, name: str, path: str, line: int) -> "list[int]":
        """The lines of `path` that declare `name` for node i when they are
        several: graphify makes one node of a Java method's or constructor's
        overloads, a TypeScript function's or method's overload signatures and
        a Python `@overload` set, at the first. Node i's are the declarations
        at its line's nesting depth (braces; Python: indentation) from its
        line to the next node of that name and kind in the file (and before it,
        when it is the first); [] for one."""
        self.sites()
        nodes = self._named_in.get((path, name, self._kind(i) > 0), [])  # sorted
        declared = self._declarations(path).get(name, [])  # in line order
        here = bisect.bisect_left(declared, (line,))
        if here == len(declared) or declared[here][0] != line:
            return []  # its own line is no declaration of that shape
        depth = declared[here][1]
        later = bisect.bisect_right(nodes, line)
        stop = nodes[later] if later < len(nodes) else 1 << 31
        start = 0 if nodes and nodes[0] == line else line
        # bisected, not scanned: 16,000 nodes of one name in one file stay n log n
        window = declared[bisect.bisect_left(declared, (start + 1,)) : bisect.bisect_left(
            declared, (stop,)
        )]  # fmt: skip
        found = [(at, overload) for at, at_depth, overload in window if at_depth == depth]
        lines = [at for at, _ in found]
        if len(lines) > 1 and line in lines and any(overload for _, overload in found):
            return lines[:INDEX_MAX_SITES]
        return []

    def _declarations(self, path: str) -> "dict[str, list[tuple[int, int, bool]]]":
        """name -> (line, indentation, an overload) of each line of `path` shaped
        as its declaration (`_OVERLOAD_SHAPES`), one pass over the file. In
        Python only a `@overload`-decorated def is an overload (the others are
        redefinitions, or the implementation beside them)."""
        if path not in self._declared:
            extension = _extension(path)
            shape = _OVERLOAD_SHAPES.get(extension)
            found: dict[str, list[tuple[int, int, bool]]] = {}
            lines = self.sources.lines(path) if shape else []
            depths, comments = _depths(lines, extension == ".py")
            for k, text in enumerate(lines):
                if comments[k]:
                    continue  # a comment names, it declares nothing
                match = shape.match(text) if shape and "(" in text else None
                if match is None and shape is _OVERLOAD_SHAPES[".ts"]:
                    match = _TS_METHOD.match(_signature(lines, k))
                if match is None:
                    continue
                parts = match.groupdict()
                kind = (parts.get("type") or "").split()
                bare = parts.get("mods") == "" and not kind  # no modifier, no type
                if (kind and kind[0] in _NOT_TYPES) or (bare and not (
                    parts["name"][:1].isupper() and not text.rstrip().endswith(";")
                )):  # fmt: skip
                    # a call (`eval(x);`, `return f(x);`), not a declaration; a
                    # package-private constructor `Req(int a) {` is one
                    continue
                above = lines[k - 1].strip() if k else ""
                overload = extension != ".py" or (above[:1] == "@" and above.endswith("overload"))
                found.setdefault(parts["name"], []).append((k + 1, depths[k], overload))
            self._declared[path] = found
        return self._declared[path]

    def _verified_uses(
        self, targets: "list[tuple[int, tuple[str, ...]]]", home: str,
        kinds: "Optional[frozenset[str]]", outside: bool,
    ) -> "list[tuple[str, int, str, str, str, str]]":  # fmt: skip
        """(path, line, user, relation, confidence, name used) of each use of the
        `targets` (node, the names a line that uses it names: the node's own, or
        for a file's own node its module name and the names it defines) whose
        line names one: relations in `kinds` (None: every use; empty: every use
        but imports), sites outside `home` only if `outside`."""
        out: dict[tuple[str, int, int, str, int], tuple[str, int, str, str, str, str]] = {}
        for i, names in targets:
            for j, relation, confidence, path, line in self.incoming.get(i, ()):
                if kinds is not None and (relation in _IMPORTS) != bool(kinds):
                    continue
                if (outside and path == home) or not _plain(path) or self.excludes(path):
                    continue
                if not self.is_code(j):
                    continue  # 0.8.x's unresolved type reference (`bool`) uses nothing
                name = next((n for n in names if self.sources.names(path, line, n)), None)
                if name is not None:
                    # one site per user, used node, relation and line; a user with no
                    # plain name (a Rust `impl Buf for &mut T`) counts, unshown
                    site = (path, line, self.user(j), relation, confidence, name)
                    out.setdefault((path, line, j, relation, i), site)
        return list(out.values())

    def is_code(self, j: int) -> bool:
        """Whether node j is the project's code, so that what it uses is a use:
        a file's own node (its top-level code), a node whose line declares its
        name (the definition check above), or a Rust `impl` block. Not graphify
        0.8.x's placeholders of the types a line names (`str`, `Any`), nor an
        attribute set at run time (`this.parseArg = ...`)."""
        if j not in self._code:
            self._code[j] = self._is_code(j)
        return self._code[j]

    def _is_code(self, j: int) -> bool:
        node = self.resolver.nodes[j]
        label, source = node.get("label"), self.resolver._source[j][0]
        if not isinstance(label, str) or not label or not source:
            return False
        if j in self.file_nodes or _is_file_label(label, source):
            return True
        here = _site_of(source, node.get("source_location"))
        if here is None or not _plain(source):
            return False
        text = self.sources.line(*here)
        if _extension(source) == ".rs" and text is not None and _RUST_IMPL.match(text):
            return True  # graphify's node of an `impl` block (0.8.x: not contained)
        if j in self.placeholders:
            return False
        callable_ = label.endswith("()") or label.startswith(".")
        return self._declared_at(*here, self.label_parts(label)[-1], not callable_) is not None

    def uses(self, i: int, name: str, path: str) -> "list[object]":
        """[total, files, [[relation, n], ...], [[confidence, n], ...], [[path,
        line, user, relation, confidence], ...]]: who uses definition i, as
        the graph records it and the source lines confirm, in `_use_order`."""
        found = self._verified_uses([(i, (name,))], path, None, outside=False)
        return _use_record(found, path, with_name=False)

    def file_record(
        self, path: str, defined: "list[tuple[int, str, int]]", arg: "Optional[str]"
    ) -> "Optional[list[object]]":
        """What the graph says about a file: [explain argument or null,
        importers, dependents, [total, [[name, line], ...]]], importers and
        dependents as `uses` gives them (dependents' rows name what they use);
        None when it says nothing (no definition, importer or dependent)."""
        # `from .core import Context`, `require('./command')`: the module's name,
        # its stem (`index` of `index.d.ts`), and a package's directory too
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
        words: tuple[str, ...] = (stem,)
        if stem in ("__init__", "index", "mod", "lib", "main") and "/" in path:
            words += (path.rsplit("/", 2)[-2],)
        # the file imported or re-exported as a whole: a line that names the
        # module or what the file defines (`export { Receiver }`)
        module = (*words, *sorted({name for _, name, _ in defined}))
        targets = [(i, module) for i in self.modules.get(path, ())]
        # one symbol imported: a line that names it, or the module (`import
        # errorMap from "./locales/en.js"`, a multi-line `from ._exceptions import (`)
        targets += [(i, (name, *words)) for i, name, _ in defined]
        # one import line that names several of the file's symbols is one importer
        by_site = {(site[0], site[1]): site for site in reversed(
            self._verified_uses(targets, path, _IMPORTS, outside=True)
        )}  # fmt: skip
        importers = list(reversed(by_site.values()))
        dependents = self._verified_uses(
            [(i, (n,)) for i, n, _ in defined], path, frozenset(), outside=True
        )
        if not (importers or dependents or defined):
            return None
        # public before `_private`, types before functions before methods, then
        # the most used first
        shown = sorted(set(defined), key=lambda site: (
            site[1][:1] == "_", self._kind(site[0]), -len(self.incoming.get(site[0], ())),
            site[2],
        ))  # fmt: skip
        names = [[name, line] for _, name, line in shown if _is_name(name)][:INDEX_FILE_ROWS]
        return [
            arg if arg is None else arg or path,
            _use_record(importers, path, with_name=False, limit=INDEX_FILE_ROWS),
            _use_record(dependents, path, with_name=True, limit=INDEX_FILE_ROWS),
            [len(shown), names],
        ]


def _use_record(
    found: "list[tuple[str, int, str, str, str, str]]", home: str, with_name: bool,
    limit: int = INDEX_USES,
) -> "list[object]":  # fmt: skip
    """[total, files, relation counts, confidence counts, the first `limit`
    rows in `_use_order`]; a row is [path, line, user, relation, confidence]
    (and the name used, `with_name`)."""
    width = 6 if with_name else 5
    shown = [k for k in _use_order(found, home) if found[k][2]]  # a user with a name
    rows = [list(found[k][:width]) for k in shown[:limit]]
    return [
        len(found),
        len({site[0] for site in found}),
        _counts([site[3] for site in found]),
        _counts([site[4] for site in found], CONFIDENCE),
        rows,
    ]


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
