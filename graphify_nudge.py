"""graphify-nudge: the D-009 graph-first hook for Claude Code.

For the five code-writing subagents (Hizkiah, Salma, Oholiab, Nathan, Zadok),
notice a Read, Grep or Bash search that looks like a structural question,
record it, and (in mode ``advise``) add one factual line of context naming the
``graphify`` command that answers it from the code graph. It never blocks,
never answers the permission question, and fails open: whatever happens it
exits 0, prints nothing that could change the tool call, and writes nothing
outside its telemetry directory.

Register it for PreToolUse (matcher ``*``), PostToolUse and PostToolUseFailure
(Bash and MCP tools) and SessionStart; docs/hook.md describes what it decides
and why. The file reads top to bottom as the pipeline ``run`` executes:

    1 parse -> 2 store -> 3 scope -> 4 trigger -> 5 graph -> 6 index
    -> 7 decision -> 8 output -> 9 record -> 10 the pipeline itself

The graph index that section 6 reads is built off the hot path by its
companion, graphify_nudge_index.py, shipped and installed beside this file.

Import discipline. This runs as a fresh interpreter on every tool call, so
start-up *is* the cost. Under ``python3 -I -S`` only ``sys``, ``posix``,
``time`` and ``_io`` are loaded; importing ``os`` adds ~20% to a bare start,
``re`` ~85% and ``json`` ~100% (bench/). So the hot path uses ``posix``
directly, the C accelerator ``_json`` (loaded only once a call is in scope),
and small hand-written helpers instead of ``os.path``, ``re``, ``shlex`` and
``json`` (tests/hook/test_standins.py pins each one to the stdlib it copies).
``zlib`` is imported only to read a loose git object; the index builder
(graphify_nudge_index.py) runs in its own process and imports what it likes:
a call never even unmarshals it.

Telemetry schema: docs/telemetry.md (version 1).
"""

import posix
import sys
import time

_STARTED = time.perf_counter()
_STARTED_CPU = time.process_time()

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, Final, NoReturn, Optional, Union

    Environ = Union["Mapping[bytes, bytes]", "Mapping[str, str]", "_Settings"]

__all__ = [
    "CONFIDENCE",
    "DEFAULT_TELEMETRY_DIR",
    "HOOKS_DIR",
    "INDEX_BUILDER",
    "INDEX_DIR",
    "MARKER",
    "MAX_ADVISORY_CHARS",
    "MAX_REMEMBERED",
    "MAX_STDIN",
    "OPT_OUT_MARKER",
    "SCHEMA_VERSION",
    "SCOPE_AGENTS",
    "STATE_DIR",
    "TRIGGER_EXTENSIONS",
    "Call",
    "Graph",
    "Hit",
    "advisory",
    "agent_name",
    "built_at_commit",
    "classify_call",
    "find_graph",
    "graph_candidates",
    "guarded_run",
    "in_scope",
    "load_code",
    "main",
    "resolve_head",
    "run",
    "search_symbol",
    "session_file_name",
    "shell_quote",
    "split_commands",
]

# ---------------------------------------------------------------------------
# Constants

SCHEMA_VERSION: "Final" = 1
SCOPE_AGENTS: "Final" = frozenset({"hizkiah", "salma", "oholiab", "nathan", "zadok"})
TRIGGER_EXTENSIONS: "Final" = frozenset(
    {".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".php", ".rb"}
)
LOOKUP_SUBCOMMANDS: "Final" = frozenset({"query", "explain", "path", "affected", "search"})
GREP_COMMANDS: "Final" = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
READ_COMMANDS: "Final" = frozenset({"cat", "head", "tail", "less", "sed"})
DEFAULT_TELEMETRY_DIR: "Final" = ".mishkan/telemetry"
GRAPH_CANDIDATES: "Final" = (".graphify/graph.json", "graphify-out/graph.json")
SELF_DISABLE_MESSAGE: "Final" = "graphify nudge self-disabled: budget exceeded"
MARKER: "Final" = "[graphify-nudge]"
#: a Bash call whose `description` contains this is a semantic search: no advice
OPT_OUT_MARKER: "Final" = "[skip-graphify-nudge]"
MAX_ADVISORY_CHARS: "Final" = 1200  # Claude Code keeps 10,000 (a 2 KB preview above that)
BUDGET_SECONDS: "Final" = 0.200  # the hook's own CPU time per call; see section 9
DEFAULT_CAP: "Final" = 3
MAX_CAP: "Final" = 999_999  # a longer MISHKAN_GRAPHIFY_NUDGE_CAP means "no cap"
MAX_STDIN: "Final" = 16 * 1024 * 1024
STDIN_SECONDS: "Final" = 2.0  # stdin never closed: give up well before the 10 s timeout
LOCK_SECONDS: "Final" = 0.5  # longest wait for another call's lock on the session state
GRAPH_TAIL_BYTES: "Final" = 512
MAX_REMEMBERED: "Final" = 256  # symbols and files remembered per session
MAX_AGENTS: "Final" = 32  # agents remembered per session (the least recent is dropped)
MAX_ADVISED: "Final" = 32  # targets remembered per agent as already advised
MAX_MEMO_CHARS: "Final" = 200  # longer or non-ASCII memo keys are stored as a digest
STATE_READ_LIMIT: "Final" = 1 << 20  # a larger state file is damaged: discarded
LOOKUP_OUTPUT_SCAN: "Final" = 64 * 1024
MAX_FIELD_CHARS: "Final" = 256  # telemetry strings are cut to this (`target`: twice)
STATE_DIR: "Final" = ".state"
INDEX_DIR: "Final" = ".index"
INDEX_MAGIC: "Final" = "graphify-nudge-index 4"
INDEX_RETRY_SECONDS: "Final" = 600  # a build that left no word is retried after 10 minutes
INDEX_FAILED_RETRY_SECONDS: "Final" = 86_400  # one that failed, after a day
INDEX_MAX_LINE: "Final" = 1 << 16  # no index line is longer: the builder drops sites to fit
INDEX_MAX_FIELD: "Final" = 512  # characters of an indexed name, path, argument, node id or scope
INDEX_BUILDER: "Final" = "graphify_nudge_index"  # the module beside this file that builds it
#: graphify's edge `confidence` values, surest first
CONFIDENCE: "Final" = ("EXTRACTED", "INFERRED", "AMBIGUOUS")
#: where `mishkan install` puts the hook (D-009): its files are never the subject of advice
HOOKS_DIR: "Final" = "payload/mishkan/hooks"

# Words in command position that run the *next* word as the real command.
# Value: options of the wrapper that take a separate argument.
_WRAPPERS: "Final" = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
                        "--delimiter", "--max-args", "--max-procs", "--max-chars"}),
}  # fmt: skip
_WRAPPER_POSITIONAL: "Final" = frozenset({"timeout"})  # `timeout 5 grep x`: one positional first
# Shell reserved words that may stand before a command: `if grep -q x f; then ...`.
_RESERVED_PREFIXES: "Final" = frozenset(
    {"{", "!", "if", "then", "else", "elif", "do", "while", "until"}
)

# Options that take a separate argument, per search tool (long options given
# as `--opt=value` are always self-contained).
_GREP_ARG_OPTIONS: "Final" = {
    "grep": frozenset({"-e", "-f", "-A", "-B", "-C", "-m", "-d", "-D", "--regexp", "--file",
                       "--after-context", "--before-context", "--context", "--max-count",
                       "--include", "--exclude", "--exclude-dir", "--exclude-from", "--label",
                       "--devices", "--directories", "--binary-files", "--group-separator"}),
    "rg": frozenset({"-e", "-f", "-g", "-t", "-T", "-A", "-B", "-C", "-m", "-M", "-j", "-r",
                     "-d", "-E", "--regexp", "--file", "--glob", "--iglob", "--type",
                     "--type-not", "--type-add", "--type-clear", "--max-count", "--max-columns",
                     "--threads", "--replace", "--max-depth", "--max-filesize", "--encoding",
                     "--sort", "--sortr", "--path-separator", "--colors", "--color",
                     "--context-separator", "--field-match-separator", "--pre", "--pre-glob",
                     "--engine", "--dfa-size-limit", "--regex-size-limit", "--ignore-file",
                     "--after-context", "--before-context", "--context"}),
    "ag": frozenset({"-A", "-B", "-C", "-G", "-g", "-m", "-p", "-W", "--ignore", "--ignore-dir",
                     "--file-search-regex", "--max-count", "--path-to-ignore", "--depth",
                     "--pager", "--width", "--after", "--before", "--context"}),
    "ack": frozenset({"-A", "-B", "-C", "-g", "-m", "--type", "--ignore-dir", "--noignore-dir",
                      "--ignore-file", "--max-count", "--output", "--after-context",
                      "--before-context", "--context"}),
    "git-grep": frozenset({"-e", "-f", "-A", "-B", "-C", "-m", "-O", "--max-depth",
                           "--threads", "--after-context", "--before-context", "--context",
                           "--max-count", "--open-files-in-pager"}),
}  # fmt: skip
_GREP_ARG_OPTIONS["egrep"] = _GREP_ARG_OPTIONS["fgrep"] = _GREP_ARG_OPTIONS["grep"]
# Options that make the tool list file names instead of searching contents,
# and options that read the patterns from a file.
_LISTS_FILES: "Final" = {
    "rg": frozenset({"--files", "--type-list"}),
    "ag": frozenset({"-g", "--list-file-types"}),
    "ack": frozenset({"-f", "-g", "--help-types"}),
}
_PATTERN_FILE: "Final" = frozenset({"-f", "--file"})
_RECURSIVE: "Final" = frozenset({"-r", "-R", "--recursive", "--dereference-recursive"})
_GIT_GLOBAL_ARG_OPTIONS: "Final" = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}
)
_READ_ARG_OPTIONS: "Final" = {
    "cat": frozenset(),
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "--pid", "-s", "--sleep-interval"}),
    "less": frozenset({"-b", "-h", "-j", "-o", "-O", "-p", "-P", "-t", "-T", "-x", "-y", "-z"}),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"}),
}
_GRAPHIFY_ARG_OPTIONS: "Final" = frozenset(
    {"--graph", "--budget", "--context", "--depth", "--relation", "--top", "--seed"}
)
# Question words that are not symbols ("who calls apply_overlay" -> apply_overlay).
_QUESTION_WORDS: "Final" = frozenset(
    {"a", "an", "and", "are", "by", "call", "called", "caller", "callers", "calls", "depend",
     "depends", "dependents", "does", "for", "from", "how", "import", "imports", "in", "is",
     "it", "of", "on", "or", "the", "to", "uses", "what", "where", "which", "who", "why", "with"}
)  # fmt: skip
# Words that may stand before the name in a definition search: `def load`,
# `export async function parse`, `pub fn new`, `class Option`.
_DECLARATION_WORDS: "Final" = frozenset(
    {"def", "class", "function", "func", "fn", "interface", "type", "struct", "enum", "trait",
     "const", "let", "var", "impl", "module", "async", "export", "default", "pub", "static",
     "public", "private", "protected", "abstract", "final", "declare", "val", "object"}
)  # fmt: skip
# Regex spellings of "some space" and of what may follow a searched name.
_REGEX_SPACES: "Final" = ("\\s+", "\\s*", "\\s", " +", "\\ ", " ", "\t")
_REGEX_PREFIXES: "Final" = ("^", "\\b", "\\<", "\\s*", "\\s+", ".", "->")
_REGEX_SUFFIXES: "Final" = (
    "\\b", "\\>", "$", "\\(", "(", "\\s*\\(", "\\s*(", "[(]", "[(:]", "[:(]", ":", "\\s*:",
    "\\s*=", " =", "=", "\\{", "{", " {", "\\s*\\{", "\\s*{", "<", "\\s", "\\s*", "\\s+", " ",
    "\\W", "[^A-Za-z0-9_]", "[^a-zA-Z0-9_]", "[^\\w]",
)  # fmt: skip
# Receivers that name no symbol: `self.load` searches for `load`.
_RECEIVERS: "Final" = frozenset({"self", "this", "cls", "super"})
_IDENT_START: "Final" = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_IDENT_CHARS: "Final" = _IDENT_START | frozenset("0123456789")

_ADVISE, _TELEMETRY, _OFF = "advise", "telemetry", "off"
_TOOL_EVENTS: "Final" = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})

# File-open flags. A file is stat'ed before it is opened and only a regular
# file is opened (`_open_regular`, `_open_private`): a FIFO, socket or device
# named anywhere is never opened (opening a serial port toggles DTR, a
# watchdog arms a reboot); a directory is opened O_DIRECTORY, which Linux,
# macOS and the BSDs refuse for anything else before a driver sees it. Reads
# never block nor acquire a terminal should a swap slip in; writes never
# follow a link, land relative to a directory opened the same way, and
# create only with O_EXCL.
_S_IFMT, _S_IFREG, _S_IFDIR = 0o170000, 0o100000, 0o040000
_READ: "Final" = posix.O_RDONLY | posix.O_NONBLOCK | posix.O_NOCTTY | posix.O_CLOEXEC
_DIR: "Final" = posix.O_RDONLY | posix.O_DIRECTORY | posix.O_NOFOLLOW | posix.O_CLOEXEC
_DIR_FOLLOW: "Final" = posix.O_RDONLY | posix.O_DIRECTORY | posix.O_CLOEXEC
_WRITE: "Final" = posix.O_NOFOLLOW | posix.O_NONBLOCK | posix.O_NOCTTY | posix.O_CLOEXEC
_CREATE: "Final" = _WRITE | posix.O_CREAT | posix.O_EXCL


# ---------------------------------------------------------------------------
# Helpers: paths, JSON and files (os.path and json cost more than the whole hook)


def _norm(path: str) -> str:
    """Lexical normpath for absolute POSIX paths (posixpath.normpath, minus `//`)."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
        else:
            parts.append(part)
    return "/" + "/".join(parts)


def _absolute(path: str, base: str) -> str:
    return _norm(path if path.startswith("/") else base + "/" + path)


def _relative_to(path: str, root: str) -> "Optional[str]":
    """`path` relative to `root`, or None when it lies outside (or is root)."""
    if root == "/":
        return path[1:] or None
    if path.startswith(root + "/"):
        return path[len(root) + 1 :]
    return None


def _extension(path: str) -> str:
    name = path[path.rfind("/") + 1 :]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _is_bare_identifier(text: str) -> bool:
    # Exactly ^[A-Za-z_][A-Za-z0-9_]*$: str.isidentifier is that, once ASCII.
    return text.isascii() and text.isidentifier()


def _is_name(text: str) -> bool:
    """An identifier as the trigger languages write it: [A-Za-z_$][A-Za-z0-9_$]*
    with a letter or digit (JS/TS `$ZodType`, PHP `$stream`), and Ruby's
    predicate and bang methods (`empty?`, `save!`)."""
    if text[-1:] in ("?", "!"):
        text = text[:-1]
    return (
        bool(text)
        and text[0] in _IDENT_START
        and all(c in _IDENT_CHARS for c in text)
        and not all(c in "_$" for c in text)
    )


def _fsdecode(value: bytes) -> str:
    """os.fsdecode: bytes-exact round trip through every posix call (surrogateescape)."""
    return value.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())


def _fnv64(text: str) -> str:
    """64-bit FNV-1a of a short string, as 16 hex digits (file names, not security)."""
    digest = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return format(digest, "016x")


def _digest(text: str) -> str:
    """SHA-256 of any string, 32 hex digits. Rare path: long or odd ids and keys."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _memo(text: str) -> str:
    """A bounded key for the session state: short printable ASCII as is, else a digest
    (a 1 MiB agent id or file name must not grow the state past its read limit)."""
    if len(text) <= MAX_MEMO_CHARS and text.isascii() and text.isprintable():
        return text
    return "#" + _digest(text)


