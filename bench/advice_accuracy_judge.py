"""Judging one advisory: what it claims, what its commands printed, and a verdict.

Every line an advisory cites is judged, against the project's source at its
commit and a parser's definitions, never against the hook's own index:

* a definition site must be a definition of the target (bench/advice_accuracy_defs.py),
  its node id the graph's node of that name at that site, an overload set
  said to be one (with its lines declaring the name);
* a use or import site must name what it is cited for, as a word, on that
  line (bench/advice_accuracy_sites.py), come from the caller it names, and be
  an edge the graph holds;
* counts are recounted from graph.json the same way; "changed since the graph
  was built" must name exactly the cited files that changed.

The verdicts are defined in docs/advice_accuracy.md; `judge()` is that
definition, in code. What an advisory claims is read by
bench/advice_accuracy_claims.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from bench.advice_accuracy_claims import (
    MARKER,
    Advisory,
    CountClaim,
    DefinitionClaim,
    UseClaim,
    parse_advisory,
)
from bench.advice_accuracy_defs import Definition, DefinitionIndex
from bench.advice_accuracy_graph import (
    _FILE_LABEL,
    IMPORT_RELATIONS,
    Edge,
    GraphView,
    Node,
    normalize_label,
)
from bench.advice_accuracy_sites import CONSTRUCTORS, SourceAt, module_names

__all__ = ["MARKER", "Advisory", "GraphView", "normalize_label", "parse_advisory"]

# A name with several definitions is answered by a bounded subset when the
# advisory (or its commands' output) gives at least this many of them.
SUBSET_MIN = 3

USEFUL, PARTIAL, MISLEADING, USELESS = "useful", "partial", "misleading", "useless"
SILENT_OK, SILENT_MISSED = "silent", "silent_in_graph"
VERDICTS = (USEFUL, PARTIAL, MISLEADING, USELESS)

_EXPLAIN_NODE = re.compile(r"^Node:\s*(.*?)\s*$", re.MULTILINE)
_EXPLAIN_SOURCE = re.compile(r"^\s*Source:\s*(\S+)\s+L(\d+)\s*$", re.MULTILINE)
_QUERY_NODE = re.compile(r"^NODE (.*?) \[src=(\S*) loc=L(\d+)", re.MULTILINE)
_CUT = "\u2026"  # where the hook's `_quote` cut a text over 120 characters
_CONNECTION = re.compile(r"^\s+(?:-->|<--) (.*?) \[([a-z_]+)\]", re.MULTILINE)


def hook_context(stdout: str) -> str | None:
    """The additionalContext of a PreToolUse hook's stdout, or None."""
    stdout = stdout.strip()
    if not stdout:
        return None
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    out = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    context = out.get("additionalContext") if isinstance(out, dict) else None
    return context if isinstance(context, str) and context else None


@dataclass(frozen=True)
class OutputNode:
    label: str
    file: str
    line: int
    primary: bool  # the node an `explain` is about (its `Node:` header)


def parse_graphify_output(output: str) -> list[OutputNode]:
    """Nodes a graphify 0.9.96 command printed with their location: the
    `Node:`/`Source:` header of `explain`, the `NODE ... [src= loc=]` lines of
    `query`. Other lines (an explain's connections) are not claims about the
    asked symbol and are left out."""
    nodes: list[OutputNode] = []
    header = _EXPLAIN_NODE.search(output)
    source = _EXPLAIN_SOURCE.search(output)
    if header and source:
        nodes.append(OutputNode(header.group(1), source.group(1), int(source.group(2)), True))
    for m in _QUERY_NODE.finditer(output):
        nodes.append(OutputNode(m.group(1), m.group(2), int(m.group(3)), False))
    return nodes


@dataclass(frozen=True)
class Target:
    """What a trigger asks about: a file, or a name (with an optional
    qualifier, `click` in `click.echo`, and an optional kind restriction,
    `class` in `class Option`)."""

    file: str | None = None
    name: str | None = None
    qualifier: str | None = None
    kinds: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.file is not None:
            return self.file
        shown = f"{self.qualifier}.{self.name}" if self.qualifier else str(self.name)
        return f"{'/'.join(self.kinds)} {shown}" if self.kinds else shown


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int  # -1: timed out or could not start
    output: str


