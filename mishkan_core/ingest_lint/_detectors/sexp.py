"""IL201: tree-sitter style S-expression parse trees."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import PARSE_TREE, Block, Document, Hit
from mishkan_core.ingest_lint._shape import count_lines, line_led, sample_reaches

_POS = r"(?:[ \t]*\[\d+,[ \t]*\d+\][ \t]*-[ \t]*\[\d+,[ \t]*\d+\])"
# A line made only of "(node_type [r, c] - [r, c]" openers, optional "field:"
# labels and closing parens: the printed shape of a syntax tree. Source code in
# a Lisp always has something else on the line (symbols, literals, arguments).
# one node: an optional "field:" label, "(", the node type, an optional position
# (speed: see _shape.line_led)
_NODE = rf"(?:[A-Za-z_]\w*:[ \t]*|)\((?:[A-Za-z_]\w*(?!\w)|\"[^\"\n]*\")(?:{_POS}|)"
_TREE_LINE = re.compile(
    rf"^[ \t]*(?![ \t]){_NODE}(?:(?:\)+[ \t]*|[ \t]+){_NODE})*\)*[ \t]*$",
    re.MULTILINE,
)
_TREE_LINES = re.compile(line_led(_TREE_LINE), _TREE_LINE.flags)
_OPENER = re.compile(r"\(([a-z_][a-z0-9_]*)\b")
_FIELD = re.compile(r"\b[a-z_]+:[ \t]*\(")


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return True


def _measure(block: Block) -> Measure | None:
    if block.count("(") < 15:
        return None
    text = block.text
    # tree lines are looked at in the sample first: the two counts below are scans of
    # their own, needed by a tree the sample found or by the one-line form (which
    # takes 15 fields, so 15 ":", and 40 "(")
    tree = sample_reaches(block, _TREE_LINE.match, 0.3)
    # the one-line form asks for 15 fields: without a tree, a bound of the ": (" under
    # 15 answers it without a scan of the text
    one_line = (
        block.count(":") >= 15 and block.count("(") >= 40 and (tree or block.at_most(": (") >= 15)
    )
    fields = block.count(": (") if (tree or one_line) and block.count(":") >= 3 else 0
    if tree and fields < 3:
        positions = block.count("] - [") if block.count("[") >= 6 else 0
        tree = positions >= 3
    if tree:
        count, first = count_lines(block, _TREE_LINES)
        if count >= 15:
            kinds = len(set(_OPENER.findall(text)))
            return Measure(count, first, f"{kinds} node types")
    # the one-line form: "(module (function_definition name: (identifier) ...))"
    if fields >= 15 and text.count("(") >= 40 and _balanced(text):
        dense = [i for i, line in enumerate(block.lines) if line.count("(") >= 5]
        if sum(block.lines[i].count("(") for i in dense) >= 0.8 * text.count("("):
            nodes = len(_OPENER.findall(text))
            return Measure(max(len(dense), nodes // 3), dense, f"one-line form, {nodes} nodes")
    return None


@register("IL201", "sexp-parse-tree", PARSE_TREE, "S-expression parse tree (tree-sitter)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(doc, _measure, 15, 0.6, what="parse tree", noun="S-expression node lines")
