"""The exact-structure helpers: tolerant JSON, the YAML subset, and line shapes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mishkan_core.ingest_lint._model import Block
from mishkan_core.ingest_lint._shape import (
    count_lines,
    is_code_line,
    line_led,
    locate,
    matching_lines,
    sample,
)
from mishkan_core.ingest_lint._structure import (
    _cut,
    _json_lines,
    _repair,
    _yaml_scalar,
    load_json,
    load_yaml,
)


def _block(text: str, fenced: bool = True) -> Block:
    return Block(0, 1, text.split("\n"), fenced)


def test_truncated_json_is_closed_after_the_last_complete_record() -> None:
    text = '{"nodes": [{"id": "a", "label": "A"}, {"id": "b", "lab'
    assert _repair(text) == {"nodes": [{"id": "a", "label": "A"}]}
    assert _repair("no json here") is None


# _repair's cut as it was found first: every token walked in Python. The tokeniser
# that replaced it must cut every text at the same place.
_TOKEN = re.compile(r'(?<!\\)(?:"(?:[^"\\\n]|\\.)*"|[\[\]{}])')


def _cut_token_by_token(text: str) -> tuple[int, str] | None:
    stack: list[str] = []
    cut = -1
    cut_stack: list[str] = []
    for match in _TOKEN.finditer(text):
        head = match.group()[0]
        if head == '"':
            continue
        if head in "[{":
            stack.append(head)
            continue
        if not stack or (stack[-1] == "[") != (head == "]"):
            break
        stack.pop()
        cut = match.end()
        cut_stack = stack[:]
        if not stack:
            break
    if cut < 0:
        return None
    return cut, "".join("]" if opener == "[" else "}" for opener in reversed(cut_stack))


# pieces of JSON, escapes and strings that a backslash or a line break cuts short
_PIECES = st.sampled_from(['"', "\\", "[", "]", "{", "}", "\n", "a", '\\"', '"a"', "\\\\"])


@example('[\\"]"]')  # no string starts after a backslash: the "]" closes the "["
@example('{"a\\"}": [1, "x\\\\"]')
@settings(max_examples=500)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_repair_cuts_where_a_token_by_token_walk_does(text: str) -> None:
    assert _cut(text) == _cut_token_by_token(text)


@given(st.lists(st.text(alphabet='"\\[]{} :,1a\t', max_size=20), max_size=8))
def test_json_lines_read_each_line_as_json_loads_does(lines: list[str]) -> None:
    expected = []
    for line in lines:
        stripped = line.strip()
        if stripped and stripped[0] in "{[" and stripped[-1] in "}]":
            try:
                expected.append(json.loads(stripped))
            except ValueError:
                pass
    found = _json_lines(lines)
    nonblank = sum(1 for line in lines if line.strip())
    if nonblank >= 3 and len(expected) >= 0.8 * nonblank:
        assert found == expected
    else:
        assert found is None


def test_json_forms() -> None:
    whole = json.dumps({"a": [1, 2, {"b": "c"}]}, indent=2)
    assert load_json(_block(whole)) == {"a": [1, 2, {"b": "c"}]}
    lines = "\n".join(json.dumps({"name": f"n{i}", "line": i}) for i in range(4))
    assert load_json(_block(lines)) == [{"name": f"n{i}", "line": i} for i in range(4)]
    stream = "\n".join(json.dumps({"k": i, "v": "x" * 3}, indent=1) for i in range(3))
    assert load_json(_block(stream)) == [{"k": i, "v": "xxx"} for i in range(3)]


def test_prose_is_not_json() -> None:
    prose = 'He said "yes", she said "no", they said "maybe" and "perhaps".\n[a link](x) "q" "r"'
    assert load_json(_block(prose, fenced=False)) is None


def test_yaml_subset() -> None:
    text = "\n".join(
        [
            "graph:",
            "  directed: true",
            "  nodes:",
            "  - id: a",
            "    label: 'A'",
            "  - id: b",
            "    tags: [x, y]",
            "  links:",
            "  - source: a",
            "    target: b",
            "notes: |",
            "  free: text",
        ]
    )
    assert load_yaml(_block(text)) == {
        "graph": {
            "directed": True,
            "nodes": [{"id": "a", "label": "A"}, {"id": "b", "tags": ["x", "y"]}],
            "links": [{"source": "a", "target": "b"}],
        },
        "notes": "|",  # block scalars are skipped, their marker kept
    }


def test_yaml_needs_a_yaml_shape() -> None:
    assert load_yaml(_block("This is prose.\nIt has: a colon.\n" * 5)) is None


def test_locate() -> None:
    line = "- request() [calls] requests/api.py:L70 and more"
    span = locate(line)
    assert span is not None and line[span[0] : span[1]] == "requests/api.py:L70"
    for text, found in [
        ("NODE X [src=flag.go loc=L175]", "loc=L175"),
        ("see pkg/core.py:12 for it", "pkg/core.py:12"),
        ("[store.py#L10](src/store.py#L10)", "store.py#L10"),
        ("ail/src/mod.rs L286", "ail/src/mod.rs L286"),
    ]:
        span = locate(text)
        assert span is not None and text[span[0] : span[1]] == found
    assert locate("version 1.2 of the tool") is None
    assert locate("a sentence. Another one") is None


def test_is_code_line() -> None:
    for code in [
        "def f(x):",
        "    return x + 1",
        "import os",
        "}",
        "x = compute(a, b);",
        "if (a && b) {",
        "@decorator",
        "// a comment",
        "fn main() -> Result<(), Error> {",
    ]:
        assert is_code_line(code), code
    for prose in [
        "We chose the simplest option because it was the easiest to operate.",
        "- use the cache for reads",
        "## Decision",
        "| option | cost |",
        "",
        "If the deploy fails, roll back first and investigate later.",
    ]:
        assert not is_code_line(prose), prose


def test_line_helpers() -> None:
    import re

    block = _block("a\nfoo 1\nb\nfoo 2\nfoo 3")
    pattern = re.compile(r"^foo \d$", re.MULTILINE)
    assert matching_lines(block, pattern) == [1, 3, 4]
    led = re.compile(line_led(pattern), pattern.flags)
    assert count_lines(block, led) == (3, [1])
    assert count_lines(_block("foo 0\nb\nfoo 2"), led) == (2, [0])  # the first line too
    with pytest.raises(ValueError, match="not a line-anchored pattern"):
        line_led(re.compile(r"foo \d"))
    many = [f"line {i}" for i in range(1000)]
    picked = sample(many, 10)
    assert len(picked) == 10 and picked[0] == "line 0" and picked[-1].startswith("line 9")


def _yaml_scalar_as_first_written(raw: str) -> Any:
    raw = raw.strip()
    if " #" in raw and raw[:1] not in "\"'":
        raw = raw.split(" #", 1)[0].rstrip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    if raw.startswith("[") and raw.endswith("]"):
        return [
            _yaml_scalar_as_first_written(item) for item in raw[1:-1].split(",") if item.strip()
        ]
    if raw.startswith("{") and raw.endswith("}"):
        out: dict[str, Any] = {}
        for item in raw[1:-1].split(","):
            key, sep, val = item.partition(":")
            if sep:
                out[key.strip().strip("\"'")] = _yaml_scalar_as_first_written(val)
        return out
    if raw in ("null", "~", ""):
        return None
    if raw in ("true", "false"):
        return raw == "true"
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    return raw


_SCALAR_PIECES = st.sampled_from(
    [
        '"',
        "'",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        " #",
        "#",
        " ",
        "-",
        "1",
        "\u0663",
        "a",
        "null",
        "true",
    ]
)


@given(st.lists(_SCALAR_PIECES, max_size=12).map("".join))
def test_a_yaml_scalar_reads_as_it_was_first_written(raw: str) -> None:
    assert _yaml_scalar(raw) == _yaml_scalar_as_first_written(raw)
