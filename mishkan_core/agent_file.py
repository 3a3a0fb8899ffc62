"""An agent file's YAML frontmatter: its ``name`` and its ``hooks``, read and
edited as text.

Claude Code 2.1.x runs the hooks an agent file (``.claude/agents/<name>.md``)
declares in its frontmatter for that agent's own tool calls only. The schema
is the settings file's ``hooks`` mapping, written in YAML. The standard library
has no YAML parser, so this module reads the block-style subset agent files use
(mappings, sequences, plain, quoted and ``|``/``>`` scalars, and JSON-shaped
flow collections) and refuses anything else with a clear error rather than
guessing.

Edits are line insertions, never a re-serialisation: install adds one line per
handler group, ``- {"matcher": ..., "hooks": [...]}`` (a JSON flow mapping is
valid YAML), under the right event key, creating the key and ``hooks:`` when
missing; uninstall removes exactly those lines and the keys that are left
empty. Every other byte of the file stays as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mishkan_core import hook_chain, json_text
from mishkan_core.safe_files import LimitExceeded

#: digits of an integer scalar read as a number: int() of 5,000 digits raises
#: on Python 3.11+ and costs quadratic time before; no frontmatter needs more
MAX_DIGITS = 100


class FrontmatterError(ValueError):
    """The frontmatter cannot be read or edited safely: one line, with the fix."""


@dataclass(frozen=True)
class Frontmatter:
    """Where the frontmatter is: ``lines`` of the file (with their endings),
    the frontmatter's body is ``lines[start:end]`` (``end`` is the closing ``---``)."""

    lines: list[str]
    start: int
    end: int
    newline: str


def locate(text: str) -> Frontmatter | None:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() == "---":
            newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
            return Frontmatter(lines, 1, i, newline)
    return None


def name_of(text: str) -> str | None:
    """The ``name:`` the frontmatter declares, if any, as text: a YAML number
    or boolean is the name as written (``name: 007`` names ``007``), a flow
    value or an unreadable one names nothing. Raises :class:`LimitExceeded`
    for a value past the bounds (5,000 digits, 100,000 ``[``)."""
    front = locate(text)
    if front is None:
        return None
    for line in front.lines[front.start : front.end]:
        key, sep, value = line.partition(":")
        if sep and key == "name":
            raw = _strip_comment(value.strip()).strip()
            try:
                scalar = _scalar(raw)
            except FrontmatterError:
                return None
            if isinstance(scalar, str):
                return scalar or None
            return raw if isinstance(scalar, (bool, int)) else None
    return None


def agent_type_of(stem: str, text: str) -> str:
    """The agent a file defines, as the CLI names it: its frontmatter ``name:``,
    else its file name without ``.md``. Install and ``routing check`` both use
    this, so they always mean the same file by one agent."""
    return name_of(text) or stem


# ---------------------------------------------------------------------------
# A block-YAML subset reader


@dataclass
class _Line:
    number: int  # index in Frontmatter.lines
    indent: int
    text: str  # without indentation, trailing comment-free for structure


def _content(line: str) -> str:
    return line.rstrip("\r\n")


def _scalar(text: str) -> Any:
    """A one-line YAML scalar or JSON-shaped flow collection."""
    text = _strip_comment(text).strip()
    if not text:
        return None
    if text[0] in '[{"':
        try:  # bounded: 100,000 nested "[" is one line, not a RecursionError
            return json_text.parse(text)
        except LimitExceeded:
            raise
        except json_text.JsonError:
            raise FrontmatterError(
                f"cannot read {text[:40]!r} (only JSON-shaped flow values)"
            ) from None
    if text[0] == "'":
        if len(text) < 2 or text[-1] != "'":
            raise FrontmatterError(f"unterminated quote in {text[:40]!r}")
        return text[1:-1].replace("''", "'")
    if re.fullmatch(r"-?\d+", text):
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise LimitExceeded(
                f"a number of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS})"
            )
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    return text