def _cut(value: object, limit: int = MAX_FIELD_CHARS) -> object:
    """A telemetry string cut to `limit` characters; other values unchanged."""
    return value[:limit] if isinstance(value, str) and len(value) > limit else value


class _ScanContext:
    """What `_json.make_scanner` reads from a JSONDecoder, minus the decoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError(name)  # NaN and Infinity are not JSON


def _loads(text: str, trailing_ok: bool = False) -> object:
    """json.loads without importing json: the C scanner, strict on trailing data
    unless `trailing_ok`. Every failure is a ValueError: on CPython 3.10 and
    3.11 the bare scanner raises SystemError on bad input when json.decoder is
    not imported (it cannot build a JSONDecodeError), so nothing else escapes."""
    import _json

    text = text.strip(" \t\r\n")
    try:
        value, end = _json.make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except (ValueError, RecursionError):
        raise
    except Exception as exc:  # SystemError, StopIteration, MemoryError
        raise ValueError("not JSON") from exc
    if end != len(text) and not trailing_ok:
        raise ValueError("trailing data")
    return value


def _dumps(value: object) -> str:
    """Compact, ASCII-only json.dumps for the plain values this hook writes.

    The C encoder json.dumps itself uses; a value it refuses (NaN, a foreign
    type) goes through `_dumps_plain`, which writes null and str() instead."""
    import _json

    try:
        encode = _json.make_encoder(  # (markers, default, encoder, indent, separators, ...)
            None, _refuse, _json.encode_basestring_ascii, None, ":", ",", False, False, False
        )
        return "".join(encode(value, 0))
    except (ValueError, TypeError):
        return _dumps_plain(value)


def _refuse(value: object) -> object:
    raise TypeError(type(value).__name__)  # not a plain JSON value: _dumps_plain decides


def _dumps_plain(value: object) -> str:
    import _json

    if isinstance(value, str):
        return str(_json.encode_basestring_ascii(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value * 0 != 0:
            return "null"  # NaN and Infinity are not JSON
        return float.__repr__(value)
    if isinstance(value, dict):
        items = [_dumps_plain(str(key)) + ":" + _dumps_plain(item) for key, item in value.items()]
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dumps_plain(item) for item in value) + "]"
    return _dumps_plain(str(value))


def _is_regular(fd: int) -> bool:
    return posix.fstat(fd).st_mode & _S_IFMT == _S_IFREG


# A file is stat'ed before it is opened, and `fstat` after the open refuses a
# swap in between (the same device and inode).
def _open_regular(path: str, dir_fd: "Optional[int]" = None, follow: bool = True) -> int:
    """A read-only descriptor of the regular file `path` (`follow=False`: not a
    link either). Raises OSError, FileNotFoundError when nothing is there."""
    st = posix.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
    if st.st_mode & _S_IFMT == _S_IFREG:
        fd = posix.open(path, _READ if follow else _READ | posix.O_NOFOLLOW, dir_fd=dir_fd)
        opened = posix.fstat(fd)
        if (opened.st_ino, opened.st_dev, opened.st_mode) == (st.st_ino, st.st_dev, st.st_mode):
            return fd
        posix.close(fd)
    raise OSError(f"{path}: not a regular file")


def _read_fd(fd: int, limit: int, offset: int = 0) -> "Optional[bytes]":
    """Up to `limit` bytes from `offset`; None when the file holds more (damaged or hostile)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = posix.pread(fd, min(1 << 20, limit + 1 - size), offset + size)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def _read_file(
    path: str, limit: int = 1 << 20, dir_fd: "Optional[int]" = None, follow: bool = True
) -> "Optional[bytes]":
    """A regular file's bytes, or None: missing, unreadable, larger than `limit`,
    or not a regular file (`_open_regular`: a FIFO or a device is never opened)."""
    try:
        fd = _open_regular(path, dir_fd, follow)
    except (OSError, ValueError):
        return None
    try:
        return _read_fd(fd, limit)
    except OSError:
        return None
    finally:
        posix.close(fd)


def _read_at(
    path: str, size: int, offset: int = 0, dir_fd: "Optional[int]" = None, follow: bool = True
) -> "Optional[bytes]":
    """`size` bytes at `offset` of a regular file (`_open_regular`), or None."""
    try:
        fd = _open_regular(path, dir_fd, follow)
    except (OSError, ValueError):
        return None
    try:
        return posix.pread(fd, size, offset)
    except (OSError, OverflowError):
        return None
    finally:
        posix.close(fd)


def _stat(path: str) -> "Optional[posix.stat_result]":
    try:
        return posix.stat(path)
    except (OSError, ValueError):
        return None


def _mtime(path: str) -> "Optional[float]":
    st = _stat(path)
    return None if st is None else st.st_mtime


def _is_dir(path: str) -> bool:
    st = _stat(path)
    return st is not None and st.st_mode & _S_IFMT == _S_IFDIR


