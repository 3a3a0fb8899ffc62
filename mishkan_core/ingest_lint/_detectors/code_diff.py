"""IL501: large code diffs (unified diffs or patches of source files)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import block_hit, first_line
from mishkan_core.ingest_lint._model import BULK_SOURCE, Document, Hit
from mishkan_core.ingest_lint._properties import Properties
from mishkan_core.ingest_lint._roles import PROSE_SHARE, prose_carried
from mishkan_core.ingest_lint._shape import is_code_line, led_text, line_led

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.MULTILINE)
_FILE_HEADER = re.compile(r"^\+\+\+ ", re.MULTILINE)
_HUNKS = re.compile(line_led(_HUNK), _HUNK.flags)
_FILE_HEADERS = re.compile(line_led(_FILE_HEADER), _FILE_HEADER.flags)
MIN_CHANGED = 60
MIN_CHANGED_IN_LARGE_HUNKS = 25
MIN_HUNK_LINES = 80


@register("IL501", "code-diff", BULK_SOURCE, "large code diff")
def check(doc: Document) -> Iterator[Hit]:
    for block in doc.unclaimed():
        text = block.text
        if block.nonblank < MIN_CHANGED:
            continue
        if block.count("@") < 2 and block.lang not in ("diff", "patch"):
            continue
        if "@@" not in text and block.lang not in ("diff", "patch"):
            continue
        hunks = len(_HUNKS.findall(led_text(block)))
        if not hunks and block.lang not in ("diff", "patch"):
            continue
        changed = [
            i
            for i, line in enumerate(block.lines)
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
        ]
        # a smaller change still counts when its hunks, context and all, are a pasted file
        judged = changed
        if len(changed) < MIN_CHANGED:
            # a smaller change still counts when its hunks, context and all, are a pasted file
            judged = [i for i, line in enumerate(block.lines) if line[:1] in " +-"]
            if len(changed) < MIN_CHANGED_IN_LARGE_HUNKS or len(judged) < MIN_HUNK_LINES:
                continue
        code = sum(1 for i in judged if is_code_line(block.lines[i][1:]))
        if code < 0.4 * len(judged):
            continue
        if doc.share(block.nonblank) < 0.4 and len(changed) < 150:
            continue
        # the line: a diff in a document carried by prose (an RFC's "how we teach this")
        # is its example; only a diff that is most of a note with little prose is bulk
        carried, prose = prose_carried(doc.blocks)
        props = Properties([line[1:] for line in block.lines])
        if carried and not props.machine_output():
            continue
        files = len(_FILE_HEADERS.findall(led_text(block))) or 1
        yield block_hit(
            block,
            f"bulk source: code diff with {len(changed)} changed lines in {hunks} hunks "
            f"across {files} file(s); "
            + (
                f"machine output in a document carried by prose ({', '.join(props.regular())})"
                if carried
                else f"prose carries {prose:.0%} of the content (under {PROSE_SHARE:.0%})"
            )
            + f"; shape: {props.describe(prose)}",
            first_line(block, changed),
            doc,
        )
