"""IL402: import or dependency lists per module (text, YAML or JSON), dependency
trees, runs of import statements, and one-line-per-module listings
(``pkg/mod.py: dep, dep``, ``mod -> a, b``, ``| mod | a, b |``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import Measure, key_lines, scan
from mishkan_core.ingest_lint._model import CALL_GRAPH, Block, Document, Hit
from mishkan_core.ingest_lint._shape import (
    CODE_LANGS,
    block_sample,
    count_lines,
    line_led,
    lines_reach,
    sample_text,
)
from mishkan_core.ingest_lint._structure import load_data

# a module, package or file; relative ones too ("../internal/re", "./", "..")
_MODULE = re.compile(r"^(?:(?:\.{1,2}/)*[@~.]{0,2}[\w$][\w$.\-/@:]*|\.+(?:/\.+)*/?)$")
_HEADER = re.compile(r"^(?P<name>[@~.]{0,2}[\w$][\w$.\-/@]*?)[ \t]*(?::[ \t]*)?$")
# "  -> dep", "  - dep", "  [U] dep" (pyan's uses/defines tags) under a module heading
_ITEM = re.compile(
    r"^[ \t]+(?![ \t])(?:->[ \t]*|=>[ \t]*|[-*+\u2192][ \t]*|)(?:\[[A-Za-z]{1,3}\][ \t]*|)"
    r"(?P<name>[@~.]{0,2}[\w$][\w$.\-/@:]*)[ \t]*(?:,[ \t]*|)$",  # (speed: see _shape.line_led)
    re.MULTILINE,  # matched against one line, or (line-led) against a sample
)
_IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+[\w.{*]|from[ \t]+[\w.]+[ \t]+import[ \t]|#[ \t]*include[ \t]*[<\"]"
    r"|using[ \t]+[\w.]+[ \t]*;|use[ \t]+[\w:]+|require[ \t]*\("
    r"|(?:const|let|var)[ \t]+[\w{},][\w{}, \t]*=[ \t]*require[ \t]*\(|@import[ \t])",
    re.MULTILINE,
)
# npm ls / cargo tree / mvn dependency:tree / pipdeptree: tree-drawn items with versions
_DEP_TREE = re.compile(
    r"^[ \t│|`\\+]*(?:[├└`+\\|]-{1,2}|[├└]──|\[INFO\][ \t][|+\\ \t]*[+\\]-)[ \t]*"
    r"[@\w.:/-]+(?:@|[ \t]v?|:)\d[\w.\-+]*",
    re.MULTILINE,
)
_IMPORTS = re.compile(line_led(_IMPORT), _IMPORT.flags)
_ITEMS = re.compile(line_led(_ITEM), _ITEM.flags)
_DEP_TREES = re.compile(line_led(_DEP_TREE), _DEP_TREE.flags)
# a line any of the three matches (each is "^" and a body): its count bounds each of theirs
_TEXT_SHAPE = re.compile(
    "^(?:" + "|".join(p.pattern[1:] for p in (_ITEM, _DEP_TREE, _IMPORT)) + ")", re.MULTILINE
)
_TEXT_SHAPES = re.compile(line_led(_TEXT_SHAPE), _TEXT_SHAPE.flags)
# One module per line with the modules it imports, uses or calls:
#   "- pkg/mod.py: dep, dep.sub, dep"   "pkg.mod -> a, b, c"   "| pkg/mod.py | a, b |"
#   "pkg/mod.py: os re sys"   "pkg.mod.func (line 12) calls: a, b.c, d()"
# The key is path- or dotted-shaped; the items are single code-shaped tokens.
_KEY = r"`?[@~.]{0,2}[\w$][\w$\-@]*(?:[./:]{1,2}[\w$\-@]+)+(?:\(\))?`?"
_ENTRY = r"`?(?:(?:\.{1,2}/)*[@~.]{0,3}[\w$][\w$.\-/@:]*(?:\(\))?|(?:\.{1,2}/)+|\.{1,3})`?"
_LIST_LINE = re.compile(
    rf"^[ \t]*(?:[-*+][ \t]+|\|[ \t]*)?{_KEY}(?:[ \t]+\([^()\n]{{0,40}}\))?"
    r"(?:[ \t]+[a-z]+(?:[ \t][a-z]+)?)?[ \t]*"
    # a ":" inside the key joins its parts (a.py:12, a::b); the separator ":" is followed
    # by a blank, so the two cannot trade places
    r"(?:(?P<sep>:)[ \t]+|(?P<arrow>->|=>|\u2192|\|)[ \t]*)"
    rf"(?P<items>{_ENTRY}(?:[ \t]*,[ \t]*{_ENTRY})+|{_ENTRY}(?:[ \t]+{_ENTRY}){{2,}}|{_ENTRY})"
    r"[ \t]*(?:,[ \t]*)?(?:\|[ \t]*)?$",
    re.MULTILINE,
)
# words that make a whitespace-separated "list" a sentence ("lib/a.js: fix the bug")
# fmt: off
_STOPWORDS = frozenset((
    "a", "an", "the", "of", "to", "in", "for", "and", "or", "with", "on", "is", "are", "be",
    "was", "when", "that", "this", "it", "not", "by", "at", "as", "if", "no", "now", "all",
))
# fmt: on


def list_line(line: str) -> bool:
    """A module followed by the modules it depends on, on one line."""
    if "." not in line and "/" not in line and "::" not in line:
        return False  # the module is a path or a dotted name
    match = _LIST_LINE.match(line)
    if match is None:
        return False
    items = match.group("items")
    if "," in items:
        return True
    words = items.split()
    if len(words) == 1:  # "mod -> dep" is an edge; "mod: dep" needs a code-shaped dependency
        if match.group("arrow") not in (None, "|"):
            return True
        return any(ch in words[0] for ch in "./_:") and not words[0].endswith(":")
    if any(word.lower() in _STOPWORDS for word in words):
        return False
    return len(words) >= 4 or any(ch in items for ch in "._/:")


# keys of an adjacency list: module -> its imports / dependencies / callers
# fmt: off
DEPENDENCY_KEYS = frozenset((
    "imports", "imported_by", "importedby", "deps", "dependencies", "dependents", "requires",
    "required_by", "uses", "used_by", "calls", "callees", "callers", "references", "edges",
))
# fmt: on
NAME_KEYS = ("importpath", "source", "name", "module", "path", "file", "id", "resolved", "package")


def _module_like(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 160 and bool(_MODULE.match(value))


def _entry_name(entry: Any) -> bool:
    if _module_like(entry):
        return True
    if isinstance(entry, dict):
        return any(_module_like(v) for k, v in entry.items() if k.lower() in NAME_KEYS)
    return False


def dependency_lists(value: Any) -> tuple[int, int]:
    """(modules, dependencies) in an adjacency list: a mapping of module -> [modules]
    (or -> {imports: [...]}), or a list of records naming a module and listing its
    dependencies."""
    modules = deps = 0
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = [(key, item) for key, item in value.items() if _module_like(key)]
    elif isinstance(value, list):
        for record in value:
            if isinstance(record, dict):
                name = next(
                    (v for k, v in record.items() if k.lower() in NAME_KEYS and _module_like(v)),
                    None,
                )
                if name is not None:
                    items.append((name, {k: v for k, v in record.items() if isinstance(v, list)}))
    for _key, item in items:
        lists: list[Any] = [item] if isinstance(item, list) else []
        if isinstance(item, dict):
            lists = [
                v for k, v in item.items() if isinstance(v, list) and (k.lower() in DEPENDENCY_KEYS)
            ]
            if not lists and len(item) == 1:
                lists = [v for v in item.values() if isinstance(v, list)]
        found = 0
        for entries in lists:
            if entries and all(_entry_name(entry) for entry in entries):
                found += len(entries)
        if found or item is None or (isinstance(item, (list, dict)) and not item):
            modules += 1
            deps += found
    return modules, deps


def _grouped_text(block: Block) -> tuple[int, int, list[int]]:
    """(groups, items, item lines) for "module\\n  -> dep\\n  -> dep" text listings."""
    groups = items = 0
    lines: list[int] = []
    in_group = False
    for i, line in enumerate(block.lines):
        if not line.strip():
            continue
        if line[0] not in " \t":
            in_group = bool(_HEADER.match(line.strip())) and not line.lstrip().startswith("#")
            groups += in_group
            continue
        if in_group and _ITEM.match(line):
            items += 1
            lines.append(i)
    return groups, items, lines


def _measure_data(block: Block) -> Measure | None:
    if block.nonblank < 5:
        return None
    json_like = block.count('"') >= 20 and block.count("{") + block.count("[") >= 2
    if not json_like and block.count(":") < 0.5 * block.nonblank:
        return None
    modules, deps = dependency_lists(load_data(block))
    if modules < 3:
        return None
    return Measure(deps, key_lines(block), f"{modules} modules")


_IMPORT_WORDS = ("import", "from", "use", "require", "include", "using", "const", "let", "var")
_IMPORT_HEADS = frozenset("#@" + "".join(word[0] for word in _IMPORT_WORDS))


def _measure_text(block: Block) -> Measure | None:
    if block.nonblank < 5:
        return None
    picked = block_sample(block)
    size = len(picked)
    # the sample lines each pattern matches, counted in C, bound what the loop below
    # counts (an item is one, a tree line or an import at most one): most blocks
    # reach no share and need no loop
    led = sample_text(block)
    if len(_TEXT_SHAPES.findall(led)) < 0.3 * size:  # one scan rules out the three, mostly
        return None
    if (
        len(_ITEMS.findall(led)) < 0.3 * size
        and len(_DEP_TREES.findall(led)) < 0.3 * size
        and len(_IMPORTS.findall(led)) < 0.4 * size
    ):
        return None
    items = trees = imports = 0
    for line in picked:  # one pass over the sample for the text shapes
        head = line[:1]
        if head in " \t":
            if _ITEM.match(line):
                items += 1
            elif _DEP_TREE.match(line):
                trees += 1
        elif head in "\u251c\u2514|`+\\[" and _DEP_TREE.match(line):
            trees += 1
        elif (
            head in _IMPORT_HEADS
            and line.lstrip("#@ \t").startswith(_IMPORT_WORDS)
            and _IMPORT.match(line)
        ):
            imports += 1
    if items >= 0.3 * size:
        groups, found, item_lines = _grouped_text(block)
        if groups >= 3:
            return Measure(found + groups, item_lines, f"{found} entries under {groups} modules")
    if trees >= 0.3 * size:
        return Measure(*count_lines(block, _DEP_TREES), "a dependency tree")
    if imports >= 0.4 * size:
        return Measure(*count_lines(block, _IMPORTS), "import statements")
    return None


def _measure_lists(block: Block) -> Measure | None:
    # every such line has a separator after its module (":", "->", "|", "\u2192")
    least = 0.6 * block.nonblank
    if block.nonblank < 5 or (block.fenced and block.lang in CODE_LANGS):
        return None  # a listing, not code
    if block.count(":") + block.count(">") + block.count("|") < least and (
        block.count("\u2192") < least
    ):
        return None
    # the listing is uniform: one of its first lines (after a heading, say) is an entry
    for line in block.lines[:10]:
        if list_line(line):
            break
    else:
        return None
    picked = block_sample(block)
    if not lines_reach(picked, list_line, 0.4 * len(picked)):
        return None
    found = [i for i, line in enumerate(block.lines) if line.strip() and list_line(line)]
    return Measure(len(found), found, "one line per module")


@register("IL402", "import-lists", CALL_GRAPH, "import or dependency lists per module")
def check(doc: Document) -> Iterator[Hit]:
    yield from scan(
        doc, _measure_data, 25, 0.0, what="call graph", noun="dependency entries", records=True
    )
    yield from scan(doc, _measure_text, 25, 0.6, what="call graph", noun="dependency lines")
    yield from scan(
        doc, _measure_lists, 12, 0.6, what="call graph", noun="per-module dependency lines"
    )
