"""Segment an artifact's body into blocks: fenced code blocks and the runs between them."""

from __future__ import annotations

from mishkan_core.ingest_lint._model import Block, Document

# (no regular expression here: a one-file pre-commit run never imports ``re``, see _reader)


def _fence_line(line: str) -> tuple[str, str] | None:
    """(marker run, rest) of a line that could open or close a fence, CommonMark's
    `` {0,3}(`{3,}|~{3,})(.*)``: up to three spaces, then three or more backticks or
    tildes."""
    text = line.lstrip(" ")
    if len(line) - len(text) > 3 or text[:3] not in ("```", "~~~"):
        return None
    char = text[0]
    end = 3
    while end < len(text) and text[end] == char:
        end += 1
    return text[:end], text[end:]


def _markers(body: str, marker: str) -> list[int]:
    """The offsets of ``marker`` in ``body``, left to right, not overlapping (each
    found by a C-level ``find``)."""
    found = []
    at = body.find(marker)
    while at >= 0:
        found.append(at)
        at = body.find(marker, at + len(marker))
    return found


def build(path: str, lines: list[str], body_start: int, text: str | None = None) -> Document:
    """Build a ``Document``; ``body_start`` is the 0-based index of the first body line.

    Fences are found by searching the joined body for their markers, not line by
    line (nor by a pattern tried at every line start), and each block's text is a
    slice of that body, so segmenting costs a few C scans. ``text``, when given, is
    what ``lines`` were split from (no carriage return in it): the body is then a
    slice of it, not a join of its lines.
    """
    blocks: list[Block] = []
    if text is None:
        body = "\n".join(lines[body_start:])
    else:
        # the lines before the body, each with its line break; the text's last line
        # break (split_lines drops the empty line after it) is not the body's
        offset = sum(map(len, lines[:body_start])) + body_start
        body = text[offset : len(text) - text.endswith("\n")]
    # (line index, offset of the line in body, fence run, rest of line)
    fences: list[tuple[int, int, str, str]] = []
    # the start of every line that holds a marker; one character is found at memchr
    # speed, three by a slower search: a body without a single "~" (most) needs no
    # search for "~~~"
    starts = {
        body.rfind("\n", 0, at) + 1
        for marker in ("```", "~~~")
        if marker[0] in body
        for at in _markers(body, marker)
    }
    # A candidate's line is the first line after the previous candidate's with its text:
    # the lines between hold no marker, so none of them has it. ``list.index`` finds it
    # comparing lengths first, in C, where counting the line breaks up to it read the body.
    line = body_start - 1
    for start in sorted(starts):
        newline = body.find("\n", start)
        text = body[start:newline] if newline >= 0 else body[start:]
        line = lines.index(text, line + 1)
        marked = _fence_line(text)
        if marked:
            fences.append((line, start, marked[0], marked[1]))

    def offset_after(start: int) -> int:
        """Offset of the line after the one starting at ``start``."""
        newline = body.find("\n", start)
        return len(body) + 1 if newline < 0 else newline + 1

    def add(
        first: int,
        stop: int,
        span: tuple[int, int],
        *,
        fenced: bool,
        info: str = "",
        closed: bool = True,
    ) -> None:
        text = body[span[0] : max(span[0], span[1] - 1)] if stop > first else ""
        block = Block(
            len(blocks), first + 1, lines[first:stop], fenced, info=info, closed=closed, text=text
        )
        if fenced or block.nonblank:  # not only blank lines between two fences
            blocks.append(block)

    run_line, run_offset = body_start, 0
    k = 0
    while k < len(fences):
        index, offset, fence, info = fences[k]
        k += 1
        if fence[0] == "`" and "`" in info:  # inline code at the start of a line, not a fence
            continue
        close, close_offset = len(lines), len(body) + 1
        while k < len(fences):
            c_index, c_offset, c_fence, c_rest = fences[k]
            k += 1
            if c_fence[0] == fence[0] and len(c_fence) >= len(fence) and not c_rest.strip():
                close, close_offset = c_index, c_offset
                break
        if index > run_line:
            add(run_line, index, (run_offset, offset), fenced=False)
        span = (offset_after(offset), close_offset)
        add(
            index + 1,
            close,
            span,
            fenced=True,
            info=info.strip().lower(),
            closed=close < len(lines),
        )
        run_line = close + 1
        run_offset = offset_after(close_offset) if close < len(lines) else len(body) + 1
    if run_line < len(lines):
        add(run_line, len(lines), (run_offset, len(body) + 1), fenced=False)
    content = sum(block.nonblank for block in blocks)
    return Document(
        path=path, lines=lines, body_start=body_start + 1, blocks=blocks, content_lines=content
    )
