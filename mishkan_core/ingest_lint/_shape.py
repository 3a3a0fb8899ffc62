"""Line-shape features shared by detectors: code references, locations, code lines.

Everything here is about the *shape* of text (which characters, which token
kinds, in what proportion), never about particular names or strings.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter
from typing import Callable

from mishkan_core.ingest_lint._model import Block

# A token that reads as a code symbol rather than a word: qualified (a.b, a::b,
# a#b), called (f()), snake_case, dunder/underscore-led, or camelCase with an
# inner capital. Plain words ("Parser", "session") do not match. Every branch but
# the called one ends in a greedy run of word characters, so only that one needs
# the "no word character next" check (a check after the greedy runs would make
# a failed search quadratic).
CODE_REF = re.compile(
    r"(?<![\w$])(?:"
    r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$~][\w$]*)+(?:\(\)(?![\w$]))?"
    r"|\.?[A-Za-z_$][\w$]*\(\)(?![\w$])"
    r"|[A-Za-z$][A-Za-z0-9$]*_[\w$]*"
    r"|_[\w$]+"
    r"|[a-z][a-z0-9]*[A-Z][\w$]*"
    r"|[A-Z][a-z0-9]+[A-Z][\w$]*"
    r")"
)

# Frames of a stack trace and compiler diagnostics also carry locations, but
# they are accepted content (a stack trace in a postmortem), so they do not count.
_DIAGNOSTIC_START = re.compile(  # (speed: see line_led)
    r"\s*(?!\s)(?:at\s|File\s\"|#\d+\s|\d+:\s+0x|Caused by|Traceback|-->\s|from\s\S+:\d+:in\s)"
)
_DIAGNOSTIC_WORD = re.compile(
    r"\b(?:error|warning|panicked|FAILED|FAIL|Error|Exception|failed|goroutine)\b|\+0x[0-9a-f]+"
)


def is_diagnostic(line: str, *, words: bool = True) -> bool:
    """A frame of a stack trace or a compiler diagnostic: "at f (a.js:1:2)",
    'File "a.py", line 3', "error[E0308]: ...", "main.go:12 +0x1d". ``words=False``
    says the line holds no piece of a diagnostic's words (``diagnostic_pieces`` of
    its block said so, once for all its lines)."""
    if _DIAGNOSTIC_START.match(line):
        return True
    return words and diagnostic_pieces(line) and _DIAGNOSTIC_WORD.search(line) is not None


def diagnostic_pieces(text: str) -> bool:
    """Does ``text`` hold a piece of one of _DIAGNOSTIC_WORD's words? That pattern has
    no literal to scan for, so the engine tries it at every character: it runs only
    where this cheap test says it can match."""
    return (
        "rror" in text
        or "arning" in text
        or "xception" in text
        or "ailed" in text
        or "FAIL" in text
        or "anicked" in text
        or "goroutine" in text
        or "+0x" in text
    )


# A frame of a native stack trace (valgrind, gdb, lldb, sanitizers): tool output quoted
# in a postmortem, not source code.
_FRAME = re.compile(r"(?:\b(?:at|by|in)|#\d+)\s+0x[0-9A-Fa-f]{4,}")


def is_frame(line: str) -> bool:
    """A frame of a native stack trace: "at 0x12F2279: f (in node)", "#3  0x7f.. in g ()"."""
    return "0x" in line and _FRAME.search(line) is not None


# Programming languages whose fenced blocks count as code line for line. Shell
# and console blocks are not here: CLI commands are accepted content, so their
# lines are judged one by one like any unlabelled fence.
# fmt: off
CODE_LANGS = frozenset((
    "python", "py", "python3", "py3", "go", "golang", "rust", "rs", "javascript", "js", "mjs",
    "cjs", "jsx", "typescript", "ts", "tsx", "java", "kotlin", "kt", "kts", "swift", "c", "h",
    "cpp", "c++", "cc", "cxx", "hpp", "hxx", "cs", "csharp", "c#", "fsharp", "f#", "ruby", "rb",
    "php", "scala", "sql", "plpgsql", "lua", "perl", "pl", "r", "dart", "elixir", "ex", "exs",
    "erlang", "erl", "haskell", "hs", "clojure", "clj", "cljs", "ocaml", "ml", "zig", "nim",
    "vb", "vbnet", "groovy", "gradle", "objc", "objective-c", "objectivec", "proto", "protobuf",
    "graphql", "gql", "solidity", "sol", "asm", "nasm", "makefile", "cmake", "vue", "svelte",
    "julia", "jl", "crystal", "d", "pascal", "fortran", "cobol", "ada", "verilog", "vhdl",
    "scheme", "racket", "lisp", "elisp", "emacs-lisp", "commonlisp", "prolog", "tcl", "awk",
    "starlark", "bzl", "nix", "hcl", "terraform", "tf", "jsonnet", "cue", "rego", "wgsl",
    "glsl", "hlsl", "cuda", "metal", "java-script", "type-script",
))
DATA_LANGS = frozenset((
    "json", "jsonc", "json5", "jsonl", "ndjson", "yaml", "yml", "toml", "xml", "ini", "cfg",
    "conf", "properties", "csv", "tsv",
))
# fmt: on

# Words that open a line of code in common languages.
# fmt: off
KEYWORDS = frozenset((
    "def", "class", "import", "from", "return", "if", "elif", "else", "for", "while", "try",
    "except", "finally", "with", "raise", "yield", "async", "await", "func", "package", "var",
    "const", "let", "type", "struct", "interface", "defer", "switch", "case", "default", "fn",
    "impl", "pub", "use", "mod", "trait", "enum", "match", "loop", "extern", "unsafe", "public",
    "private", "protected", "static", "final", "abstract", "void", "new", "throw", "catch",
    "export", "function", "module", "require", "declare", "namespace", "val", "guard",
    "extension", "protocol", "actor", "init", "typealias", "using", "template", "typedef",
    "lambda", "pass", "break", "continue", "do", "end", "begin", "then", "fi", "esac", "local",
    "echo", "set", "unset", "select", "insert", "update", "delete", "create", "alter", "drop",
    "where", "go", "goto", "sizeof", "union", "inline", "virtual", "override", "open",
    "internal", "sealed", "data", "object", "companion", "fun", "when", "is", "as", "in", "not",
    "and", "or", "del", "global", "nonlocal", "assert", "print", "elsif", "unless", "until",
    "rescue", "ensure", "super", "attr_reader", "attr_writer", "attr_accessor", "require_relative",
))
# fmt: on
_FIRST_WORD = re.compile(r"[a-z_]+")
_CODE_START = re.compile(
    r"(?:[#@][A-Za-z_]|//|/\*|\*/|[})\]]|<\?|<%|\$\w"
    r"|[\w.\[\]'\"]+(?![\w.\[\]'\"])\s*(?:[-+*/%|&^]?=|:=)(?!=)\s*\S)"  # (speed: see line_led)
)
_SYMBOL_CHARS = "{}()[];=<>+*/%&|^!~\\$@:_\"'`"
_NOT_SYMBOLS = bytes(b for b in range(256) if chr(b) not in _SYMBOL_CHARS)
_MARKDOWN_PREFIXES = (
    "> ",
    "# ",
    "## ",
    "### ",
    "#### ",
    "##### ",
    "<!--",
    "---",
    "===",
    "***",
    "|",
)
_BULLET = re.compile(r"(?:[-*+]|\d+[.)])\s")
_COMMENT_STARTS = ("#", "//", "/*", "* ", "--", ";")


def _keyword_start(s: str) -> bool:
    word = _FIRST_WORD.match(s)
    if word is None or word.group() not in KEYWORDS:
        return False
    after = s[word.end() : word.end() + 1]
    return not after or after in " \t(:;{<["


def is_code_line(line: str) -> bool:
    """Does a single line read as source code rather than prose or markdown?"""
    s = line.strip()
    if not s or s.startswith(_MARKDOWN_PREFIXES):
        return False
    last = s[-1]
    if (s[0] in "-*+" or s[0].isdecimal()) and _BULLET.match(s):  # a bullet's first character
        return last in ";{" and s.count(" ") <= 8
    ntok = s.count(" ") + 1
    if (last in "{}:;,()[]" or ntok <= 4) and _keyword_start(s):
        return True
    n = len(s)
    symbols = len(s.encode("utf-8", "surrogatepass").translate(None, _NOT_SYMBOLS))
    if ntok >= 6 and symbols <= 0.06 * n:
        return False  # a sentence
    if _CODE_START.match(s):
        return True
    if last in ";{}" and (symbols >= 2 or ntok <= 3):
        return True
    if last in "),[(:" and symbols >= 0.1 * n:
        return True
    return symbols >= 0.2 * n


SAMPLE = 32


def sample(lines: list[str], size: int = SAMPLE) -> list[str]:
    """About ``size`` non-blank lines spread evenly over ``lines``.

    Dumps are uniform, so a spread sample tells cheaply whether a block could
    pass a proportion test at all; only then is every line examined.
    """
    # picked and filtered by C loops: ``filter(str.strip, ...)`` keeps the non-blank lines
    if len(lines) <= size:
        return list(filter(str.strip, lines))
    return list(filter(str.strip, _spread(len(lines), size)(lines)))


@lru_cache(maxsize=1024)
def _spread(count: int, size: int) -> Callable[[list[str]], tuple[str, ...]]:
    """A getter of ``size`` indices spread evenly over ``count`` (``count > size``)."""
    step = count / size
    indices = [int(k * step) for k in range(size)]
    if len(indices) == 1:  # itemgetter of one index returns the item, not a tuple
        return lambda lines: (lines[indices[0]],)
    return itemgetter(*indices)


def block_sample(block: Block) -> list[str]:
    """``sample(block.lines)``, cached on the block."""
    cached = block.cache.get("sample")
    if isinstance(cached, list):
        return cached
    picked = sample(block.lines)
    block.cache["sample"] = picked
    return picked


def sample_text(block: Block) -> str:
    """The spread sample's lines, each after a line break (cached): ``line_led``
    patterns count its lines in one C-level scan."""
    cached = block.cache.get("sample_text")
    if isinstance(cached, str):
        return cached
    text = block.cache["sample_text"] = "\n" + "\n".join(block_sample(block))
    return text


def sample_share(block: Block, test: Callable[[str], object]) -> float:
    """Share of a spread sample of the block's lines that pass ``test``."""
    picked = block_sample(block)
    if not picked:
        return 0.0
    return sum(1 for line in picked if test(line)) / len(picked)


