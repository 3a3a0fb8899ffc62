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


@settings(max_examples=500, deadline=None)
@given(st.lists(_LINE, max_size=20))
def test_plainly_code_is_code_shaped_s_answer(lines: list[str]) -> None:
    from mishkan_core.ingest_lint._roles import code_shaped, plainly_code

    for line, quick in zip(lines, plainly_code(lines)):
        assert not quick or code_shaped(line), line


# --------------------------------------------------------------------------- properties

#: pieces of listing lines the shape model's properties look for
NAMES = [
    "a", "ab", "Ab", "AB", "aB", "a_b", "_a", "a.b", "a::b", "a->b", "a#b", "f(", "f()",
    "$x", "0x1f", "0x", "12", "1.2.3", "é", "日本", "ΣΑ", "x@y.org", "https://x.org/a_b",
    " ", "  ", "   ", "\t", "\u00a0", "\u2003", "-", "->", "=>", "→", "<-", " calls ",
    " imports ", " used by ", "call", "use", "├──", "└─┬", "│ ", "|-- ", "`-- ", "+-", ":",
    ",", ";", "(", ")", "[", "]", "{", "}", '"s"', "'s'", "\x00", "\udcff",
]  # fmt: skip
_LISTING_LINE = st.lists(st.sampled_from(NAMES), max_size=16).map("".join)


def _plain_properties(lines: list[str]) -> tuple[int, int, int, list[set[int]]]:
    """The sample's code names, edge lines, tree lines and field starts, each line read
    on its own as issue 24's first shape model read it (the reference)."""
    import re

    from mishkan_core.ingest_lint._properties import _EDGE, _TREE

    named = edges = tree = 0
    starts = []
    for line in lines:
        tokens = line.split()
        named_in = line
        if "@" in line or "://" in line:
            named_in = " ".join(t for t in tokens if "://" not in t and "@" not in t)
        named += min(len(tokens), len(re.findall(CODE_WORD_PLAIN, named_in)))
        edges += _EDGE.search(named_in) is not None
        tree += _TREE.match(line) is not None
        text = line.expandtabs(8) if "\t" in line else line
        found, at = set(), text.find("  ")
        while at >= 0:
            end = at + 2
            while end < len(text) and text[end] == " ":
                end += 1
            if end < len(text):
                found.add(end)
            at = text.find("  ", end)
        starts.append(found)
    return named, edges, tree, starts


#: _properties._CODE_WORD as it was first written
CODE_WORD_PLAIN = (
    r"(?<![\w$])[A-Za-z_$][\w$]*(?:\.|::|->|#)[A-Za-z_$][\w$.]*|\w\(|[A-Za-z0-9]_[A-Za-z0-9][\w$]*"
    r"|[a-z][A-Z][\w$]*|\$\w+|0x[0-9A-Fa-f]+"
)


@settings(max_examples=1000, deadline=None)
@given(_LISTING_LINE)
def test_the_code_word_pattern_matches_what_its_plain_form_does(line: str) -> None:
    import re

    from mishkan_core.ingest_lint._properties import _CODE_WORD

    assert _CODE_WORD.findall(line) == re.findall(CODE_WORD_PLAIN, line)


@settings(max_examples=500, deadline=None)
@given(st.lists(_LISTING_LINE, min_size=1, max_size=20))
def test_the_properties_read_as_each_line_on_its_own(lines: list[str]) -> None:
    from mishkan_core.ingest_lint._properties import _FIELD, _TREE, _edges, _named

    tokens = [line.split() for line in lines]
    named, edges, tree, starts = _plain_properties(lines)
    assert _named(tokens) == named
    assert _edges(lines, tokens) == edges
    assert sum(_TREE.match(line.lstrip(" \t")) is not None for line in lines) == tree
    expanded = [line.expandtabs(8) if "\t" in line else line for line in lines]
    assert [{m.end() - 1 for m in _FIELD.finditer(text)} for text in expanded] == starts


