"""graphify-nudge: the D-009 graph-first hook for Claude Code.

For the five code-writing subagents (Hizkiah, Salma, Oholiab, Nathan, Zadok),
notice a Read, Grep or Bash search that looks like a structural question,
record it, and (in mode ``advise``) add one factual line of context naming the
``graphify`` command that answers it from the code graph. It never blocks,
never answers the permission question, and fails open: whatever happens it
exits 0 and prints nothing that could change the tool call.

Register it for PreToolUse and PostToolUse (matcher ``*``) and SessionStart;
the README shows the exact settings.json block. The file reads top to bottom
as the pipeline it runs:

    parse -> scope -> trigger -> graph state -> decision -> output and telemetry

Import discipline. This runs as a fresh interpreter on every tool call, so
start-up *is* the cost. Under ``python3 -I -S`` only ``sys``, ``posix``,
``time`` and ``_io`` are loaded; importing ``os`` adds ~20% to a bare start,
``re`` ~85% and ``json`` ~100% (bench/). So this file uses ``posix`` directly,
the C accelerator ``_json`` (loaded only once a call is in scope), and small
hand-written helpers instead of ``os.path``, ``re``, ``shlex`` and ``json``.
``zlib`` is imported only on the rare path that reads a git object.

Telemetry schema: docs/telemetry.md (version 1).
"""

import posix
import sys
import time

_STARTED = time.perf_counter()

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final, NoReturn, Optional

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
GRAPHIFY_DEFAULT_GRAPH: "Final" = "graphify-out/graph.json"  # what `graphify` reads unflagged
SELF_DISABLE_MESSAGE: "Final" = "graphify nudge self-disabled: budget exceeded"
MARKER: "Final" = "[graphify-nudge]"
MAX_ADVISORY_BYTES: "Final" = 400
BUDGET_SECONDS: "Final" = 0.200
DEFAULT_CAP: "Final" = 3
MAX_STDIN: "Final" = 16 * 1024 * 1024
GRAPH_TAIL_BYTES: "Final" = 512
MAX_REMEMBERED: "Final" = 256  # symbols and files remembered per session
LOOKUP_OUTPUT_SCAN: "Final" = 64 * 1024

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

_ADVISE, _TELEMETRY, _OFF = "advise", "telemetry", "off"


# ---------------------------------------------------------------------------
# Small path and JSON helpers (os.path and json cost more than the whole hook)


