"""Exact structure: JSON (whole, JSON lines, or truncated and repaired) and a YAML subset.

Dumps pasted into notes are often cut off mid-way, so ``load_json`` repairs a
truncated document by cutting it after the last complete container and
closing what is still open. Results are cached on the block, since several
detectors look at the same parse.
"""

from __future__ import annotations

import json
import re
from itertools import compress, count
from typing import Any, Optional

from mishkan_core.ingest_lint._model import Block
from mishkan_core.ingest_lint._shape import led_text, line_led, sample_reaches

_DECODER = json.JSONDecoder()
# a JSON string (complete, on one line) or a bracket, captured for ``split``. No
# token starts right after a backslash, so an unterminated string full of \" is
# scanned once, not once per quote; that is checked behind the token's first
# character, so that every branch opens with a literal and the engine skips to the
# next of those five characters in C instead of trying the pattern at every one. A
# string's body is unrolled: a run of plain characters, then escapes with their runs.
_JSON_TOKENS = re.compile(
    r'("(?<!\\")[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|\[(?<!\\\[)|\](?<!\\\])|\{(?<!\\\{)|\}(?<!\\\}))"
)
_BRACKETS = frozenset("[]{}")
MAX_RECORDS = 1000


def _repair(text: str) -> Any:
    """Parse the longest prefix of ``text`` that is a truncated JSON value, closed up."""
    cut = _cut(text)
    if cut is None:
        return None
    try:
        return json.loads(text[: cut[0]] + cut[1])
    except ValueError:
        return None


def _cut(text: str) -> tuple[int, str] | None:
    """Where ``_repair`` cuts ``text``, and the closers it appends: after the last
    bracket that closes what it should, before one that does not or before the value
    is complete.

    ``split`` tokenises in C and hands back the text between the tokens too, so only
    the brackets, a fraction of the tokens of a dump, are walked in Python, and the
    cut's offset is the length of all before it.
    """
    parts = _JSON_TOKENS.split(text)
    tokens = parts[1::2]  # between the text around them
    stack: list[str] = []
    cut_token = -1
    cut_depth = 0
    for token in compress(count(), map(_BRACKETS.__contains__, tokens)):
        head = tokens[token]
        if head in "[{":
            stack.append(head)
            continue
        if not stack or (stack[-1] == "[") != (head == "]"):
            break
        stack.pop()
        cut_token, cut_depth = token, len(stack)
        if not stack:
            break
    if cut_token < 0:
        return None
    # after the cut only openers were pushed: what was open at the cut is the bottom
    closers = "".join("]" if opener == "[" else "}" for opener in reversed(stack[:cut_depth]))
    return sum(map(len, parts[: 2 * cut_token + 2])), closers


def _json_lines(lines: list[str]) -> list[Any] | None:
    values: list[Any] = []
    nonblank = 0
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        nonblank += 1
        if stripped[0] not in "{[" or stripped[-1] not in "}]":
            continue
        # json.loads(stripped) without its wrapping (a stripped line that opens with a
        # bracket has no whitespace to skip): one value, and nothing after it
        try:
            value, end = _DECODER.raw_decode(stripped)
        except ValueError:
            continue
        if end == len(stripped):
            values.append(value)
    if nonblank >= 3 and len(values) >= 0.8 * nonblank:
        return values
    return None


def load_json(block: Block) -> Any:
    """The JSON value the block holds (``None`` when it holds none)."""
    if "json" in block.cache:
        return block.cache["json"]
    try:
        value = _load_json(block)
    except (RecursionError, MemoryError):  # absurdly deep nesting: not a dump we can read
        value = None
    block.cache["json"] = value
    return value


# a line that opens JSON: "{" then a key or the end, "[" then a value or the end
_JSON_START = re.compile(
    r'^[ \t]*(?:\{[ \t]*(?:"|\}|$)|\[[ \t]*(?:[{\["\d\]-]|true|false|null|$))', re.MULTILINE
)
_JSON_STARTS = re.compile(line_led(_JSON_START), _JSON_START.flags)


