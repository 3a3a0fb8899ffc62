"""ingest-lint's fast paths (issue 24's speed work) answer as the plain ones do.

Each fast path decides many lines or values at once with C-level passes, and keeps
the plain, one-at-a-time code it short-cuts as its reference (a ``settle=False``-like
switch): here both run on every block of every labelled document, and on generated
text made of the pieces each test looks for, and must agree exactly.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from mishkan_core.ingest_lint._document import build
from mishkan_core.ingest_lint._model import Block, Document
from mishkan_core.ingest_lint._reader import parse_front_matter, split_lines
from mishkan_core.ingest_lint._roles import _line_roles
from tests.ingest_lint.test_gate import _texts

#: pieces of lines that the role tests look for, in a form each may take
PIECES = [
    "the", "a", "to", "it", "on", "We", "In", "of", "is", "for", "and", "calls", "uses",
    "x", "foo", "Bar", "fooBar", "foo_bar", "pkg.mod", "f()", "0x7f3a2c", "12:34:56",
    "2024-01-02T10:11", "Error: ", "error[E0308]: ", "Warning: ", "panicked at", "at ",
    "File \"a.py\"", "#3 ", "$ ", "> ", "goroutine 7 [", "[INFO]", "...", "--> a.rs:1:2",
    "<!-- x -->", "<b>", "</td>", "[x](y)", "[![b][i]][u]", "[ref]: http://x", "`code`",
    "user@example.org", "https://x.org/a", "|", "| a | b |", "---", "===", "#", "## ",
    "- ", "* ", "1. ", "{", "}", ";", "=", "->", "=>", "\t", "    ", "  ", " ", "é", "日本",
    "\x7f", "\udcff", "'''", '"""', "1.2.3", "12", ":", ",", ".", "(", ")",
    "Robust implementation", "global time", "for details", "https://x.org/?a=b", "~/a=b",
]  # fmt: skip
_LINE = st.lists(
    st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", " ", "  "])).map("".join),
    max_size=12,
).map("".join)


@lru_cache(maxsize=1)
def _documents() -> list[Document]:
    docs = []
    for name, text in _texts():
        lines = split_lines(text)
        front = parse_front_matter(lines, ())
        docs.append(build(name, lines, front.end_line, None if "\r" in text else text))
    return docs


def test_settled_roles_are_each_line_s_own_on_every_labelled_block() -> None:
    differ = []
    blocks = 0
    for doc in _documents():
        for block in doc.blocks:
            blocks += 1
            if _line_roles(block) != _line_roles(block, settle=False):
                differ.append(f"{doc.path} block {block.index}")
    assert not differ, differ
    assert blocks > 1000


@settings(max_examples=1000, deadline=None)
@given(st.lists(_LINE, max_size=30), st.booleans(), st.integers(0, 40))
def test_settled_roles_are_each_line_s_own(lines: list[str], fenced: bool, long: int) -> None:
    # a line of 400+ characters, compact or not, is judged apart (no log line, no sentence)
    lines = [*lines, "a.b(c)" * long, "the x " * long]
    block = Block(0, 1, lines, fenced)
    assert _line_roles(block) == _line_roles(block, settle=False)