@dataclass(frozen=True)
class Verdict:
    verdict: str  # one of VERDICTS, SILENT_OK or SILENT_MISSED
    reason: str
    in_graph: bool
    definitions: int  # independent definitions of the target (symbols); 1 for a file in the graph
    graph_holds: int  # how many of those the graph holds
    covered: int  # how many the advisory and its commands' output gave
    # issue 30: the graph shows the target used from another place (a verified
    # use edge from another symbol; for a file, from another file) ...
    used_elsewhere: bool = False
    # ... and the advisory itself says who uses it, every line of that right
    answered: bool = False
    lines_judged: int = 0  # cited lines checked against the source and the graph

    @property
    def nudged(self) -> bool:
        return self.verdict in VERDICTS


class _Misleading(Exception):
    """A cited line is wrong: the advisory is misleading, whatever else it says."""


def in_graph_definitions(
    target: Target, index: DefinitionIndex, graph: GraphView
) -> tuple[list[Definition], list[Definition]]:
    """(independent definitions of the target, the ones the graph holds)."""
    assert target.name is not None
    defs = index.lookup(target.name, target.qualifier, target.kinds)
    sites = graph.symbols.get(target.name, ())
    held = [d for d in defs if any(d.covers(f, line) for f, line in sites)]
    return defs, held


def target_nodes(name: str, defs: Iterable[Definition], graph: GraphView) -> list[Node]:
    """The graph's nodes of `name` that sit on one of `defs`."""
    defs = list(defs)
    return [
        n
        for n in graph.nodes.values()
        if n.name == name and n.line is not None and any(d.covers(n.file, n.line) for d in defs)
    ]


def _use_names(node: Node, index: DefinitionIndex) -> tuple[str, ...]:
    """What a line using `node` names: its name; for a constructor also its
    class (`Option(...)`, `new Foo`)."""
    if node.name not in CONSTRUCTORS:
        return (node.name,)
    owners = {
        d.container[-1]
        for d in index.definitions.get(node.name, ())
        if d.container and node.line is not None and d.covers(node.file, node.line)
    }
    return (node.name, *sorted(owners))


def _defined_at(index: DefinitionIndex, name: str, file: str, line: int) -> bool:
    return any(d.covers(file, line) for d in index.definitions.get(name, ()))


def is_file_node(node: Node) -> bool:
    """graphify's node for a file itself: labelled with its base name, or a
    tail of its path (`click/__init__.py`)."""
    return bool(node.file) and (
        node.label == node.file.rsplit("/", 1)[-1] or node.file.endswith("/" + node.label)
    )


def is_code(node: Node | None, index: DefinitionIndex) -> bool:
    """Whether a use's user is code of the project: a file's own node (its
    top-level code), or a node at a declaration of its name the parser finds
    (a definition, or a Rust `impl` block). Not a node at a line that only
    names a type (graphify 0.8.31's `str` at `def f(x: str)`, which "uses"
    every name the file imports), nor one at an attribute set at run time."""
    if node is None:
        return False
    if is_file_node(node):
        return True
    return node.line is not None and index.declares(node.name, node.file, node.line)


def verified_uses(
    nodes: Collection[Node],
    graph: GraphView,
    index: DefinitionIndex,
    source: SourceAt,
    *,
    import_names: tuple[str, ...] = (),
    module: tuple[str, ...] = (),
) -> list[Edge]:
    """The graph's use edges into `nodes` whose line names what they use and
    whose user is code of the project (`is_code`). A use of a file's own node
    may name its `module` or a symbol the file defines (`import_names`: `export
    { Receiver }`); an import of one of its symbols, the symbol or the `module`
    (`import errorMap from "./locales/en.js"`, `from ._exceptions import (`)."""
    ids = {n.id for n in nodes}
    out = []
    for node in nodes:
        for edge in graph.uses_of.get(node.id, ()):
            if edge.source in ids or not is_code(graph.nodes.get(edge.source), index):
                continue
            names = _use_names(node, index)
            if is_file_node(node):
                names = (*names, *module, *import_names)
            elif edge.relation in IMPORT_RELATIONS:
                names = (*names, *module)
            if source.names_at(edge.file, edge.line, *names):
                out.append(edge)
    return out