def _norm(path: str) -> str:
    """Lexical normpath for absolute POSIX paths."""
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
    """`path` relative to `root`, or None when it lies outside."""
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
    unless `trailing_ok` (a state file rewritten in place may keep old bytes)."""
    import _json

    text = text.strip(" \t\r\n")
    value, end = _json.make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    if end != len(text) and not trailing_ok:
        raise ValueError("trailing data")
    return value


def _dumps(value: object) -> str:
    """Compact, ASCII-only json.dumps for the plain values this hook writes."""
    import _json

    if isinstance(value, str):
        return str(_json.encode_basestring_ascii(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        items = [_dumps(str(key)) + ":" + _dumps(item) for key, item in value.items()]
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dumps(item) for item in value) + "]"
    return _dumps(str(value))


def _read_file(path: str, limit: int = 1 << 20) -> "Optional[bytes]":
    try:
        fd = posix.open(path, posix.O_RDONLY | posix.O_CLOEXEC)
    except OSError:
        return None
    try:
        return posix.read(fd, limit)
    except OSError:
        return None
    finally:
        posix.close(fd)


def _read_text(path: str) -> "Optional[str]":
    data = _read_file(path, 1 << 16)
    return None if data is None else data.decode("utf-8", "replace").strip()


def _mtime(path: str) -> "Optional[float]":
    try:
        return posix.stat(path).st_mtime
    except (OSError, ValueError):
        return None


def _is_dir(path: str) -> bool:
    try:
        return posix.stat(path).st_mode & 0o170000 == 0o040000
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------------------
# 1. Parse


def _read_stdin() -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = posix.read(0, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_STDIN:
            return b""  # not a hook input we can afford; stay out of the way
        chunks.append(chunk)


def _parse(raw: bytes) -> "Optional[dict[str, object]]":
    try:
        value = _loads(raw.decode("utf-8"))
    except (ValueError, StopIteration, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _str(value: object) -> "Optional[str]":
    return value if isinstance(value, str) else None


class _Settings:
    """The environment, read once."""

    def __init__(
        self, environ: "Mapping[bytes, bytes]", default_mode: "Optional[str]" = None
    ) -> None:
        def get(name: str) -> "Optional[str]":
            value = environ.get(name.encode())
            return value.decode("utf-8", "replace") if value is not None else None

        # The installed mode arrives as `--mode=` on the registered command, a
        # default that an exported MISHKAN_GRAPHIFY_NUDGE overrides: settings.json
        # `env` would override the user's shell, so install never writes it.
        mode = (get("MISHKAN_GRAPHIFY_NUDGE") or default_mode or "").strip().lower()
        # Anything unrecognised means the ADR's phase-1 default, never "advise".
        self.mode = mode if mode in (_ADVISE, _OFF) else _TELEMETRY
        cap = (get("MISHKAN_GRAPHIFY_NUDGE_CAP") or "").strip()
        self.cap = int(cap) if cap.isdigit() and cap.isascii() else DEFAULT_CAP
        self.telemetry_dir = get("MISHKAN_TELEMETRY_DIR")
        self.graph = get("MISHKAN_GRAPHIFY_GRAPH")
        self.graphify_out = get("GRAPHIFY_OUT")
        self.project_dir = get("CLAUDE_PROJECT_DIR")


# ---------------------------------------------------------------------------
# 2. Scope


def in_scope(agent_type: object) -> bool:
    """D-009 scope: exactly the five code-writing specialists. A plugin's agent
    arrives as `<plugin>:<name>` (CLI 2.1.197) and is the same agent."""
    if not isinstance(agent_type, str):
        return False
    return agent_type.strip().lower().rpartition(":")[2] in SCOPE_AGENTS


# ---------------------------------------------------------------------------
# 3. Trigger: what kind of call is this?


class Call:
    """A tool call, classified. See docs/telemetry.md, "Kinds"."""

    __slots__ = ("kind", "symbols", "target", "trigger", "via")

    def __init__(
        self,
        kind: str = "other",
        trigger: bool = False,
        via: "Optional[str]" = None,
        target: "Optional[str]" = None,
        symbols: "tuple[str, ...]" = (),
    ) -> None:
        self.kind = kind
        self.trigger = trigger
        self.via = via
        self.target = target
        self.symbols = symbols

    def __repr__(self) -> str:
        return (
            f"Call(kind={self.kind!r}, trigger={self.trigger!r}, via={self.via!r}, "
            f"target={self.target!r}, symbols={self.symbols!r})"
        )


_OTHER: "Final" = Call()


class _Where:
    """Where paths are resolved and which ones can be triggers."""

    def __init__(self, root: str, cwd: str, graph_dir: "Optional[str]") -> None:
        self.root = root
        self.cwd = cwd
        excluded = [".git", ".graphify", "graphify-out"]
        if graph_dir is not None:
            rel = _relative_to(graph_dir, root)
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
        trigger = _is_bare_identifier(pattern) and tool_input.get("multiline") is not True
        return Call("grep", trigger, "Grep", pattern)
    if tool_name == "Bash":
        command = _str(tool_input.get("command"))
        return _classify_bash(command, where) if command else _OTHER
    return _OTHER


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
        if char.isalnum() or char == "_" or (char in ".:/-" and word):
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
    trigger = len(patterns) == 1 and _is_bare_identifier(pattern)
    if tool in ("grep", "egrep", "fgrep") and not (operands or fed_files or flags & _RECURSIVE):
        trigger = False  # `... | grep test` filters a pipe; it searches no code
    return Call("grep", trigger, "Bash", pattern)


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
# 4. Graph state


class Graph:
    """Where the graph is and how it relates to HEAD."""

    __slots__ = ("built_at", "display", "head", "mtime", "path", "stale_by", "state")

    def __init__(self) -> None:
        self.path: Optional[str] = None  # absolute path of graph.json, if it exists
        self.display = ".graphify/graph.json"  # how to name it in the advisory
        self.mtime: Optional[float] = None
        self.built_at: Optional[str] = None  # full sha from graph.json
        self.head: Optional[str] = None
        self.state = "absent"
        self.stale_by: Optional[str] = None


def _graph_candidates(settings: _Settings, root: str) -> "list[str]":
    candidates: list[str] = []
    if settings.graph:
        candidates.append(_absolute(settings.graph, root))
    if settings.graphify_out:
        candidates.append(_absolute(settings.graphify_out.rstrip("/") + "/graph.json", root))
    candidates.extend(root + "/" + rel for rel in GRAPH_CANDIDATES)
    return candidates


def find_graph(settings: _Settings, root: str) -> Graph:
    graph = Graph()
    candidates = _graph_candidates(settings, root)
    for candidate in candidates:
        mtime = _mtime(candidate)
        if mtime is not None:
            graph.path, graph.mtime = candidate, mtime
            break
    shown = graph.path or candidates[0]
    graph.display = _relative_to(shown, root) or shown
    return graph


def _built_at_commit(path: str) -> "Optional[str]":
    """The `built_at_commit` sha from the tail of graph.json, without parsing the rest."""
    try:
        fd = posix.open(path, posix.O_RDONLY | posix.O_CLOEXEC)
    except OSError:
        return None
    try:
        size = posix.fstat(fd).st_size
        posix.lseek(fd, max(0, size - GRAPH_TAIL_BYTES), 0)
        tail = posix.read(fd, GRAPH_TAIL_BYTES)
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


def _git_dirs(root: str) -> "Optional[tuple[str, str]]":
    """(git dir, common dir) for the repository containing `root`, or None."""
    path = root
    for _ in range(64):
        dot_git = path.rstrip("/") + "/.git"
        if _is_dir(dot_git):
            git_dir = dot_git
            break
        text = _read_text(dot_git)
        if text is not None and text.startswith("gitdir:"):
            git_dir = _absolute(text[7:].strip(), path)  # a worktree or submodule
            break
        if path == "/":
            return None
        path = path[: path.rfind("/")] or "/"
    else:
        return None
    common = _read_text(git_dir + "/commondir")
    return git_dir, _absolute(common, git_dir) if common else git_dir


def resolve_head(root: str) -> "Optional[str]":
    """HEAD's full sha without spawning git: loose refs, packed-refs, detached
    HEAD and worktrees (`.git` file plus `commondir`). None when unknown."""
    dirs = _git_dirs(root)
    if dirs is None:
        return None
    git_dir, common = dirs
    text = _read_text(git_dir + "/HEAD")
    for _ in range(5):  # symbolic refs may chain
        if text is None:
            return None
        if not text.startswith("ref:"):
            return text.lower() if _is_hex_sha(text.lower()) else None
        ref = text[4:].strip()
        text = _read_text(git_dir + "/" + ref)
        if text is None and common != git_dir:
            text = _read_text(common + "/" + ref)
        if text is None:
            return _packed_ref(common, ref)
    return None


def _packed_ref(common: str, ref: str) -> "Optional[str]":
    data = _read_file(common + "/packed-refs", 64 << 20)
    if not data:
        return None
    needle = b" " + ref.encode() + b"\n"
    at = (data if data.endswith(b"\n") else data + b"\n").find(needle)
    if at < 0:
        return None
    start = data.rfind(b"\n", 0, at) + 1
    sha = data[start:at].decode("ascii", "replace").lower()
    return sha if _is_hex_sha(sha) else None


def _commit_time(root: str, sha: str) -> "Optional[float]":
    """Committer time of `sha`: from its loose object, else from `git show`."""
    dirs = _git_dirs(root)
    if dirs is not None:
        data = _read_file(f"{dirs[1]}/objects/{sha[:2]}/{sha[2:]}")
        if data:
            try:
                import zlib

                header = zlib.decompressobj().decompress(data, 8192)
                at = header.find(b"\ncommitter ")
                if header.startswith(b"commit ") and at > 0:
                    line = header[at + 1 : header.find(b"\n", at + 1)]
                    return float(line.rsplit(b" ", 2)[-2])
            except Exception:
                pass
    out = _spawn(["git", "--no-optional-locks", "-C", root, "show", "-s", "--format=%ct", sha])
    try:
        return float(out) if out else None
    except ValueError:
        return None


def _spawn(argv: "list[str]") -> "Optional[str]":
    """Run a command, return its stdout (rare path: a packed commit object)."""
    try:
        read_fd, write_fd = posix.pipe()
    except OSError:
        return None
    try:
        pid = posix.posix_spawnp(
            argv[0],
            argv,
            posix.environ,
            file_actions=[
                (posix.POSIX_SPAWN_DUP2, write_fd, 1),
                (posix.POSIX_SPAWN_OPEN, 0, "/dev/null", posix.O_RDONLY, 0),
                (posix.POSIX_SPAWN_OPEN, 2, "/dev/null", posix.O_WRONLY, 0),
            ],
        )
    except OSError:
        posix.close(read_fd)
        posix.close(write_fd)
        return None
    posix.close(write_fd)
    chunks = []
    try:
        while True:
            chunk = posix.read(read_fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        posix.close(read_fd)
        posix.waitpid(pid, 0)
    return b"".join(chunks).decode("ascii", "replace").strip()


def graph_state(graph: Graph, root: str, store: "Store", read_file: "Optional[str]") -> None:
    """Fill in graph.state: absent, stale (by commit, commit time or file) or fresh."""
    if graph.path is None or graph.mtime is None:
        return
    graph.state = "fresh"
    graph.built_at = _built_at_commit(graph.path)
    graph.head = resolve_head(root)
    if graph.head is not None:
        if graph.built_at is not None:
            if not graph.head.startswith(graph.built_at):
                graph.state, graph.stale_by = "stale", "commit"
        else:
            committed = store.commit_time(graph.head, root)
            if committed is not None and graph.mtime < committed:
                graph.state, graph.stale_by = "stale", "commit_time"
    if graph.state == "fresh" and read_file is not None:
        changed = _mtime(_absolute(read_file, root))
        if changed is not None and changed > graph.mtime:
            graph.state, graph.stale_by = "stale", "file_newer"


# ---------------------------------------------------------------------------
# Session state and telemetry files (only ever inside the telemetry directory)


def session_file_name(session_id: str) -> str:
    """A file-name-safe, collision-free form of a session id (docs/telemetry.md)."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in session_id)
    safe = safe[:96]
    if safe != session_id or not safe:
        digest = 0xCBF29CE484222325  # 64-bit FNV-1a
        for byte in session_id.encode("utf-8", "surrogatepass"):
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        safe = (safe or "unknown") + "-" + format(digest & 0xFFFFFFFF, "08x")
    return safe


