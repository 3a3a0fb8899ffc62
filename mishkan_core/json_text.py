"""JSON files as text: parse them within limits, and edit them in place.

Two concerns, one home:

* :func:`parse` turns a configuration file's bytes into a value or raises
  :class:`JsonError` with one line: not UTF-8, not JSON, a duplicate key when
  asked, or nesting deeper than :data:`MAX_DEPTH` (a hostile file nests 100,000
  levels to make ``json`` raise ``RecursionError``; no real settings file nests
  beyond a dozen).
* :func:`render` writes a changed document back as a few splices into the old
  text: members and items that were added or removed, and values that changed.
  Everything else keeps its bytes, so a hand-formatted file keeps its inline
  arrays, blank lines, tabs, CRLF and raw or escaped non-ASCII. Inserting an
  item copies the whitespace of its neighbours and deleting it removes exactly
  that, so an insert followed by a delete gives the same text back. The result
  is parsed again and compared with the wanted document; on any mismatch the
  whole file is re-serialised in the file's detected :class:`Style` instead.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from mishkan_core.safe_files import LimitExceeded

#: deeper than any real configuration file; deep enough that ``json`` and the
#: splicer's recursion stay far from the interpreter's recursion limit
MAX_DEPTH = 64


class JsonError(ValueError):
    """The text is not a usable JSON document: one line, for the user."""


class JsonLimit(JsonError, LimitExceeded):
    """A document past a bound (nesting, a number's digits): still one line,
    and a :class:`~mishkan_core.safe_files.LimitExceeded` for callers that
    tell bounds from malformed input."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise JsonError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0), without recursing."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in item)
    return deepest