@dataclass(frozen=True)
class Evidence:
    """What an advisory is judged against, none of it from the hook: the
    parser's definitions, the graph, the source at the project's commit, and
    the files edited after the graph was built (the `changed` arm: every cited
    one must be marked, and no other)."""

    index: DefinitionIndex
    graph: GraphView
    source: SourceAt
    changed: frozenset[str] = frozenset()


def judge(
    target: Target,
    advisory: Advisory | None,
    results: Sequence[CommandResult],
    evidence: Evidence,
) -> Verdict:
    if target.file is not None:
        return _judge_read(target.file, advisory, results, evidence)
    return _judge_symbol(target, advisory, results, evidence)


# ---------------------------------------------------------------------------
# Checks shared by both kinds of target


def _file_nodes(graph: GraphView, file: str) -> list[Node]:
    return graph.nodes_in(file)


def _caller_names(caller: str) -> set[str]:
    """What a caller's node may be called: the whole, its last part after `.`
    (`Owner.name`) or `#` (Ruby's `Mash#merge`), as graphify's labels go."""
    parts = {caller, caller.rsplit(".", 1)[-1], caller.rsplit("#", 1)[-1]}
    return parts | {normalize_label(p) for p in parts}


def _caller_ok(caller: str, file: str, graph: GraphView) -> bool:
    """The caller named is a node of the graph in that file (`Owner.name` by
    its last part; top-level code by the file's base name). A name cut by the
    hook's quoting (over 120 characters, around `…`) is not checked."""
    if caller == file.rsplit("/", 1)[-1] or _CUT in caller:
        return True
    names = _caller_names(caller)
    return any(n.name in names or n.label in names for n in graph.nodes_in(file))


def _edge_for(use: UseClaim, into: Collection[Node], graph: GraphView) -> Edge | None:
    """The graph's edge a `Use`/`Importer` line stands for, if there is one."""
    names = _caller_names(use.caller)
    for node in into:
        for edge in graph.uses_of.get(node.id, ()):
            if edge.file != use.file or edge.line != use.line or edge.relation != use.relation:
                continue
            caller = graph.nodes.get(edge.source)
            if caller is None or caller.name in names or caller.label in names:
                return edge
            if use.caller == use.file.rsplit("/", 1)[-1] or _CUT in use.caller:
                return edge
    return None


def _check_use(
    use: UseClaim, names: tuple[str, ...], into: Collection[Node], evidence: Evidence,
    shortfalls: list[str],
) -> None:  # fmt: skip
    """One cited use site: the line names it, the caller is a node there, the
    graph holds the edge (misleading otherwise); its confidence is the edge's."""
    graph, source = evidence.graph, evidence.source
    if _CUT in use.file:
        return  # a path cut by the hook's quoting: the contract lets it pass
    where = f"{use.file}:{use.line}"
    if not source.names_at(use.file, use.line, *names):
        raise _Misleading(f"{use.label} {where} does not name {' or '.join(names[:3])}")
    if not _caller_ok(use.caller, use.file, graph):
        raise _Misleading(f"{use.label} {where}: the graph has no {use.caller} in {use.file}")
    if not into:
        return  # its definition's node id was cut by the quoting: no edge to look up
    edge = _edge_for(use, into, graph)
    if edge is None:
        raise _Misleading(f"{use.label} {where}: the graph records no such {use.relation} edge")
    if edge.confidence and edge.confidence != use.confidence:
        shortfalls.append(f"{where} is {edge.confidence}, said {use.confidence}")