def _makedirs(path: str) -> None:
    parts = path.split("/")
    for i in range(2, len(parts) + 1):
        partial = "/".join(parts[:i])
        if partial and not _is_dir(partial):
            try:
                posix.mkdir(partial, 0o700)
            except FileExistsError:
                pass


_WRITE_FLAGS: "Final" = posix.O_WRONLY | posix.O_CREAT | posix.O_NOFOLLOW | posix.O_CLOEXEC


def _open_for_write(path: str, flags: int) -> int:
    """Open for writing, creating the parent directories on first use only."""
    try:
        return posix.open(path, flags, 0o600)
    except FileNotFoundError:
        _makedirs(path[: path.rfind("/")])
        return posix.open(path, flags, 0o600)


class Store:
    """The telemetry directory: event log, per-session state, commit-time cache."""

    def __init__(self, directory: str, session_id: str) -> None:
        self.directory = directory
        self.name = session_file_name(session_id)
        self.state_dir = directory + "/.state"
        self._state: Optional[dict[str, object]] = None
        self._dirty = False

    # -- the event log --

    def append(self, record: "dict[str, object]") -> None:
        """Append one event; a read-only or full disk loses the event, nothing else."""
        line = (_dumps(record) + "\n").encode("ascii")
        try:
            fd = _open_for_write(
                f"{self.directory}/{self.name}.jsonl", _WRITE_FLAGS | posix.O_APPEND
            )
            try:
                posix.write(fd, line)  # one write(2) under O_APPEND: lines never interleave
            finally:
                posix.close(fd)
        except OSError:
            pass

    # -- small JSON state files, rewritten in place --
    #
    # Not temp-file-and-rename: on ext4 a rename over an existing file flushes
    # the new file's data to disk (auto_da_alloc), 3 ms a call, measured. The
    # state is rewritten from offset 0 in one pwrite(2), then truncated; the
    # reader takes the first JSON value and ignores leftover bytes. A read torn
    # by a concurrent writer of the same session parses as nothing, which
    # costs at most one extra nudge (fail open), never a wrong output.

    def _load(self, path: str) -> "dict[str, object]":
        data = _read_file(path)
        if data:
            try:
                value = _loads(data.decode("utf-8"), trailing_ok=True)
                if isinstance(value, dict):
                    return value
            except (ValueError, StopIteration, UnicodeDecodeError, RecursionError):
                pass
        return {}

    def _save(self, path: str, value: "dict[str, object]") -> None:
        data = _dumps(value).encode("ascii")
        fd = _open_for_write(path, _WRITE_FLAGS)
        try:
            posix.pwrite(fd, data, 0)
            posix.ftruncate(fd, len(data))
        finally:
            posix.close(fd)

    @property
    def state(self) -> "dict[str, object]":
        if self._state is None:
            self._state = self._load(f"{self.state_dir}/{self.name}.json")
        return self._state

    def remembered(self, key: str) -> "list[str]":
        value = self.state.get(key)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def remember(self, key: str, values: "list[str]") -> None:
        known = self.remembered(key)
        fresh = [v for v in values if v not in known]
        if fresh:
            self.state[key] = (known + fresh)[-MAX_REMEMBERED:]
            self._dirty = True

    def agent(self, agent_key: str) -> "dict[str, object]":
        agents = self.state.setdefault("agents", {})
        if not isinstance(agents, dict):
            agents = self.state["agents"] = {}
        entry = agents.setdefault(agent_key, {})
        if not isinstance(entry, dict):
            entry = agents[agent_key] = {}
        return entry

    def mark_dirty(self) -> None:
        self._dirty = True

    def flush(self) -> None:
        if self._dirty and self._state is not None:
            try:
                self._save(f"{self.state_dir}/{self.name}.json", self._state)
            except OSError:
                pass
            self._dirty = False

    # -- the self-disable marker: a stat, so every call can afford to check it --

    @property
    def disabled(self) -> bool:
        return _mtime(f"{self.state_dir}/{self.name}.disabled") is not None

    def disable(self) -> None:
        try:
            posix.close(_open_for_write(f"{self.state_dir}/{self.name}.disabled", _WRITE_FLAGS))
        except OSError:
            pass

    # -- HEAD commit times, computed lazily and cached per sha, project-wide --

    def commit_time(self, sha: str, root: str) -> "Optional[float]":
        path = f"{self.state_dir}/commit-times.json"
        cache = self._load(path)
        cached = cache.get(sha)
        if isinstance(cached, (int, float)):
            return float(cached)
        value = _commit_time(root, sha)
        if value is not None:
            cache[sha] = value
            keep = list(cache.items())[-32:]
            try:
                self._save(path, dict(keep))
            except OSError:
                pass
        return value