def _open_subdir(name: str, dir_fd: int) -> int:
    """Open (creating it if missing, mode 0700) the directory `name` inside
    `dir_fd`, never following a link: a repository cannot redirect writes by
    committing `.mishkan -> /elsewhere`."""
    try:
        return posix.open(name, _DIR, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    try:
        posix.mkdir(name, 0o700, dir_fd=dir_fd)
    except FileExistsError:
        pass
    return posix.open(name, _DIR, dir_fd=dir_fd)


def _open_dirs(base: str, parts: "list[str]", create: bool = False) -> int:
    """The directory `base/part/...`: `base` as named (links followed), each part
    opened in the one before without following a link (`create`: made when
    missing, `_open_subdir`). Raises OSError."""
    fd = posix.open(base, _DIR_FOLLOW)
    try:
        for part in parts:
            inner = _open_subdir(part, fd) if create else posix.open(part, _DIR, dir_fd=fd)
            posix.close(fd)
            fd = inner
    except BaseException:
        posix.close(fd)
        raise
    return fd


def _private(st: "posix.stat_result") -> bool:
    # a second hard link is a name outside the telemetry directory (`src/app.py`)
    return st.st_mode & _S_IFMT == _S_IFREG and st.st_nlink == 1


def _open_private(name: str, directory: int, flags: int) -> int:
    """A descriptor for writing the private file `name` in `directory`: created
    (O_EXCL) when missing, else opened only if `_private`. Raises OSError."""
    try:
        st = posix.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        try:
            return posix.open(name, _CREATE | flags, 0o600, dir_fd=directory)
        except FileExistsError:  # another call made it first
            st = posix.stat(name, dir_fd=directory, follow_symlinks=False)
    if _private(st):
        fd = posix.open(name, _WRITE | flags, dir_fd=directory)
        opened = posix.fstat(fd)
        if _private(opened) and (opened.st_ino, opened.st_dev) == (st.st_ino, st.st_dev):
            return fd
        posix.close(fd)
    raise OSError(f"{name}: not a private file")


# The commit-time cache, the index and its `.attempt` have names a repository
# can plant, and are written rarely (once per HEAD, once per build): written
# whole into a new file renamed over the name, so whatever stood there (a
# link, a hard link to `src/app.py`) is replaced, never written through, and
# a reader sees the old content or the new.
def _replace(name: str, data: bytes, directory: int) -> bool:
    """Write the file `name` in `directory` whole (a new file, renamed); False if not."""
    temp = f".{name}.{posix.getpid()}.tmp"
    try:
        try:
            fd = posix.open(temp, _CREATE | posix.O_WRONLY, 0o600, dir_fd=directory)
        except FileExistsError:  # a leftover, or one planted for this pid
            posix.unlink(temp, dir_fd=directory)
            fd = posix.open(temp, _CREATE | posix.O_WRONLY, 0o600, dir_fd=directory)
        try:
            view = memoryview(data)
            while view:  # an index can be large: a write may take part of it
                view = view[posix.write(fd, view) :]
        finally:
            posix.close(fd)
        posix.rename(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
        return True
    except OSError:
        pass
    try:
        posix.unlink(temp, dir_fd=directory)
    except OSError:
        pass
    return False


def _lock(fd: int, seconds: float = LOCK_SECONDS) -> bool:
    """An exclusive lockf(3) lock on the whole file, waiting at most `seconds`."""
    deadline = 0.0
    delay = 0.0005
    while True:
        try:
            posix.lockf(fd, posix.F_TLOCK, 0)
            return True
        except (BlockingIOError, PermissionError):
            pass  # EAGAIN / EACCES: another call holds it
        except OSError:
            return False  # ENOLCK and friends: no locking here
        now = time.monotonic()
        deadline = deadline or now + seconds
        if now >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.005)


def _rewrite(fd: int, data: bytes) -> bool:
    """Replace a small file's content in place (pwrite at 0, then ftruncate);
    False when it could not be done whole.

    A file that grows gets its space first (posix_fallocate), so a full disk
    fails before any byte of the old content changes; a file that was empty
    is truncated back to empty after a failed write. (Not temp-file-and-rename:
    on ext4 a rename over an existing file flushes the new file's data to disk,
    auto_da_alloc, 3 ms a call, measured.)
    """
    try:
        st = posix.fstat(fd)
    except OSError:
        return False
    if not _private(st):
        return False  # a hard link made since it was opened: never written through
    before = st.st_size
    try:
        fallocate = getattr(posix, "posix_fallocate", None)
        if fallocate is not None and 0 < before < len(data):
            try:
                fallocate(fd, 0, len(data))
            except OSError as exc:
                if exc.errno not in (95, 22):  # EOPNOTSUPP, EINVAL: not supported here
                    raise
        if posix.pwrite(fd, data, 0) == len(data):
            posix.ftruncate(fd, len(data))
            return True
    except OSError:
        pass
    if before == 0:
        try:
            posix.ftruncate(fd, 0)  # it held nothing: leave nothing
        except OSError:
            pass
    return False


# ---------------------------------------------------------------------------
# 1. Parse


def _read_stdin(seconds: float = STDIN_SECONDS) -> bytes:
    """All of stdin, or what arrived within `seconds` when it is never closed.

    Non-blocking reads with short sleeps: Claude Code writes the input and
    closes the pipe at once, so the usual cost is two reads and no sleep.
    """
    try:
        was_blocking = posix.get_blocking(0)
        posix.set_blocking(0, False)
    except OSError:
        return b""
    chunks: list[bytes] = []
    size, delay, deadline = 0, 0.0005, 0.0
    try:
        while True:
            try:
                chunk = posix.read(0, 1 << 16)
            except BlockingIOError:
                now = time.monotonic()
                deadline = deadline or now + seconds
                if now >= deadline:
                    break  # never closed: parse what came, if anything
                time.sleep(delay)
                delay = min(delay * 2, 0.01)
                continue
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_STDIN:
                return b""  # not a hook input we can afford; stay out of the way
            chunks.append(chunk)
            delay = 0.0005
    finally:
        if was_blocking:
            posix.set_blocking(0, True)
    return b"".join(chunks)


def _parse(raw: bytes) -> "Optional[dict[str, object]]":
    try:
        value = _loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return value if isinstance(value, dict) else None


def _str(value: object) -> "Optional[str]":
    return value if isinstance(value, str) else None


def _env(environ: "Mapping[Any, Any]", name: str) -> "Optional[str]":
    """An environment variable as a bytes-exact str, from a bytes or str mapping."""
    try:
        value = environ.get(name.encode())
    except TypeError:  # os.environ refuses bytes keys
        value = None
    if value is None:
        value = environ.get(name)
    if isinstance(value, bytes):
        return _fsdecode(value)
    return value if isinstance(value, str) else None


def _parse_cap(text: "Optional[str]") -> int:
    """MISHKAN_GRAPHIFY_NUDGE_CAP: digits, else the default. Never int() of an
    unbounded string (3.11 refuses more than 4300 digits with ValueError)."""
    text = (text or "").strip()
    if not (text.isascii() and text.isdigit()):
        return DEFAULT_CAP
    return MAX_CAP if len(text) > 6 else min(int(text), MAX_CAP)


class _Settings:
    """The environment, read once."""

    def __init__(self, environ: "Mapping[Any, Any]", default_mode: "Optional[str]" = None) -> None:
        # The installed mode arrives as `--mode=` on the registered command, a
        # default that an exported MISHKAN_GRAPHIFY_NUDGE overrides: settings.json
        # `env` would override the user's shell, so install never writes it.
        exported = _env(environ, "MISHKAN_GRAPHIFY_NUDGE")
        mode = (exported or default_mode or "").strip().lower()
        # Anything unrecognised means the ADR's phase-1 default, never "advise".
        self.mode = mode if mode in (_ADVISE, _OFF) else _TELEMETRY
        # ...and the session_start line says so (`unknown_mode`), for the reports
        self.unknown_mode: Optional[str] = None
        if mode not in (_ADVISE, _OFF, _TELEMETRY, ""):
            given = f"MISHKAN_GRAPHIFY_NUDGE={exported}" if exported else f"--mode={default_mode}"
            self.unknown_mode = given[:64]
        self.cap = _parse_cap(_env(environ, "MISHKAN_GRAPHIFY_NUDGE_CAP"))
        self.telemetry_dir = _env(environ, "MISHKAN_TELEMETRY_DIR") or None
        self.graph = _env(environ, "MISHKAN_GRAPHIFY_GRAPH") or None
        self.graphify_out = _env(environ, "GRAPHIFY_OUT") or None
        self.project_dir = _env(environ, "CLAUDE_PROJECT_DIR") or None
        # `off`: never use or build the graph index (the hook then advises as
        # it did before the index existed); anything else: use it.
        self.index = (_env(environ, "MISHKAN_GRAPHIFY_INDEX") or "").strip().lower() != _OFF


def _settings_of(environ: "Environ") -> _Settings:
    return environ if isinstance(environ, _Settings) else _Settings(environ)


def _project_root(settings: _Settings, hook: "dict[str, object]") -> str:
    """$CLAUDE_PROJECT_DIR, else the input's cwd, else the process's."""
    cwd = posix.getcwd()
    return _absolute(settings.project_dir or _str(hook.get("cwd")) or cwd, cwd)


# ---------------------------------------------------------------------------
# 2. Store: the telemetry directory (the only place the hook writes)


def session_file_name(session_id: str) -> str:
    """An injective, file-name-safe form of a session id (docs/telemetry.md).

    `[A-Za-z0-9-]` stays; every other character becomes `_` and the hex of its
    UTF-8 bytes (`.` -> `_2e`, `_` -> `_5f`), so two ids never share a name.
    An id whose escaped form would pass 128 characters becomes `~` and 32 hex
    digits of its SHA-256; the empty id is `_`. No name starts with `.`.
    """
    if len(session_id) > 128:
        return "~" + _digest(session_id)
    out: list[str] = []
    for char in session_id:
        if char.isascii() and (char.isalnum() or char == "-"):
            out.append(char)
        else:
            out.extend(f"_{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
    name = "".join(out)
    if len(name) > 128:
        return "~" + _digest(session_id)
    return name or "_"


def _telemetry_dir_fd(settings: _Settings, root: str) -> int:
    """Open the telemetry directory, creating what is missing.

    The project root (and a configured directory outside it) is trusted as
    given: Claude Code or the user chose it. Every component *below* the root
    is opened without following links, so a cloned repository cannot point
    `.mishkan` or `.mishkan/telemetry` elsewhere.
    """
    target = _absolute(settings.telemetry_dir or DEFAULT_TELEMETRY_DIR, root)
    rel = _relative_to(target, root)
    if rel is not None:
        base, parts = root, rel.split("/")
    else:
        base, parts = target, []
        while base != "/" and not _is_dir(base):
            cut = base.rfind("/")
            parts.insert(0, base[cut + 1 :])
            base = base[:cut] or "/"
    return _open_dirs(base, parts, create=True)


class Store:
    """The telemetry directory: event log, per-session state, commit-time cache
    and graph index. Every file is opened with O_NOFOLLOW relative to a
    directory descriptor that was itself opened with O_NOFOLLOW (see
    `_telemetry_dir_fd`); close() releases them."""

    def __init__(self, settings: _Settings, root: str, session_id: str) -> None:
        self.settings = settings
        self.root = root
        self.name = session_file_name(session_id)
        self.state: dict[str, object] = {}
        self._dirs: dict[str, int] = {}
        self._unavailable: set[str] = set()
        self._state_fd: Optional[int] = None
        self._state_locked = False
        self._dirty = False

    def directory(self, sub: str = "") -> "Optional[int]":
        """The telemetry directory ("") or one of its subdirectories, or None."""
        if sub in self._dirs:
            return self._dirs[sub]
        if sub in self._unavailable:
            return None
        try:
            if sub:
                parent = self.directory()
                if parent is None:
                    raise OSError("no telemetry directory")
                fd = _open_subdir(sub, parent)
            else:
                fd = _telemetry_dir_fd(self.settings, self.root)
        except (OSError, ValueError):
            self._unavailable.add(sub)
            return None
        self._dirs[sub] = fd
        return fd

    def close(self) -> None:
        fds = list(self._dirs.values())
        if self._state_fd is not None:
            fds.append(self._state_fd)  # closing releases the lock
        self._dirs, self._state_fd = {}, None
        for fd in fds:
            try:
                posix.close(fd)
            except OSError:
                pass

    # -- the event log --

    def append(self, record: "dict[str, object]") -> bool:
        """Append one event line; False when it could not be written whole.

        One write(2) under O_APPEND, so concurrent lines never interleave. A
        write that cannot complete (ENOSPC, EFBIG) is truncated back under a
        lockf lock, so a full disk leaves no fragment to merge with the next line.
        """
        directory = self.directory()
        if directory is None:
            return False
        line = (_dumps(record) + "\n").encode("ascii")
        try:
            fd = _open_private(f"{self.name}.jsonl", directory, posix.O_WRONLY | posix.O_APPEND)
        except OSError:
            return False
        try:
            locked = _lock(fd, 0.05)
            st = posix.fstat(fd)
            if not _private(st):
                return False
            size = st.st_size
            try:
                written = posix.write(fd, line)
            except OSError:
                written = -1
            if written != len(line):
                if locked:
                    posix.ftruncate(fd, size)
                return False
            return True
        except OSError:
            return False
        finally:
            posix.close(fd)

    # -- the session state: read, decided on and rewritten under one lock --

    def load_state(self) -> None:
        """Lock and read `.state/<session>.json`. Damaged state (torn, not an
        object, deeper than the parser allows, larger than its read limit) is
        discarded and rebuilt: never trusted, never fatal."""
        if self._state_fd is not None:
            return
        directory = self.directory(STATE_DIR)
        if directory is None:
            return
        try:
            fd = _open_private(f"{self.name}.json", directory, posix.O_RDWR)
        except OSError:
            return
        self._state_fd = fd
        try:
            self._state_locked = _lock(fd)
            data = _read_fd(fd, STATE_READ_LIMIT) if self._state_locked else None
        except OSError:
            data = None
        self.state = _parse_state(data)

    def mark_dirty(self) -> None:
        self._dirty = True

    def save_state(self) -> bool:
        """Rewrite the state if it changed (`_rewrite`); False when it could
        not be recorded, and then the caller prints no nudge."""
        if not self._dirty:
            return True
        self._dirty = False
        fd = self._state_fd
        if fd is None or not self._state_locked:
            return False
        data = _dumps(self.state).encode("ascii")
        return len(data) <= STATE_READ_LIMIT and _rewrite(fd, data)

    def remembered(self, key: str) -> "list[str]":
        value = self.state.get(key)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def remember(self, key: str, values: "Iterable[str]") -> None:
        known = self.remembered(key)
        fresh = []
        for value in values:
            memo = _memo(value)
            if memo not in known and memo not in fresh:
                fresh.append(memo)
        if fresh:
            self.state[key] = (known + fresh)[-MAX_REMEMBERED:]
            self._dirty = True

    def knows(self, key: str, value: str) -> bool:
        return _memo(value) in self.remembered(key)

    def agent(self, agent_id: str) -> "dict[str, object]":
        """This agent's entry (nudges, shown, advised); the least recent agent
        beyond MAX_AGENTS is forgotten."""
        agents = self.state.get("agents")
        if not isinstance(agents, dict):
            agents = {}
        key = _memo(agent_id)
        entry = agents.pop(key, None)
        if not isinstance(entry, dict):
            entry = {}
        agents[key] = entry
        while len(agents) > MAX_AGENTS:
            del agents[next(iter(agents))]
        self.state["agents"] = agents
        return entry

    # -- the self-disable marker: a stat, so every call can afford to check it --

    @property
    def disabled(self) -> bool:
        directory = self.directory(STATE_DIR)
        if directory is None:
            return False
        try:
            posix.stat(f"{self.name}.disabled", dir_fd=directory, follow_symlinks=False)
        except OSError:
            return False
        return True

    def disable(self) -> None:
        directory = self.directory(STATE_DIR)
        if directory is not None:
            try:
                # O_EXCL: whatever already stands there is never opened
                posix.close(posix.open(f"{self.name}.disabled", _CREATE | posix.O_WRONLY,
                                       0o600, dir_fd=directory))  # fmt: skip
            except OSError:
                pass

    # -- HEAD commit times, computed lazily and cached per sha, project-wide --

    def commit_time(self, sha: str, root: str, graph_key: str) -> "Optional[float]":
        """HEAD's committer time, cached per sha for one graph: the cache names
        the key of the graph it was made for (`_graph_key`, which a clone
        cannot reproduce), so a cache shipped in a clone is never read."""
        # A dot name: no session's escaped name can start with ".", so no
        # session id can name this file.
        directory = self.directory(STATE_DIR)
        name = ".commit-times.json"
        cache = _parse_state(
            None if directory is None else _read_file(name, 1 << 16, directory, follow=False)
        )
        times = cache.get("times") if cache.get("graph") == graph_key else None
        times = times if isinstance(times, dict) else {}
        cached = times.get(sha)
        if isinstance(cached, (int, float)) and not isinstance(cached, bool):
            return float(cached)
        value = _commit_time(root, sha)
        if value is not None and directory is not None:
            times[sha] = value
            data = {"graph": graph_key, "times": dict(list(times.items())[-32:])}
            _replace(name, _dumps(data).encode("ascii"), directory)
        return value


def _parse_state(data: "Optional[bytes]") -> "dict[str, object]":
    if not data:
        return {}
    try:
        value = _loads(data.decode("utf-8"), trailing_ok=True)
    except Exception:  # damaged: discarded, rebuilt from nothing
        return {}
    return value if isinstance(value, dict) else {}


# ---------------------------------------------------------------------------
# 3. Scope


def agent_name(agent_type: object) -> "Optional[str]":
    """The agent's normalised name: lower case, after the last `:` (a plugin's
    agent arrives as `<plugin>:<name>` in CLI 2.1.197)."""
    if not isinstance(agent_type, str):
        return None
    return agent_type.strip().lower().rpartition(":")[2]


def in_scope(agent_type: object) -> bool:
    """D-009 scope: exactly the five code-writing specialists, plugin-namespaced or not."""
    return agent_name(agent_type) in SCOPE_AGENTS


# ---------------------------------------------------------------------------
# 4. Trigger: what kind of call is this?


class Call:
    """A tool call, classified. See docs/telemetry.md, "Kinds"."""

    __slots__ = ("kind", "qualifier", "question", "symbol", "symbols", "target", "trigger", "via")

    def __init__(
        self,
        kind: str = "other",
        trigger: bool = False,
        via: "Optional[str]" = None,
        target: "Optional[str]" = None,
        *,
        symbols: "tuple[str, ...]" = (),
        symbol: "Optional[str]" = None,
        qualifier: "Optional[str]" = None,
        question: str = "",
    ) -> None:
        self.kind = kind
        self.trigger = trigger
        self.via = via
        self.target = target
        self.symbols = symbols
        self.symbol = symbol  # grep triggers: the name searched for
        self.qualifier = qualifier  # `click.echo` -> "click"
        self.question = question  # grep: "definition" (`def X`), "callers" (`X(`) or ""

    def __repr__(self) -> str:
        return (
            f"Call(kind={self.kind!r}, trigger={self.trigger!r}, via={self.via!r}, "
            f"target={self.target!r}, symbols={self.symbols!r}, symbol={self.symbol!r}, "
            f"qualifier={self.qualifier!r}, question={self.question!r})"
        )


_OTHER: "Final" = Call()


class _Where:
    """Where paths are resolved and which ones can be triggers."""

    def __init__(self, root: str, cwd: str, graph_dir: "Optional[str]") -> None:
        self.root = root
        self.cwd = cwd
        excluded = [".git", ".graphify", "graphify-out", HOOKS_DIR]
        module = globals().get("__file__")
        own = module[: module.rfind("/")] if isinstance(module, str) and "/" in module else None
        for directory in (graph_dir, own and _absolute(own, posix.getcwd())):
            rel = _relative_to(directory, root) if directory else None
            if rel:
                excluded.append(rel)
        self.excluded = tuple(excluded)

    def source_file(self, path: str) -> "tuple[str, bool]":
        """(display path, is a trigger) for a file the agent reads."""
        absolute = _absolute(path, self.cwd)
        rel = _relative_to(absolute, self.root)
        if rel is None:
            return absolute, False  # no graph covers files outside the project
        for prefix in self.excluded:
            if rel == prefix or rel.startswith(prefix + "/"):
                return rel, False
        return rel, _extension(rel) in TRIGGER_EXTENSIONS


def classify_call(
    tool_name: str,
    tool_input: object,
    root: str,
    cwd: "Optional[str]" = None,
    graph_dir: "Optional[str]" = None,
) -> Call:
    """Classify one tool call. Shared with mishkan_core.metrics (transcripts).

    `root` is the project root (absolute), `cwd` the directory relative paths
    and Bash commands start from (default: root), `graph_dir` the directory of
    the graph in use, whose files are never triggers.
    """
    root = _absolute(root, posix.getcwd())
    return _classify(tool_name, tool_input, _Where(root, _absolute(cwd or ".", root), graph_dir))


def _classify(tool_name: object, tool_input: object, where: _Where) -> Call:
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        return _OTHER
    if "graphify" in tool_name.lower():
        return Call("lookup", via="MCP", target=tool_name, symbols=_mcp_symbols(tool_input))
    if tool_name == "Read":
        path = _str(tool_input.get("file_path"))
        if not path:
            return _OTHER
        shown, trigger = where.source_file(path)
        return Call("read", trigger, "Read", shown)
    if tool_name == "Grep":
        pattern = _str(tool_input.get("pattern"))
        if pattern is None:
            return _OTHER
        found = search_symbol(pattern) if tool_input.get("multiline") is not True else None
        return _grep(pattern, "Grep", found)
    if tool_name == "Bash":
        command = _str(tool_input.get("command"))
        return _classify_bash(command, where) if command else _OTHER
    return _OTHER


def _grep(pattern: "Optional[str]", via: str, found: "Optional[tuple[str, str]]") -> Call:
    if found is None or pattern is None:
        return Call("grep", False, via, pattern)
    return Call("grep", True, via, pattern, symbol=found[0], qualifier=found[1] or None,
                question=_question(pattern))  # fmt: skip


def _question(pattern: str) -> str:
    """What a name search asks by its shape: "definition" (`def X`, `class X`,
    `fn X`, Go's `func (r T) X`), "callers" (`X(`, `.X(`, `\\bX\\(`), or "" (a bare name)."""
    text = pattern
    for space in _REGEX_SPACES:
        text = text.replace(space, " ")
    text = text.replace("\\b", "").replace("\\<", "").replace("\\", "").lstrip("^ ")
    if text.split(" ", 1)[0].split("(", 1)[0] in _DECLARATION_WORDS:
        return "definition"
    return "callers" if text.rstrip("$ ").endswith(("(", "[(]")) else ""


def search_symbol(pattern: str) -> "Optional[tuple[str, str]]":
    """(name, qualifier) an identifier search looks for, or None for any other search.

    Accepted, as agents write them for grep, rg and the Grep tool:
    a bare name (`apply_overlay`, `$ZodType`, `\\$ZodObject`, PHP `\\$stream`,
    Ruby `empty?`, `empty\\?`, `save!`); a dotted, `::` or `#` qualified name
    (`click.echo`, `Context.invoke`, `Hashie::Mash`, `Version::parse`,
    `Mash#key?`: the name is the last part, the rest narrows the definitions,
    `self.`/`this.` narrow nothing); a definition search (`def load`, `class
    Option`, `export function parse`, `pub fn new`), and Go's method search
    `func (c *Command) Execute` (`\\(` and `\\*` escaped or not: the receiver's
    type is the qualifier); word boundaries, anchors and a trailing `(`, `:`,
    `=`, `{` or `<` (`\\bparse\\(`). Anything else with regex meaning (`a|b`,
    `get.*`, `[A-Z]\\w+`) is not a symbol.
    """
    if len(pattern) > 1024:
        return None
    text = pattern.replace("\\$", "$").replace("\\.", ".").replace("\\:", ":").replace("\\#", "#")
    text = text.replace("\\?", "?").replace("\\!", "!")
    receiver = _receiver_search(text)
    if receiver is not None:
        return receiver
    changed = True
    while changed:
        changed = False
        for prefix in _REGEX_PREFIXES:
            if text.startswith(prefix):
                text, changed = text[len(prefix) :], True
        for suffix in _REGEX_SUFFIXES:
            if text.endswith(suffix) and len(text) > len(suffix):
                text, changed = text[: -len(suffix)], True
    for space in _REGEX_SPACES:
        text = text.replace(space, " ")
    words = text.split(" ")
    if any(word not in _DECLARATION_WORDS for word in words[:-1]):
        return None
    parts = words[-1].replace("::", ".").replace("#", ".").split(".")
    if len(parts) > 4 or not all(_is_name(part) for part in parts):
        return None
    if any(part[-1] in "?!" for part in parts[:-1]):
        return None  # `a?.b` is JS optional chaining or a regex, not a qualified name
    qualifier = [part for part in parts[:-1] if part not in _RECEIVERS]
    return parts[-1], ".".join(qualifier)


def _receiver_search(text: str) -> "Optional[tuple[str, str]]":
    """(method, receiver type) of Go's `func (c *Command) Execute` (also with
    `\\(`, `\\*`, `\\)`, a `\\s+` or a trailing `(`), else None."""
    for space in ("\\s+", "\\s*", "\\s", " +"):
        text = text.replace(space, " ")
    for escaped in ("\\(", "\\)", "\\*", "\\[", "\\]"):
        text = text.replace(escaped, escaped[1])
    if not text.startswith(("func (", "func(")):
        return None
    close = text.find(")")
    inner = text[text.find("(") + 1 : close].split()
    rest = text[close + 1 :].strip().rstrip("(").strip() if close > 0 else ""
    if not inner or len(inner) > 2 or not rest:
        return None
    receiver = inner[-1].lstrip("*")
    receiver = receiver[: receiver.find("[")] if "[" in receiver else receiver
    if not _is_bare_identifier(receiver) or not _is_bare_identifier(rest):
        return None
    return rest, receiver


def _mcp_symbols(tool_input: "dict[str, object]") -> "tuple[str, ...]":
    words: list[str] = []
    for value in tool_input.values():
        if isinstance(value, str) and len(value) <= 500:
            words.extend(_question_symbols(value))
    return tuple(words)


def _question_symbols(text: str) -> "list[str]":
    """Names in a free-text question: identifier-like words that are not question words."""
    out: list[str] = []
    word: list[str] = []
    for char in text + " ":
        if char.isalnum() or char in "_$" or (char in ".:/-" and word):
            word.append(char)
            continue
        if word:
            token = "".join(word).strip(".:/-")
            if len(token) > 1 and token.lower() not in _QUESTION_WORDS:
                out.append(token)
            word = []
    return out


def _classify_bash(command: str, where: _Where, depth: int = 0) -> Call:
    """The most telling thing a Bash command executes: lookup, then trigger, then search."""
    found = _OTHER
    for words in split_commands(command):
        call = _classify_simple_command(words, where, depth)
        if call.kind == "lookup":
            return call
        if (call.trigger and not found.trigger) or found.kind == "other":
            found = call
    return found


def _command_start(words: "list[str]") -> int:
    """Index of the word that is executed, past assignments and wrappers."""
    i = 0
    while i < len(words):
        word = words[i]
        eq = word.find("=")
        if eq > 0 and _is_bare_identifier(word[:eq]):
            i += 1  # FOO=bar cmd
            continue
        if word in _RESERVED_PREFIXES:
            i += 1
            continue
        name = word[word.rfind("/") + 1 :]
        if name in _WRAPPERS:
            takes_arg = _WRAPPERS[name]
            i += 1
            while i < len(words) and (
                words[i].startswith("-") or ("=" in words[i] and name == "env")
            ):
                if words[i] == "--":
                    i += 1
                    break
                i += 2 if words[i] in takes_arg else 1
            if name in _WRAPPER_POSITIONAL:
                i += 1
            continue
        return i
    return i


def _classify_simple_command(words: "list[str]", where: _Where, depth: int) -> Call:
    start = _command_start(words)
    if start >= len(words):
        return _OTHER
    name = words[start][words[start].rfind("/") + 1 :]
    args = words[start + 1 :]
    if name in ("bash", "sh", "zsh", "dash") and depth < 3:
        for i, arg in enumerate(args[:-1]):
            if arg == "-c" or (arg.startswith("-") and not arg.startswith("--") and "c" in arg):
                return _classify_bash(args[i + 1], where, depth + 1)
        return _OTHER
    if name.startswith("python") and args[:2] == ["-m", "graphify"]:
        name, args = "graphify", args[2:]
    if name == "graphify":
        return _graphify_lookup(args, where)
    if name == "git":
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in _GIT_GLOBAL_ARG_OPTIONS else 1
        if i < len(args) and args[i] == "grep":
            return _grep_call(args[i + 1 :], "git-grep")
        return _OTHER
    if name in GREP_COMMANDS:
        # Under xargs, file operands arrive on stdin: still a search of code.
        return _grep_call(args, name, fed_files="xargs" in words[:start])
    if name in READ_COMMANDS:
        return _read_call(args, name, where)
    return _OTHER


def _options_and_operands(
    args: "list[str]", takes_arg: "frozenset[str]"
) -> "tuple[list[tuple[str, str]], list[str]]":
    """Split argv into (option, value) pairs and operands, getopt style."""
    options: list[tuple[str, str]] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if not eq and name in takes_arg and i < len(args):
                value = args[i]
                i += 1
            options.append((name, value))
        elif arg.startswith("-") and len(arg) > 1:
            # Combined short flags: -rnA3 is -r -n -A 3.
            for j in range(1, len(arg)):
                flag = "-" + arg[j]
                if flag in takes_arg:
                    value = arg[j + 1 :]
                    if not value and i < len(args):
                        value = args[i]
                        i += 1
                    options.append((flag, value))
                    break
                options.append((flag, ""))
        else:
            operands.append(arg)
    return options, operands


def _grep_call(args: "list[str]", tool: str, fed_files: bool = False) -> Call:
    options, operands = _options_and_operands(args, _GREP_ARG_OPTIONS[tool])
    flags = {flag for flag, _ in options}
    if flags & _LISTS_FILES.get(tool, frozenset()):
        return _OTHER  # `rg --files`, `ag -g x`: a file listing, not a search
    if tool in ("ag", "ack") or not flags & _PATTERN_FILE:
        patterns = [value for flag, value in options if flag in ("-e", "--regexp")]
    else:
        return Call("grep", False, "Bash", None)  # patterns from a file: not a symbol lookup
    if not patterns:
        if not operands:
            return Call("grep", False, "Bash", None)
        patterns, operands = [operands[0]], operands[1:]
    pattern = patterns[0]
    found = search_symbol(pattern) if len(patterns) == 1 else None
    if tool in ("grep", "egrep", "fgrep") and not (operands or fed_files or flags & _RECURSIVE):
        found = None  # `... | grep test` filters a pipe; it searches no code
    return _grep(pattern, "Bash", found)


def _read_call(args: "list[str]", tool: str, where: _Where) -> Call:
    options, operands = _options_and_operands(args, _READ_ARG_OPTIONS[tool])
    if tool == "sed":
        flags = {flag for flag, _ in options}
        if not flags & {"-n", "--quiet", "--silent"} or flags & {"-i", "--in-place"}:
            return _OTHER  # only `sed -n` prints a slice of a file; -i edits it
        if not flags & {"-e", "--expression", "-f", "--file"}:
            operands = operands[1:]  # the first operand is the script
    first: Optional[str] = None
    for operand in operands:
        if operand == "-":
            continue
        shown, trigger = where.source_file(operand)
        if trigger:
            return Call("read", True, "Bash", shown)
        first = first or shown
    return Call("read", False, "Bash", first)


def _graphify_lookup(args: "list[str]", where: _Where) -> Call:
    options, operands = _options_and_operands(args, _GRAPHIFY_ARG_OPTIONS)
    if not operands or operands[0] not in LOOKUP_SUBCOMMANDS:
        return _OTHER
    subcommand = operands[0]
    names = operands[1:] + [value for flag, value in options if flag == "--seed"]
    if subcommand in ("query", "search"):
        symbols: list[str] = []
        for text in names:
            symbols.extend(_question_symbols(text))
    else:
        symbols = names
    return Call("lookup", via="Bash", target=subcommand, symbols=tuple(symbols))


# -- POSIX-shell word splitting ----------------------------------------------

_OPERATOR_CHARS: "Final" = frozenset(";&|()\n")
_SPACE: "Final" = frozenset(" \t\r")


def split_commands(command: str) -> "list[list[str]]":
    """The simple commands a shell would execute, as lists of words.

    Handles quotes, backslashes, comments, ``;`` ``&`` ``&&`` ``||`` ``|``
    newlines and parentheses as separators, redirections (their targets are
    not arguments), here-documents (their bodies are not commands), and runs
    the insides of ``$(...)`` and backticks as commands of their own. It does
    not expand anything: what matters is which words are in command position.
    """
    commands: list[list[str]] = []
    _split_into(command, commands, 0)
    return [words for words in commands if words]


def _split_into(text: str, commands: "list[list[str]]", depth: int) -> None:
    words: list[str] = []
    word: list[str] = []
    in_word = False  # a word has started, even if empty ('' or "")
    skip_next_word = False  # the next word is a redirection target
    heredocs: list[tuple[str, bool]] = []
    i, n = 0, len(text)

    def finish_word() -> None:
        nonlocal in_word, skip_next_word, word
        if in_word:
            if skip_next_word:
                skip_next_word = False
            else:
                words.append("".join(word))
        word = []
        in_word = False

    def finish_command() -> None:
        nonlocal words, skip_next_word
        finish_word()
        skip_next_word = False
        commands.append(words)
        words = []

    while i < n:
        char = text[i]
        if char == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2
                continue
            word.append(text[i + 1] if i + 1 < n else "")
            in_word = True
            i += 2
            continue
        if char == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            word.append(text[i + 1 : end])
            in_word = True
            i = end + 1
            continue
        if char == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
                    if text[i + 1] != "\n":
                        word.append(text[i + 1])
                    i += 2
                    continue
                if (text[i] == "$" and text.startswith("$(", i)) or text[i] == "`":
                    i = _substitution(text, i, commands, depth, word)
                    continue
                word.append(text[i])
                i += 1
            in_word = True
            i += 1
            continue
        if (char == "$" and text.startswith("$(", i)) or char == "`":
            in_word = True
            i = _substitution(text, i, commands, depth, word)
            continue
        if char == "#" and not in_word:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if char in _SPACE:
            finish_word()
            i += 1
            continue
        if char in "<>":
            # A redirection: an fd number glued in front is not a word, and
            # the next word is its target, not an argument.
            if in_word and "".join(word).isdigit():
                word, in_word = [], False
            finish_word()
            if text.startswith("<<", i) and not text.startswith("<<<", i):
                i += 2
                strip_tabs = text.startswith("-", i)
                i += 1 if strip_tabs else 0
                while i < n and text[i] in _SPACE:
                    i += 1
                start = i
                while i < n and text[i] not in _SPACE and text[i] not in ";&|()<>\n":
                    i += 1
                delimiter = text[start:i].replace("'", "").replace('"', "").replace("\\", "")
                heredocs.append((delimiter, strip_tabs))
                continue
            while i < n and text[i] in "<>&|":
                i += 1
            if text.startswith("-", i) or (text[i : i + 1].isdigit() and text[i - 1] == "&"):
                while i < n and (text[i].isdigit() or text[i] == "-"):
                    i += 1
                continue  # >&2, <&-: no target word
            skip_next_word = True
            continue
        if char in _OPERATOR_CHARS:
            if char == "&" and text.startswith("&>", i):
                finish_word()
                i += 2
                skip_next_word = True
                continue
            finish_command()
            if char == "\n" and heredocs:
                i = _skip_heredocs(text, i + 1, heredocs)
                heredocs = []
                continue
            i += 1
            continue
        word.append(char)
        in_word = True
        i += 1
    finish_command()


def _substitution(
    text: str, i: int, commands: "list[list[str]]", depth: int, word: "list[str]"
) -> int:
    """Run the inside of $(...) or `...` as commands; return the index past it."""
    if text[i] == "`":
        end = text.find("`", i + 1)
        end = len(text) if end < 0 else end
        inner, after = text[i + 1 : end], end + 1
    else:
        level, j = 1, i + 2
        while j < len(text) and level:
            if text[j] == "(":
                level += 1
            elif text[j] == ")":
                level -= 1
            j += 1
        inner, after = text[i + 2 : j - 1 if not level else j], j
    if depth < 8:
        _split_into(inner, commands, depth + 1)
    word.append("$(…)")
    return after


def _skip_heredocs(text: str, i: int, heredocs: "list[tuple[str, bool]]") -> int:
    for delimiter, strip_tabs in heredocs:
        while i < len(text):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


# ---------------------------------------------------------------------------
# 5. Graph: where it is, and how it relates to HEAD


class Graph:
    """Where the graph is and how it relates to HEAD."""

    __slots__ = (
        "built_at", "changed", "display", "flag", "head", "mtime", "path", "root", "scanned",
        "stale_by", "stat", "state",
    )  # fmt: skip

    def __init__(self) -> None:
        self.path: Optional[str] = None  # absolute path of graph.json, if it exists
        self.display = ".graphify/graph.json"  # how to name it in the advisory
        self.flag = True  # the advisory needs `--graph` (not graphify's default)
        self.mtime: Optional[float] = None
        self.stat: Optional[posix.stat_result] = None  # of graph.json: what its index is keyed to
        self.built_at: Optional[str] = None  # full sha from graph.json
        self.head: Optional[str] = None
        self.state = "absent"
        self.stale_by: Optional[str] = None
        self.root = ""  # the project the graph describes: cited paths are relative to it
        self.scanned: Optional[int] = None  # ns: graphify's last scan (`last_scan`), lazily
        self.changed: dict[str, bool] = {}  # cited file -> changed since that scan


def graph_candidates(environ: "Environ", root: str) -> "list[str]":
    """The one graph location rule (docs/hook.md, "Which graph"): `$MISHKAN_GRAPHIFY_GRAPH`
    alone when set; else `$GRAPHIFY_OUT/graph.json` (when set),
    `.graphify/graph.json`, `graphify-out/graph.json`, relative to `root`."""
    settings = _settings_of(environ)
    if settings.graph:
        return [_absolute(settings.graph, root)]
    candidates: list[str] = []
    if settings.graphify_out:
        candidates.append(_absolute(settings.graphify_out.rstrip("/") + "/graph.json", root))
    for rel in GRAPH_CANDIDATES:
        candidate = root.rstrip("/") + "/" + rel
        if candidate not in candidates:
            candidates.append(candidate)
    return candidates


def _graphify_default(settings: _Settings, root: str) -> str:
    """The graph `graphify explain` reads without `--graph`: `$GRAPHIFY_OUT`
    (graphify ignores blank, `.` and `..`-only values) or graphify-out."""
    out = (settings.graphify_out or "").strip()
    if not out or all(part in ("", ".", "..") for part in out.split("/")):
        out = "graphify-out"
    return _absolute(out.rstrip("/") + "/graph.json", root)


def find_graph(environ: "Environ", root: str) -> Graph:
    """The graph in use: of `graph_candidates`, the regular file with the
    newest mtime (ties: candidate order). Costs one stat per candidate."""
    settings = _settings_of(environ)
    graph = Graph()
    candidates = graph_candidates(settings, root)
    for candidate in candidates:
        st = _stat(candidate)
        if st is None or st.st_mode & _S_IFMT != _S_IFREG:
            continue
        if graph.mtime is None or st.st_mtime > graph.mtime:
            graph.path, graph.mtime, graph.stat = candidate, st.st_mtime, st
    shown = graph.path or candidates[0]
    graph.display = _relative_to(shown, root) or shown
    graph.flag = shown != _graphify_default(settings, root)
    return graph


def built_at_commit(path: str) -> "Optional[str]":
    """The `built_at_commit` sha from the tail of graph.json, without parsing the rest."""
    try:
        fd = _open_regular(path)
    except (OSError, ValueError):
        return None
    try:
        size = posix.fstat(fd).st_size
        tail = posix.pread(fd, GRAPH_TAIL_BYTES, max(0, size - GRAPH_TAIL_BYTES))
    except OSError:
        return None
    finally:
        posix.close(fd)
    at = tail.rfind(b'"built_at_commit"')
    if at < 0:
        return None
    rest = tail[at + len(b'"built_at_commit"') :].lstrip(b" \t\r\n")
    if not rest.startswith(b":"):
        return None
    rest = rest[1:].lstrip(b" \t\r\n")
    if not rest.startswith(b'"'):
        return None
    end = rest.find(b'"', 1)
    sha = rest[1:end].decode("ascii", "replace").lower() if end > 0 else ""
    return sha if _is_hex_sha(sha) else None


def _is_hex_sha(text: str) -> bool:
    return 7 <= len(text) <= 64 and all(c in "0123456789abcdef" for c in text)


def _is_object_id(text: str) -> bool:
    """A full object id, as a ref holds one: 40 (SHA-1) or 64 (SHA-256) hex digits."""
    return len(text) in (40, 64) and _is_hex_sha(text)


# -- the git reader: reads only beneath the repository's git dirs -----------------------
#
# The git dirs, as git finds them: the nearest `.git` at or above the project
# root, a directory or a file whose `gitdir:` names one (a linked worktree's,
# a submodule's), and the common dir its `commondir` names (a worktree's main
# `.git`; else the git dir itself), which must hold `objects/` and `refs/` as
# git requires. Links are followed to reach them, never inside them: every
# file read is a fixed name, an object id or a refname git accepts
# (`_is_refname`) below one of them, opened component by component without
# following a link (`_git_file`). A `.git` above the project root counts only
# when this user owns it, the directory holding it and its git dir: git's
# `safe.directory` rule (CVE-2022-24765), so another local user's `/tmp/.git`
# is not the project's repository; the project's own `.git` is the user's
# choice, as the project is. docs/threat_model.md, classes 9 and 11.


def _git_dirs(root: str) -> "Optional[tuple[str, str]]":
    """(git dir, common dir) of the repository `root` is in, or None (unknown)."""
    path = root
    for _ in range(64):
        dot_git = path.rstrip("/") + "/.git"
        try:
            st = posix.stat(dot_git)
            break
        except (FileNotFoundError, NotADirectoryError):
            pass
        except (OSError, ValueError):
            return None
        if path == "/":
            return None
        path = path[: path.rfind("/")] or "/"
    else:
        return None
    if st.st_mode & _S_IFMT == _S_IFDIR:
        git_dir = dot_git
    else:
        text = _fsdecode(_read_file(dot_git, 4096) or b"")
        if not text.startswith("gitdir:"):
            return None
        git_dir = _absolute(text[7:].strip(), path)
    if path != root:  # above the project: this user's, or not the project's repository
        uid = posix.geteuid()
        for owned in (path, dot_git, git_dir):
            try:
                if posix.stat(owned, follow_symlinks=False).st_uid != uid:
                    return None
            except (OSError, ValueError):
                return None
    common = _fsdecode(_git_file(git_dir, "commondir", 4096) or b"").strip()
    common = _absolute(common, git_dir) if common else git_dir
    if not (_is_dir(common + "/objects") and _is_dir(common + "/refs")):
        return None
    return git_dir, common


def _git_file(base: str, rel: str, size: int, offset: "Optional[int]" = None) -> "Optional[bytes]":
    """The regular file `base/rel`, no component of `rel` a link: all of it up to
    `size` bytes, or `size` bytes at `offset`. None when not there to read."""
    *parts, name = rel.split("/")
    try:
        directory = _open_dirs(base, parts)
    except (OSError, ValueError):
        return None
    try:
        if offset is None:
            return _read_file(name, size, directory, follow=False)
        return _read_at(name, size, offset, directory, follow=False)
    finally:
        posix.close(directory)


MAX_REFNAME: "Final" = 1024  # longer refnames (git sets no limit) are unknown, not followed
#: what `git check-ref-format` refuses anywhere in a refname, besides `..` and `@{`
_REFNAME_REFUSED: "Final" = frozenset(
    " ~^:?*[\\\x7f\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
    "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
)
PACKED_REFS_SCAN: "Final" = 1 << 20  # the most of a packed-refs not `sorted` that is read


def _is_refname(ref: str) -> bool:
    r"""A refname under `refs/` that `git check-ref-format` accepts (no empty
    component, none starting with `.` or ending with `.lock`, no `..`, `@{`,
    control character, space or any of ~^:?*[\ , no `.` at the end)."""
    if not ref.startswith("refs/") or len(ref) > MAX_REFNAME or ref.endswith("."):
        return False
    if ".." in ref or "@{" in ref or not _REFNAME_REFUSED.isdisjoint(ref):
        return False
    for part in ref.split("/"):
        if not part or part[0] == "." or part.endswith(".lock"):
            return False
    return True


def resolve_head(root: str) -> "Optional[str]":
    """HEAD's full sha, read as git reads it but without git (loose refs,
    packed-refs, a detached HEAD, worktrees and submodules), or None when
    unknown: no repository, a reftable one (Git 3.0's default; its HEAD names
    `refs/heads/.invalid`), a link, FIFO or device where a ref should be, a
    refname git refuses, a ref past the part of a packed-refs that is read."""
    dirs = _git_dirs(root)
    if dirs is None:
        return None
    git_dir, common = dirs
    ref = "HEAD"
    for _ in range(5):  # symbolic refs may chain
        data = _git_file(git_dir, ref, MAX_REFNAME + 16)
        if data is None and ref != "HEAD":
            if common != git_dir:
                data = _git_file(common, ref, MAX_REFNAME + 16)
            if data is None:
                return _packed_ref(common, ref)
        text = _fsdecode(data or b"").strip()
        if not text.startswith("ref:"):
            text = text.lower()
            return text if _is_object_id(text) else None
        ref = text[4:].strip()
        if not _is_refname(ref):
            return None
    return None


# packed-refs is read in bounded bytes whatever its size: one git wrote with
# the `sorted` trait (every git since 2017; its test is git's own) by a binary
# search (`_sorted_line`), any other only when it is at most PACKED_REFS_SCAN.
def _packed_ref(common: str, ref: str) -> "Optional[str]":
    """`ref`'s sha in `<common>/packed-refs`, or None."""
    try:
        directory = _open_dirs(common, [])
        try:
            fd = _open_regular("packed-refs", directory, follow=False)
        finally:
            posix.close(directory)
    except (OSError, ValueError):
        return None
    want = ref.encode("utf-8", "surrogateescape") + b"\n"
    try:
        size = posix.fstat(fd).st_size
        head = posix.pread(fd, min(size, PACKED_REFS_SCAN), 0)
        header = head[: head.find(b"\n") + 1] if head.startswith(b"# pack-refs with:") else b""
        if b" sorted " in header:
            line = _sorted_line(fd, len(header), size, want, _packed_key)
        elif size <= PACKED_REFS_SCAN:
            head += b"" if head.endswith(b"\n") else b"\n"
            at = head.find(b" " + want)
            line = head[head.rfind(b"\n", 0, at) + 1 : at] if at >= 0 else None
        else:
            line = None
    except (OSError, ValueError):
        return None
    finally:
        posix.close(fd)
    sha = (line or b"").partition(b" ")[0].decode("ascii", "replace").lower()
    return sha if _is_object_id(sha) else None


def _packed_key(line: bytes) -> "Optional[bytes]":
    """A packed-refs line's sort key: its refname and a newline, as git orders
    them; None for the peeled line (`^<sha>`) after a tag."""
    if line[:1] == b"^":
        return None
    cut = line.find(b" ")
    if cut < 0:
        raise ValueError("not a packed-refs line")
    return line[cut + 1 :] + b"\n"


def _commit_time(root: str, sha: str) -> "Optional[float]":
    """Committer time of `sha`, read from the repository's own objects: a loose
    object, or one a pack stores whole. No git is ever started: a repository's
    config makes git run programs of its choosing (a `gpg.program` to verify a
    signed commit under `log.showSignature`, a promisor remote's `ext::`
    transport to fetch a missing object, ...). None when the commit is not
    there to read (missing, in an alternate, a delta in a pack)."""
    dirs = _git_dirs(root)
    if dirs is None or not _is_object_id(sha):
        return None
    loose = _git_file(dirs[1], f"objects/{sha[:2]}/{sha[2:]}", 1 << 16, 0)
    data = loose or _packed_object(dirs[1], sha)
    if not data:
        return None
    try:
        import zlib

        text = zlib.decompressobj().decompress(data, 8192)
        at = text.find(b"\ncommitter ")
        if at > 0 and (not loose or text.startswith(b"commit ")):
            line = text[at + 1 : text.find(b"\n", at + 1)]
            return float(line.rsplit(b" ", 2)[-2])
    except Exception:
        pass
    return None


_PACK_IDX: "Final" = b"\377tOc\0\0\0\2"  # a version 2 pack index
_PACK_ENTRIES: "Final" = 4096  # entries of objects/pack looked at for `.idx` files


def _packed_object(common: str, sha: str) -> "Optional[bytes]":
    """The zlib stream of a commit a pack stores whole, found through the packs'
    `.idx` files (version 2: a 256-entry fanout, the sorted ids, their CRCs and
    offsets): a binary search of a few pread(2) calls per pack. None when no
    pack holds it, or holds it as a delta."""
    try:
        want = bytes.fromhex(sha)
        packs = _open_dirs(common, ["objects", "pack"])
    except (OSError, ValueError):
        return None
    try:
        names = []
        with posix.scandir(packs) as entries:  # a bounded look: a million entries cost a call
            for _, entry in zip(range(_PACK_ENTRIES), entries):
                if entry.name.endswith(".idx"):
                    names.append(entry.name)
        for name in sorted(names)[:64]:
            offset = _pack_offset(name, packs, want)
            if offset is None:
                continue
            entry_data = _read_at(f"{name[:-4]}.pack", 1 << 16, offset, packs, follow=False)
            if not entry_data or (entry_data[0] >> 4) & 7 != 1:
                return None  # type 1 is a commit; 6 and 7 are deltas
            at = 1
            while at < len(entry_data) and entry_data[at - 1] & 0x80:  # the size, 7 bits a byte
                at += 1
            return entry_data[at:]
    except OSError:
        pass
    finally:
        posix.close(packs)
    return None


def _pack_offset(name: str, packs: int, want: bytes) -> "Optional[int]":
    """Where `want` starts in the pack of the index `name` in `packs`, or None."""
    try:
        fd = _open_regular(name, packs, follow=False)
    except (OSError, ValueError):
        return None
    try:
        head = posix.pread(fd, 1032, 0)
        if len(head) < 1032 or not head.startswith(_PACK_IDX):
            return None
        first, width = want[0], len(want)
        lo = int.from_bytes(head[4 + 4 * first : 8 + 4 * first], "big") if first else 0
        hi = int.from_bytes(head[8 + 4 * first : 12 + 4 * first], "big")
        total = int.from_bytes(head[1028:1032], "big")
        while lo < hi <= total:
            mid = (lo + hi) // 2
            found = posix.pread(fd, width, 1032 + width * mid)
            if len(found) != width:
                return None
            if found == want:
                at = 1032 + (width + 4) * total + 4 * mid  # past the ids and their CRCs
                offset = int.from_bytes(posix.pread(fd, 4, at), "big")
                if offset & 0x80000000:  # in the table of 8-byte offsets after the 4-byte ones
                    at = 1032 + (width + 8) * total + 8 * (offset & 0x7FFFFFFF)
                    offset = int.from_bytes(posix.pread(fd, 8, at), "big")
                return offset
            lo, hi = (mid + 1, hi) if found < want else (lo, mid)
        return None
    except (OSError, OverflowError):
        return None
    finally:
        posix.close(fd)


def _head_moved(root: str) -> "Optional[float]":
    """When HEAD last moved: the mtime of the HEAD reflog (a commit, checkout,
    reset or merge appends to it). The rule for a graph without
    `built_at_commit` when HEAD's commit time cannot be read. (An lstat: it
    opens nothing.)"""
    dirs = _git_dirs(root)
    try:
        st = posix.stat(dirs[0] + "/logs/HEAD", follow_symlinks=False) if dirs else None
    except (OSError, ValueError):
        return None
    return st.st_mtime if st is not None and st.st_mode & _S_IFMT == _S_IFREG else None


def last_scan(graph: Graph) -> int:
    """When graphify last read the project, in ns: the newest of graph.json and
    the `manifest.json` graphify rewrites on every run, also on one that finds
    "No code-graph topology changes detected" and leaves graph.json (and its
    `built_at_commit`) untouched. 0.9.x writes it beside graph.json, 0.8.x in
    `graphify-out/` whatever GRAPHIFY_OUT says (graphify/detect.py, watch.py)."""
    if graph.scanned is None:
        newest = graph.stat.st_mtime_ns if graph.stat is not None else 0
        where = (graph.path or "")[: (graph.path or "").rfind("/")]
        for manifest in (where + "/manifest.json", graph.root + "/graphify-out/manifest.json"):
            st = _stat(manifest)
            if st is not None and st.st_mode & _S_IFMT == _S_IFREG:
                newest = max(newest, st.st_mtime_ns)
        graph.scanned = newest
    return graph.scanned


def changed_since_scan(graph: Graph, path: str) -> bool:
    """Whether a cited file changed after graphify last read the project (its
    mtime is newer): the graph's lines for it may be off. Cached per call."""
    if path not in graph.changed:
        st = _stat(_absolute(path, graph.root))
        graph.changed[path] = st is not None and st.st_mtime_ns > last_scan(graph)
    return graph.changed[path]


def graph_state(graph: Graph, root: str, store: Store) -> None:
    """Fill in graph.state: absent, stale or fresh (docs/hook.md, "Fresh").

    Fresh when graph.json was built at HEAD, or graphify read the project
    after HEAD last moved (a commit whose files graphify found structurally
    unchanged keeps the old `built_at_commit`: not stale). Stale when HEAD
    moved after graphify's last read (`commit`; without `built_at_commit`:
    `head_moved`, or `commit_time` where git keeps no reflog). A HEAD the hook
    cannot read leaves the state fresh and the head unknown (the advisory says
    "HEAD unknown", never "current"). Files the advice cites are judged one by
    one (`changed_since_scan`)."""
    graph.root = root
    if graph.path is None or graph.mtime is None:
        return
    graph.state = "fresh"
    graph.built_at = built_at_commit(graph.path)
    graph.head = resolve_head(root)
    if graph.head is None or (graph.built_at and graph.head.startswith(graph.built_at)):
        return
    moved, how = _head_moved(root), "head_moved"
    if moved is None:
        key = _graph_key(None, graph.stat) if graph.stat is not None else ""
        moved, how = store.commit_time(graph.head, root, key), "commit_time"
    if moved is None:
        if graph.built_at:  # another commit, and no word of when HEAD moved
            graph.state, graph.stale_by = "stale", "commit"
    elif last_scan(graph) < moved * 1e9:
        graph.state, graph.stale_by = "stale", "commit" if graph.built_at else how


# ---------------------------------------------------------------------------
# 6. Index: what the graph holds, from a sorted sidecar file (graphify_nudge_index.py builds it)
#
# `<telemetry dir>/.index/<name>.idx`, one per graph path. The first line is
# `graphify-nudge-index 4 <TAB> <graph key> <TAB> <nodes> <TAB> <capabilities>
# <TAB> <release>`; then one line per file the graph says something about (`f
# <TAB> path <TAB> [explain argument, importers, dependents, definitions]`)
# and one per symbol name, case as written (`s <TAB> name <TAB> [total,
# [[name, path, line, explain argument, node id, scope, owner, overloads,
# uses], ...]]`), sorted bytewise, none longer than INDEX_MAX_LINE. The
# builder composes each answer (its section 3): which sites are definitions,
# which uses the source lines confirm, their counts and order; `scope` is the
# definition's directories, module and enclosing symbols, space-separated
# (`src click core Context` for Context.invoke). The hook looks the answer up,
# checks it, quotes it and adds freshness (section 8). A lookup is a binary
# search with a few pread(2) calls; graph.json itself is never read on the
# hot path.
#
# The telemetry directory is inside the project by default, so a clone can ship
# an index. Two rules make a shipped one harmless (docs/threat_model.md): the
# key names facts about graph.json no clone can choose (its inode and ctime
# here), and every record read is checked with the function the builder
# checked it with before writing it (`_index_site`, `_plain`).


class Hit:
    """What the index says about a trigger's target (`_index_site`, `_index_file`)."""

    __slots__ = ("answered", "file", "kind", "sites", "total", "used")

    def __init__(
        self, kind: str, sites: "Optional[list[tuple[Any, ...]]]" = None, total: int = 0,
        file: "Optional[list[Any]]" = None,
    ) -> None:  # fmt: skip
        self.kind = kind  # "file" or "symbol"
        self.sites = sites or []  # symbol: `_index_site` tuples, in the builder's order
        self.total = total  # symbol: definitions of this name in the graph
        self.file = file  # file: the `_index_file` record
        self.answered: Optional[str] = None  # what the advisory answered (section 8)
        self.used = 0  # the uses (a file: importers and dependents) it counted


class _Index:
    __slots__ = ("end", "fd", "start", "state")

    def __init__(self, state: str, fd: int = -1, start: int = 0, end: int = 0) -> None:
        # current, missing, outdated, building, failed, no_builder, unreadable, off
        self.state = state
        self.fd = fd
        self.start = start
        self.end = end


def _graph_key(built_at: "Optional[str]", st: "posix.stat_result") -> str:
    """What an index (and the commit-time cache) is keyed to: graph.json's
    `built_at_commit`, size and mtime, and its device, inode and ctime. A clone,
    a checkout or a tarball sets any content, size and mtime it likes, but not
    the inode and ctime the file gets on this machine: a planted index never
    matches, and is rebuilt like an outdated one."""
    return (
        f"{built_at or '-'}:{st.st_size}:{st.st_mtime_ns}:{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}"
    )


def _index_name(graph_path: str) -> str:
    return "g" + _fnv64(graph_path)


def open_index(store: Store, graph: Graph) -> _Index:
    """The current index of `graph`, or why there is none. A missing or outdated
    index starts a background build (at most one attempt per graph version per
    INDEX_RETRY_SECONDS); this call goes on without it."""
    if graph.path is None or graph.stat is None:
        return _Index("missing")
    if not store.settings.index:
        return _Index("off")
    directory = store.directory(INDEX_DIR)
    if directory is None:
        return _Index("unreadable")
    name = _index_name(graph.path)
    key = _graph_key(graph.built_at, graph.stat)
    try:
        fd = _open_regular(f"{name}.idx", directory, follow=False)
    except FileNotFoundError:
        return _Index(_start_build(directory, graph, name, key, "missing"))
    except OSError:
        return _Index("unreadable")
    found, start, size = _index_header(fd)
    if found is None:
        posix.close(fd)
        if size:  # an index, in an earlier format: build this one's
            return _Index(_start_build(directory, graph, name, key, "outdated"))
        return _Index("unreadable")
    if found != key:
        posix.close(fd)
        return _Index(_start_build(directory, graph, name, key, "outdated"))
    return _Index("current", fd, start, size)


def _index_header(fd: int) -> "tuple[Optional[str], int, int]":
    """(graph key, offset of the first entry, file size) of an open index;
    (None, 0, 0) when it is not a regular file or not an index. The header:
    magic, key, node count, capabilities (comma-separated: the dialect the
    builder wrote the explain arguments in), graphify's release (for people)."""
    try:
        st = posix.fstat(fd)
        head = posix.pread(fd, 1024, 0) if st.st_mode & _S_IFMT == _S_IFREG else b""
    except OSError:
        return None, 0, 0
    end = head.find(b"\n")
    fields = head[:end].decode("utf-8", "replace").split("\t") if end > 0 else []
    if len(fields) < 5 or fields[0] != INDEX_MAGIC:
        # (None, 0, 1): the index of another version of this hook, to be rebuilt
        return None, 0, int(fields[0].startswith(INDEX_MAGIC[:-1]) if fields else 0)
    return fields[1], end + 1, st.st_size


def _start_build(directory: int, graph: Graph, name: str, key: str, state: str) -> str:
    """Spawn the detached builder unless an attempt for this graph version is
    recent (running, or failed: a graph that cannot be parsed is not retried
    on every call) or the builder is not installed. Returns the index state to record."""
    attempt = _read_file(f"{name}.attempt", 4096, directory, follow=False)
    if attempt is not None:
        attempt_key, _, outcome = attempt.decode("utf-8", "replace").partition("\t")
        try:
            age = time.time() - posix.stat(f"{name}.attempt", dir_fd=directory,
                                           follow_symlinks=False).st_mtime  # fmt: skip
        except OSError:
            age = -1.0
        failed = outcome.startswith("failed")
        # A build that failed said why (a graph it cannot parse, one over its
        # limits): the same graph version is not tried again for a day. One that
        # left no word (killed, a crash) is retried after ten minutes. An mtime
        # in the future (a planted file, a clock set back) is no recent attempt.
        retry = INDEX_FAILED_RETRY_SECONDS if failed else INDEX_RETRY_SECONDS
        if attempt_key == key and 0 <= age < retry:
            return "failed" if failed else "building"
    hooks_dir = _builder_dir()
    if hooks_dir is None:
        return "no_builder"  # one stat(2) a call, and the builder is used once it is there
    if not _replace(f"{name}.attempt", f"{key}\tspawned".encode(), directory):
        return state  # cannot record the attempt: never spawn blind
    _spawn_builder(hooks_dir, graph.path or "", directory, graph.root)
    return "building"


def _builder_dir() -> "Optional[str]":
    """This file's directory when the index builder is installed beside it (as
    `mishkan install` puts it and the distribution ships it), else None."""
    module = globals().get("__file__")
    if not isinstance(module, str) or not sys.executable:
        return None
    cut = module.rfind("/")
    hooks_dir = module[:cut] if cut > 0 else "/" if cut == 0 else "."
    st = _stat(f"{hooks_dir}/{INDEX_BUILDER}.py")
    return hooks_dir if st is not None and st.st_mode & _S_IFMT == _S_IFREG else None


def load_code(*modules: str) -> str:
    """Python for `-c` that loads each module from `<sys.argv[1]>/<module>.py`
    by that path, in order, and leaves the last one in `module`; `sys.argv[2]`
    is where its bytecode is (taken out of argv, so the module sees the argv it
    always did). One statement a line: graphify-nudge.sh, the registered shim,
    carries `load_code("graphify_nudge")` verbatim for a reviewer to read
    (tests/install/test_shim.py), and the builder is spawned with it below.

    Never by name through sys.path: a file beside the hook that the import
    system prefers (a `graphify_nudge/` package, a `graphify_nudge*.so`) or a
    `json.py` the hook's own imports would find first is then never run; the
    repository ships that directory. The loader is the import system's own,
    already loaded at start-up, so this costs what `import` costs. Its
    bytecode comes from that directory (the user's cache, outside every
    repository: docs/threat_model.md) through `sys.pycache_prefix`, set only
    while these modules load, so every other module keeps its own
    (`-X pycache_prefix` would send the standard library there too: compiled
    on every call on 3.9 and 3.10). Install writes it there; where it is
    missing (a plugin on a machine install never ran on, a cleared cache) the
    import system writes it there, and only there, once: compiling this file
    costs about 2.5 bare interpreter starts. Without a directory, `/dev/null`:
    compiled from source on every call, never from bytecode found beside it.
    The modules' top-level imports are built in (the builder's are imported
    before, `_BUILDER_CODE`), so no other bytecode goes there."""
    head = [
        "import sys, _frozen_importlib as bootstrap, _frozen_importlib_external as external",
        'cache = sys.argv.pop(2) if sys.argv[2:3] and sys.argv[2][:2] != "--" else ""',
        'sys.pycache_prefix = cache or "/dev/null"',
        "writes = sys.dont_write_bytecode",
        "sys.dont_write_bytecode = not cache",
    ]
    steps = [
        line
        for name in modules
        for line in (
            f'spec = external.spec_from_file_location("{name}", sys.argv[1] + "/{name}.py")',
            "module = bootstrap.module_from_spec(spec)",
            f'sys.modules["{name}"] = module',
            "spec.loader.exec_module(module)",
            "module._pycache = cache",
        )
    ]
    tail = ["sys.pycache_prefix = None", "sys.dont_write_bytecode = writes"]
    return "".join(f"{line}\n" for line in (*head, *steps, *tail))


#: the builder's top-level imports that are files (a test checks the list):
#: imported before the prefix is set, so they keep their own bytecode
_BUILDER_IMPORTS: "Final" = "bisect,contextlib,json,re"
_BUILDER_CODE: "Final" = (
    f"import {_BUILDER_IMPORTS}\n" + load_code("graphify_nudge", INDEX_BUILDER) + "module.main()\n"
)


def _spawn_builder(hooks_dir: str, graph_path: str, directory: int, root: str) -> None:
    """posix_spawn the builder's `main` in a new session, stdio on /dev/null,
    holding only the index directory's descriptor: the tool call never waits
    for it. It loads this very file and the builder from `hooks_dir` by path
    (`load_code`), their bytecode from where this file's came from; -B: no
    other module writes bytecode anywhere."""
    cache = globals().get("_pycache")  # set by load_code
    argv = [sys.executable, "-I", "-S", "-B", "-c", _BUILDER_CODE, hooks_dir,
            cache if isinstance(cache, str) else "", graph_path, str(directory), root]  # fmt: skip
    try:
        posix.set_inheritable(directory, True)
        posix.posix_spawn(
            sys.executable,
            argv,
            posix.environ,
            file_actions=[
                (posix.POSIX_SPAWN_OPEN, 0, "/dev/null", posix.O_RDONLY, 0),
                (posix.POSIX_SPAWN_OPEN, 1, "/dev/null", posix.O_WRONLY, 0),
                (posix.POSIX_SPAWN_OPEN, 2, "/dev/null", posix.O_WRONLY, 0),
            ],
            setsid=True,
        )
    except OSError:
        pass
    finally:
        try:
            posix.set_inheritable(directory, False)
        except OSError:
            pass


_INDEX_BLOCK: "Final" = 4096


def _lines_after(fd: int, offset: int, end: int) -> "Iterator[tuple[int, bytes]]":
    """(start, text) of each whole line that starts after `offset`, in order, up
    to `end`. Read forward in blocks, each byte once (a 40 MiB line grown by
    `data += more` once took longer than the call's timeout); a line longer
    than INDEX_MAX_LINE is no line the builder writes: ValueError, never a
    reason to read on."""
    pos, start, block = offset, -1, 2 * _INDEX_BLOCK
    tail: list[bytes] = []  # the pieces of a line that runs past a block
    while pos < end:
        data = posix.pread(fd, min(block, end - pos), pos)
        if not data:
            return
        at = 0
        if start < 0:  # still looking for the end of the line `offset` is in
            cut = data.find(b"\n")
            if cut >= 0:
                start, at = pos + cut + 1, cut + 1
        while start >= 0:
            stop = data.find(b"\n", at)
            if stop < 0:
                tail.append(data[at:])
                break
            tail.append(data[at:stop])
            yield start, b"".join(tail)
            tail, start, at = [], pos + stop + 1, stop + 1
        pos += len(data)
        if pos - (offset if start < 0 else start) > INDEX_MAX_LINE:
            raise ValueError("an index line longer than INDEX_MAX_LINE")
        block = 1 << 16


def _index_line(index: _Index, prefix: bytes) -> "Optional[bytes]":
    """The index line starting with `prefix` (`kind TAB key TAB`)."""
    return _sorted_line(index.fd, index.start, index.end, prefix)


# The index (here) and packed-refs (section 5) are searched alike: a binary
# search over byte offsets, one pread(2) per step, then one read forward from
# the last line start below the line sought. `key` gives a line's sort key
# (default: the line itself); a line without one (packed-refs' `^<sha>` after
# a tag) is skipped, but never two in a row (ValueError: not such a file).
def _sorted_line(
    fd: int, lo: int, end: int, want: bytes,
    key: "Optional[Callable[[bytes], Optional[bytes]]]" = None,
) -> "Optional[bytes]":  # fmt: skip
    """The first line in [lo, end) whose key starts with `want`, the lines there
    sorted by key; `lo` is a line start past the first byte."""
    hi = end
    while hi - lo > _INDEX_BLOCK:
        mid = (lo + hi) // 2
        line_start, line, found = next(_keyed_lines(fd, mid, end, key), (end, b"", None))
        if found is None or line_start >= hi:
            hi = mid  # no line starts in [mid, hi): the one sought starts before
        elif found < want:
            lo = line_start + len(line) + 1
        else:
            hi = line_start
    # `lo` is a line start (so byte lo - 1 ends the line before it), every line
    # before it sorts before `want`, and the line sought, if any, is near
    for _, line, found in _keyed_lines(fd, lo - 1, end, key):
        if found.startswith(want):
            return line
        if found > want:
            return None
    return None


def _keyed_lines(
    fd: int, offset: int, end: int, key: "Optional[Callable[[bytes], Optional[bytes]]]"
) -> "Iterator[tuple[int, bytes, bytes]]":
    """(start, line, key) of the lines `_lines_after` gives, keyless ones skipped."""
    skipped = False
    for start, line in _lines_after(fd, offset, end):
        found = line if key is None else key(line)
        if found is None:
            if skipped:
                raise ValueError("two lines without a key")
            skipped = True
            continue
        skipped = False
        yield start, line, found


def _count(value: object) -> bool:
    return type(value) is int and 0 <= value < 1 << 31


def _relation(value: object) -> bool:
    """A graphify relation as the builder stores it (`calls`, `imports_from`)."""
    return isinstance(value, str) and 0 < len(value) <= 32 and value.strip(_LOWER) == ""


_LOWER: "Final" = "abcdefghijklmnopqrstuvwxyz_"


def _index_uses(record: object, width: int = 5) -> bool:
    """Whether `record` is a use record the builder writes: [total, files,
    [[relation, n], ...], [[confidence, n], ...], rows], each row [path, line,
    user, relation, confidence] (`width` 6: and the name it uses)."""
    if not isinstance(record, list) or len(record) != 5:
        return False
    total, files, relations, confidences, rows = record
    if not (
        _count(total) and _count(files) and isinstance(rows, list) and len(rows) <= min(total, 64)
        and isinstance(relations, list) and isinstance(confidences, list)
        and len(relations) <= 32 and len(confidences) <= len(CONFIDENCE)
    ):  # fmt: skip
        return False
    for pairs, words in ((relations, None), (confidences, CONFIDENCE)):
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and _count(pair[1])):
                return False
            if not (_relation(pair[0]) if words is None else pair[0] in words):
                return False
    for row in rows:
        if not (
            isinstance(row, list) and len(row) == width and _plain(row[0]) and _count(row[1])
            and _plain(row[2]) and _relation(row[3]) and row[4] in CONFIDENCE
            and (width == 5 or (isinstance(row[5], str) and _is_name(row[5])))
        ):  # fmt: skip
            return False
    return True


def _index_site(row: object) -> "Optional[tuple[Any, ...]]":
    """A stored definition (name, path, line, explain argument or None, node
    id, scope, owner, overload lines, uses) when it is one the builder may
    write, else None. The builder checks every row with this before writing
    it, and the hook every row it reads: an index it did not write never puts
    other text into an advisory. Every text is quoted when shown (`_quote`);
    the scope is only ever compared, never shown. An empty node id is a Go
    struct field named like its type, which graphify makes no node for; its
    owner is the struct."""
    if not isinstance(row, list) or len(row) != 9:
        return None
    name, path, line, arg, nid, scope, owner, overloads, uses = row
    if (
        isinstance(name, str) and len(name) <= INDEX_MAX_FIELD and _is_name(name)
        and _plain(path) and (arg is None or _plain(arg)) and _count(line)
        and isinstance(nid, str) and len(nid) <= INDEX_MAX_FIELD
        and isinstance(scope, str) and len(scope) <= INDEX_MAX_FIELD
        and isinstance(owner, str) and (owner == "" or _is_name(owner)) and (nid or owner)
        and len(owner) <= INDEX_MAX_FIELD and isinstance(overloads, list)
        and len(overloads) <= 64 and all(_count(n) for n in overloads) and _index_uses(uses)
    ):  # fmt: skip
        return tuple(row)
    return None


def _index_file(record: object) -> "Optional[list[Any]]":
    """A stored file answer, [explain argument or None, importers, dependents,
    [total, [[name, line], ...]]], when it is one the builder may write."""
    if not isinstance(record, list) or len(record) != 4:
        return None
    arg, importers, dependents, defined = record
    if not (
        (arg is None or _plain(arg)) and _index_uses(importers) and _index_uses(dependents, 6)
        and isinstance(defined, list) and len(defined) == 2 and _count(defined[0])
        and isinstance(defined[1], list) and len(defined[1]) <= min(defined[0], 64)
    ):  # fmt: skip
        return None
    for pair in defined[1]:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                and _is_name(pair[0]) and _count(pair[1])):  # fmt: skip
            return None
    return record