def use_sites(edges: Iterable[Edge], *, by_line: bool = False) -> list[Edge]:
    """The sites among use edges: one per user, used node, relation and line
    (graphify keeps one edge per user and used pair); `by_line`, one per line,
    as one import line that names several of a file's symbols is one importer."""
    seen: dict[tuple[object, ...], Edge] = {}
    for e in edges:
        key = (e.file, e.line) if by_line else (e.file, e.line, e.source, e.relation, e.target)
        seen.setdefault(key, e)
    return list(seen.values())


def _check_count(label: str, claim: CountClaim | None, edges: Sequence[Edge], shown: int,
                 shortfalls: list[str]) -> None:  # fmt: skip
    """A `Uses`/`Importers`/`Dependents` line against the judge's recount. An
    import line with edges of two relations (`imports` of the module and
    `imports_from` of a symbol) is one importer of either relation. Sites
    shown (`shown` lines) without their count line is a shortfall; saying
    nothing about uses is not (it is "not answered", a column of its own)."""
    if claim is None:
        if shown:
            shortfalls.append(f"{shown} {label} site(s) shown without the {label} count line")
        return
    by_line = claim.label == "Importers"
    sites = use_sites(edges, by_line=by_line)
    files = len({e.file for e in sites})
    relations_at: dict[tuple[str, int], set[str]] = {}
    for e in edges:
        relations_at.setdefault((e.file, e.line), set()).add(e.relation)
    if by_line:
        possible = {r: sum(1 for rs in relations_at.values() if r in rs)
                    for rs in relations_at.values() for r in rs}  # fmt: skip
        relations_ok = sum(claim.by_relation.values()) == len(sites) and all(
            n <= possible.get(r, 0) for r, n in claim.by_relation.items()
        )
    else:
        counted: dict[str, int] = {}
        for e in sites:
            counted[e.relation] = counted.get(e.relation, 0) + 1
        relations_ok = claim.by_relation == counted
    by_confidence: dict[str, int] = {}
    for e in sites:
        by_confidence[e.confidence] = by_confidence.get(e.confidence, 0) + 1
    if (claim.sites, claim.files) != (len(sites), files) or not relations_ok:
        shortfalls.append(
            f"{claim.label}: {claim.sites} in {claim.files} files "
            f"({', '.join(f'{r} {n}' for r, n in claim.by_relation.items())}), "
            f"the graph shows {len(sites)} in {files}"
        )
    elif claim.by_confidence and not by_line and claim.by_confidence != by_confidence:
        shortfalls.append(f"{claim.label}: confidences {claim.by_confidence}, "
                          f"the graph's {by_confidence}")  # fmt: skip
    if claim.shown != shown:
        shortfalls.append(f"{claim.label} says {claim.shown} shown, {shown} follow")


def node_of(claim: DefinitionClaim, graph: GraphView) -> Node | None:
    """The node a Definition line cites; an id cut around `…` by the hook's
    quoting (over 120 characters) is the one node whose id has that head and tail."""
    if _CUT not in claim.node_id:
        return graph.nodes.get(claim.node_id)
    head, tail = claim.node_id.split(_CUT, 1)
    found = [n for i, n in graph.nodes.items() if i.startswith(head) and i.endswith(tail)]
    return found[0] if len(found) == 1 else None


def _check_node(claim: DefinitionClaim, graph: GraphView, index: DefinitionIndex) -> None:
    """The cited node id is the graph's node of that name at that site. graphify
    may place a declaration's node on its first line, an annotation or attribute
    (`@Override`, `#[derive]`), while the advisory cites the name's line: one
    declaration (the parser's, from its first line to its name's) holds both."""
    node = node_of(claim, graph)
    if node is None and _CUT in claim.node_id:
        return  # cut by the hook's quoting, and not one node's: the contract lets it pass
    if node is None:
        raise _Misleading(f"node {claim.node_id} is not in graph.json")
    same_declaration = node.line is not None and any(
        decl.covers(node.line) and decl.covers(claim.line)
        for d in index.definitions.get(claim.name, ())
        if d.file == claim.file
        for decl in d.decls
    )
    at_site = node.line == claim.line or same_declaration
    if node.file != claim.file or not at_site or node.name != claim.name:
        raise _Misleading(
            f"node {claim.node_id} is {node.label} at {node.file}:{node.line}, "
            f"not {claim.name} at {claim.file}:{claim.line}"
        )


