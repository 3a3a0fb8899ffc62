"""Segmenting a body into blocks: ``build`` finds fences by searching the body; it
must find what reading the lines one by one finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mishkan_core.ingest_lint._document import build
from mishkan_core.ingest_lint._reader import split_lines

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def _blocks_line_by_line(lines: list[str], body_start: int) -> list[tuple[int, int, bool, str]]:
    """(first line, stop, fenced, info) of each block with content, reading line by line."""
    out: list[tuple[int, int, bool, str]] = []
    run = body_start
    i = body_start
    while i < len(lines):
        opener = _FENCE.match(lines[i])
        if opener is None or (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            i += 1
            continue
        fence = opener.group(1)
        close = next(
            (
                j
                for j in range(i + 1, len(lines))
                if (m := _FENCE.match(lines[j]))
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not m.group(2).strip()
            ),
            len(lines),
        )
        out.append((run, i, False, ""))
        out.append((i + 1, close, True, opener.group(2).strip().lower()))
        run = i = close + 1
    out.append((run, len(lines), False, ""))
    return [
        (first, stop, fenced, info)
        for first, stop, fenced, info in out
        if fenced or any(lines[first:stop])
    ]


_LINES = st.sampled_from(
    ["```", "````", "~~~", "```py", "``` x `y`", "  ```", "    ```", "text", "a ``` b", "", "~~~~ "]
)


@given(st.lists(_LINES, max_size=16), st.integers(min_value=0, max_value=3))
def test_fences_are_found_as_reading_line_by_line_finds_them(lines: list[str], start: int) -> None:
    start = min(start, len(lines))
    doc = build("p.md", lines, start)
    found = [(b.start - 1, b.start - 1 + len(b.lines), b.fenced, b.info) for b in doc.blocks]
    assert found == _blocks_line_by_line(lines, start)


@given(st.lists(_LINES, max_size=16), st.integers(min_value=0, max_value=3), st.booleans())
def test_a_body_sliced_from_the_text_is_the_body_joined_from_its_lines(
    lines: list[str], start: int, trailing_break: bool
) -> None:
    # the engine hands build the text the lines were split from (no carriage return)
    text = "\n".join(lines) + ("\n" if trailing_break else "")
    split = split_lines(text)
    start = min(start, len(split))
    joined = build("p.md", split, start)
    sliced = build("p.md", split, start, text)
    assert [(b.start, b.lines, b.text, b.fenced, b.info, b.closed) for b in sliced.blocks] == [
        (b.start, b.lines, b.text, b.fenced, b.info, b.closed) for b in joined.blocks
    ]