def _strip_comment(text: str) -> str:
    """Drop a trailing `` # comment`` outside quotes."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i]
    return text


def _lines(front: Frontmatter, first: int, last: int) -> list[_Line]:
    out: list[_Line] = []
    for n in range(first, last):
        raw = _content(front.lines[n])
        stripped = raw.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("\t") or raw[: len(raw) - len(stripped)].count("\t"):
            raise FrontmatterError(f"line {n + 1}: a tab in indentation is not YAML")
        out.append(_Line(n, len(raw) - len(stripped), stripped))
    return out


def _parse_block(lines: list[_Line], i: int, indent: int) -> tuple[Any, int]:
    """The block node whose lines start at ``lines[i]`` (at ``indent``)."""
    if lines[i].text.startswith("- ") or lines[i].text == "-":
        return _parse_sequence(lines, i, indent)
    return _parse_mapping(lines, i, indent)


def _key_value(line: _Line) -> tuple[str, str]:
    match = re.match(
        r'^("(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[^:#]+?)\s*:(?:\s+|$)(.*)$', line.text
    )
    if not match:
        raise FrontmatterError(f"line {line.number + 1}: expected 'key: value'")
    key = _scalar(match.group(1))
    return str(key), match.group(2)


def _parse_mapping(lines: list[_Line], i: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(lines) and lines[i].indent == indent and not lines[i].text.startswith("- "):
        key, rest = _key_value(lines[i])
        out[key], i = _value(lines, i, indent, rest)
    if i < len(lines) and lines[i].indent > indent:
        raise FrontmatterError(f"line {lines[i].number + 1}: unexpected indentation")
    return out, i


def _parse_sequence(lines: list[_Line], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while (
        i < len(lines)
        and lines[i].indent == indent
        and (lines[i].text.startswith("- ") or lines[i].text == "-")
    ):
        rest = lines[i].text[2:].lstrip(" ") if lines[i].text != "-" else ""
        if not rest or _strip_comment(rest).strip() == "":
            if i + 1 < len(lines) and lines[i + 1].indent > indent:
                value, i = _parse_block(lines, i + 1, lines[i + 1].indent)
            else:
                value, i = None, i + 1
        elif rest[0] in "[{\"'" or not re.match(r"^[^\s:#][^:#]*\s*:(\s|$)", rest):
            value, i = _scalar(rest), i + 1
        else:  # "- key: value" opens a mapping whose keys sit at the key's column
            inner = indent + (len(lines[i].text) - len(rest))
            lines[i] = _Line(lines[i].number, inner, rest)
            value, i = _parse_mapping(lines, i, inner)
        out.append(value)
    return out, i


def _value(lines: list[_Line], i: int, indent: int, rest: str) -> tuple[Any, int]:
    rest = _strip_comment(rest).strip()
    if rest in ("|", "|-", ">", ">-"):
        return _block_scalar(lines, i, indent, rest)
    if rest:
        return _scalar(rest), i + 1
    if i + 1 < len(lines) and (
        lines[i + 1].indent > indent
        or (lines[i + 1].indent == indent and lines[i + 1].text.startswith("- "))
    ):
        return _parse_block(lines, i + 1, lines[i + 1].indent)
    return None, i + 1


def _block_scalar(lines: list[_Line], i: int, indent: int, style: str) -> tuple[str, int]:
    j = i + 1
    parts: list[str] = []
    while j < len(lines) and lines[j].indent > indent:
        parts.append(lines[j].text)
        j += 1
    text = ("\n" if style[0] == "|" else " ").join(parts)
    return (text if style.endswith("-") else text + "\n"), j


def _hooks_span(front: Frontmatter) -> tuple[int, int] | None:
    """Line indexes ``[key, end)`` of the top-level ``hooks:`` entry."""
    for n in range(front.start, front.end):
        if re.match(r"^hooks\s*:", _content(front.lines[n])):
            end = n + 1
            while end < front.end:
                raw = _content(front.lines[end])
                if (
                    raw
                    and not raw[0].isspace()
                    and not raw.startswith("#")
                    and not raw.startswith("- ")
                ):
                    break
                end += 1
            while end - 1 > n and not _content(front.lines[end - 1]).strip():
                end -= 1
            return n, end
    return None


def read_hooks(text: str) -> dict[str, Any] | None:
    """The frontmatter's ``hooks`` mapping (``None`` when there is none).
    Raises :class:`FrontmatterError` when it is not the supported subset."""
    front = locate(text)
    if front is None:
        return None
    span = _hooks_span(front)
    if span is None:
        return None
    key, end = span
    rest = _content(front.lines[key]).split(":", 1)[1]
    lines = _lines(front, key + 1, end)
    if _strip_comment(rest).strip():
        value = _scalar(rest)
    elif lines:
        value, used = _parse_block(lines, 0, lines[0].indent)
        if used != len(lines):
            raise FrontmatterError(f"line {lines[used].number + 1}: unexpected indentation")
    else:
        value = None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FrontmatterError("'hooks' is not a mapping")
    return value


# ---------------------------------------------------------------------------
# Editing


def _item_line(indent: str, event: str, command: str, newline: str) -> str:
    """Our groups for ``event``, one flow-mapping line each (hook_chain.GROUPS)."""
    return "".join(
        f"{indent}- {json.dumps(group, ensure_ascii=False)}{newline}"
        for group in hook_chain._groups(event, command)
    )


def install(text: str, command: str, events: tuple[str, ...]) -> str:
    """``text`` with our handler registered for exactly ``events`` (our lines
    for other events removed). Idempotent; raises :class:`FrontmatterError`."""
    front = locate(text)
    if front is None:
        raise FrontmatterError("no YAML frontmatter (a first line '---' and a closing '---')")
    text = uninstall(text) if _our_lines(text) else text
    hooks = read_hooks(text)  # validates the existing block before we touch it
    front = locate(text)
    assert front is not None
    lines = list(front.lines)
    nl = front.newline
    span = _hooks_span(front)
    if span is None:
        block = [f"hooks:{nl}"]
        for event in events:
            block += [f"  {event}:{nl}", _item_line("    ", event, command, nl)]
        lines[front.end : front.end] = block
        return "".join(lines)
    key, end = span
    if _strip_comment(_content(lines[key]).split(":", 1)[1]).strip():
        raise FrontmatterError(
            "'hooks:' is written inline; write it as a block mapping (one event per line) "
            "or register in settings with `mishkan install --scope project`"
        )
    children = _lines(front, key + 1, end)
    child_indent = children[0].indent if children else 2
    inserts: list[tuple[int, list[str]]] = []
    appended: list[str] = []
    for event in events:
        entry = next(
            (c for c in children if c.indent == child_indent and _key_value(c)[0] == event), None
        )
        if entry is None:
            pad = " " * child_indent
            appended += [f"{pad}{event}:{nl}", _item_line(pad + "  ", event, command, nl)]
            continue
        existing = (hooks or {}).get(event)
        if existing is not None and not isinstance(existing, list):
            raise FrontmatterError(
                f"'hooks.{event}' is not a block list; write it as '- ...' lines "
                "or register in settings with `mishkan install --scope project`"
            )
        if _strip_comment(_key_value(entry)[1]).strip():
            raise FrontmatterError(
                f"'hooks.{event}' is written inline; write it as '- ...' lines "
                "or register in settings with `mishkan install --scope project`"
            )
        after = [c for c in children if c.number > entry.number]
        body = []
        for c in after:
            if c.indent < child_indent or (
                c.indent == child_indent and not c.text.startswith("- ")
            ):
                break
            body.append(c)
        item_indent = next((c.indent for c in body if c.text.startswith("- ")), child_indent + 2)
        last = body[-1].number if body else entry.number
        inserts.append((last + 1, [_item_line(" " * item_indent, event, command, nl)]))
    if appended:
        inserts.append((end, appended))
    # from the bottom up; at one position the later insert goes first, so the
    # earlier one (an item closing its event's list) ends up above it
    for _order, (at, new) in sorted(
        enumerate(inserts), key=lambda x: (x[1][0], x[0]), reverse=True
    ):
        lines[at:at] = new
    return "".join(lines)


def _our_lines(text: str) -> list[int]:
    """Indexes of the single-line groups install wrote (ours, JSON-shaped)."""
    front = locate(text)
    if front is None:
        return []
    span = _hooks_span(front)
    if span is None:
        return []
    found = []
    for n in range(span[0] + 1, span[1]):
        stripped = _content(front.lines[n]).strip()
        if stripped.startswith("- {") and hook_chain.is_ours(stripped):
            try:
                group = json_text.parse(stripped[2:])
            except json_text.JsonError:  # a 100,000-deep line is not ours either
                continue
            if isinstance(group, dict) and hook_chain.ours({"E": [group]}):
                found.append(n)
    return found


def registers_nudge(text: str) -> bool:
    """The frontmatter's ``hooks:`` register the nudge: lines install wrote, or
    an entry written by hand. The body naming the hook (prose, an example)
    does not count, nor does an unreadable frontmatter without our lines."""
    if _our_lines(text):
        return True
    try:
        hooks = read_hooks(text)
    except FrontmatterError:
        return False
    return bool(hook_chain.ours(hooks))


def uninstall(text: str) -> str:
    """``text`` without the lines install added; event keys and a ``hooks:``
    key left with nothing under them go too."""
    mine = set(_our_lines(text))
    if not mine:
        return text
    front = locate(text)
    assert front is not None
    span = _hooks_span(front)
    assert span is not None
    key, end = span
    lines = front.lines

    def indent_of(n: int) -> int:
        raw = _content(lines[n])
        return len(raw) - len(raw.lstrip(" "))

    structural = [
        n
        for n in range(key + 1, end)
        if _content(lines[n]).strip() and not _content(lines[n]).lstrip().startswith("#")
    ]
    drop = set(mine)
    for n in sorted(mine):
        # the key our line sits under: the nearest shallower line above it
        parent = next(
            (p for p in reversed(structural) if p < n and indent_of(p) < indent_of(n)), None
        )
        if parent is None or parent in drop:
            continue
        rest = [p for p in structural if p > parent and p not in drop]
        under = next((p for p in rest if indent_of(p) <= indent_of(parent)), None)
        children = [p for p in rest if under is None or p < under]
        if not children:
            drop.add(parent)
    if all(n in drop for n in structural):
        drop.add(key)
    return "".join(line for n, line in enumerate(lines) if n not in drop)
