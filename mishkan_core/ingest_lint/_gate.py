"""The shape model's first look, the gate every document passes before any detector:
is it plainly prose?

A document is plainly prose when every fence in it is a short snippet (fewer than
``FENCE_LINES`` line-widths, a line weighing as the backstop weighs it, by its length
over ``LINE``; fewer than ``FENCED_TOTAL`` in all, or fewer than
``SNIPPET_SHARE`` of the sentence lines) and every other block is sentences:
nearly all of its lines hold a sentence's function words with few marks of code, no
line is longer than prose ever is, and nothing in it has the marks of a listing
(arrows, tree-drawing prefixes, tabs, ``file:line`` locations, "calls" lines). Such a
document cannot reach any rule's threshold, so the engine accepts it without loading
the detectors; ``tests/ingest_lint/test_gate.py`` checks, on every labelled document,
that the gate never let one through that a detector would have reported.

Standard library only and no regular expression: a one-file pre-commit run of a
prose document imports neither ``re`` nor the detectors (issue 24's start-up bar).
"""

from __future__ import annotations

from mishkan_core.ingest_lint._model import LINE, line_widths
from mishkan_core.ingest_lint._words import FUNCTION_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mishkan_core.ingest_lint._model import Document

#: a fence this long may already be a listing
FENCE_LINES = 8
#: and so may this many fenced lines together, unless the sentences outweigh them
FENCED_TOTAL = 10
SNIPPET_SHARE = 0.8
#: longer than a line of prose ever is
LONG = 300
#: lines of a block that need not be sentences (headings, a link, a short list)
OTHER_SHARE = 0.15
OTHER_LINES = 2
#: marks of a listing anywhere in a block
_LISTING_MARKS = ("->", "→", "├", "└", "│", "|--", "`--", "\t", "=>", "::", "@@")
#: characters that mark code; the lines of a block of sentences have MARKS of them at
#: most, on average
_CODE_CHARS = "{}[]<>=;|$\\"
MARKS = 2


def _located(line: str) -> bool:
    """Does the text point into a file (``name.ext:12``, ``line 12``)?"""
    at = line.find(":")
    while at >= 0:
        if line[at + 1 : at + 2].isdigit() and "." in line[max(0, at - 24) : at]:
            return True
        at = line.find(":", at + 1)
    at = line.find("line ")
    while at >= 0:
        if line[at + 5 : at + 6].isdigit():
            return True
        at = line.find("line ", at + 5)
    return False


_NOT_CODE = bytes(b for b in range(256) if chr(b) not in _CODE_CHARS)


def plainly_prose(doc: Document) -> bool:
    """All of the tests above, the cheapest first (most documents fail one of those):
    the fences' sizes, then each other block's marks in a few C-level scans of its
    text, and only then its lines one by one."""
    fenced = 0.0  # line-widths
    for block in doc.blocks:
        if block.fenced:
            # a few lines can hold a long dump (a minified file, an AST on one line): a
            # line weighs by its width, as the backstop weighs it, whose short drawn
            # listing fires from 10 line-widths (issue 24: 7 lines, 746 characters did)
            if block.nonblank >= FENCE_LINES or len(block.text) >= FENCE_LINES * LINE:
                return False
            width = sum(line_widths(list(filter(None, map(str.strip, block.lines)))))
            if width >= FENCE_LINES:
                return False
            fenced += width
    prose = [block for block in doc.blocks if not block.fenced]
    for block in prose:
        text = block.text
        if any(map(text.__contains__, _LISTING_MARKS)) or text.count(" calls ") >= 2:
            return False
        # the block's marks of code, counted in C: a sentence has at most MARKS of them
        marks = len(text.encode("utf-8", "surrogatepass").translate(None, _NOT_CODE))
        if marks > MARKS * block.nonblank or _located(text):
            return False
    sentences = 0
    for block in prose:
        other = 0
        for line in block.lines:
            stripped = line.strip()
            if not stripped:
                continue
            if stripped[0] == "#" and stripped.lstrip("#")[:1] in ("", " "):
                continue  # a heading ("#define", "#include" are code, not headings)
            if len(stripped) > LONG:
                return False
            if FUNCTION_WORDS.isdisjoint(stripped.split()):
                other += 1
            else:
                sentences += 1
        if other > max(OTHER_LINES, OTHER_SHARE * block.nonblank):
            return False
    # snippets: a few lines in all, or well under the sentences around them (no rule
    # fires on a document whose sentences outweigh its code)
    return fenced < FENCED_TOTAL or fenced <= SNIPPET_SHARE * sentences
