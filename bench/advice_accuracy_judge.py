"""Judging one advisory: what it claims, what its commands printed, and a verdict.

The advisory format (docs/hook.md, "What the advice says"): it starts with `[graphify-nudge]`,
every command it suggests is in single backticks and starts with `graphify `,
and definition sites are written `path:line` (`path:L12` is accepted too).
The verdicts are defined in docs/advice_accuracy.md; `judge()` is that
definition, in code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.advice_accuracy_defs import Definition, DefinitionIndex

MARKER = "[graphify-nudge]"
# A name with several definitions is answered by a bounded subset when the
# advisory (or its commands' output) gives at least this many of them.
SUBSET_MIN = 3

USEFUL, PARTIAL, MISLEADING, USELESS = "useful", "partial", "misleading", "useless"
SILENT_OK, SILENT_MISSED = "silent", "silent_in_graph"
VERDICTS = (USEFUL, PARTIAL, MISLEADING, USELESS)

_COMMAND = re.compile(r"`(graphify [^`]*)`")
_BACKTICKED = re.compile(r"`[^`]*`")
_SITE = re.compile(r"(?<![\w./@+~-])((?:[\w@+~-]|\.(?!\.))[\w./@+~-]*\.[A-Za-z0-9]+):L?(\d+)\b")
# Words that say "this is not the only definition". Fixed here, documented in
# docs/advice_accuracy.md; never extended to fit a particular hook's wording.
_HEDGE = re.compile(
    r"\b(several|multiple|ambiguous|one of|at least|also defined|not the only)\b"
    r"|\b(\d+)\s+(?:definitions?|defs|places|sites|matches|nodes|candidates)\b"
    r"|\b\d+\s+of\s+(\d+)\b"
    r"|\band\s+(\d+)\s+more\b",
    re.IGNORECASE,
)
_EXPLAIN_NODE = re.compile(r"^Node:\s*(.*?)\s*$", re.MULTILINE)
_EXPLAIN_SOURCE = re.compile(r"^\s*Source:\s*(\S+)\s+L(\d+)\s*$", re.MULTILINE)
_QUERY_NODE = re.compile(r"^NODE (.*?) \[src=(\S*) loc=L(\d+)", re.MULTILINE)
_FILE_LABEL = re.compile(r"[/\\]|\.[A-Za-z0-9]{1,5}$")


@dataclass(frozen=True)
class Advisory:
    text: str
    commands: tuple[str, ...]
    sites: tuple[tuple[str, int], ...]  # (path, line), in order, without duplicates
    hedged: bool  # says in words that there are several definitions

    @property
    def flags_several(self) -> bool:
        return self.hedged or len(self.sites) >= 2


def parse_advisory(text: str) -> Advisory:
    commands = tuple(m.group(1).strip() for m in _COMMAND.finditer(text))
    prose = _BACKTICKED.sub(" ", text)
    sites: list[tuple[str, int]] = []
    for m in _SITE.finditer(prose):
        site = (m.group(1), int(m.group(2)))
        if site not in sites:
            sites.append(site)
    hedged = False
    for m in _HEDGE.finditer(prose):
        numbers = [g for g in m.groups()[1:] if g is not None]
        if not numbers or int(numbers[0]) >= 2:
            hedged = True
            break
    return Advisory(text, commands, tuple(sites), hedged)


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


def normalize_label(label: str) -> str:
    """graphify 0.9.96's label conventions: methods `.name()`, functions
    `name()`, Ruby classes and modules by qualified name (`Hashie::Mash`)."""
    if label.startswith("."):
        label = label[1:]
    if label.endswith("()"):
        label = label[:-2]
    return label.rsplit("::", 1)[-1] if "::" in label and not label.endswith(":") else label


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


@dataclass
class GraphView:
    """What a graph.json holds, read the way graphify 0.9.96 writes it."""

    files: frozenset[str]
    symbols: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    # Files about which the graph has something to say: a symbol node in it, or
    # a file node with connections. A file whose node stands alone (graphify
    # extracted nothing from it) is held, but `explain` of it answers nothing.
    answering: frozenset[str] = frozenset()

    @classmethod
    def load(cls, graph: Path) -> GraphView:
        data = json.loads(graph.read_text())
        return cls.from_nodes(data.get("nodes", ()), data.get("links", ()))

    @classmethod
    def from_nodes(
        cls, nodes: Iterable[dict[str, object]], links: Iterable[dict[str, object]] | None = None
    ) -> GraphView:
        files: set[str] = set()
        answering: set[str] = set()
        symbols: dict[str, list[tuple[str, int]]] = {}
        nodes = list(nodes)
        ends = ("source", "target")
        linked = {str(link.get(end)) for link in links or () for end in ends}
        for node in nodes:
            file = node.get("source_file")
            if not isinstance(file, str) or not file:
                continue
            files.add(file)
            label = node.get("label")
            is_file_node = isinstance(label, str) and (label == file.rsplit("/", 1)[-1])
            if links is None or node.get("id") in linked or not is_file_node:
                answering.add(file)
            label, loc = node.get("label"), node.get("source_location")
            if node.get("file_type") != "code" or not isinstance(label, str):
                continue
            if not isinstance(loc, str) or not loc[1:].isdigit() or _FILE_LABEL.search(label):
                continue
            symbols.setdefault(normalize_label(label), []).append((file, int(loc[1:])))
        return cls(frozenset(files), symbols, frozenset(answering))


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

    @property
    def nudged(self) -> bool:
        return self.verdict in VERDICTS


def in_graph_definitions(
    target: Target, index: DefinitionIndex, graph: GraphView
) -> tuple[list[Definition], list[Definition]]:
    """(independent definitions of the target, the ones the graph holds)."""
    assert target.name is not None
    defs = index.lookup(target.name, target.qualifier, target.kinds)
    sites = graph.symbols.get(target.name, ())
    held = [d for d in defs if any(d.covers(f, line) for f, line in sites)]
    return defs, held


def judge(
    target: Target,
    advisory: Advisory | None,
    results: Sequence[CommandResult],
    index: DefinitionIndex,
    graph: GraphView,
) -> Verdict:
    if target.file is not None:
        return _judge_read(target.file, advisory, results, graph)
    return _judge_symbol(target, advisory, results, index, graph)


def _judge_read(
    file: str, advisory: Advisory | None, results: Sequence[CommandResult], graph: GraphView
) -> Verdict:
    held = file in graph.answering
    n = 1 if held else 0

    def verdict(v: str, why: str, covered: int = 0) -> Verdict:
        return Verdict(v, why, held, n, n, covered)

    if advisory is None:
        return verdict(SILENT_MISSED if held else SILENT_OK, "no advisory")
    if not held:
        why = "whose node stands alone" if file in graph.files else "the graph does not hold"
        return verdict(MISLEADING, f"advises a Read of a file {why}")
    failed = [r for r in results if r.exit_code != 0]
    about_file = [s for s in advisory.sites if s[0] == file]
    for r in results:
        if r.exit_code != 0:
            continue
        for node in parse_graphify_output(r.output):
            if node.primary and node.file != file:
                return verdict(MISLEADING, f"`{r.command}` answers about {node.file}, not {file}")
            if node.file == file:
                about_file.append((node.file, node.line))
    if not about_file:
        if failed:
            return verdict(USELESS, f"`{failed[0].command}` exited {failed[0].exit_code}")
        return verdict(USELESS, "neither the advisory nor its commands give the file's node")
    if failed:
        return verdict(PARTIAL, f"`{failed[0].command}` exited {failed[0].exit_code}", 1)
    return verdict(USEFUL, "the command gives the file's node", 1)


def _judge_symbol(
    target: Target,
    advisory: Advisory | None,
    results: Sequence[CommandResult],
    index: DefinitionIndex,
    graph: GraphView,
) -> Verdict:
    name = target.name
    assert name is not None
    defs, held = in_graph_definitions(target, index, graph)
    n, in_graph = len(defs), bool(held)

    def verdict(v: str, why: str, covered: int = 0) -> Verdict:
        return Verdict(v, why, in_graph, n, len(held), covered)

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
    for file, line in claimed:
        hit = [d for d in defs if d.covers(file, line)]
        if hit:
            covered.update(hit)
        elif any(d.covers(file, line) for d in others):
            related = True
        elif not index.is_binding(name, file, line):
            return verdict(MISLEADING, f"{file}:{line} is not a definition of {target.describe()}")

    failed = [r for r in results if r.exit_code != 0]
    k = len(covered)
    if k == 0:
        if failed:
            return verdict(USELESS, f"`{failed[0].command}` exited {failed[0].exit_code}")
        return verdict(USELESS, "gives no definition site")
    if n > 1 and not advisory.flags_several:
        return verdict(MISLEADING, f"presents one of {n} definitions as the answer", k)
    shortfalls = []
    if k < min(n, SUBSET_MIN):
        shortfalls.append(f"gives {k} of {n} definitions")
    if failed:
        shortfalls.append(f"`{failed[0].command}` exited {failed[0].exit_code}")
    if related:
        shortfalls.append(f"also lists definitions that are not {target.describe()}")
    if shortfalls:
        return verdict(PARTIAL, "; ".join(shortfalls), k)
    return verdict(USEFUL, f"gives {k} of {n} definition(s)", k)
