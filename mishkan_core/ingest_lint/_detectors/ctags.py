"""IL301: tags files: ctags (tab-separated and ``-x`` cross-reference) and etags."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import SYMBOL_TABLE, Block, Document, Hit
from mishkan_core.ingest_lint._shape import block_sample, count_lines, line_led, sample_reaches

# name<TAB>file<TAB>address[;"<TAB>fields...]  (address: /^pattern$/, ?pattern? or a line number;
# a run up to a literal is greedy: the engine gives it back to that literal in one C loop)
_TAGS = re.compile(
    r'^(?:[^\t\n]+\t[^\t\n]+\t(?:/.*/|\?.*\?|\d+)(?:;"(?:\t.*)?)?[ \t]*$|!_TAG_\w+\t)',
    re.MULTILINE,
)
# ctags -x / global -x: name kind line file source-text (kind may be absent)
_XREF = re.compile(
    r"^[^ \t\n]+[ \t]+(?:[A-Za-z][\w ]{0,24}?[ \t]+)?\d+[ \t]+[^ \t\n]+\.\w{1,8}[ \t]+\S",
    re.MULTILINE,
)
# etags: "text<DEL>name<SOH>line,offset" lines, "file,size" heads and form feeds
_ETAG = re.compile(
    r"^(?:[^\x7f\n]*\x7f(?:[^\x01\x7f\n]*\x01)?\d+,\d+|[^ \t\n]+,\d+|\x0c)[ \t]*$", re.M
)
_ETAGS = re.compile(line_led(_ETAG), _ETAG.flags)
_TAGS_LINES = re.compile(line_led(_TAGS), _TAGS.flags)
_XREFS = re.compile(line_led(_XREF), _XREF.flags)


def _measure(block: Block) -> Measure | None:
    if block.count("\x7f") and sample_reaches(block, _ETAG.search, 0.3):
        return Measure(*count_lines(block, _ETAGS), "etags")
    if block.count("\t") >= 8 and sample_reaches(block, _TAGS.match, 0.3):
        return Measure(*count_lines(block, _TAGS_LINES), "ctags")
    if "  " not in block.text:  # -x output is aligned in columns
        return None
    picked = block_sample(block)
    # the sample lines with a gap inside them, counted in C
    gaps = sum(map(str.__contains__, map(str.strip, picked), repeat("  ")))
    aligned = gaps >= 0.5 * len(picked)
    if aligned and sample_reaches(block, _XREF.match, 0.3):
        return Measure(*count_lines(block, _XREFS), "ctags -x")
    return None


@register("IL301", "tags-file", SYMBOL_TABLE, "ctags/etags symbol table")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(doc, _measure, 15, 0.6, what="symbol table", noun="tag entries")