def sample_reaches(block: Block, test: Callable[[str], object], share: float) -> bool:
    """``sample_share(block, test) >= share``, stopping as soon as the answer is known."""
    picked = block_sample(block)
    n = len(picked)
    if not n:
        return share <= 0.0
    found = 0
    for done, line in enumerate(picked):
        if found / n >= share:
            return True
        if (found + n - done) / n < share:
            return False
        if test(line):
            found += 1
    return found / n >= share


def lines_reach(
    lines: list[str], test: Callable[[str], object], least: float, found: int = 0
) -> bool:
    """``found + sum(1 for line in lines if test(line)) >= least``, stopping as soon as
    the answer is known (most samples fail, and are known to after a few of their lines)."""
    left = len(lines)
    for line in lines:
        if found >= least:
            return True
        if found + left < least:
            return False
        left -= 1
        if test(line):
            found += 1
    return found >= least


def line_led(pattern: re.Pattern[str]) -> str:
    """The source of a line-anchored ``pattern`` (MULTILINE, "^" first, unable to
    match across a line break) with its "^" made a literal line break, for
    ``count_lines``. The regex engine finds a literal first character at C speed
    and tries the rest at line starts only; a "^" pattern it tries at every
    character, which made counting the lines of a dump two to three times slower.
    Compile the result at module level, beside the pattern (the regex audit sees it).

    Patterns tried at every line of a block are written so that a line that fails
    fails at once. The engine gives back a run one character at a time and retries
    what follows after each; when what follows cannot start with the run's own
    characters that is wasted, so the run says so: ``[ \\t]*(?![ \\t])`` before a
    non-blank, ``\\w*(?!\\w)`` before punctuation. An optional group is ``(?:x|)``,
    which the engine tries as a branch, not as a repeat with its bookkeeping; a
    quoted string is unrolled, ``"[^"\\\\]*(?:\\\\.[^"\\\\]*)*"``, a run between escapes
    instead of an alternation per character. Each form matches exactly what the
    plain one does (tests/ingest_lint/test_pattern_forms.py)."""
    source = pattern.pattern
    if not source.startswith("^") or not pattern.flags & re.MULTILINE:
        raise ValueError(f"not a line-anchored pattern: {source[:40]!r}")
    return "\n(?:" + source[1:] + ")"