def _check_changed(advisory: Advisory, cited: Iterable[str], changed: Collection[str],
                   shortfalls: list[str]) -> None:  # fmt: skip
    """ "Changed since the graph was built" names exactly the cited files that changed."""
    expected = sorted({f for f in cited if f in changed})
    marked = sorted(set(advisory.changed or ()))
    missing = [f for f in expected if f not in marked]
    if missing:
        raise _Misleading(f"cites {missing[0]}, changed since the graph was built, unmarked")
    extra = [f for f in marked if f not in changed]
    if extra:
        shortfalls.append(f"marks {extra[0]} as changed; it is not")


def _failed_commands(results: Sequence[CommandResult]) -> list[CommandResult]:
    return [r for r in results if r.exit_code != 0]


# ---------------------------------------------------------------------------
# A Read


def _judge_read(
    file: str,
    advisory: Advisory | None,
    results: Sequence[CommandResult],
    evidence: Evidence,
) -> Verdict:
    index, graph, source, changed = (
        evidence.index,
        evidence.graph,
        evidence.source,
        evidence.changed,
    )
    held = file in graph.answering
    n = 1 if held else 0
    nodes = _file_nodes(graph, file) if held else []
    defined_here = tuple(
        sorted({d.name for defs in index.definitions.values() for d in defs if d.file == file})
    )
    module = module_names(file)
    # what depends on the file uses the file, or a definition the parser finds
    # in it: not a node graphify made where the file only calls a name (mobx's
    # `return initObservable(() =>`, whose callers call another file's function)
    own = [
        n for n in nodes
        if is_file_node(n) or (n.line is not None and _defined_at(index, n.name, file, n.line))
    ]  # fmt: skip
    uses = verified_uses(own, graph, index, source, import_names=defined_here, module=module)
    elsewhere = [e for e in uses if e.file != file]
    used_elsewhere = bool(elsewhere)

    def verdict(
        v: str, why: str, covered: int = 0, answered: bool = False, lines: int = 0
    ) -> Verdict:
        return Verdict(v, why, held, n, n, covered, used_elsewhere, answered, lines)

    if advisory is None:
        return verdict(SILENT_MISSED if held else SILENT_OK, "no advisory")
    if not held:
        why = "whose node stands alone" if file in graph.files else "the graph does not hold"
        return verdict(MISLEADING, f"advises a Read of a file {why}")
    failed = _failed_commands(results)
    for r in results:
        if r.exit_code != 0:
            continue
        for node in parse_graphify_output(r.output):
            if node.primary and node.file != file:
                return verdict(MISLEADING, f"`{r.command}` answers about {node.file}, not {file}")
    if not advisory.structured:
        try:
            _check_changed(advisory, [file], changed, [])
        except _Misleading as e:
            return verdict(MISLEADING, str(e))
        return _judge_read_pointer(file, advisory, results, failed, verdict, index=index)
    shortfalls: list[str] = []
    lines = 0
    try:
        if advisory.kind != "C" or advisory.subject != file:
            raise _Misleading(f"answers about {advisory.subject!r}, not the Read {file}")
        in_file = {n.name: n for n in nodes}
        for use in advisory.uses:
            lines += 1
            if use.file == file:
                shortfalls.append(f"{use.label} {use.file}:{use.line} is in the read file")
            if use.label == "Importer":
                _check_use(use, (*module, *defined_here), nodes, evidence, shortfalls)
                continue
            if use.used is None or not any(
                d.file == file for d in index.definitions.get(use.used, ())
            ):
                raise _Misleading(f"Use {use.file}:{use.line}: {use.used} is not defined in {file}")
            into = [n for n in nodes if n.name == use.used] or list(in_file.values())
            _check_use(use, (use.used,), into, evidence, shortfalls)
        for name, line in advisory.defines:
            lines += 1
            defs = [d for d in index.definitions.get(name, ()) if d.covers(file, line)]
            if not defs and not index.is_binding(name, file, line):
                raise _Misleading(f"Defines {name} L{line}: not a definition in {file}")
        held_defs = [
            n for n in nodes if n.line is not None and n.name != file.rsplit("/", 1)[-1]
            and any(d.covers(file, n.line) for d in index.definitions.get(n.name, ()))
        ]  # fmt: skip
        if advisory.defines_total is not None and advisory.defines_total != len(held_defs):
            shortfalls.append(f"Defines says {advisory.defines_total}, the graph holds "
                              f"{len(held_defs)} verified definitions")  # fmt: skip
        importers = [e for e in elsewhere if e.relation in IMPORT_RELATIONS]
        dependents = [e for e in elsewhere if e.relation not in IMPORT_RELATIONS]
        n_imp = sum(1 for u in advisory.uses if u.label == "Importer")
        _check_count("Importers", advisory.count("Importers"), importers, n_imp, shortfalls)
        n_dep = sum(1 for u in advisory.uses if u.label == "Use")
        _check_count("Dependents", advisory.count("Dependents"), dependents, n_dep, shortfalls)
        cited = [file, *(u.file for u in advisory.uses)]
        _check_changed(advisory, cited, changed, shortfalls)
    except _Misleading as e:
        return verdict(MISLEADING, str(e), lines=lines)
    if failed:
        shortfalls.append(f"`{failed[0].command}` exited {failed[0].exit_code}")
    answered = used_elsewhere and advisory.answers_who_uses
    if not advisory.defines and not advisory.uses:
        return verdict(USELESS, "neither what the file defines nor who depends on it", lines=lines)
    if shortfalls:
        return verdict(PARTIAL, "; ".join(shortfalls), 1, answered, lines)
    return verdict(USEFUL, "every cited line checks out", 1, answered, lines)


