"""IL202: printed AST node trees: Python ``ast.dump``, LibCST and similar reprs,
Rust-style ``Node { field: ... }`` debug trees, clang ``-ast-dump`` and Go
``ast.Print`` output."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, scan
from mishkan_core.ingest_lint._model import PARSE_TREE, Block, Document, Hit
from mishkan_core.ingest_lint._shape import count_lines, line_led, matching_lines, sample_reaches

# One line of an indented repr: "key=Node(", "field: Node {", "'value',", "),", "None", ...
_REPR_LINE = re.compile(
    r"^[ \t]*(?:[a-z_][a-z0-9_]*(?:=|:[ \t]+))?"
    r"(?:[A-Z][A-Za-z0-9]*"
    r"(?:\((?:\)|[a-z_][a-z0-9_]*=.*)?|[ \t]+\{(?:[ \t]*\}|[ \t]+[a-z_]\w*:.*)?)"
    r"|[\[\](){}]"
    r"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""
    r"|-?\d[\d.]*|None|True|False|[A-Z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"[\])},]*[ \t]*$",
    re.MULTILINE,
)
_CTOR_AT_START = re.compile(r"^[ \t]*[A-Z]\w*\(", re.MULTILINE)
# clang -ast-dump:  |-FunctionDecl 0x55d0c8 <line:3:1, col:20> col:6 main 'int ()'
_CLANG_LINE = re.compile(r"^[ |`]*[|`]-[A-Z]\w*(?: 0x[0-9a-f]+| <)", re.MULTILINE)
# go/ast Print:     12  .  .  Name: *ast.Ident {
_GO_AST_LINE = re.compile(
    r"^[ \t]*\d+[ \t]+(?:\.[ \t]+)*(?:[A-Z]\w*:[ \t].*|\}|\d+: .*)$", re.MULTILINE
)
_CLANG_LINES = re.compile(line_led(_CLANG_LINE), _CLANG_LINE.flags)
_GO_AST_LINES = re.compile(line_led(_GO_AST_LINE), _GO_AST_LINE.flags)
_REPR_LINES = re.compile(line_led(_REPR_LINE), _REPR_LINE.flags)
# a node constructor in a compact dump: "Name(id=", "arguments(posonlyargs=", "Load()"
_NODE_CALL = re.compile(r"\b[A-Za-z_]\w*\((?:[a-z_]\w*=|\))")
# a parso/jedi node repr: "<Name: foo@12,4>", "<ImportFrom: from a import b@3,0>"
_POSITIONED_REPR = re.compile(r"<[A-Z]\w*: [^<>\n]*@\d+,\d+>")
_MAX_PARSE = 16_384  # larger blocks are judged on line shape alone


def _dense(line: str) -> bool:
    """A compact one-line dump: a constructor call that holds several more."""
    stripped = line.lstrip()
    return (
        stripped[:1].isupper()
        and "(" in stripped[:48]
        and line.count("(") >= 3
        and line.count("=") >= 2
    )


def _repr_line(line: str) -> bool:
    return bool(_REPR_LINE.match(line)) or _dense(line)


def constructor_tree(text: str) -> tuple[int, int] | None:
    """(constructor calls, max nesting) when ``text`` parses as Python and is nothing
    but expressions of keyword-only ``CamelCase(...)`` constructors: the exact
    shape of ``ast.dump`` and LibCST output."""
    if len(text) > _MAX_PARSE:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    body = tree.body
    if not body or not all(isinstance(stmt, ast.Expr) for stmt in body):
        return None
    calls = positional = depth = 0
    stack: list[tuple[ast.AST, int]] = [
        (stmt.value, 1) for stmt in body if isinstance(stmt, ast.Expr)
    ]
    while stack:
        node, level = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name[:1].isupper():
                calls += 1
                positional += len(node.args)
                depth = max(depth, level)
                level += 1
        stack.extend((child, level) for child in ast.iter_child_nodes(node))
    if calls >= 20 and positional <= 0.1 * calls and depth >= 3:
        return calls, depth
    return None


def _measure(block: Block) -> Measure | None:
    text = block.text
    # each "|-" or "`-" holds a "-"; a markdown table has "|" and "-" enough, so the
    # two-character counts are bounded in the punctuation before the sample is read,
    # and counted (scans of their own) after it
    clang = (
        block.count("|") + block.count("`") >= 10
        and block.count("-") >= 10
        and block.at_most("|-") + block.at_most("`-") >= 10
        and sample_reaches(block, _CLANG_LINE.match, 0.4)
        and block.count("|-") + block.count("`-") >= 10
    )
    if clang:
        return Measure(*count_lines(block, _CLANG_LINES), "clang -ast-dump")
    go = block.count(":") >= 0.3 * block.nonblank and block.count("{") + block.count("}") >= 5
    if go and sample_reaches(block, _GO_AST_LINE.match, 0.4):
        return Measure(*count_lines(block, _GO_AST_LINES), "go/ast Print")
    if block.count('"') >= 1.5 * block.nonblank:
        return None  # JSON: its trees are IL203's
    least = max(20, 0.2 * block.nonblank)
    if block.count("(") + block.count("{") < least or block.count("=") + block.count(":") < least:
        return None
    if not sample_reaches(block, _repr_line, 0.4):
        return None
    count, first = count_lines(block, _REPR_LINES)
    if count < 0.7 * block.nonblank:  # compact dumps: one long constructor call per line
        dense = [i for i in matching_lines(block, _CTOR_AT_START) if _dense(block.lines[i])]
        count, first = count + len(dense), sorted(first + dense[:1])[:1]
    if 0.4 * block.nonblank <= count < 0.7 * block.nonblank:
        exact = constructor_tree(text)  # line shape is unsure: ask the parser
        if exact is not None:
            detail = f"parses as {exact[0]} keyword-only node constructors, depth {exact[1]}"
            return Measure(block.nonblank, first, detail)
    return Measure(count, first, "node constructors with keyword fields")


def _measure_compact(block: Block) -> Measure | None:
    """Compact dumps, judged by node count: a few very long lines (one statement or
    one whole function per line) hold hundreds of nodes."""
    opens = block.count("(")
    if opens < 20 or block.count("=") + block.count("@") < 10:
        return None
    # long lines, a paren every few words: prose with parentheses has one in fifty
    if len(block.text) < 60 * block.nonblank or opens < 0.15 * block.count(" "):
        return None
    dense = [
        i
        for i, line in enumerate(block.lines)
        if (_dense(line) and len(_NODE_CALL.findall(line)) >= 3)
        or ("@" in line and len(_POSITIONED_REPR.findall(line)) >= 2)  # "...@12,4>"
    ]
    if not dense:
        return None
    dense_chars = sum(len(block.lines[i]) for i in dense)
    if dense_chars < 0.8 * len(block.text):
        return None
    text = block.text
    nodes = len(_NODE_CALL.findall(text)) + len(_POSITIONED_REPR.findall(text))
    return Measure(nodes, dense[:1], f"{len(dense)} compact lines")


@register("IL202", "ast-repr", PARSE_TREE, "printed AST node tree (ast.dump, LibCST, clang)")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(doc, _measure, 20, 0.7, what="parse tree", noun="lines of a printed node tree")
    yield from scan(
        doc,
        _measure_compact,
        25,
        0.0,
        what="parse tree",
        noun="node constructors in a compact dump",
        records=True,
    )