def led_text(block: Block) -> str:
    """The block's text after a line break, for the patterns ``line_led`` makes (its
    first line starts after a break like the others)."""
    cached = block.cache.get("led_text")
    if isinstance(cached, str):
        return cached
    text = block.cache["led_text"] = "\n" + block.text
    return text


def count_lines(block: Block, led: re.Pattern[str]) -> tuple[int, list[int]]:
    """(lines a line-anchored pattern matches, [index of the first]) in one C-level
    scan. ``led`` is the pattern's ``line_led`` form; like the pattern, it matches
    at most once per line."""
    text = led_text(block)
    found = len(led.findall(text))
    if not found:
        return 0, []
    first = led.search(text)
    assert first is not None
    # the break that leads line k is the k-th in the led text (the first is the one added)
    return found, [text.count("\n", 0, first.start())]


def matching_lines(block: Block, pattern: re.Pattern[str]) -> list[int]:
    """Indices of the block's lines where ``pattern`` matches, from one scan of the
    block's text (patterns anchored with ``^``/``$`` must use MULTILINE and must
    not match across a line break)."""
    text = block.text
    out: list[int] = []
    line = 0
    pos = 0
    for match in pattern.finditer(text):
        start = match.start()
        line += text.count("\n", pos, start)
        pos = start
        if not out or out[-1] != line:
            out.append(line)
    return out