def _judge_read_pointer(
    file: str,
    advisory: Advisory,
    results: Sequence[CommandResult],
    failed: Sequence[CommandResult],
    verdict: Callable[..., Verdict],
    *,
    index: DefinitionIndex,
) -> Verdict:
    """The pointer format: a command that exits 0 must give the file's node,
    with something about the file. A node whose one connection `contains` a
    module that other files define too (`module I18n`, reopened by 45 files)
    answers nothing about the file's symbols, imports or dependents (issue
    30's Ruby); one that contains the file's own class does."""
    about_file = [s for s in advisory.sites if s[0] == file]
    bare = []
    for r in results:
        if r.exit_code != 0:
            continue
        mine = [(n.file, n.line) for n in parse_graphify_output(r.output) if n.file == file]
        connections = _CONNECTION.findall(r.output)
        reopened = [
            label for label, relation in connections
            if relation == "contains"
            and len({d.file for d in index.definitions.get(normalize_label(label), ())}) > 1
        ]  # fmt: skip
        if mine and not advisory.sites and len(connections) == len(reopened) <= 1:
            bare.append((r, reopened))
            continue
        about_file += mine
    if not about_file and bare:
        r, reopened = bare[0]
        what = (
            f"one, `contains` {reopened[0]}, a module other files define too"
            if reopened
            else "none"
        )
        return verdict(
            USELESS,
            f"`{r.command}` lists {what}: nothing about the file's symbols, imports or dependents",
        )
    if not about_file:
        if failed:
            return verdict(USELESS, f"`{failed[0].command}` exited {failed[0].exit_code}")
        return verdict(USELESS, "neither the advisory nor its commands give the file's node")
    if failed:
        return verdict(PARTIAL, f"`{failed[0].command}` exited {failed[0].exit_code}", 1)
    return verdict(USEFUL, "the command gives the file's node", 1)


# ---------------------------------------------------------------------------
# A symbol