def _index_hit(index: _Index, call: Call) -> "Optional[Hit]":
    """What the graph holds for this trigger: a Hit, or None when it holds
    nothing. ValueError for a record the builder would not have written: the
    index is then unreadable, and the call is silent."""
    kind = "f" if call.kind == "read" else "s"
    key = (call.target if call.kind == "read" else call.symbol) or ""
    # Case as written: a search for `Widget` is not one for `widget` (grep,
    # rg and the Grep tool are case-sensitive unless told otherwise).
    line = _index_line(index, f"{kind}\t{key}\t".encode("utf-8", "surrogateescape"))
    if line is None:
        return None
    payload = _loads(line.split(b"\t", 2)[2].decode("utf-8"))
    if call.kind == "read":
        if _index_file(payload) is None:
            raise ValueError("not a file answer the builder writes")
        return Hit("file", file=payload)  # type: ignore[arg-type]
    rows = payload[1] if isinstance(payload, list) and len(payload) == 2 else None
    total = payload[0] if isinstance(payload, list) and payload else None
    if not isinstance(rows, list) or not rows or type(total) is not int or total < len(rows):
        raise ValueError("not an index record")
    sites = []
    for row in rows:
        site = _index_site(row)
        if site is None:
            raise ValueError("not a definition the builder writes")
        sites.append(site)
    if call.qualifier:
        # `click.echo`, `Context.invoke`, `Hashie::Mash`, `cobra.Command`: keep
        # the definitions whose scope has the qualifier's parts, in order;
        # none left means the name is not the project's own (`os.Open`).
        wanted = call.qualifier.split(".")
        sites = [site for site in sites if _in_order(wanted, site[5].split(" "))]
        total = len(sites)
    if not sites:
        return None
    return Hit("symbol", sites=sites, total=max(total, len(sites)))