# ---------------------------------------------------------------------------
# 5. Decision


def decide(
    call: Call,
    *,
    graph: Graph,
    settings: _Settings,
    opt_out: bool,
    agent: "dict[str, object]",
    consulted: "Optional[str]",
) -> "tuple[Optional[str], Optional[str]]":
    """(decision, reason) for one call; see docs/telemetry.md for the vocabulary."""
    if opt_out:
        return "opt_out", "metadata"
    if not call.trigger:
        return None, None
    if consulted is not None:
        return "silent", consulted
    if settings.mode != _ADVISE:
        return "silent", "telemetry_mode"
    nudges = agent.get("nudges", 0)
    if not isinstance(nudges, int) or nudges >= settings.cap:
        return "silent", "cap"
    if graph.state != "fresh":
        shown = agent.get("shown")
        if isinstance(shown, list) and graph.state in shown:
            return "silent", "shown_once"
    return "nudge", graph.state


def _consulted(call: Call, store: Store) -> "Optional[str]":
    if call.kind == "grep" and (call.target or "").lower() in store.remembered("symbols"):
        return "consulted_symbol"
    if call.kind == "read" and call.target in store.remembered("files"):
        return "consulted_file"
    return None


def _lookup_memory(symbols: "tuple[str, ...]", where: _Where) -> "tuple[list[str], list[str]]":
    """What a lookup asked about, as (symbols, files) to remember for the session."""
    names: list[str] = []
    files: list[str] = []
    for symbol in symbols:
        if _extension(symbol) in TRIGGER_EXTENSIONS:
            shown, trigger = where.source_file(symbol)
            if trigger:
                files.append(shown)
        name = symbol.strip().rstrip("()").lower()
        names.append(name)
        for sep in (".", "::", "#", "/"):
            if sep in name:
                names.append(name.rsplit(sep, 1)[-1])
    return names, files