def parse(data: bytes | str, *, unique_keys: bool = False) -> Any:
    """The JSON value in ``data``; :class:`JsonError` (one line) if unusable.

    ``unique_keys`` refuses a repeated key, which ``json`` would silently
    resolve to the last one."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonError(f"not UTF-8 (byte {exc.start})") from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    hook: Callable[[list[tuple[str, Any]]], dict[str, Any]] | None = (
        _no_duplicate_keys if unique_keys else None
    )
    try:
        value = json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise JsonLimit(f"nests deeper than {MAX_DEPTH} levels") from None
    except JsonError:
        raise
    except ValueError as exc:  # e.g. an integer longer than sys.get_int_max_str_digits()
        raise JsonLimit(f"not usable JSON ({exc})") from None
    if depth(value) > MAX_DEPTH:
        raise JsonLimit(f"nests deeper than {MAX_DEPTH} levels")
    return value


def same(a: Any, b: Any) -> bool:
    """Equal, including the order of keys."""
    return json.dumps(a) == json.dumps(b)


def unified_diff(label: str, old: bytes | None, new: bytes | None) -> str:
    """``diff -u`` of two versions of a file (``None``: the file does not exist)."""
    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        a,
        b,
        fromfile=f"a/{label}" if old is not None else "/dev/null",
        tofile=f"b/{label}" if new is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


# ---------------------------------------------------------------------------
# Style


_NON_ASCII_ESCAPE = re.compile(
    r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


@dataclass(frozen=True)
class Style:
    indent: int | str | None = 2
    separators: tuple[str, str] = (",", ": ")
    ensure_ascii: bool = False
    final_newline: bool = True
    crlf: bool = False


def detect_style(text: str) -> Style:
    if not text.strip():
        return Style()
    crlf = "\r\n" in text
    body = text.replace("\r\n", "\n")
    indent: int | str | None = None
    lines = body.split("\n")
    for previous, line in zip(lines, lines[1:]):
        if previous.rstrip().endswith(("{", "[")) and line.strip():
            lead = line[: len(line) - len(line.lstrip())]
            indent = "\t" if lead.startswith("\t") else len(lead)
            break
    if indent is None:
        separators = (", " if ", " in body else ",", ": " if '": ' in body else ":")
    else:
        separators = (",", ": ")
    has_non_ascii = any(ord(ch) > 127 for ch in body)
    has_escapes = _NON_ASCII_ESCAPE.search(body)
    return Style(
        indent=indent,
        separators=separators,
        ensure_ascii=bool(has_escapes) and not has_non_ascii,
        final_newline=body.endswith("\n"),
        crlf=crlf,
    )


def dump(doc: Any, style: Style) -> str:
    text = json.dumps(
        doc, indent=style.indent, separators=style.separators, ensure_ascii=style.ensure_ascii
    )
    if style.final_newline:
        text += "\n"
    return text.replace("\n", "\r\n") if style.crlf else text


# ---------------------------------------------------------------------------
# Minimal text edits


@dataclass
class _Span:
    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    items: list[_Span]
    keys: list[str]
    key_starts: list[int]


_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _spans(text: str, i: int) -> tuple[_Span, int]:
    i = _skip(text, i)
    opener = text[i]
    if opener not in "{[":
        _value, end = _DECODER.raw_decode(text, i)
        return _Span(i, end, "scalar", [], [], []), end
    closer = "}" if opener == "{" else "]"
    span = _Span(i, i, "object" if opener == "{" else "array", [], [], [])
    i = _skip(text, i + 1)
    if text[i] == closer:
        span.end = i + 1
        return span, i + 1
    while True:
        i = _skip(text, i)
        if span.kind == "object":
            key, after = _DECODER.raw_decode(text, i)
            span.keys.append(key)
            span.key_starts.append(i)
            i = _skip(text, after)
            if text[i] != ":":
                raise ValueError("expected ':'")
            i += 1
        item, i = _spans(text, i)
        span.items.append(item)
        i = _skip(text, i)
        if text[i] == ",":
            i += 1
            continue
        if text[i] != closer:
            raise ValueError(f"expected {closer!r}")
        span.end = i + 1
        return span, i + 1


class _Splicer:
    def __init__(self, text: str, style: Style) -> None:
        self.text = text
        self.style = style
        self.edits: list[tuple[int, int, str]] = []
        indent = style.indent
        self.unit = "\t" if indent == "\t" else " " * indent if isinstance(indent, int) else ""

    # -- helpers ------------------------------------------------------------

    def _line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def _starts_line(self, pos: int) -> bool:
        start = self.text.rfind("\n", 0, pos) + 1
        return self.text[start:pos].strip() == "" and start > 0

    def _render(self, value: Any, base: str | None) -> str:
        """``value`` as JSON; multi-line at indentation ``base``, or inline."""
        if base is None or not self.unit:
            seps = self.style.separators if not self.unit else (", ", ": ")
            return json.dumps(value, separators=seps, ensure_ascii=self.style.ensure_ascii)
        text = json.dumps(
            value, indent=self.unit, separators=(",", ": "), ensure_ascii=self.style.ensure_ascii
        )
        return text.replace("\n", "\n" + base)

    def _key_sep(self, span: _Span) -> str:
        if span.keys:
            key_end = _DECODER.raw_decode(self.text, span.key_starts[0])[1]
            return self.text[key_end : span.items[0].start]
        return self.style.separators[1] if not self.unit else ": "

    def _starts(self, span: _Span) -> list[int]:
        return span.key_starts if span.kind == "object" else [item.start for item in span.items]

    def _entry(self, span: _Span, key: str | None, value: Any, base: str | None) -> str:
        rendered = self._render(value, base)
        if key is None:
            return rendered
        return (
            json.dumps(key, ensure_ascii=self.style.ensure_ascii) + self._key_sep(span) + rendered
        )

    def _fresh(self, span: _Span, entries: Sequence[tuple[str | None, Any]]) -> None:
        """Fill an empty container."""
        opener, closer = self.text[span.start], self.text[span.end - 1]
        if not self.unit:
            body = self.style.separators[0].join(self._entry(span, k, v, None) for k, v in entries)
            self.edits.append((span.start, span.end, opener + body + closer))
            return
        outer = self._line_indent(span.start)
        inner = outer + self.unit
        body = ",\n".join(inner + self._entry(span, k, v, inner) for k, v in entries)
        self.edits.append((span.start, span.end, f"{opener}\n{body}\n{outer}{closer}"))

    # -- the diff -------------------------------------------------------------

    def replace(self, span: _Span, value: Any) -> None:
        inline = "\n" not in self.text[span.start : span.end] and span.kind != "scalar"
        base = None if inline else self._line_indent(span.start)
        self.edits.append((span.start, span.end, self._render(value, base)))

    def diff(self, span: _Span, old: Any, new: Any) -> None:
        if same(old, new):
            return
        if isinstance(old, dict) and isinstance(new, dict) and span.kind == "object":
            self._diff_object(span, old, new)
        elif isinstance(old, list) and isinstance(new, list) and span.kind == "array":
            self._diff_array(span, old, new)
        else:
            self.replace(span, new)

    def _diff_object(self, span: _Span, old: dict[str, Any], new: dict[str, Any]) -> None:
        kept = [k for k in old if k in new]
        added = [k for k in new if k not in old]
        if list(new) != kept + added:
            self.replace(span, new)
            return
        removed = [i for i, k in enumerate(old) if k not in new]
        if not kept and old:
            if added:
                self.replace(span, new)
            else:
                self.edits.append((span.start, span.end, "{}"))
            return
        for i, key in enumerate(old):
            if key in new:
                self.diff(span.items[i], old[key], new[key])
        self._delete(span, removed)
        if added:
            if not old:
                self._fresh(span, [(k, new[k]) for k in added])
            else:
                self._append(span, [(k, new[k]) for k in added])

    def _diff_array(self, span: _Span, old: list[Any], new: list[Any]) -> None:
        a = [json.dumps(x) for x in old]
        b = [json.dumps(x) for x in new]
        ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
        if not old:
            self._fresh(span, [(None, v) for v in new])
            return
        if not new:
            self.edits.append((span.start, span.end, "[]"))
            return
        if not any(tag == "equal" for tag, *_ in ops) and len(old) != len(new):
            self.replace(span, new)
            return
        deleted: list[int] = []
        for tag, i1, i2, j1, j2 in ops:
            if tag == "replace" and i2 - i1 == j2 - j1:
                for k in range(i2 - i1):
                    self.diff(span.items[i1 + k], old[i1 + k], new[j1 + k])
            elif tag == "replace":
                self.replace(span, new)
                return
            elif tag == "delete":
                deleted.extend(range(i1, i2))
            elif tag == "insert":
                values = [(None, v) for v in new[j1:j2]]
                if i1 < len(old):
                    self._insert_before(span, i1, values)
                else:
                    self._append(span, values)
        self._delete(span, deleted)

    # -- splices ----------------------------------------------------------------

    def _insert_before(
        self, span: _Span, index: int, entries: Sequence[tuple[str | None, Any]]
    ) -> None:
        starts = self._starts(span)
        at = starts[index]
        before = self.text[:at].rstrip(_WS)
        gap = self.text[len(before) : at]
        base = self._line_indent(at) if self._starts_line(at) else None
        text = "".join(self._entry(span, k, v, base) + "," + gap for k, v in entries)
        self.edits.append((at, at, text))

    def _append(self, span: _Span, entries: Sequence[tuple[str | None, Any]]) -> None:
        starts = self._starts(span)
        last_start = starts[-1]
        before = self.text[:last_start].rstrip(_WS)
        gap = self.text[len(before) : last_start]
        base = self._line_indent(last_start) if self._starts_line(last_start) else None
        at = span.items[-1].end
        text = "".join("," + gap + self._entry(span, k, v, base) for k, v in entries)
        self.edits.append((at, at, text))

    def _delete(self, span: _Span, indexes: list[int]) -> None:
        if not indexes:
            return
        starts = self._starts(span)
        count = len(span.items)
        gone = set(indexes)
        i = 0
        while i < count:
            if i not in gone:
                i += 1
                continue
            j = i
            while j + 1 < count and j + 1 in gone:
                j += 1
            if j + 1 < count:  # a kept entry follows: take this run and the gap after it
                self.edits.append((starts[i], starts[j + 1], ""))
            else:  # the run ends the container: take the comma and gap before it
                prev_end = span.items[i - 1].end
                self.edits.append((prev_end, span.items[j].end, ""))
            i = j + 1

    def result(self) -> str:
        text = self.text
        for start, end, replacement in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:start] + replacement + text[end:]
        return text


def render(old: bytes | None, doc: Any, new_doc: Any, style: Style) -> bytes:
    """The new file: ``old`` (which holds ``doc``) with minimal edits that make
    it hold ``new_doc`` when possible, else ``new_doc`` dumped in ``style``."""
    if old is not None:
        try:
            raw = old.decode("utf-8")
            bom = "\ufeff" if raw.startswith("\ufeff") else ""
            text = raw[len(bom) :].replace("\r\n", "\n")
            span, end = _spans(text, 0)
            if text[end:].strip():
                raise ValueError("trailing data")
            splicer = _Splicer(text, style)
            splicer.diff(span, doc, new_doc)
            out = splicer.result()
            if same(json.loads(out), new_doc):
                if style.crlf:
                    out = out.replace("\n", "\r\n")
                return _encode(bom + out)
        except (ValueError, IndexError, KeyError, RecursionError):
            pass
    return _encode(dump(new_doc, style))


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _encode(text: str) -> bytes:
    """UTF-8 of a JSON text. A lone surrogate (``"\\ud800"`` in a file that
    also holds raw non-ASCII, so it is dumped with ``ensure_ascii=False``)
    cannot be encoded: it is written back as the escape it was read from,
    which is only ever inside a string."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")