def _judge_symbol(
    target: Target,
    advisory: Advisory | None,
    results: Sequence[CommandResult],
    evidence: Evidence,
) -> Verdict:
    index, graph, source = evidence.index, evidence.graph, evidence.source
    name = target.name
    assert name is not None
    defs, held = in_graph_definitions(target, index, graph)
    n, in_graph = len(defs), bool(held)
    nodes = target_nodes(name, held, graph)
    used_elsewhere = bool(verified_uses(nodes, graph, index, source))

    def verdict(
        v: str, why: str, covered: int = 0, answered: bool = False, lines: int = 0
    ) -> Verdict:
        return Verdict(v, why, in_graph, n, len(held), covered, used_elsewhere, answered, lines)

    if advisory is None:
        return verdict(SILENT_MISSED if in_graph else SILENT_OK, "no advisory")
    if not in_graph:
        why = (
            f"the project defines no {target.describe()}"
            if not defs
            else f"the graph holds none of the {n} definitions of {target.describe()}"
        )
        return verdict(MISLEADING, "advises about a symbol outside the graph: " + why)

    others = [d for d in index.definitions.get(name, ()) if d not in defs]
    covered: set[Definition] = set()
    related = False
    shortfalls: list[str] = []
    lines = 0
    claimed = list(advisory.sites)
    for r in results:
        if r.exit_code != 0:
            continue
        for node in parse_graphify_output(r.output):
            if normalize_label(node.label) == name:
                claimed.append((node.file, node.line))
            elif node.primary and not _FILE_LABEL.search(node.label):
                return verdict(
                    MISLEADING, f"`{r.command}` answers a different symbol, {node.label}"
                )
    try:
        for file, line in claimed:
            lines += 1
            if _CUT in file:
                continue  # cut by the hook's quoting: the contract lets it pass
            hit = [d for d in defs if d.covers(file, line)]
            if hit:
                covered.update(hit)
            elif any(d.covers(file, line) for d in others):
                related = True
            elif not index.is_binding(name, file, line):
                raise _Misleading(f"{file}:{line} is not a definition of {target.describe()}")
        if advisory.structured:
            lines += _judge_answer(target, advisory, defs, evidence, shortfalls)
        else:
            _judge_pointer_overloads(target, advisory, covered)
            _check_changed(advisory, [f for f, _ in advisory.sites], evidence.changed, shortfalls)
    except _Misleading as e:
        return verdict(MISLEADING, str(e), len(covered), lines=lines)

    failed = _failed_commands(results)
    k = len(covered)
    if k == 0:
        if failed:
            return verdict(
                USELESS, f"`{failed[0].command}` exited {failed[0].exit_code}", lines=lines
            )
        return verdict(USELESS, "gives no definition site", lines=lines)
    if n > 1 and not advisory.flags_several:
        return verdict(MISLEADING, f"presents one of {n} definitions as the answer", k, lines=lines)
    answered = used_elsewhere and advisory.answers_who_uses
    if k < min(n, SUBSET_MIN):
        shortfalls.append(f"gives {k} of {n} definitions")
    if failed:
        shortfalls.append(f"`{failed[0].command}` exited {failed[0].exit_code}")
    if related:
        shortfalls.append(f"also lists definitions that are not {target.describe()}")
    if shortfalls:
        return verdict(PARTIAL, "; ".join(shortfalls), k, answered, lines)
    return verdict(USEFUL, f"gives {k} of {n} definition(s)", k, answered, lines)


def _judge_pointer_overloads(
    target: Target, advisory: Advisory, covered: Iterable[Definition]
) -> None:
    """The pointer format: one site of an overload set, not flagged as one of
    several, presents one overload as the answer."""
    for d in covered:
        if d.overloads >= 2 and not advisory.flags_several:
            raise _Misleading(
                f"presents one of the {d.overloads} overloads of {target.describe()} as the answer"
            )