def _files_named(output: str, where: _Where) -> "list[str]":
    """Source files a lookup's output names (e.g. `src/app.py:L4`)."""
    found: list[str] = []
    token: list[str] = []
    for char in output[:LOOKUP_OUTPUT_SCAN] + " ":
        if char.isalnum() or char in "_./-@+~":
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
# 6. Output


def shell_quote(text: str) -> str:
    """shlex.quote, always quoting: the advisory shows a command to paste."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _suggestion(call: Call, graph: Graph) -> str:
    subject = call.target or ""
    command = "graphify explain " + shell_quote(subject)
    if graph.display != GRAPHIFY_DEFAULT_GRAPH:
        command += " --graph " + shell_quote(graph.display)
    return command


def _short(sha: "Optional[str]") -> str:
    return (sha or "")[:7]


def advisory(call: Call, graph: Graph) -> "Optional[str]":
    """The one factual paragraph the model reads; None if it cannot fit."""
    subject = call.target or ""
    action = "This Read runs as asked" if call.kind == "read" else "This search runs as asked"
    if graph.state == "absent":
        text = (
            f"{MARKER} Graphify has not scanned this project yet (no {graph.display}), so "
            "reading the source directly is correct for now. Building the graph is a stateful "
            "op for Y4NN: `GRAPHIFY_OUT=.graphify graphify extract . --code-only`."
        )
    elif graph.stale_by == "file_newer":
        text = (
            f"{MARKER} {subject} changed after the code graph was built, so the graph may be "
            "stale for it and the file itself is the reliable source. For its unchanged "
            f"callers and callees: `{_suggestion(call, graph)}`."
        )
    elif graph.state == "stale":
        since = _short(graph.built_at) if graph.built_at else _short(graph.head)
        built = (
            f"was built at {since}; HEAD is now {_short(graph.head)}"
            if graph.built_at
            else f"is older than the latest commit on HEAD ({since})"
        )
        text = (
            f"{MARKER} The code graph {built}, so structural answers may be stale: Read and "
            f"cite file:line for changes after {since}. For code unchanged since then: "
            f"`{_suggestion(call, graph)}`."
        )
    else:
        what = "callers, callees and file:line" if call.kind == "grep" else "imports and dependents"
        text = (
            f"{MARKER} The code graph is current (HEAD {_short(graph.head) or 'unknown'}) and "
            f"answers structural questions about {subject} ({what}) in one call: "
            f"`{_suggestion(call, graph)}`. {action}; metadata.skip_graphify_nudge=true "
            "marks a semantic query."
        )
        if len(text.encode()) > MAX_ADVISORY_BYTES:
            text = f"{MARKER} The code graph is current: `{_suggestion(call, graph)}`."
    return text if len(text.encode()) <= MAX_ADVISORY_BYTES else None


def _hook_output(context: str) -> str:
    # Only additionalContext: the model reads it as a <system-reminder>. A
    # permissionDecision would skip the user's own permission prompt, and
    # permissionDecisionReason is not shown to the model on "allow".
    return _dumps(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}}
    )


# ---------------------------------------------------------------------------
# The pipeline


def run(
    raw: bytes,
    environ: "Mapping[bytes, bytes]",
    started: "Optional[float]" = None,
    default_mode: "Optional[str]" = None,
) -> str:
    """Process one hook input; return what the hook prints (usually nothing).

    `default_mode` is the registered command's `--mode=` value; the
    environment's MISHKAN_GRAPHIFY_NUDGE wins over it. Raises on internal
    errors; main() is the fail-open wrapper.
    """
    started = time.perf_counter() if started is None else started
    settings = _Settings(environ, default_mode)
    is_session_start = b"SessionStart" in raw
    # Fast exits before any parsing: most calls are the main thread's (no
    # agent fields at all), and mode off does nothing but note SessionStart.
    if not is_session_start and (settings.mode == _OFF or b'"agent_type"' not in raw):
        return ""
    if b"PostToolUse" in raw and b"PreToolUse" not in raw and b"graphify" not in raw:
        return ""  # only a lookup's PostToolUse matters; skip parsing big tool output

    # 1. parse
    hook = _parse(raw)
    if hook is None:
        return ""
    event = hook.get("hook_event_name")
    session = _str(hook.get("session_id")) or ""
    cwd = _str(hook.get("cwd"))
    root_text = settings.project_dir or cwd or posix.getcwd()
    root = _absolute(root_text, posix.getcwd())
    directory = _absolute(settings.telemetry_dir or DEFAULT_TELEMETRY_DIR, root)
    store = Store(directory, session)
    base: dict[str, object] = {
        "v": SCHEMA_VERSION,
        "ts": round(time.time(), 3),
        "event": "",
        "session": session,
        "mode": settings.mode,
    }

    if event == "SessionStart":
        base["event"] = "session_start"
        base["source"] = _str(hook.get("source"))
        store.append(base)
        return ""
    if settings.mode == _OFF or event not in ("PreToolUse", "PostToolUse"):
        return ""

    # 2. scope
    agent_type = hook.get("agent_type")
    if not in_scope(agent_type) or store.disabled:
        return ""
    agent_id = _str(hook.get("agent_id")) or str(agent_type)
    tool = _str(hook.get("tool_name")) or ""
    tool_input = hook.get("tool_input")
    identity: dict[str, object] = {
        "agent_type": agent_type,
        "agent_id": agent_id,
        "tool": tool,
        "tool_use_id": _str(hook.get("tool_use_id")),
    }

    # 3. trigger
    graph = find_graph(settings, root)
    graph_dir = graph.path[: graph.path.rfind("/")] if graph.path else None
    where = _Where(root, _absolute(cwd or ".", root), graph_dir)
    call = _classify(tool, tool_input, where)
    output = ""

    if event == "PostToolUse":
        if call.kind == "lookup":
            files = _files_named(_response_text(hook.get("tool_response")), where)
            store.remember("files", files)
            store.append({**base, "event": "lookup_result", **identity, "files": len(files)})
    else:
        metadata = tool_input.get("metadata") if isinstance(tool_input, dict) else None
        opt_out = isinstance(metadata, dict) and metadata.get("skip_graphify_nudge") is True
        if call.kind == "lookup":
            names, files = _lookup_memory(call.symbols, where)
            store.remember("symbols", names)
            store.remember("files", files)

        # 4. graph state (only triggers pay for it)
        if call.trigger and not opt_out:
            read_file = call.target if call.kind == "read" else None
            graph_state(graph, root, store, read_file)

        # 5. decision
        agent = store.agent(agent_id) if call.trigger else {}
        consulted = _consulted(call, store) if call.trigger else None
        decision, reason = decide(
            call, graph=graph, settings=settings, opt_out=opt_out, agent=agent, consulted=consulted
        )
        if decision == "nudge":
            text = advisory(call, graph)
            if text is None:
                decision, reason = "silent", "too_long"
            else:
                output = _hook_output(text)
                nudges = agent.get("nudges")
                agent["nudges"] = (nudges if isinstance(nudges, int) else 0) + 1
                if graph.state != "fresh":
                    shown = agent.get("shown")
                    agent["shown"] = (shown if isinstance(shown, list) else []) + [graph.state]
                store.mark_dirty()

        # 6. telemetry
        trigger = call.trigger
        store.append(
            {
                **base,
                "event": "call",
                **identity,
                "kind": call.kind,
                "trigger": trigger,
                "via": call.via,
                "target": call.target,
                "symbols": list(call.symbols),
                "graph": graph.state if trigger and not opt_out else None,
                "stale_by": graph.stale_by if trigger else None,
                "built_at": (graph.built_at or "")[:7] or None if trigger else None,
                "decision": decision,
                "reason": reason,
            }
        )
    store.flush()

    elapsed = time.perf_counter() - started
    if elapsed > BUDGET_SECONDS:
        store.disable()
        store.append(
            {
                **base,
                "event": "self_disable",
                "agent_type": agent_type,
                "agent_id": agent_id,
                "elapsed_ms": round(elapsed * 1000, 1),
                "message": SELF_DISABLE_MESSAGE,
            }
        )
    return output


def guarded_run(
    raw: bytes,
    environ: "Mapping[bytes, bytes]",
    started: "Optional[float]" = None,
    default_mode: "Optional[str]" = None,
) -> str:
    """`run` behind the fail-open contract: any error means no output at all."""
    try:
        return run(raw, environ, started, default_mode)
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
        output = guarded_run(_read_stdin(), posix.environ, _STARTED, _argv_mode(sys.argv))
        if output:
            posix.write(1, output.encode("ascii") + b"\n")
    except BaseException:  # fail open: a closed stdout, a signal, anything
        pass
    finally:
        posix._exit(0)


if __name__ == "__main__":
    main()
