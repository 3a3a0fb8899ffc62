"""IL403: code-graph reports: hub rankings, community sections, generated wiki pages.

These are markdown, not data, so the check counts report-shaped lines across
the whole document: "N. symbol - K edges" rankings, "label: a, b(), c, d"
member lists, "Metric: 0.07" stat lines, "a --rel--> b" relations and bullets
that are nothing but a reference to a symbol.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import excerpt
from mishkan_core.ingest_lint._model import CALL_GRAPH, Document, Hit
from mishkan_core.ingest_lint._shape import CODE_REF, SAMPLE, sample

_COUNT_NOUNS = (
    r"edges?|connections?|links?|callers?|callees?|calls|references|refs|dependents|dependencies"
    r"|imports|neighbou?rs|degree|nodes?|members?|symbols?|relations?|usages?|incoming|outgoing"
)
_RANKING = re.compile(
    rf"^\s*(?:\d+[.)]|[-*+])\s+(?P<item>\S.{{0,99}}?)(?:\s*[-\u2013\u2014:\u00b7(]\s*|\s+)\d+\s+"
    rf"(?:{_COUNT_NOUNS})\b",
    re.IGNORECASE,
)
# what every ranking holds, "12 edges": searched for before the ranking itself, whose
# lazy item is tried at every length up to 100 characters on a bullet that has none
_COUNTED = re.compile(rf"\d\s+(?:{_COUNT_NOUNS})\b", re.IGNORECASE)
_PLAIN_SYMBOL = re.compile(r"[A-Z][A-Za-z0-9]+|[\w.]+\(\)")
MIN_RANKINGS = 8
RANKING_SHARE = 0.4
_MEMBERS = re.compile(r"^\s*[\w \-]{0,30}(?:\(\d+\))?:\s*(?P<items>(?:[^,\s]+,\s*){3,}[^,\s]+)")
_METRIC = re.compile(r"^\s*[A-Z][\w ]{1,24}:\s*-?\d+(?:\.\d+)?%?\s*$")
_RELATION = re.compile(r"--[\w.:]+(?:-[\w.:]+)*-->|-\[[\w:]+\]->")
_REF_BULLET = re.compile(
    r"^\s*[-*+]\s+(?:\[(?P<link>[^\]\s]+)\]\([^)\s]+\)|`?(?P<ref>[^\s`]+)`?)"
    r"(?:\s+(?:`[A-Z_]+`|\[[A-Z_]+\]|[-\u2013\u2014]\s*\d+\s+\w+"
    r"|\((?:line\s+|L)?\d+\)|\([\w./@-]+\.\w{1,8}:L?\d+\)))?\s*$"
)


def report_line(line: str) -> bool:
    if len(line) > 160 and line.count(",") < 3:
        return False  # a paragraph, not a report line
    # rankings and reference bullets open with a bullet or a number (after blanks, which
    # strip() and the patterns' \s agree on): other lines need neither pattern tried
    head = line.lstrip()[:1]
    bullet = head != "" and head in "-*+"
    ranked = bullet or head.isdecimal()
    match = (
        _RANKING.match(line)
        if ranked and len(line) < 240 and _COUNTED.search(line) is not None
        else None
    )
    if match:
        return (
            bool(CODE_REF.search(match.group("item")))
            or "`" in match.group("item")
            or _plain_symbol(match.group("item"))
        )
    match = _MEMBERS.match(line) if line.count(",") >= 3 else None
    if match:
        items = [item.strip() for item in match.group("items").split(",")]
        return sum(1 for item in items if CODE_REF.fullmatch(item.strip("`"))) >= 0.5 * len(items)
    # a metric has a digit after its ":" (the pattern asks for it)
    if (":" in line and _METRIC.match(line)) or ("->" in line and _RELATION.search(line)):
        return True
    match = _REF_BULLET.match(line) if bullet and line.count(" ") <= 12 else None
    if match:
        ref = match.group("link") or match.group("ref") or ""
        return bool(CODE_REF.fullmatch(ref.strip("`"))) or ref.endswith("()")
    return False


def _plain_symbol(item: str) -> bool:
    item = item.strip().strip("`*_")
    return bool(_PLAIN_SYMBOL.fullmatch(item))


@register(
    "IL403", "graph-report", CALL_GRAPH, "code-graph report (hub rankings, communities, wiki)"
)
def check(doc: Document) -> Iterator[Hit]:
    blocks = doc.unclaimed()
    content = sum(block.nonblank for block in blocks)
    if content < MIN_RANKINGS:
        return
    picked: list[str] = []
    for block in blocks:
        # every report-line shape carries a "-" (bullets, rankings, arrows) or a ":"
        if block.count("-") + block.count(":") >= 0.5 * block.nonblank:
            picked.extend(sample(block.lines, max(4, SAMPLE * block.nonblank // content)))
    need = 0.15 * max(SAMPLE, len(picked))
    found = 0
    for left, line in enumerate(reversed(picked)):
        if found >= need or found + len(picked) - left < need:
            break  # the answer is known
        found += report_line(line)
    if found < need:
        return
    hits: list[tuple[int, str]] = []
    for block in blocks:
        text = block.text
        if text.count("\n") < 5:
            continue
        for i, line in enumerate(block.lines):
            if line.strip() and report_line(line):
                hits.append((block.start + i, line))
    rankings = sum(1 for _, line in hits if _RANKING.match(line))
    report = len(hits) >= 20 and len(hits) >= 0.35 * content and rankings + len(hits) // 4 >= 8
    # a short hub ranking ("god nodes", top 10) with a sentence or two around it
    ranking = rankings >= MIN_RANKINGS and rankings >= RANKING_SHARE * content
    if not (report or ranking):
        return
    first = hits[0][0]
    last = hits[-1][0]
    covered = tuple(block.index for block in blocks if first <= block.end and block.start <= last)
    yield Hit(
        first,
        last,
        f"call graph: {len(hits)} report lines ({rankings} hub-ranking lines) make up "
        f"{len(hits) / content:.0%} of the document's content",
        excerpt(hits[0][1]),
        covered,
    )