def _in_order(wanted: "list[str]", scope: "list[str]") -> bool:
    """Every part of `wanted` appears in `scope`, in that order."""
    at = 0
    for part in wanted:
        try:
            at = scope.index(part, at) + 1
        except ValueError:
            return False
    return True


# ---------------------------------------------------------------------------
# 7. Decision


def decide(
    call: Call,
    *,
    graph: Graph,
    settings: _Settings,
    opt_out: "Optional[str]",
    agent: "dict[str, object]",
    consulted: "Optional[str]",
    index_state: "Optional[str]" = None,
    hit: "Optional[Hit]" = None,
    advised: bool = False,
) -> "tuple[Optional[str], Optional[str]]":
    """(decision, reason) for one call; docs/telemetry.md gives the vocabulary
    and this order of precedence."""
    if opt_out:
        return "opt_out", opt_out
    if not call.trigger:
        return None, None
    if consulted is not None:
        return "silent", consulted
    if index_state == "current" and hit is None:
        return "silent", "not_in_graph"
    if index_state != "current" and graph.state != "absent":
        return "silent", "no_index"  # nothing certain to say until the index is built
    if settings.mode != _ADVISE:
        return "silent", "telemetry_mode"
    if advised:
        return "silent", "already_advised"
    nudges = agent.get("nudges", 0)
    if not isinstance(nudges, int) or nudges >= settings.cap:
        return "silent", "cap"
    if graph.state == "absent":
        shown = agent.get("shown")
        if isinstance(shown, list) and graph.state in shown:
            return "silent", "shown_once"
    return "nudge", graph.state