def _load_json(block: Block) -> Any:
    lines = block.lines
    if not block.fenced and block.count("{") < 5:
        return None  # prose with quotes in it; a JSON dump has braces on every record
    # searched line-led (see line_led): a fence's first lines only, or the whole block
    head = "\n" + block.text[:2048] if block.fenced else led_text(block)
    found = _JSON_STARTS.search(head)
    start = head.count("\n", 0, found.start()) if found else -1
    if start < 0 or (
        not block.fenced
        and start > 0
        and lines[start].lstrip().startswith("[")
        and "](" in lines[start]
    ):
        return None
    if start > 5 and block.fenced:
        return None
    if start == 0:
        text, quotes = block.text, block.count('"')
    else:
        text = "\n".join(lines[start:])  # the text is the lines joined
        quotes = text.count('"')
    if quotes < 6:
        return None
    stripped = text.lstrip()
    # json.loads(stripped), whose value is kept: the text is decoded once, not once
    # here and again below when more follows the value
    try:
        value, end = _DECODER.raw_decode(stripped)
    except ValueError:
        value, end = None, -1
    if end >= 0 and _skip_space(stripped, end) == len(stripped):
        return value
    more = _json_lines(lines[start:])
    if more is not None:
        return more
    if end < 0:
        return _repair(stripped)
    stream = [value]  # a stream of pretty-printed values, one after another
    pos = _skip_space(stripped, end)
    while pos < len(stripped) and stripped[pos] in "{[" and len(stream) < 10_000:
        try:
            value, end = _DECODER.raw_decode(stripped, pos)
        except ValueError:
            break
        stream.append(value)
        pos = _skip_space(stripped, end)
    return stream if len(stream) > 1 else stream[0]


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


Records = list[tuple[dict[str, Any], Optional[dict[str, Any]]]]
_CONTAINERS: frozenset[type] = frozenset((dict, list))


def records(block: Block, value: Any) -> Records:
    """The dicts inside ``value`` with their nearest enclosing dict, in document order.

    Bounded: dumps are uniform, so the first ``MAX_RECORDS`` tell what the rest are.
    Cached on the block for the detectors that share the parse.
    """
    cached = block.cache.get("records")
    if isinstance(cached, list) and block.cache.get("records_of") is value:
        return cached
    out = _dicts(value)
    block.cache["records"] = out
    block.cache["records_of"] = value
    return out


def _dicts(value: Any) -> Records:
    """Every dict inside ``value`` (document order) with its nearest enclosing dict,
    at most ``MAX_RECORDS`` of them.

    A plain loop that pushes the children itself: a dump holds thousands of values,
    and a generator per dict with an ``isinstance`` call per child cost more than
    the detectors' own work on the records. The values come from ``json`` and
    ``_Yaml``, which build plain dicts and lists, so ``type(...) is`` is exact.
    """
    out: Records = []
    stack: list[tuple[Any, dict[str, Any] | None]] = [(value, None)]
    pop, push = stack.pop, stack.append
    while stack and len(out) < MAX_RECORDS:
        item, parent = pop()
        kind = type(item)
        if kind is dict:
            out.append((item, parent))
            children: Any = item.values()
            parent = item
        elif kind is list:
            children = item
        else:
            continue
        if _CONTAINERS.isdisjoint(map(type, children)):
            continue  # scalars only, as most records hold: told in C
        for child in reversed(children):
            kind = type(child)
            if kind is dict or kind is list:
                push((child, parent))
    return out


# --------------------------------------------------------------------------- YAML subset

# a key ends at a non-blank; the value starts at one (blanks between cannot be split)
_YAML_KEY = re.compile(
    r"""^(?P<key>[^\s#'"\-\[{](?:[^:#]*[^:#\s])?|"[^"]*"|'[^']*')[ \t]*:"""
    r"""(?:[ \t]+(?P<value>[^ \t].*)?)?$"""
)
_INTEGER = re.compile(r"-?\d+")


_YAML_WORDS: dict[str, Any] = {"null": None, "~": None, "": None, "true": True, "false": False}


def _yaml_scalar(raw: str) -> Any:
    raw = raw.strip()
    head = raw[:1]
    if " #" in raw and head not in "\"'":
        raw = raw.split(" #", 1)[0].rstrip()
    if head and head in "\"'[{":  # quoted, or a flow list or map (most values are plain)
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
            return raw[1:-1]
        if raw.startswith("[") and raw.endswith("]"):
            return [_yaml_scalar(item) for item in raw[1:-1].split(",") if item.strip()]
        if raw.startswith("{") and raw.endswith("}"):
            out: dict[str, Any] = {}
            for item in raw[1:-1].split(","):
                key, sep, val = item.partition(":")
                if sep:
                    out[key.strip().strip("\"'")] = _yaml_scalar(val)
            return out
    if raw in _YAML_WORDS:
        return _YAML_WORDS[raw]
    if raw[-1:].isdecimal() and _INTEGER.fullmatch(raw):  # an integer ends with a digit
        return int(raw)
    return raw


