"""Arbitrary input never raises, segmentation keeps every line, and nothing is slow
on adversarial shapes (no catastrophic regexes)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from mishkan_core.ingest_lint._document import build
from mishkan_core.ingest_lint._engine import lint_text
from mishkan_core.ingest_lint._reader import split_lines

PIECES = st.sampled_from(
    [
        "---",
        "mishkan: ingest",
        "mishkan-lint: allow IL101 -- why",
        "```",
        "```json",
        "~~~",
        "{",
        "}",
        "[",
        "]",
        '"source": "a.b",',
        '"target": "c.d"',
        "a.b -> c.d",
        "(node [1, 2] - [3, 4]",
        "x = Name(id='a', ctx=Load())",
        'name\tfile.py\t/^def x():$/;"\tf',
        "  - dep.mod",
        "mod:",
        "| `a.b` | fn | `a.py:12` |",
        "1. Foo - 12 edges",
        "def f(x):",
        "    return x",
        "",
        "Some prose about the decision and why we made it.",
        "@@ -1,3 +1,3 @@",
        "+added",
        "-removed",
        "\t",
        "\x7f",
        "\u251c\u2500\u2500 dep v1.0.0",
        '<node id="a"/>',
        "MERGE (n:Code {id: 'a'});",
    ]
)
DOCS = st.lists(st.one_of(PIECES, st.text(max_size=40)), max_size=60).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(DOCS)
def test_lint_never_raises(body: str) -> None:
    for text in (body, "---\nmishkan: ingest\n---\n" + body):
        result = lint_text("fuzz.md", text, include_all=True)
        for finding in result.findings:
            assert finding.line >= 1 and finding.end_line >= 1
            assert "\n" not in finding.evidence


@settings(max_examples=300, deadline=None)
@given(DOCS)
def test_blocks_partition_the_body(body: str) -> None:
    lines = split_lines(body)
    doc = build("p.md", lines, 0)
    covered = 0
    for block in doc.blocks:
        assert block.text == "\n".join(block.lines)
        covered += len(block.lines)
        assert block.lines == lines[block.start - 1 : block.start - 1 + len(block.lines)]
    assert covered <= len(lines)
    assert doc.content_lines == sum(block.nonblank for block in doc.blocks)


def test_adversarial_lines_stay_fast() -> None:
    hostile = [
        "-" * 200_000 + ">",
        "a." * 100_000 + "py",
        "(" * 50_000 + ")" * 50_000,
        "x " * 100_000 + "= Name(",
        "  " * 50_000 + "- dep",
        "[" + '{"source": "a", "target": ' * 5_000,
        "|-" * 50_000,
        "1. " + "a " * 50_000 + "- 12 edges",
        "`a.b` (x.py:1) calls " * 5_000,
        "\t" * 100_000,
        "a.b: " + "x " * 100_000 + "=",
        "- a/b.py: " + "x.y, " * 50_000 + "=",
        "a.b " + "c." * 100_000,
        "| a.py | " + "1" * 100_000,
        "Name(" + "x=Name(" * 30_000,
        "<Name: " + "x@1,2 " * 30_000,
        "  --> X [uses] " + "a.py:L1 " * 30_000,
        "x line " + "1" * 100_000 + " " * 10,
    ]
    for line in hostile:
        text = "---\nmishkan: ingest\n---\n```\n" + "\n".join([line] * 5) + "\n```\n"
        started = time.process_time()
        lint_text("hostile.md", text)
        assert time.process_time() - started < 3.0, line[:20]