def _opt_out(tool_input: object) -> "Optional[str]":
    """The per-call opt-outs: `[skip-graphify-nudge]` in a Bash description (the
    CLI accepts it; proven in tests/e2e/test_e2e_advice.py), and the ADR's
    `metadata.skip_graphify_nudge: true`, which CLI 2.1.197 rejects on Read,
    Grep and Bash but an MCP tool may carry."""
    if not isinstance(tool_input, dict):
        return None
    metadata = tool_input.get("metadata")
    if isinstance(metadata, dict) and metadata.get("skip_graphify_nudge") is True:
        return "metadata"
    description = tool_input.get("description")
    if isinstance(description, str) and OPT_OUT_MARKER in description:
        return "description"
    return None


def _consulted(call: Call, store: Store) -> "Optional[str]":
    if call.kind == "grep" and call.symbol and store.knows("symbols", call.symbol.lower()):
        return "consulted_symbol"
    if call.kind == "read" and call.target and store.knows("files", call.target):
        return "consulted_file"
    return None


def _advised_key(call: Call) -> str:
    """The target an advisory is about: the file read, or the symbol searched."""
    if call.kind == "read":
        return "r:" + (call.target or "")
    return "s:" + (call.qualifier + "." if call.qualifier else "") + (call.symbol or "")


