"""Helpers the detectors share: evidence excerpts and the proportion tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Callable, NamedTuple

from mishkan_core.ingest_lint._model import Block, Document, Hit

EXCERPT_WIDTH = 120
#: a block this share of the document is a real part of it, whatever surrounds it
BLOCK_SHARE = 0.25
#: blocks that each look like pieces of one dump must together be this share
SPLIT_SHARE = 0.4


# tab, DEL and SOH (etags) shown as symbols; every other control character as U+FFFD
_VISIBLE: dict[int, str] = dict.fromkeys(range(32), "\ufffd")
_VISIBLE.update({ord("\t"): " \u21e5 ", 0x7F: "\u2421", 0x01: "\u2401"})


def excerpt(line: str, width: int = EXCERPT_WIDTH) -> str:
    """One line of evidence, control characters made visible, cut to ``width``."""
    text = line.strip()[: width * 2].translate(_VISIBLE)  # a 1 MB line costs its excerpt
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def first_line(block: Block, hits: list[int]) -> str:
    """The text of the first hit line (block-relative index), or the first non-blank line."""
    if hits:
        return block.lines[hits[0]]
    return next((line for line in block.lines if line.strip()), "")


def dominant(doc: Document, block: Block, count: int, minimum: int, ratio: float) -> bool:
    """The proportion test every line-based rule applies to one block.

    ``count`` matching lines fire when there are at least ``minimum`` of them,
    they make up at least ``ratio`` of the block, and the block is a real part
    of the document: a quarter of its content, or so long that it is bulk
    whatever surrounds it (four times ``minimum``).
    """
    if count < minimum or not block.nonblank:
        return False
    if count < ratio * block.nonblank:
        return False
    return doc.share(block.nonblank) >= BLOCK_SHARE or count >= 4 * minimum


def block_hit(block: Block, message: str, evidence: str, doc: Document) -> Hit:
    share = doc.share(block.nonblank)
    kind = "fenced " if block.fenced else ""
    if block.fenced and block.lang:
        kind += block.lang + " "
    text = f"{message} ({kind}block, lines {block.start}-{block.end}, {share:.0%} of the document)"
    return Hit(block.start, block.end, text, excerpt(evidence), (block.index,))


def key_lines(block: Block) -> list[int]:
    """Evidence for structured data: the first line holding a key and its value."""
    for i, line in enumerate(block.lines):
        if '":' in line or ": " in line:
            return [i]
    return [i for i, line in enumerate(block.lines) if line.strip()][:1]


class Measure(NamedTuple):
    """What a line-based rule found in one block."""

    size: int  # matching lines (or records)
    lines: list[int]  # block-relative indices of evidence lines
    detail: str = ""  # extra words for the message


def scan(
    doc: Document,
    measure: Callable[[Block], Measure | None],
    minimum: int,
    ratio: float,
    *,
    what: str,
    noun: str,
    records: bool = False,
) -> Iterator[Hit]:
    """Run ``measure`` over the unclaimed blocks and apply the proportion tests.

    A block fires on its own when it is ``dominant``. A dump cut into several
    smaller blocks (each mostly dump, none long enough alone) fires as one hit
    when together they reach ``minimum`` and ``SPLIT_SHARE`` of the document.
    With ``records=True`` the count is of records, not lines, so the in-block
    ratio is not applied.
    """
    pieces: list[tuple[Block, Measure]] = []
    piece = max(3, minimum // 4)  # the least a block must hold to count as a piece of a dump
    for block in doc.unclaimed():
        size = len(block.text)
        if size < 120 or (block.nonblank < piece and not records and size < 80 * piece):
            continue  # too small to hold a piece of any dump
        found = measure(block)
        if found is None or found.size <= 0:
            continue
        in_block = 0.0 if records else ratio
        if dominant(doc, block, found.size, minimum, in_block):
            detail = f" ({found.detail})" if found.detail else ""
            message = f"{what}: {found.size} {noun}{detail}"
            yield block_hit(block, message, first_line(block, found.lines), doc)
        elif found.size >= piece and (records or found.size >= ratio * block.nonblank):
            pieces.append((block, found))
    if len(pieces) < 2:
        return
    total = sum(found.size for _, found in pieces)
    lines = sum(block.nonblank for block, _ in pieces)
    if total >= minimum and doc.share(lines) >= SPLIT_SHARE:
        first_block, first_found = pieces[0]
        last_block = pieces[-1][0]
        yield Hit(
            first_block.start,
            last_block.end,
            f"{what}: {total} {noun} across {len(pieces)} blocks "
            f"(lines {first_block.start}-{last_block.end}, {doc.share(lines):.0%} of the document)",
            excerpt(first_line(first_block, first_found.lines)),
            tuple(block.index for block, _ in pieces),
        )
