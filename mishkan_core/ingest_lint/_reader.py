"""Reading candidate files safely, and their front matter.

Nothing here raises on bad input: every problem becomes a ``Finding`` with
``error=True`` (the file could not be linted) or a meta finding (IL001,
IL002) about the front matter. Files are ``stat``-ed before they are opened
and read with a bound, so a 1 GB file costs one ``stat`` call.

The front matter is YAML, but only a small subset matters here: top-level
``key: value`` lines, the ``mishkan`` key, and the ``mishkan-lint`` key whose
value is one suppression or a block list of them. Other keys may hold any
YAML; their nested lines are skipped, not interpreted.
"""

from __future__ import annotations

import errno
import os
import stat

from mishkan_core.ingest_lint._model import Finding, Suppression

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Collection

DEFAULT_MAX_BYTES = 2 * 1024 * 1024
#: suffixes picked up when a directory is walked; explicit paths are always read
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".mdown", ".mkd", ".mkdn", ".txt"})
#: directories never descended into
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})

MAX_FRONT_MATTER_LINES = 400

# input errors (exit 2)
E_UNREADABLE = "IL901"
E_BINARY = "IL902"
E_ENCODING = "IL903"
E_TOO_LARGE = "IL904"
E_SYMLINK_LOOP = "IL905"
# front matter findings (exit 1)
MALFORMED_FRONT_MATTER = "IL001"
INVALID_SUPPRESSION = "IL002"
UNUSED_SUPPRESSION = "IL003"


def _error(path: str, code: str, message: str, line: int = 1) -> Finding:
    return Finding(path=path, rule=code, line=line, end_line=line, message=message, error=True)


def os_error(path: str, exc: OSError, doing: str) -> Finding:
    if exc.errno == errno.ELOOP:
        return _error(path, E_SYMLINK_LOOP, "symlink loop: the path resolves back to itself")
    if exc.errno == errno.ENOENT:
        if os.path.islink(path):
            return _error(path, E_UNREADABLE, "broken symlink: its target does not exist")
        return _error(path, E_UNREADABLE, "no such file or directory")
    reason = exc.strerror or type(exc).__name__
    return _error(path, E_UNREADABLE, f"cannot {doing}: {reason}")