class _Yaml:
    """A forgiving block-YAML reader: mappings, sequences, plain/quoted/flow scalars."""

    def __init__(self, lines: list[str]) -> None:
        self.rows: list[tuple[int, str]] = []
        block_indent = -1
        for line in lines:
            stripped = line.strip()
            indent = len(line) - len(line.lstrip(" "))
            if block_indent >= 0:
                if not stripped or indent > block_indent:
                    continue
                block_indent = -1
            if not stripped or stripped.startswith("#") or stripped in ("---", "..."):
                continue
            self.rows.append((indent, stripped))
            if stripped.endswith(("|", ">", "|-", ">-")):
                block_indent = indent
        self.pos = 0

    def parse(self) -> Any:
        if not self.rows:
            return None
        return self._node(self.rows[0][0])

    def _node(self, indent: int) -> Any:
        if self.pos >= len(self.rows):
            return None
        _, text = self.rows[self.pos]
        if text == "-" or text.startswith("- "):
            return self._seq(indent)
        if _YAML_KEY.match(text):
            return self._map(indent)
        self.pos += 1
        return _yaml_scalar(text)

    def _seq(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while self.pos < len(self.rows):
            row_indent, text = self.rows[self.pos]
            if row_indent != indent or not (text == "-" or text.startswith("- ")):
                break
            rest = text[1:].strip()
            if not rest:
                self.pos += 1
                if self.pos < len(self.rows) and self.rows[self.pos][0] > indent:
                    out.append(self._node(self.rows[self.pos][0]))
                else:
                    out.append(None)
            elif _YAML_KEY.match(rest) and not rest.startswith(("'", '"')):
                # "- key: value" opens a mapping indented at the text after "- "
                inner = indent + (len(text) - len(rest))
                self.rows[self.pos] = (inner, rest)
                out.append(self._map(inner))
            else:
                self.pos += 1
                out.append(_yaml_scalar(rest))
        return out

    def _map(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.pos < len(self.rows):
            row_indent, text = self.rows[self.pos]
            if row_indent != indent:
                break
            match = _YAML_KEY.match(text)
            if not match:
                break
            key, value = match.group("key", "value")
            key = key.strip().strip("\"'")
            self.pos += 1
            value = value.strip() if value is not None else ""
            if value and value[0] != "#":
                out[key] = _yaml_scalar(value)
                continue
            if self.pos < len(self.rows):
                next_indent, next_text = self.rows[self.pos]
                is_seq = next_text == "-" or next_text.startswith("- ")
                if next_indent > indent or (next_indent == indent and is_seq):
                    out[key] = self._node(next_indent)
                    continue
            out[key] = None
        return out


_YAMLISH_LINE = re.compile(
    r"^[ \t]*(?![ \t])(?:-[ \t]+(?![ \t])|)"
    r"(?:[^\s#:{}()\[\],][^:{}()\[\]\n]*:(?:[ \t]|$)|-[ \t]*\S)",
    re.MULTILINE,  # one line, or (line-led) the block (speed: see _shape.line_led)
)
_YAMLISH_LINES = re.compile(line_led(_YAMLISH_LINE), _YAMLISH_LINE.flags)
# a line that is blank, or a comment, once its leading blanks are stripped
_BLANK_OR_COMMENT_LINES = re.compile(r"\n[^\S\n]*(?:#|$)", re.MULTILINE)


def load_yaml(block: Block) -> Any:
    """The block parsed as block-style YAML, or ``None`` if it does not look like YAML."""
    if "yaml" in block.cache:
        return block.cache["yaml"]
    value: Any = None
    nonblank = 0  # lines neither blank nor a comment
    if block.nonblank >= 8 and sample_reaches(block, _YAMLISH_LINE.match, 0.7):
        # counted in C over the block: such lines never look like YAML
        led = led_text(block)
        nonblank = len(block.lines) - len(_BLANK_OR_COMMENT_LINES.findall(led))
    if nonblank >= 8:
        yamlish = len(_YAMLISH_LINES.findall(led))
        if yamlish >= 0.85 * nonblank:
            start = next(i for i, line in enumerate(block.lines) if line.strip())
            reader = _Yaml(block.lines[start:])
            try:
                value = reader.parse()
            except RecursionError:
                value = None
    block.cache["yaml"] = value
    return value


def load_data(block: Block) -> Any:
    """JSON first, then YAML: the structured value a block holds, if any."""
    value = load_json(block)
    if value is None:
        value = load_yaml(block)
    return value