def _judge_answer(
    target: Target,
    advisory: Advisory,
    defs: Sequence[Definition],
    evidence: Evidence,
    shortfalls: list[str],
) -> int:
    """The answer format's lines for a symbol (kinds A and B); returns how
    many lines it judged. Raises _Misleading at the first wrong one."""
    index, graph, source = evidence.index, evidence.graph, evidence.source
    name = target.name
    assert name is not None
    others = [d for d in index.definitions.get(name, ()) if d not in defs]
    lines = 0
    if advisory.kind not in ("A", "B"):
        raise _Misleading(f"answers about the file {advisory.subject}, not the symbol {name}")
    # aligned with the Definition lines; None: an id cut by the quoting, not resolved
    cited_nodes: list[Node | None] = []
    for claim in advisory.definitions:
        if claim.name != name:
            raise _Misleading(f"Definition {claim.file}:{claim.line} is {claim.name}, not {name}")
        if not claim.node_id:
            # "a field with no graph node": the parser's definitions (judge_symbol's
            # check of every site) must hold a definition there, and nothing uses it
            if claim.used_sites or not claim.owner:
                raise _Misleading(
                    f"the field {claim.file}:{claim.line} has no node to count uses of"
                )
            cited_nodes.append(None)
            continue
        _check_node(claim, graph, index)
        cited_nodes.append(node_of(claim, graph))
        matching = [d for d in (*defs, *others) if d.covers(claim.file, claim.line)]
        overloads = max((d.overloads for d in matching), default=0)
        if claim.overloads is None:
            if overloads >= 2:
                raise _Misleading(
                    f"presents one of the {overloads} overloads of {target.describe()} "
                    f"({claim.file}:{claim.line}) as the answer"
                )
        else:
            for line in claim.overload_lines:
                lines += 1
                if not any(d.declares(claim.file, line) for d in index.definitions.get(name, ())):
                    raise _Misleading(f"{claim.file}:{line} does not declare {name}")
            if overloads >= 2 and claim.overloads not in {
                overloads,
                *(len(d.decls) for d in matching),
            }:
                shortfalls.append(f"says {claim.overloads} overloads at {claim.file}:{claim.line}; "
                                  f"the code has {overloads}")  # fmt: skip
    if advisory.places is not None and advisory.places < len(advisory.definitions):
        shortfalls.append(f"says {advisory.places} places, lists {len(advisory.definitions)}")
    claimed_nodes = [n for n in cited_nodes if n is not None]
    names = tuple(dict.fromkeys(u for n in claimed_nodes for u in _use_names(n, index))) or (name,)
    for use in advisory.uses:
        lines += 1
        into = claimed_nodes
        if use.definition is not None:
            if not 1 <= use.definition <= len(cited_nodes):
                raise _Misleading(f"Use {use.file}:{use.line} is of definition {use.definition}, "
                                  "which is not listed")  # fmt: skip
            node = cited_nodes[use.definition - 1]
            into = [node] if node is not None else []  # [] : an id the quoting cut
        _check_use(use, names, into, evidence, shortfalls)
    verified = verified_uses(claimed_nodes, graph, index, source)
    per_definition = bool(advisory.definitions) and all(
        c.used_sites is not None for c in advisory.definitions
    )
    # a node id the quoting cut leaves counts unchecked (a field cites no node)
    resolved = all(
        n is not None or not c.node_id for c, n in zip(advisory.definitions, cited_nodes)
    )
    if resolved and (advisory.count("Uses") is not None or not per_definition):
        # kind B may count per definition instead ("used at N sites", each checked below)
        _check_count("Uses", advisory.count("Uses"), verified, len(advisory.uses), shortfalls)
    for claim, cited in zip(advisory.definitions, cited_nodes):
        if claim.used_sites is not None and cited is not None:
            node = cited
            mine = verified_uses([node], graph, index, source)
            said = (claim.used_sites, claim.used_files)
            mine = use_sites(mine)
            if said != (len(mine), len({e.file for e in mine})):
                shortfalls.append(f"definition {claim.index}: used at {claim.used_sites} sites, "
                                  f"the graph shows {len(mine)}")  # fmt: skip
    cited_files = [c.file for c in advisory.definitions] + [u.file for u in advisory.uses]
    _check_changed(advisory, cited_files, evidence.changed, shortfalls)
    return lines