def read_text(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[str | None, Finding | None]:
    """Return the file's text, or the one error that stops it from being linted."""
    try:
        info = os.stat(path)
    except OSError as exc:
        return None, os_error(path, exc, "stat")
    if stat.S_ISDIR(info.st_mode):
        return None, _error(path, E_UNREADABLE, "is a directory")
    if not stat.S_ISREG(info.st_mode):
        return None, _error(path, E_UNREADABLE, "not a regular file; not read")
    if info.st_size > max_bytes:
        return None, _too_large(path, info.st_size, max_bytes)
    expected = min(info.st_size, max_bytes) + 1  # never allocate the whole bound up front
    try:
        # a bare descriptor: a file object and its buffer cost more than the read
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
        try:
            data = _read(fd, expected)
            if len(data) == expected and expected <= max_bytes:  # it grew since the stat
                data += _read(fd, max_bytes + 1 - expected)
        finally:
            os.close(fd)
    except OSError as exc:
        return None, os_error(path, exc, "read")
    if len(data) > max_bytes:  # it grew past the bound between stat and read
        return None, _too_large(path, len(data), max_bytes)
    return decode(path, data)


_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _read(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes, fewer only at the end of the file."""
    data = os.read(fd, size)
    while 0 < len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _too_large(path: str, size: int, max_bytes: int) -> Finding:
    return _error(
        path,
        E_TOO_LARGE,
        f"file is {size:,} bytes, over the {max_bytes:,}-byte limit; not read "
        "(ingest artifacts are small, curated documents)",
    )


def decode(path: str, data: bytes) -> tuple[str | None, Finding | None]:
    """Decode bytes as UTF-8 text; binary data and invalid UTF-8 are errors."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        return None, _error(
            path, E_BINARY, f"binary file (NUL byte at offset {nul}); not a text artifact", line
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, _error(
            path, E_ENCODING, f"invalid UTF-8 at byte offset {exc.start} (line {line})", line
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def split_lines(text: str) -> list[str]:
    """Split on line breaks only (form feeds and other separators stay in the line)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------- front matter

# The front matter is read with string methods, not regular expressions: a one-file
# pre-commit run then never imports ``re`` (with ``enum`` and ``functools``, half again
# an interpreter's start). Each helper says the pattern it implements; all are linear.


def _is_open(line: str) -> bool:
    """``^---[ \t]*$``"""
    return line.rstrip(" \t") == "---"


def _is_close(line: str) -> bool:
    """``^(?:---|\\.\\.\\.)[ \t]*$``"""
    return line.rstrip(" \t") in ("---", "...")


def _mentions_mishkan(lines: list[str]) -> bool:
    """Does a line open with a ``mishkan`` or ``mishkan-lint`` key (quoted or not)?
    (``^[ \t]*['"]?mishkan(?:-lint)?['"]?[ \t]*:``, per line)"""
    for line in lines:
        if "mishkan" not in line:
            continue
        rest = line.lstrip(" \t")
        if rest[:1] in "'\"" and rest:
            rest = rest[1:]
        if not rest.startswith("mishkan"):
            continue
        rest = rest[7:]
        if rest.startswith("-lint"):
            rest = rest[5:]
        if rest[:1] in "'\"" and rest:
            rest = rest[1:]
        if rest.lstrip(" \t")[:1] == ":":
            return True
    return False


_KEY_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _key_line(line: str) -> tuple[str, str] | None:
    r"""(key, value) of a ``key: value`` line, or None. The key is a plain scalar
    (``[A-Za-z0-9_][\w.\-]*``) or a quoted one (quotes kept); a value follows the colon
    after a blank, from its first non-blank character ("" when there is none)."""
    if not line:
        return None
    first = line[0]
    if first in "\"'":
        end = line.find(first, 1)
        if end < 0:
            return None
        key, rest = line[: end + 1], line[end + 1 :]
    elif first in _KEY_FIRST:
        end = 1
        while end < len(line) and (line[end].isalnum() or line[end] in "_.-"):
            end += 1
        key, rest = line[:end], line[end:]
    else:
        return None
    rest = rest.lstrip(" \t")
    if rest[:1] != ":":
        return None
    rest = rest[1:]
    if rest and rest[0] not in " \t":
        return None
    return key, rest.lstrip(" \t")


class FrontMatter:
    """What the reader needs from a file's front matter."""

    __slots__ = (
        "end_line",
        "is_artifact",
        "mentions_mishkan",
        "present",
        "problems",
        "suppressions",
    )

    def __init__(self) -> None:
        self.present = False
        self.end_line = 0  # 1-based line of the closing marker (0 when absent)
        self.is_artifact = False
        self.mentions_mishkan = False
        self.suppressions: list[Suppression] = []
        self.problems: list[tuple[str, int, str]] = []  # (rule, line, message)

    @property
    def malformed(self) -> bool:
        return any(rule == MALFORMED_FRONT_MATTER for rule, _, _ in self.problems)


class _Malformed(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _scalar(raw: str, line: int) -> str:
    """A plain or quoted YAML scalar on one line (comments stripped)."""
    raw = raw.strip()
    if not raw:
        return ""
    quote = raw[0]
    if quote in "\"'":
        end = raw.find(quote, 1)
        while quote == "'" and end != -1 and raw[end + 1 : end + 2] == "'":
            end = raw.find(quote, end + 2)
        if end == -1:
            raise _Malformed(line, f"unterminated {quote}-quoted value")
        rest = raw[end + 1 :].strip()
        if rest and not rest.startswith("#"):
            raise _Malformed(line, f"unexpected text after the quoted value: {rest[:40]!r}")
        body = raw[1:end]
        return body.replace("''", "'") if quote == "'" else body.replace('\\"', '"')
    if raw.startswith(("[", "{")):
        closer = "]" if raw[0] == "[" else "}"
        if not raw.rstrip().endswith(closer) and f"{closer} #" not in raw:
            raise _Malformed(line, f"unterminated flow collection (missing {closer!r})")
        return raw
    if " #" in raw:
        raw = raw.split(" #", 1)[0].rstrip()
    return raw


def _flow_items(value: str) -> list[str]:
    inner = value.strip()[1:-1]
    return [item.strip().strip("\"'") for item in inner.split(",") if item.strip()]


def parse_front_matter(lines: list[str], known_rules: Collection[str]) -> FrontMatter:
    """Parse the front matter at the top of ``lines``; never raises. ``known_rules`` is
    asked only about a suppression's rules (the engine passes a lazy set)."""
    fm = FrontMatter()
    if not lines or not _is_open(lines[0]):
        return fm
    fm.present = True
    limit = min(len(lines), MAX_FRONT_MATTER_LINES + 1)
    close = next((i for i in range(1, limit) if _is_close(lines[i])), -1)
    fm.mentions_mishkan = _mentions_mishkan(lines[1 : close if close > 0 else limit])
    if close < 0:
        fm.problems.append(
            (MALFORMED_FRONT_MATTER, 1, "front matter opened on line 1 is never closed with '---'")
        )
        return fm
    fm.end_line = close + 1
    try:
        _parse_entries(lines, close, fm, known_rules)
    except _Malformed as exc:
        fm.problems.append(
            (MALFORMED_FRONT_MATTER, exc.line, f"malformed front matter: {exc.message}")
        )
        fm.is_artifact = fm.is_artifact or fm.mentions_mishkan
    return fm


def _parse_entries(lines: list[str], close: int, fm: FrontMatter, known: Collection[str]) -> None:
    seen: dict[str, int] = {}
    current: str | None = None  # the key whose nested lines we are in
    current_empty = False
    lint_items: list[tuple[str, int]] = []
    for index in range(1, close):
        line = lines[index]
        lineno = index + 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[0] in " \t" or (line.startswith("-") and (line == "-" or line[1] in " \t")):
            if line[0] == "\t" or line[: len(line) - len(line.lstrip())].count("\t"):
                raise _Malformed(lineno, "tab in indentation (YAML allows spaces only)")
            if current is None:
                raise _Malformed(lineno, "indented line before any key")
            if current == "mishkan-lint":
                if not current_empty:
                    raise _Malformed(lineno, "'mishkan-lint' has a value and nested lines")
                item = stripped
                if not item.startswith("-"):
                    raise _Malformed(
                        lineno, "'mishkan-lint' entries must be a list ('- allow ...')"
                    )
                lint_items.append((_scalar(item[1:], lineno), lineno))
            continue
        entry = _key_line(line.rstrip(" \t"))
        if entry is None:
            raise _Malformed(lineno, f"expected 'key: value', got {stripped[:60]!r}")
        key = entry[0].strip("\"'")
        value = entry[1]
        if key in seen:
            raise _Malformed(lineno, f"duplicate key {key!r} (first on line {seen[key]})")
        seen[key] = lineno
        current, current_empty = key, not value.strip() or value.strip().startswith("#")
        if key == "mishkan":
            scalar = _scalar(value, lineno)
            items = _flow_items(scalar) if scalar.startswith("[") else [scalar]
            fm.is_artifact = "ingest" in items
        elif key == "mishkan-lint" and not current_empty:
            scalar = _scalar(value, lineno)
            if scalar.startswith("["):
                raise _Malformed(
                    lineno, "'mishkan-lint' takes one entry or a block list, not [...]"
                )
            lint_items.append((scalar, lineno))
        elif not current_empty and key not in ("mishkan", "mishkan-lint"):
            stripped_value = value.strip()
            if stripped_value[:1] in "\"'":
                _scalar(stripped_value, lineno)  # only to catch unterminated quotes
    if lint_items:
        from mishkan_core.ingest_lint._suppression import SUPPRESSION

        for text, lineno in lint_items:
            _add_suppression(fm, SUPPRESSION.match(text.strip()), text, lineno, known)


def _add_suppression(
    fm: FrontMatter, match: re.Match[str] | None, text: str, lineno: int, known: Collection[str]
) -> None:
    example = "expected 'allow <RULE> -- <reason>'"
    if not match:
        fm.problems.append(
            (INVALID_SUPPRESSION, lineno, f"invalid suppression {text[:60]!r}: {example}")
        )
        return
    rules = tuple(code.strip().upper() for code in match.group("rules").split(","))
    reason = (match.group("reason") or "").strip()
    if not reason:
        fm.problems.append(
            (
                INVALID_SUPPRESSION,
                lineno,
                f"suppression of {', '.join(rules)} has no reason: {example}",
            )
        )
        return
    unknown = [code for code in rules if code not in known]
    if unknown:
        fm.problems.append(
            (INVALID_SUPPRESSION, lineno, f"suppression names unknown rule {', '.join(unknown)}")
        )
        return
    fm.suppressions.append(Suppression(rules=rules, reason=reason, line=lineno))