def _lookup_memory(symbols: "tuple[str, ...]", where: _Where) -> "tuple[list[str], list[str]]":
    """What a lookup asked about, as (symbols, files) to remember for the session."""
    names: list[str] = []
    files: list[str] = []
    for symbol in symbols:
        path = symbol.partition("::")[0] if "::" in symbol else symbol
        if _extension(path) in TRIGGER_EXTENSIONS:
            shown, trigger = where.source_file(path)
            if trigger:
                files.append(shown)
        name = symbol.strip().rstrip("()").lower()
        names.append(name)
        for sep in (".", "::", "#", "/"):
            if sep in name:
                names.append(name.rsplit(sep, 1)[-1].rstrip("()"))
    return names, files


def _files_named(output: str, where: _Where) -> "list[str]":
    """Source files a lookup's output names (e.g. `src/app.py:L4`)."""
    found: list[str] = []
    token: list[str] = []
    for char in output[:LOOKUP_OUTPUT_SCAN] + " ":
        if char.isalnum() or char in "_./-@+~$":
            token.append(char)
            continue
        if token:
            text = "".join(token).rstrip(".")
            token = []
            if _extension(text) in TRIGGER_EXTENSIONS:
                shown, trigger = where.source_file(text)
                if trigger and shown not in found:
                    found.append(shown)
    return found


def _response_text(response: object) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        return " ".join(_response_text(v) for v in response.values())
    if isinstance(response, list):
        return " ".join(_response_text(v) for v in response)
    return ""


# ---------------------------------------------------------------------------
# 8. Output
#
# Repository text is data. Every path, name and label an advisory carries comes
# from the repository (a file's name, graph.json, the index built from it) and
# enters the text only through `_quote`; a suggested command carries only
# `_plain` text, in shell quotes (docs/threat_model.md).

#: what repository text may show as itself (an allow-list, docs/threat_model.md):
#: ASCII letters and digits, space, and the marks paths and names are written
#: with (`$` `!` `?` `#` `:` in names and `path:line`, `[slug]` `(group)` `@slot`
#: `+page` `{{name}}` in web frameworks' and templates' paths, `it's.py`).
#: Every other character is escaped: controls, `"` `\` backtick `<` `>`, the
#: shell's `; | & * ^ %` and every non-ASCII one (a letter can look like any
#: mark: U+1438 and U+1433, Canadian Syllabics, read as `<` and `>`).
_SHOWN: "Final" = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$'()+,-./:=?@[]_{}~"
)
QUOTE_CHARS: "Final" = 120  # the longest repository text an advisory quotes whole


def _readable(text: str) -> bool:
    """Whether `_quote` writes `text` as itself: every character one `_SHOWN` allows."""
    return _SHOWN.issuperset(text)


def _plain(text: object) -> bool:
    """Whether repository text can stand in a suggested command as is:
    `_readable` (ASCII letters, digits and the marks `_SHOWN` allows: no
    control character, quote, backslash, backtick, `<`, `>`, shell operator or
    non-ASCII character), at most INDEX_MAX_FIELD characters, and no leading
    `-` (an option to graphify). `shell_quote` does the rest: pasted, the
    command runs graphify alone, with the very argument that resolves. The
    builder stores only such paths and arguments, the hook checks them again on
    read, and no other text is ever written into a command."""
    return (
        isinstance(text, str)
        and 0 < len(text) <= INDEX_MAX_FIELD
        and not text.startswith("-")
        and _readable(text)
    )


def _quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """The one way repository text enters an advisory: bounded, neutralised and
    visibly quoted, on every path (with an index, without one, and whatever the
    builder wrote).

    It stands in double quotes, and a plain path reads as itself
    (`"src/app.py:12"`). Every character `_SHOWN` does not allow is written as
    JSON escapes it (`<` as `\\u003c`, e-acute as `\\u00e9`): no tag, code span,
    escape sequence, line break or look-alike of one survives, and the quotes
    cannot be closed from inside. Text longer than `limit` characters keeps its
    head and tail around an ellipsis.
    """
    if len(text) > limit:
        keep = (limit - 1) // 2
        return '"' + _escaped(text[:keep]) + "\u2026" + _escaped(text[-keep:]) + '"'
    return '"' + _escaped(text) + '"'


def _escaped(text: str) -> str:
    if _readable(text):
        return text
    out = []
    for char in text:
        if char in _SHOWN:
            out.append(char)
            continue
        code = ord(char)
        if code > 0xFFFF:  # as JSON writes it: a surrogate pair
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def shell_quote(text: str) -> str:
    """shlex.quote, always quoting: the advisory shows a command to paste."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


#: the one command that builds a graph on every supported release (0.8.31's
#: `extract` needs an LLM key even with --code-only; docs/versions.md)
_BUILD_COMMAND: "Final" = "graphify update ."


def _command(arg: str, graph: Graph, verb: str = "explain") -> "Optional[str]":
    """`graphify VERB ARG` (with `--graph PATH` when needed), or None when
    ARG or PATH is not `_plain`: no command is better than a mangled one."""
    if not _plain(arg) or (graph.flag and not _plain(graph.display)):
        return None
    command = f"graphify {verb} " + shell_quote(arg)
    if graph.flag:
        command += " --graph " + shell_quote(graph.display)
    return command


def _short(sha: "Optional[str]") -> str:
    return (sha or "")[:7]


def _freshness(graph: Graph) -> str:
    """How the graph relates to HEAD, in the header's words (section 5)."""
    built = _short(graph.built_at) or "an unrecorded commit"
    if graph.head is None:
        return f"built at {built}; HEAD unknown"
    if graph.state == "stale" and graph.stale_by != "file_newer":
        return f"built at {built}; HEAD is now {_short(graph.head)}"
    if graph.built_at and not graph.head.startswith(graph.built_at):
        return f"current at HEAD {_short(graph.head)}, no structural change since {built}"
    return f"current at HEAD {_short(graph.head)}"


def _tally(pairs: "list[list[Any]]") -> str:
    return ", ".join(f"{word} {n}" for word, n in pairs)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _site(path: str, line: int) -> str:
    return _quote(f"{path}:{line}")


def _use(row: "list[Any]", of: str = "") -> str:
    """One `Use:`/`Importer:` line's body: the site, its user, relation and confidence."""
    name = f" uses {_quote(row[5])}" if len(row) > 5 else ""
    return f"{_site(row[0], row[1])} in {_quote(row[2])}{name} ({row[3]}, {row[4]}){of}."


def advisory(call: Call, graph: Graph, hit: "Optional[Hit]" = None) -> "Optional[str]":
    """The advisory the model reads (its format: docs/hook.md, "What the advice
    says"): None when there is nothing certain to say or it cannot fit in
    MAX_ADVISORY_CHARS. Every text from the repository goes through `_quote`,
    every command is `_command`'s. Sets `hit.answered` and `hit.used`."""
    if graph.state == "absent":
        text = (
            f"{MARKER} Graphify has not scanned this project yet (no {_quote(graph.display)}), "
            "so reading the source directly is correct for now. Building the graph is a "
            f"stateful op for Y4NN: `{_BUILD_COMMAND}`, with GRAPHIFY_OUT=.graphify."
        )
        return text if len(text) <= MAX_ADVISORY_CHARS else None
    if hit is None:
        return None
    last = f"This {'Read' if call.kind == 'read' else 'search'} runs as asked."
    if call.via == "Bash":
        last += f" To opt out per call: {OPT_OUT_MARKER} in the Bash description."
    # How much of each part to show, and the order in which they give way when
    # the text is too long: (part, down to): an answer keeps a use line longest.
    if hit.kind == "file":
        show = {"importers": 4, "dependents": 3, "defines": 4, "last": 1, "more": 1, "note": 1}
        shrink = _SHRINK_FILE
    else:
        several = hit.total > 1
        show = {"uses": 3 if several else 5, "definitions": 6, "last": 1, "more": 1, "note": 1}
        shrink = _SHRINK_SYMBOL
    while True:
        text = _answer(call, graph, hit, show, last)
        if len(text) <= MAX_ADVISORY_CHARS:
            return text
        part = next((part for part, floor in shrink if show[part] > floor), None)
        if part is None:
            return None
        show[part] -= 1


#: what gives way first when an answer is too long (docs/hook.md, "Bounded")
_SHRINK_SYMBOL: "tuple[tuple[str, int], ...]" = (
    ("uses", 2), ("definitions", 3), ("last", 0), ("uses", 1), ("more", 0), ("uses", 0),
    ("definitions", 1), ("note", 0),
)  # fmt: skip
_SHRINK_FILE: "tuple[tuple[str, int], ...]" = (
    ("dependents", 1), ("importers", 1), ("last", 0), ("defines", 2), ("more", 0),
    ("dependents", 0), ("importers", 0), ("defines", 1), ("note", 0),
)  # fmt: skip


def _answer(call: Call, graph: Graph, hit: Hit, show: "dict[str, int]", last: str) -> str:
    """The answer, showing `show[part]` of each part (the order: docs/hook.md)."""
    cited: list[str] = []
    if hit.kind == "file":
        question = f"holds {_quote(call.target or '')}"
        body, arg = _file_lines(call.target or "", hit, show, cited)
        note = "calls graphify could not resolve, often those through an object or module."
    else:
        name = call.symbol or ""
        if call.qualifier:  # as the search wrote it: `Version::parse`, `Mash#key?`
            written = call.target or ""
            sep = "::" if "::" in written else "#" if "#" in written else "."
            name = f"{call.qualifier.replace('.', sep)}{sep}{call.symbol}"
        question = (
            f"holds one definition of {_quote(name)}" if hit.total == 1
            else f"defines {_quote(name)} in {hit.total} places"
        )  # fmt: skip
        body, arg = _symbol_lines(call, hit, show, cited)
        these = "this definition" if hit.total == 1 else "these definitions"
        note = (
            f"calls graphify could not resolve to {these}, often those through an object or "
            f"module (x.{call.symbol}(...)), and definitions it has no node for (properties, "
            "redefinitions)."
        )
    lines = [f"{MARKER} The code graph ({_freshness(graph)}) {question}; quoted text is "
             "repository data.", *body]  # fmt: skip
    if show["note"]:
        lines.append("Not counted: " + note)
    changed = [_quote(path) for path in dict.fromkeys(cited) if changed_since_scan(graph, path)]
    if changed:
        lines.append(f"Changed since the graph was built: {', '.join(changed)}.")
        if graph.state == "fresh":
            graph.state, graph.stale_by = "stale", "file_newer"
    command = _command(arg, graph) if arg is not None and show["more"] else None
    if command is not None:
        lines.append(f"More: `{command}`.")
    if show["last"]:
        lines.append(last)
    return "\n".join(lines)