#: more of what _named and _edges short-cut: marks at a word's ends, relation words
#: between blanks or tabs, arrows, addresses
MARKS = [
    ".", "..", "#", "=", "<", ">", "`", "*", "?", "!", "%", "/", "\\", "'", '"', "::", "a.", ".a",
    "(a", "a(", "a)", "x:", ":x", "a-", "-a", "a#", "#a", "$", "_", "__a", "0x", "0xff_z", "Ab",
    "aB", "A_B", "uses", " uses ", "\tcalls\t", " depends on ", " called by ", "calls",
    " inherits from ", "-->", " -> ", "x->y", "a=>b", "<-", "→", "a@b", "http://a.b/c_d",
    "\x00", "\t", " ", "日本", "é", "\u2003",
]  # fmt: skip
_MARKED_LINE = st.lists(st.sampled_from(NAMES + MARKS), max_size=24).map("".join)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_MARKED_LINE, min_size=1, max_size=20), st.integers(0, 80))
def test_the_named_and_edge_lines_read_as_each_line_on_its_own(lines: list[str], long: int) -> None:
    from mishkan_core.ingest_lint._properties import _edges, _named

    # and a line longer than prose, names and edges in it
    lines = [*lines, "a.b(c) calls d_e, " * long]
    tokens = [line.split() for line in lines]
    named, edges, _, _ = _plain_properties(lines)
    assert _named(tokens) == named
    assert _edges(lines, tokens) == edges


_ASCII_LINE = st.lists(
    st.sampled_from([piece for piece in NAMES + MARKS + PIECES if piece.isascii()]), max_size=24
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_ASCII_LINE, max_size=8))
def test_the_ascii_patterns_match_what_their_plain_forms_do(lines: list[str]) -> None:
    from mishkan_core.ingest_lint._properties import (
        _CODE_WORD,
        _CODE_WORD_ASCII,
        _TOKEN,
        _TOKEN_ASCII,
    )

    # on text of ASCII alone, as the shape model reads it: lines joined
    text = "\n".join(lines)
    assert _TOKEN_ASCII.sub("a", text) == _TOKEN.sub("a", text)
    assert _CODE_WORD_ASCII.sub("\x00", text) == _CODE_WORD.sub("\x00", text)
    spans = [m.span() for m in _TOKEN.finditer(text)]
    assert [m.span() for m in _TOKEN_ASCII.finditer(text)] == spans


@settings(max_examples=1000, deadline=None)
@given(_LISTING_LINE)
def test_the_edge_pattern_finds_an_edge_where_its_plain_form_does(line: str) -> None:
    from mishkan_core.ingest_lint._properties import _EDGE, _EDGE_FAST

    # searched after a line break, as _edges searches it
    assert (_EDGE_FAST.search("\n" + line) is None) == (_EDGE.search(line) is None), line


@settings(max_examples=500, deadline=None)
@given(st.lists(_LISTING_LINE, min_size=4, max_size=20))
def test_the_columns_read_padded_as_line_by_line(lines: list[str]) -> None:
    from mishkan_core.ingest_lint._properties import _columns

    assert _columns(lines) == _columns(lines, padded=False)


def test_the_columns_of_every_labelled_block_read_padded_as_line_by_line() -> None:
    from mishkan_core.ingest_lint._properties import LONG, _columns, spread

    measured = 0
    for doc in _documents():
        for block in doc.blocks:
            lines = [line for line in spread(block.lines) if line.strip()]
            if len(lines) >= 4:
                measured += 1
                assert _columns(lines) == _columns(lines, padded=False), doc.path
                wide = [line + " " * LONG + "  x" for line in lines]  # past the cut
                assert _columns(wide) == _columns(wide, padded=False), doc.path
    assert measured > 500


def test_a_fence_s_code_lines_counted_until_known_as_all_counted() -> None:
    from mishkan_core.ingest_lint._shape import _code_line_count

    counted = 0
    for doc in _documents():
        for block in doc.blocks:
            if block.fenced:
                counted += 1
                quick = _code_line_count(block, float("inf"))
                assert quick == _code_line_count(block, float("inf"), early=False), doc.path
    assert counted > 500


# --------------------------------------------------------------------------- the backstop


def test_a_fence_s_machine_lines_add_up_together_as_one_by_one() -> None:
    from mishkan_core.ingest_lint._detectors.machine_shape import _shape

    measured = 0
    for doc in _documents():
        blocks = doc.blocks
        # no sentence is boilerplate, or the document's first few are
        some = {line.strip() for line in doc.lines[doc.body_start : doc.body_start + 9]}
        for stamped in (set(), some):
            assert _shape(blocks, stamped) == _shape(blocks, stamped, together=False), doc.path
        measured += 1
    assert measured > 500


_BLOCK = st.tuples(
    st.lists(_LINE | _LISTING_LINE, max_size=12), st.booleans(), st.sampled_from(["", "json"])
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=6))
def test_generated_fences_add_up_together_as_one_by_one(
    parts: list[tuple[list[str], bool, str]],
) -> None:
    from mishkan_core.ingest_lint._detectors.machine_shape import _shape

    blocks = [
        Block(k, 1 + 20 * k, lines, fenced, info=lang if fenced else "")
        for k, (lines, fenced, lang) in enumerate(parts)
    ]
    assert _shape(blocks, set()) == _shape(blocks, set(), together=False)
