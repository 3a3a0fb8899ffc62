"""IL401: runs of ``a.b -> c.d`` call or dependency edges, the neighbour lines of a
graph explorer (``--> Retry [uses] pool.py:L218``), and arrowless edge lists
(``pkg/a.py pkg.b``, as ``networkx.write_edgelist`` prints them)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import CALL_GRAPH, Block, Document, Hit
from mishkan_core.ingest_lint._shape import (
    CODE_LANGS,
    block_sample,
    count_lines,
    line_led,
    lines_reach,
    matching_lines,
    sample_reaches,
)

# arrows between endpoints: ->, -->, =>, →, <-, <--, --label-->, -[label]->
# (a label is dash-separated words, so a run of dashes cannot be split two ways;
# the parts around the arrows are stripped by the caller)
_ARROW = re.compile(
    r"--[\w.:]+(?:-[\w.:]+)*-->|-\[[^\[\]\s]*\]->|<-\[[^\[\]\s]*\]-|-{1,2}>|<-{1,2}|={1,2}>"
    r"|\u2192|\u27f6|\u21d2"
)
MAX_LINE = 400  # an edge is short; longer lines are not examined
# the common case, "a.b.c -> d.e.f" with code-shaped endpoints, matched in C
_QUALIFIED = r"[\w$]+(?:[.:/#][\w$]+)+(?:\(\))?"
_SIMPLE_EDGE = re.compile(rf"^[ \t]*{_QUALIFIED}[ \t]*->[ \t]*{_QUALIFIED}[ \t]*$", re.MULTILINE)
_SIMPLE_EDGES = re.compile(line_led(_SIMPLE_EDGE), _SIMPLE_EDGE.flags)
_ARROW_HINT = re.compile(r"->|=>|<-|\u2192|\u27f6|\u21d2")
_LEADING_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?")
# trailing annotations an edge line may carry: [calls], (file.py:12), ;, {attrs}, # comment
_ANNOTATIONS = re.compile(
    r"(?:\s*(?:\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|[;,])|\s+[\w./@-]*\.\w{1,8}:L?\d+)*"
    r"\s*(?:(?:#|//).*)?$",
    re.MULTILINE,  # matched against one line: "$" is its end
)
# where annotations glued to an endpoint begin: "c.d;", "c.d[calls]", "c.d # why"
_GLUED = re.compile(r"[\[({;,#]|//")
_BLANK = re.compile(r"\s")
_LOCATED = re.compile(r"\.\w{1,8}:L?\d")
# two code-shaped tokens and nothing else (an optional {data} dict): an edge list without arrows
_QTOKEN = r"[A-Za-z_$@~.][\w$@~\-]*(?:(?:[./:#]|::)[\w$\-]+)+"
_PAIR = re.compile(
    rf"^[ \t]*{_QTOKEN}[ \t]+(?:{_QTOKEN}|[A-Za-z_$][\w$]*)[ \t]*(?:\{{[^\n]*\}}[ \t]*)?$",
    re.MULTILINE,
)
_PAIRS = re.compile(line_led(_PAIR), _PAIR.flags)
_ENDPOINT = re.compile(r"^[`\"']?[\w$@~./:#<>\[\]-]*[\w$)>\]](?:\(\))?[`\"']?(?:\(\))?$")
_CODEY = re.compile(r"[._/:#]|\(\)|[a-z][A-Z]")


def edge_line(line: str) -> bool:
    """Is the line an edge: endpoints that are single code-shaped tokens around arrows?"""
    if "->" not in line and "=>" not in line and "<-" not in line and "\u2192" not in line:
        return False
    stripped = line.strip()
    if (
        not stripped
        or len(stripped) > MAX_LINE
        or stripped.startswith(("#", "<!--", "|"))
        or (stripped.endswith("-->") and "<!--" in line)
    ):
        return False
    body = _LEADING_BULLET.sub("", line, count=1)
    parts = _ARROW.split(body)
    if len(parts) < 2:
        return False
    # the last endpoint is its part's first token, or the token up to an annotation glued
    # to it ("c.d;", "f()` [calls]"); the rest must be annotations. Two tries at most,
    # so a long line costs two scans.
    last = parts[-1].strip()
    blank = _BLANK.search(last)
    end = blank.start() if blank is not None else len(last)
    glued = _GLUED.search(last, 0, end)
    cut = glued.start() if glued is not None else end
    if cut < end and not _ANNOTATIONS.match(last, cut):
        cut = end
    tail = last[cut:]
    if tail and not _ANNOTATIONS.match(tail):
        return False
    codey = int(_LOCATED.search(tail) is not None)  # "--> Retry [uses] retry.py:L43"
    parts[-1] = last[:cut]
    if parts[0].strip() == "" and len(parts) == 2:
        parts = parts[1:]  # "-> dep" under a module heading
    for part in parts:
        token = part.strip()
        if not token or not _ENDPOINT.match(token):
            return False
        codey += bool(_CODEY.search(token))
    return codey >= 1


def _pairs(block: Block) -> Measure | None:
    if block.fenced and block.lang in CODE_LANGS:
        return None  # an edge list is not written in a programming language
    if block.nonblank < 5 or len(block.text) > 120 * block.nonblank:
        return None  # an edge is a short line; these are paragraphs
    # the list is uniform: one of its first lines (after a heading, say) is an edge
    if _PAIRS.search("\n" + "\n".join(block.lines[:10])) is None:
        return None
    picked = block_sample(block)
    if not lines_reach(picked, _PAIR.match, 0.6 * len(picked)):
        return None
    return Measure(*count_lines(block, _PAIRS), "without arrows")


def _measure(block: Block) -> Measure | None:
    if (
        block.count(">") + block.count("<") < max(3, 0.2 * block.nonblank)
        and "\u2192" not in block.text
    ):
        return _pairs(block)
    least = max(3, 0.2 * block.nonblank)
    # HTML and comparisons have "<" and ">" enough: the arrows are bounded in the
    # punctuation first, and counted (a scan of the text each) only when they may suffice
    arrow = block.count("\u2192")
    if block.at_most("->") + block.at_most("=>") + block.at_most("<-") + arrow < least:
        return None
    arrows = block.count("->") + block.count("=>") + block.count("<-") + arrow
    if arrows < least:
        return None
    if not sample_reaches(block, edge_line, 0.2):
        return None
    simple, first = count_lines(block, _SIMPLE_EDGES)
    if simple >= 0.9 * block.nonblank:  # a plain edge list: no need to look line by line
        return Measure(simple, first)
    hits = [i for i in matching_lines(block, _ARROW_HINT) if edge_line(block.lines[i])]
    return Measure(len(hits), hits)


@register("IL401", "call-edges", CALL_GRAPH, "run of call or dependency edges (a -> b)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc, _measure, 15, 0.35, what="call graph", noun="edge lines between code symbols"
    )