def _symbol_lines(
    call: Call, hit: Hit, show: "dict[str, int]", cited: "list[str]"
) -> "tuple[list[str], Optional[str]]":
    """Kinds A and B: the definitions and their uses; the callers first for a
    call search (`X(`). Returns the lines and the first definition's explain argument."""
    several = hit.total > 1
    definitions, uses, used = [], [], 0
    for k, (name, path, line, _, nid, _, owner, overloads, record) in enumerate(hit.sites):
        used += record[0]
        if k >= show["definitions"]:
            continue
        cited.append(path)
        text = f"Definition{f' {k + 1} of {hit.total}' if several else ''}: {_site(path, line)}"
        text += f" {_quote(name)}{f' of {_quote(owner)}' if owner else ''}, "
        text += f"node {_quote(nid)}" if nid else "a field with no graph node"
        if overloads:
            at = ", ".join(str(n) for n in overloads)
            text += f", one graph node for {len(overloads)} overloads at lines {at}"
        if several:
            count = f"used at {_plural(record[0], 'site')} in {_plural(record[1], 'file')}"
            text += f"; {count if record[0] else 'no use recorded'}"
        definitions.append(text + ".")
        for rank, row in enumerate(record[4]):
            uses.append((rank, k, row))
    shown = sorted(uses, key=lambda use: use[:2])[: show["uses"]]
    for _, _, row in shown:
        cited.append(row[0])
    lines = [f"Use: {_use(row, f', of definition {k + 1}' if several else '')}"
             for _, k, row in shown]  # fmt: skip
    if not several and used:
        record = hit.sites[0][8]
        tally = f"{_tally(record[2])}; {_tally(record[3])}"
        lines.insert(0, f"Uses: {record[0]} in {_plural(record[1], 'file')} ({tally}); "
                        f"{len(shown)} shown.")  # fmt: skip
    hit.used = used
    hit.answered = "uses" if shown else "definitions"
    body = lines + definitions if call.question == "callers" else definitions + lines
    return body, hit.sites[0][3]


def _file_lines(
    path: str, hit: Hit, show: "dict[str, int]", cited: "list[str]"
) -> "tuple[list[str], Optional[str]]":
    """Kind C: what imports the file, what else depends on it, what it defines."""
    arg, importers, dependents, (total, defined) = hit.file or [None, [0], [0], [0, []]]
    cited.append(path)
    lines: list[str] = []
    shown = 0
    for label, record, each, n in (
        ("Importers", importers, "Importer", show["importers"]),
        ("Dependents", dependents, "Use", show["dependents"]),
    ):
        if record[0]:
            rows = record[4][:n]
            lines.append(f"{label}: {record[0]} in {_plural(record[1], 'file')} "
                         f"({_tally(record[2])}); {len(rows)} shown.")  # fmt: skip
            lines += [f"{each}: {_use(row)}" for row in rows]
            cited += [row[0] for row in rows]
            shown += len(rows)
    if total:
        names = ", ".join(f"{_quote(name)} L{line}" for name, line in defined[: show["defines"]])
        more = total - min(len(defined), show["defines"])
        lines.append(f"Defines: {_plural(total, 'symbol')}: {names}"
                     f"{f', and {more} more' if more else ''}.")  # fmt: skip
    hit.used = importers[0] + dependents[0]
    hit.answered = "dependents" if shown else "contents"
    return lines, arg


def _hook_output(context: str) -> str:
    # Only additionalContext: the model reads it as a <system-reminder>. A
    # permissionDecision would skip the user's own permission prompt, and
    # permissionDecisionReason is not shown to the model on "allow".
    return _dumps(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}}
    )


# ---------------------------------------------------------------------------
# 9. Record: telemetry lines and the self-disable budget


def _base(hook: "dict[str, object]", settings: _Settings, event: str) -> "dict[str, object]":
    return {
        "v": SCHEMA_VERSION,
        "ts": round(time.time(), 3),
        "event": event,
        "session": _cut(_str(hook.get("session_id")) or ""),
        "mode": settings.mode,
    }


def _record_call(
    turn: "_Turn", call: Call, index: "Optional[_Index]", hit: "Optional[Hit]",
    *, decision: "Optional[str]", reason: "Optional[str]",
) -> None:  # fmt: skip
    """One `call` line (docs/telemetry.md). `index` is set exactly for a trigger
    that was judged against the graph (section 6 always gives one back)."""
    graph = turn.graph
    judged = index is not None
    turn.record(
        "call",
        kind=call.kind,
        trigger=call.trigger,
        via=call.via,
        target=_cut(call.target, 2 * MAX_FIELD_CHARS),
        symbols=[_cut(s) for s in call.symbols[:16]],
        graph=graph.state if judged else None,
        stale_by=graph.stale_by if judged else None,
        built_at=((graph.built_at or "")[:7] or None) if judged else None,
        decision=decision,
        reason=reason,
        symbol=_cut(call.symbol),
        index=index.state if index is not None else None,
        sites=_sites(index, hit),
        answered=hit.answered if hit is not None and decision == "nudge" else None,
        uses=hit.used if hit is not None and decision == "nudge" else None,
        changed=sum(turn.graph.changed.values()) if decision == "nudge" and hit else None,
    )


def _sites(index: "Optional[_Index]", hit: "Optional[Hit]") -> "Optional[int]":
    """What the index said: definitions of the symbol (a file: 1), 0 when the
    graph holds none, None without a current index."""
    if index is None or index.state != "current":
        return None
    if hit is None:
        return 0
    return hit.total if hit.kind == "symbol" else 1


def _check_budget(turn: "_Turn", started: float, started_cpu: float) -> None:
    """D-009's 200 ms budget, measured as the hook's *own* cost: its CPU time.

    Wall-clock time measures the machine as much as the hook (on a loaded
    2-core box one call stretched past 200 ms silenced a whole session), so
    a slow wall-clock call is only recorded (`slow_call`). Every wait the hook
    can do is bounded by construction (stdin, locks, no process, no blocking
    opens), so CPU time is what the hook itself controls.
    """
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - started_cpu
    if cpu <= BUDGET_SECONDS and elapsed <= BUDGET_SECONDS:
        return
    timing = {"elapsed_ms": round(elapsed * 1000, 1), "cpu_ms": round(cpu * 1000, 1)}
    if cpu > BUDGET_SECONDS:
        turn.store.disable()
        turn.record("self_disable", **timing, message=SELF_DISABLE_MESSAGE)
    else:
        turn.record("slow_call", **timing)


# ---------------------------------------------------------------------------
# 10. The pipeline


class _Turn:
    """One in-scope tool call: its input, the environment, the store, the graph
    in use, and the fields every telemetry line of the call starts with."""

    __slots__ = ("base", "graph", "hook", "identity", "settings", "store", "where")

    def __init__(self, hook: "dict[str, object]", settings: _Settings, store: Store) -> None:
        self.hook = hook
        self.settings = settings
        self.store = store
        self.base = _base(hook, settings, "call")
        agent_type = hook.get("agent_type")
        self.identity: dict[str, object] = {
            "agent_type": _cut(agent_type),
            "agent_id": _cut(self.agent_id),
            "tool": _cut(_str(hook.get("tool_name")) or ""),
            "tool_use_id": _cut(_str(hook.get("tool_use_id"))),
            "agent": agent_name(agent_type),
        }
        self.graph = find_graph(settings, store.root)  # 5: where it is; its state later
        graph_dir = self.graph.path[: self.graph.path.rfind("/")] if self.graph.path else None
        cwd = _absolute(_str(hook.get("cwd")) or ".", store.root)
        self.where = _Where(store.root, cwd, graph_dir)

    @property
    def agent_id(self) -> str:
        """The per-agent key (caps, advised targets): as `agent_id` is recorded."""
        return _str(self.hook.get("agent_id")) or str(self.hook.get("agent_type"))

    def record(self, event: str, **fields: object) -> None:
        self.store.append({**self.base, "event": event, **self.identity, **fields})


def run(
    raw: bytes,
    environ: "Mapping[Any, Any]",
    started: "Optional[float]" = None,
    default_mode: "Optional[str]" = None,
    started_cpu: "Optional[float]" = None,
) -> str:
    """Process one hook input; return what the hook prints (usually nothing).

    `default_mode` is the registered command's `--mode=` value; the
    environment's MISHKAN_GRAPHIFY_NUDGE wins over it. `started` and
    `started_cpu` are perf_counter() and process_time() when the call began
    (default: now). Raises on internal errors; main() is the fail-open wrapper.
    """
    started = time.perf_counter() if started is None else started
    started_cpu = time.process_time() if started_cpu is None else started_cpu
    settings = _Settings(environ, default_mode)
    # Fast exits before any parsing: most calls are the main thread's (no
    # agent fields at all), mode off does nothing but note SessionStart, and
    # only a lookup's PostToolUse matters (skip parsing big tool output).
    if b"SessionStart" not in raw and (settings.mode == _OFF or b'"agent_type"' not in raw):
        return ""
    if b"PostToolUse" in raw and b"PreToolUse" not in raw and b"graphify" not in raw:
        return ""
    hook = _parse(raw)  # 1
    if hook is None:
        return ""
    event = _str(hook.get("hook_event_name"))
    store = Store(settings, _project_root(settings, hook), _str(hook.get("session_id")) or "")  # 2
    try:
        if event == "SessionStart":
            source = _cut(_str(hook.get("source")))
            store.append(
                {
                    **_base(hook, settings, "session_start"),
                    "source": source,
                    "unknown_mode": settings.unknown_mode,
                }
            )
            return ""
        if settings.mode == _OFF or event not in _TOOL_EVENTS:
            return ""
        if not in_scope(hook.get("agent_type")) or store.disabled:  # 3
            return ""
        turn = _Turn(hook, settings, store)
        call = _classify(hook.get("tool_name"), hook.get("tool_input"), turn.where)  # 4
        output = ""
        if event == "PreToolUse":
            output = _pre_tool_use(turn, call)  # 5 to 9
        elif call.kind == "lookup":
            _lookup_result(turn, failed=event == "PostToolUseFailure")
        _check_budget(turn, started, started_cpu)  # 9
        return output
    finally:
        store.close()


def _pre_tool_use(turn: _Turn, call: Call) -> str:
    """Judge one PreToolUse (sections 5 to 9); return at most one advisory."""
    store, graph = turn.store, turn.graph
    opt_out = _opt_out(turn.hook.get("tool_input"))
    judged = call.trigger and not opt_out
    index: Optional[_Index] = None
    hit: Optional[Hit] = None
    if judged:
        graph_state(graph, store.root, store)  # 5
        index, hit = _look_up(store, graph, call)  # 6
    if call.kind == "lookup" or call.trigger:
        store.load_state()
    if call.kind == "lookup":
        names, files = _lookup_memory(call.symbols, turn.where)
        store.remember("symbols", names)
        store.remember("files", files)
    agent = store.agent(turn.agent_id) if call.trigger else {}
    advised = agent.get("advised")
    target_key = _memo(_advised_key(call)) if call.trigger else ""
    decision, reason = decide(  # 7
        call, graph=graph, settings=turn.settings, opt_out=opt_out, agent=agent,
        consulted=_consulted(call, store) if call.trigger else None,
        index_state=index.state if index is not None else None, hit=hit,
        advised=isinstance(advised, list) and target_key in advised,
    )  # fmt: skip
    output = ""
    if decision == "nudge":
        text = advisory(call, graph, hit)  # 8
        reason = graph.state  # a cited file may have changed since the graph was built
        if text is None:
            decision, reason = "silent", "too_long"
        else:
            _count_nudge(agent, graph, target_key)
            store.mark_dirty()
            output = _hook_output(text)
    if not store.save_state() and output:
        output, decision, reason = "", "silent", "unrecorded"  # never nudge what cannot count
    _record_call(turn, call, index, hit, decision=decision, reason=reason)  # 9
    return output


def _look_up(store: Store, graph: Graph, call: Call) -> "tuple[_Index, Optional[Hit]]":
    """Section 6 for one trigger: the index state, and what it holds for the target."""
    index = open_index(store, graph)
    if index.state != "current":
        return index, None
    try:
        return index, _index_hit(index, call)
    except (OSError, ValueError, RecursionError):  # a damaged or foreign record
        index.state = "unreadable"
        return index, None
    finally:
        posix.close(index.fd)


def _count_nudge(agent: "dict[str, object]", graph: Graph, target_key: str) -> None:
    """The nudge accounting: the cap, the once-per-state advisories, the target advised."""
    nudges = agent.get("nudges")
    agent["nudges"] = (nudges if isinstance(nudges, int) else 0) + 1
    if graph.state != "fresh":
        shown = agent.get("shown")
        known = [s for s in shown if isinstance(s, str)] if isinstance(shown, list) else []
        agent["shown"] = [*known[-4:], graph.state]
    advised = agent.get("advised")
    known = [a for a in advised if isinstance(a, str)] if isinstance(advised, list) else []
    agent["advised"] = [*known, target_key][-MAX_ADVISED:]


#: graphify's answer when `explain` matches no node (`query`: "No matching nodes found.")
_NOTHING_FOUND: "Final" = ("No node matching", "No matching nodes found")


def _lookup_result(turn: _Turn, failed: bool) -> None:
    """A lookup finished (PostToolUse) or exited non-zero (PostToolUseFailure,
    whose `error` holds "Exit code N" and the output): remember the files it named."""
    hook = turn.hook
    text = (_str(hook.get("error")) or "") if failed else _response_text(hook.get("tool_response"))
    # graphify before 0.9.86 (0.8.31, D-008's) prints "No node matching" and exits 0:
    # the CLI fires PostToolUse, not PostToolUseFailure, for a lookup that found nothing
    failed = failed or text.lstrip().startswith(_NOTHING_FOUND)
    files = _files_named(text, turn.where)
    exit_code: Optional[int] = None
    if failed and text.startswith("Exit code "):
        digits = text[10:].split("\n", 1)[0].strip()
        exit_code = int(digits) if digits.isdigit() and len(digits) < 6 else None
    if files:
        turn.store.load_state()
        turn.store.remember("files", files)
        turn.store.save_state()
    turn.record("lookup_result", files=len(files), failed=failed, exit_code=exit_code)


def guarded_run(
    raw: bytes,
    environ: "Mapping[Any, Any]",
    started: "Optional[float]" = None,
    default_mode: "Optional[str]" = None,
    started_cpu: "Optional[float]" = None,
) -> str:
    """`run` behind the fail-open contract: any error means no output at all."""
    try:
        return run(raw, environ, started, default_mode, started_cpu)
    except BaseException:
        return ""


def _argv_mode(argv: "list[str]") -> "Optional[str]":
    """The `--mode=VALUE` argument of the registered command, if any."""
    for arg in argv[1:]:
        if arg.startswith("--mode="):
            return arg[7:]
    return None


def main() -> "NoReturn":
    """Entry point: prints at most the advisory, then exits 0, whatever happens.

    It ends with ``posix._exit(0)``: every byte was already written with
    unbuffered ``write(2)``, and skipping interpreter finalisation saves more
    than importing this module costs (bench/). Call ``run`` in-process instead.
    """
    try:
        output = guarded_run(
            _read_stdin(), posix.environ, _STARTED, _argv_mode(sys.argv), _STARTED_CPU
        )
        if output:
            posix.write(1, output.encode("ascii") + b"\n")
    except BaseException:  # fail open: a closed stdout, a signal, anything
        pass
    finally:
        posix._exit(0)


if __name__ == "__main__":
    main()
