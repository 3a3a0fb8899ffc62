"""IL502: documents that are mostly source code, fenced or not.

At least MIN_SHARE of the content is code (data fences count half, frames of a
stack trace not at all); unless the code is overwhelming (CLEAR_SHARE), most of
it must come in pasted-size pieces, not as many short examples between paragraphs."""

from __future__ import annotations

from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import excerpt
from mishkan_core.ingest_lint._model import BULK_SOURCE, Block, Document, Hit
from mishkan_core.ingest_lint._properties import Properties
from mishkan_core.ingest_lint._roles import PROSE_SHARE, prose_carried
from mishkan_core.ingest_lint._shape import (
    CODE_LANGS,
    DATA_LANGS,
    code_line_count,
    is_code_line,
    sample_share,
)

MIN_CODE_LINES = 40
MIN_SHARE = 0.6
#: above this share a document is source whatever the size of its pieces
CLEAR_SHARE = 0.85
#: below it, this share of the code must sit in blocks of at least PASTE_LINES code lines
PASTED_SHARE = 0.5
PASTE_LINES = 15


@register("IL502", "bulk-source", BULK_SOURCE, "mostly source code (a pasted file or files)")
def check(doc: Document) -> Iterator[Hit]:
    blocks = doc.unclaimed()
    content = sum(block.nonblank for block in blocks)
    if content < MIN_CODE_LINES:
        return
    # A cheap estimate first: whole code fences, plus a sampled share of the blocks
    # that could hold code; sampling stops as soon as the answer is known.
    need = 0.4 * content
    estimate = 0.0
    candidates: list[Block] = []
    for block in blocks:
        if block.fenced and (block.lang in CODE_LANGS or block.lang in DATA_LANGS):
            estimate += block.nonblank
        elif (block.fenced and not block.lang and block.nonblank >= 20) or (  # Ruby has few
            block.count("(")
            + block.count("=")
            + block.count("{")
            + block.count("}")
            + block.count(";")
            + block.count(":")
            >= 0.5 * block.nonblank
        ):
            candidates.append(block)
    reachable = estimate + sum(block.nonblank for block in candidates)
    for block in candidates:
        if estimate >= need or reachable < need:
            break
        share = sample_share(block, is_code_line) * block.nonblank
        estimate += share
        reachable -= block.nonblank - share
    if estimate < need:
        return
    budget = (1 - MIN_SHARE) * content  # more prose lines than this and the answer is no
    counts: list[tuple[int, Block]] = []
    prose = 0.0
    for block in sorted(blocks, key=lambda b: not (b.fenced and b.lang)):
        count = code_line_count(block, budget - prose)
        if block.fenced and block.lang in DATA_LANGS:
            count //= 2  # a config example or a sample payload is data, not source
        prose += block.nonblank - count
        if prose > budget:
            return
        counts.append((count, block))
    counts.sort(key=lambda item: item[1].index)
    code = sum(count for count, _ in counts)
    if code < MIN_CODE_LINES or code < MIN_SHARE * content:
        return
    if code < CLEAR_SHARE * content:
        # Between the two shares, the code must come in pieces a file is pasted in: many
        # short snippets between paragraphs are the examples of a document about them.
        pasted = sum(count for count, _ in counts if count >= PASTE_LINES)
        if pasted < PASTED_SHARE * code:
            return
    coded = [(count, block) for count, block in counts if count]
    # the line: a document carried by prose keeps its hand-written listing, however
    # long; only a listing a tool printed is rejected there
    carried, prose = prose_carried(blocks)
    props = Properties([line for _, block in coded for line in block.lines])
    if carried and not props.machine_output():
        return
    why = (
        f"machine output in a document carried by prose ({', '.join(props.regular())})"
        if carried
        else f"prose carries {prose:.0%} of the content (under {PROSE_SHARE:.0%})"
    )
    largest_count, largest = max(coded, key=lambda item: item[0])
    first = coded[0][1]
    last = coded[-1][1]
    evidence = next(
        (line for line in largest.lines if is_code_line(line)),
        next((line for line in largest.lines if line.strip()), ""),
    )
    kind = (
        f"fenced {largest.lang} block"
        if largest.fenced and largest.lang
        else ("fenced block" if largest.fenced else "unfenced run")
    )
    yield Hit(
        first.start,
        last.end,
        f"bulk source: {code} of {content} content lines are code ({code / content:.0%}); "
        f"largest: {kind} at lines {largest.start}-{largest.end} ({largest_count} code lines); "
        f"{why}; shape: {props.describe(prose)}",
        excerpt(evidence),
        tuple(block.index for _, block in coded),
    )