# The cheap part of a location: an extension followed by a line number. It starts
# with a literal ".", so the regex engine scans for it at memchr speed (and the
# extension is not given back letter by letter: see line_led).
LOCATION_HINT = re.compile(
    r"\.[A-Za-z][A-Za-z0-9]{0,5}(?![A-Za-z0-9])"
    r"(?::L?\d|#L\d|,?[ \t]+L\d|\)?,?[ \t]+line[ \t]+\d)"
)
# a table row whose next cell after the file is the line: "| pkg/mod.py | 12 |"
_TABLE_LOCATION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}`?[ \t]*\|[ \t]*`?L?\d+`?[ \t]*\|")
# loc=12, line:12, and "line 12" closing a listing row ("Graph.add_node - line 38")
_LOCATION_WORD = re.compile(
    r"l(?:oc(?:ation)?[=:][ \t]*L?\d|ine[=:]\d|ine[ \t]+\d+\)?[ \t]*$)", re.MULTILINE
)


#: the characters of a path, which ``locate`` widens a hint back over
_PATH_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@~+-/"


def locate(line: str) -> tuple[int, int] | None:
    """Span of the first reference to a place in a source file: path.ext:12,
    path.ext:L12, path.ext#L12, "path.ext L12", loc=L12, line:12. Found from its
    cheap tail and widened back over the path, so it costs one literal scan."""
    match = LOCATION_HINT.search(line)
    if match is None and "|" in line:
        match = _TABLE_LOCATION.search(line)
    if match is None:
        word = _LOCATION_WORD.search(line)
        if word is None:
            return None
        end = word.end()
        while end < len(line) and line[end].isdigit():
            end += 1
        return word.start(), end
    start = match.start()
    before = line[max(0, start - 240) : start]
    start -= len(before) - len(before.rstrip(_PATH_CHARS))  # the path's length
    end = match.end()
    while end < len(line) and line[end].isdigit():
        end += 1
    if line[end : end + 1] == ":" and line[end + 1 : end + 2].isdigit():  # a column: "a.go:12:5"
        end += 1
        while end < len(line) and line[end].isdigit():
            end += 1
    if start == match.start():  # an extension with no name before it: ".py:12"
        return None
    return start, end


def may_hold_locations(block: Block, least: float) -> bool:
    """Could ``least`` of the block's lines hold a location? Every shape ``locate``
    reads has a ":", "#L", "=", two "|" (a table row), a blank before "L" (" L", a
    tab) or "line" in it, so their count bounds the lines ``location_lines`` can
    find. Most blocks fail on the punctuation already counted, without a scan of
    their own; a "#" alone is not counted: markdown's headings are full of them."""
    found = block.count(":") + block.count("=") + block.count("|") // 2 + block.count("\t")
    if found >= least:
        return True
    text = block.text
    # " L" and "#L" each end at an "L" of their own: one scan for a letter prose rarely
    # capitalises bounds both, and rules most blocks out before the scans for the pairs
    if found + text.count("L") + text.count("line") < least:
        return False
    return found + text.count("#L") + text.count(" L") + text.count("line") >= least


def location_lines(block: Block) -> list[int]:
    """Indices of lines that may hold a location (a superset; confirm with ``locate``)."""
    cached = block.cache.get("location_lines")
    if isinstance(cached, list):
        return cached
    text = block.text
    found = matching_lines(block, LOCATION_HINT)
    if block.count("|") >= 8:
        found = sorted(set(found).union(matching_lines(block, _TABLE_LOCATION)))
    if "loc" in text or "line" in text:
        found = sorted(set(found).union(matching_lines(block, _LOCATION_WORD)))
    block.cache["location_lines"] = found
    return found


def code_line_count(block: Block, prose_budget: float = float("inf")) -> int:
    """How many of a block's lines are code: all of them for a programming-language
    fence, a per-line judgement otherwise (with runs of code absorbing their
    comments, docstrings and continuation lines).

    Counting stops early, returning a lower bound, once more than
    ``prose_budget`` lines are certainly prose; the caller has its answer then.
    """
    key = "code_lines"
    cached = block.cache.get(key)
    if isinstance(cached, int):
        return cached
    count, complete = _code_line_count(block, prose_budget)
    if complete:
        block.cache[key] = count
    return count


def _code_line_count(block: Block, budget: float, *, early: bool = True) -> tuple[int, bool]:
    lang = block.lang
    if block.fenced and (lang in CODE_LANGS or lang in DATA_LANGS):
        return block.nonblank, True
    if block.fenced:
        # An unlabelled fence that is mostly code is a listing: comments in it are code too.
        # counted until the answer is known: once 0.6 of the lines are, the rest cannot
        # change it (``_code_line_count(block, budget, early=False)`` counts them all)
        enough = 0.6 * block.nonblank
        shaped = 0
        for line in block.lines:
            if is_code_line(line) and not is_frame(line):
                shaped += 1
                if shaped >= enough and early:
                    return block.nonblank, True
        if shaped >= enough:
            return block.nonblank, True
        # comment lines say nothing either way: judge the rest
        comments = sum(1 for line in block.lines if line.lstrip().startswith(_COMMENT_STARTS))
        return (block.nonblank if shaped >= 0.6 * (block.nonblank - comments) else shaped), True
    return _unfenced_runs(block.lines, budget)


def _unfenced_runs(lines: list[str], budget: float) -> tuple[int, bool]:
    """Code lines outside fences: runs that start at a code line and continue through
    blank, indented, comment and string lines until a prose line at the margin."""
    total = 0
    run_lines = 0
    run_code = 0
    prose = 0
    in_string = False
    for line in lines:
        code = is_code_line(line)
        stripped = line.strip()
        quotes = stripped.count('"""') + stripped.count("'''")
        if run_lines or code:
            indented = line[:1] in (" ", "\t")
            neutral = (
                not stripped or indented or in_string or stripped.startswith(("#", "//", "*", "/*"))
            )
            if code or neutral:
                if stripped:
                    run_lines += 1
                    run_code += code
            else:
                total += _run_value(run_lines, run_code)
                run_lines = run_code = 0
        elif stripped and not in_string:
            prose += 1
            if prose > budget:
                return total, False
        if quotes % 2:
            in_string = not in_string
    return total + _run_value(run_lines, run_code), True


def _run_value(lines: int, code: int) -> int:
    if code >= 5 and code >= 0.4 * lines:
        return lines
    return code
