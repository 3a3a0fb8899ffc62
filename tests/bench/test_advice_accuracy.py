"""The accuracy bench's own logic, on small local inputs (no network, no graphify).

The whole bench runs with `tox -e advice`; these check the parts it rests on:
reading an advisory, reading graphify's output, the independent definitions,
the verdicts, the trigger procedure and the hook input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from bench import advice_accuracy as bench
from bench import advice_accuracy_projects as projects
from bench import advice_accuracy_sites as sites
from bench.advice_accuracy_claims import format_errors
from bench.advice_accuracy_defs import (
    Decl,
    DefinitionIndex,
    build_index,
    java_anonymous_members,
    project_index,
    python_decls,
    rust_consts,
    source_lines,
)
from bench.advice_accuracy_graph import Edge, GraphView, normalize_label
from bench.advice_accuracy_judge import (
    MISLEADING,
    PARTIAL,
    SILENT_MISSED,
    SILENT_OK,
    USEFUL,
    USELESS,
    Advisory,
    CommandResult,
    Evidence,
    Target,
    Verdict,
    hook_context,
    is_code,
    parse_advisory,
    parse_graphify_output,
    verified_uses,
)
from bench.advice_accuracy_judge import judge as judge_with
from bench.advice_accuracy_sites import SourceAt
from bench.advice_accuracy_triggers import Trigger, generate, hook_input, regex_escape
from tests.shared_data import shared_path

# Real outputs of graphify 0.9.96 (`explain`, on click 8.1.7's graph).
EXPLAIN_OPTION = """Node: Option
  ID:        src_click_core_option
  Source:    src/click/core.py L2449
  Type:      code
  Community: 13
  Degree:    39

Connections (39):
  <-- click/__init__.py [imports] [EXTRACTED] src/click/__init__.py:L14
  --> Parameter [inherits] [EXTRACTED] src/click/core.py:L2449
"""
EXPLAIN_FILE = """Node: core.py
  ID:        src_click_core
  Source:    src/click/core.py L1
  Type:      code

Connections (67):
  --> Context [contains] [EXTRACTED] src/click/core.py:L160
  <-- click/__init__.py [imports] [EXTRACTED] src/click/__init__.py:L18
"""
AMBIGUOUS = """Ambiguous: 'Option' matches 3 nodes in different files.
  src/click/parser.py
    id: src_click_parser_option
  src/click/core.py
    id: src_click_core_option
Retry with path::symbol using one of the paths above (e.g. <path>::Option) or the full node id.
"""
QUERY = """Graph: .graphify/graph.json (1811 nodes) | Traversal: BFS depth=2 | Start: ['echo()']

NODE echo() [src=src/click/utils.py loc=L219 community=21]
NODE click/__init__.py [src=src/click/__init__.py loc=L1 community=46]
"""

SOURCE = textwrap.dedent(
    """
    import os
    from typing import overload
    from shutil import get_terminal_size as gts

    LIMIT = 3
    a, (b, *rest) = 1, (2, 3)

    class Option:
        flag: bool = False

        def __init__(self):
            self.name = "x"
            local = 1

            def helper():
                pass

        @property
        def value(self):
            return 1

    class Parser:
        class Option:
            pass

        def __init__(self):
            pass

    @overload
    def get(x: int) -> int: ...
    @overload
    def get(x: str) -> str: ...
    def get(x):
        return x

    if os.name == "nt":
        def getchar():
            return 1
    else:
        def getchar():
            return 2

    try:
        import fcntl
    except ImportError:
        def lock():
            pass
    """
).lstrip()


class Texts(SourceAt):
    """The source at the commit, from a dict (no git): {path: text}."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        super().__init__(Path("/nonexistent"), "HEAD")
        self.texts = texts or {}

    def _read(self, path: str) -> list[str] | None:
        text = self.texts.get(path)
        return None if text is None else text.splitlines()


def judge(  # noqa: PLR0917 (the judge's evidence, spelled out for short tests)
    target: Target,
    advisory: Advisory | None,
    results: list[CommandResult],
    index: DefinitionIndex,
    graph: GraphView,
    source: SourceAt | None = None,
    changed: frozenset[str] = frozenset(),
) -> Verdict:
    return judge_with(target, advisory, results, Evidence(index, graph, source or Texts(), changed))


def _index() -> DefinitionIndex:
    return build_index(python_decls(SOURCE, "pkg/mod.py"), ["pkg/mod.py"])


def _graph(*sites: tuple[str, str, int], files: tuple[str, ...] = ("pkg/mod.py",)) -> GraphView:
    nodes: list[dict[str, object]] = [
        {"id": f"{f}:{label}:{line}", "label": label, "source_file": f,
         "source_location": f"L{line}", "file_type": "code"}
        for label, f, line in sites
    ]  # fmt: skip
    nodes += [
        {
            "label": f.rsplit("/", 1)[-1],
            "source_file": f,
            "source_location": "L1",
            "file_type": "code",
        }
        for f in files
    ]
    return GraphView.from_nodes(nodes)


# --------------------------------------------------------------------------- advisories


def test_parse_advisory_reads_commands_and_sites() -> None:
    text = (
        "[graphify-nudge] Option is defined in 2 places: src/click/core.py:2449 and "
        "src/click/parser.py:L159. `graphify explain 'src/click/core.py::Option'` and "
        "`graphify explain src_click_parser_option --graph .graphify/graph.json`; "
        "not `ls src/x.py:3`."
    )
    adv = parse_advisory(text)
    assert adv.commands == (
        "graphify explain 'src/click/core.py::Option'",
        "graphify explain src_click_parser_option --graph .graphify/graph.json",
    )
    # `ls src/x.py:3` is in backticks but no graphify command; its site is not prose
    assert adv.sites == (("src/click/core.py", 2449), ("src/click/parser.py", 159))
    assert adv.hedged and adv.flags_several


@pytest.mark.parametrize(
    ("text", "hedged"),
    [
        ("[graphify-nudge] echo is defined at a/b.py:3.", False),
        ("[graphify-nudge] 1 definition: a/b.py:3.", False),
        ("[graphify-nudge] one of 7 definitions: a/b.py:3.", True),
        ("[graphify-nudge] shape has 12 definitions; first: a/b.ts:3.", True),
        ("[graphify-nudge] a/b.ts:3 and 4 more.", True),
        ("[graphify-nudge] a/b.ts:3 (1 of 1).", False),
        ("[graphify-nudge] several definitions, e.g. a/b.ts:3.", True),
    ],
)
def test_hedge_vocabulary(text: str, hedged: bool) -> None:
    assert parse_advisory(text).hedged is hedged


def test_sites_need_a_file_extension_and_skip_urls_and_versions() -> None:
    adv = parse_advisory("[graphify-nudge] HEAD 1a2b3c4, at 12:30, see src/x.py:10 and ./y.ts:2")
    assert adv.sites == (("src/x.py", 10), ("./y.ts", 2))


def test_hook_context() -> None:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "hi"}}
    assert hook_context(json.dumps(out) + "\n") == "hi"
    assert hook_context("") is None
    assert hook_context("not json") is None
    assert hook_context('{"hookSpecificOutput": {}}') is None


# --------------------------------------------------------------------------- graphify output


def test_parse_graphify_output() -> None:
    (node,) = parse_graphify_output(EXPLAIN_OPTION)
    assert (node.label, node.file, node.line, node.primary) == (
        "Option",
        "src/click/core.py",
        2449,
        True,
    )
    assert parse_graphify_output(AMBIGUOUS) == []
    nodes = parse_graphify_output(QUERY)
    assert [(n.label, n.file, n.line, n.primary) for n in nodes] == [
        ("echo()", "src/click/utils.py", 219, False),
        ("click/__init__.py", "src/click/__init__.py", 1, False),
    ]


@pytest.mark.parametrize(
    ("label", "name"),
    [(".invoke()", "invoke"), ("echo()", "echo"), ("$ZodType", "$ZodType"), (".shape", "shape")],
)
def test_normalize_label(label: str, name: str) -> None:
    assert normalize_label(label) == name


def test_graph_view_keeps_symbols_and_files_apart() -> None:
    graph = GraphView.from_nodes(
        [
            {
                "label": ".invoke()",
                "source_file": "a.py",
                "source_location": "L4",
                "file_type": "code",
            },
            {"label": "a.py", "source_file": "a.py", "source_location": "L1", "file_type": "code"},
            {
                "label": "Docstring.",
                "source_file": "a.py",
                "source_location": "L5",
                "file_type": "rationale",
            },
            {"label": "shutil", "source_file": "", "file_type": "code"},
            {
                "label": "pkg/b.py",
                "source_file": "pkg/b.py",
                "source_location": "L1",
                "file_type": "code",
            },
        ]
    )
    assert graph.files == frozenset({"a.py", "pkg/b.py"})
    assert graph.symbols == {"invoke": [("a.py", 4)]}


# --------------------------------------------------------------------------- definitions


def test_python_definitions_follow_the_documented_rule() -> None:
    index = _index()
    names = set(index.definitions)
    # defs and classes at any depth, module and class variables
    assert {"Option", "__init__", "helper", "value", "get", "getchar", "lock", "LIMIT"} <= names
    assert {"a", "b", "rest", "flag", "Parser"} <= names
    # not locals, attributes, or imports
    assert not {"local", "name", "os", "gts", "fcntl", "overload"} & names
    assert {"os", "gts", "fcntl", "overload"} <= set(index.bindings)
    # one definition per name per scope: overloads, platform variants
    (get,) = index.definitions["get"]
    assert [d.name_line for d in get.decls] == [30, 32, 33]
    (getchar,) = index.definitions["getchar"]
    assert len(getchar.decls) == 2
    # the decorator line starts a definition
    (value,) = index.definitions["value"]
    assert value.covers("pkg/mod.py", 18) and value.covers("pkg/mod.py", 19)
    assert not value.covers("pkg/mod.py", 20)


def test_lookup_by_qualifier_and_kind() -> None:
    index = _index()
    assert len(index.lookup("Option")) == 2
    assert [d.container for d in index.lookup("Option", qualifier="Parser")] == [("Parser",)]
    assert len(index.lookup("__init__", qualifier="Option")) == 1
    assert len(index.lookup("get", qualifier="pkg")) == 1  # a directory of the file
    assert len(index.lookup("get", qualifier="mod")) == 1  # the module itself
    assert index.lookup("get", qualifier="other") == []
    assert len(index.lookup("Option", kinds=("class",))) == 2
    assert index.lookup("LIMIT", kinds=("function",)) == []


def test_project_index_skips_unparsable_python(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("def f():\n    pass\n")
    (tmp_path / "bad.py").write_text("def (:\n")
    index = project_index(tmp_path, ["ok.py", "bad.py"])
    assert list(index.definitions) == ["f"]


def _typescript() -> Path:
    ts = projects.typescript_dir(projects.DEFAULT_CACHE / "tools")
    if shutil.which("node") is None or not (ts / "lib" / "typescript.js").exists():
        pytest.skip(f"needs node and the pinned TypeScript in {ts} (run `tox -e advice` once)")
    return ts


def test_typescript_definitions_follow_the_documented_rule(tmp_path: Path) -> None:
    ts = _typescript()
    (tmp_path / "a.ts").write_text(
        textwrap.dedent(
            """
            import { external } from "vitest";
            export * as NS from "./b";
            export interface $ZodType { parse(x: unknown): unknown; shape: number }
            export const $ZodType = make("$ZodType");
            export type Def = { shape: string } & { get: () => void };
            export type Fn = (opts: { Err?: string }) => void;
            export function tuple(a: string): void;
            export function tuple(a: number): void;
            export function tuple(a: unknown) { const local = 1; return local; }
            export class Box { size = 1; constructor() {} get shape() { return 1; } }
            const obj = { get shape() { return 2; }, method() {} };
            enum Color { Red }
            namespace Space { export const inner = 1; }
            """
        ).lstrip()
    )
    index = project_index(tmp_path, ["a.ts"], "node", ts)
    names = set(index.definitions)
    assert {"$ZodType", "parse", "shape", "Def", "get", "Fn", "tuple", "Box", "size"} <= names
    assert {"constructor", "obj", "method", "Color", "Red", "Space", "inner"} <= names
    assert not {"local", "Err", "external", "NS", "opts"} & names
    assert {"external", "NS"} <= set(index.bindings)
    (zod_type,) = index.definitions["$ZodType"]  # interface + const: one symbol
    assert [d.kind for d in zod_type.decls] == ["interface", "variable"]
    (tuple_,) = index.definitions["tuple"]  # overloads + implementation
    assert len(tuple_.decls) == 3
    assert (
        len(index.definitions["shape"]) == 4
    )  # interface, type alias, class getter, object getter


# --------------------------------------------------------------------------- verdicts


def _ok(command: str, output: str) -> CommandResult:
    return CommandResult(command, 0, output)


def test_read_verdicts() -> None:
    index = DefinitionIndex(frozenset())
    graph = _graph(files=("src/click/core.py",))
    inside, outside = Target(file="src/click/core.py"), Target(file="build/lib/click/core.py")
    adv = parse_advisory("[graphify-nudge] `graphify explain 'src/click/core.py'`")
    cmd = adv.commands[0]
    assert judge(inside, adv, [_ok(cmd, EXPLAIN_FILE)], index, graph).verdict == USEFUL
    assert judge(inside, adv, [CommandResult(cmd, 4, "No node")], index, graph).verdict == USELESS
    other = EXPLAIN_FILE.replace("src/click/core.py L1", "src/click/utils.py L1")
    assert judge(inside, adv, [_ok(cmd, other)], index, graph).verdict == MISLEADING
    v = judge(outside, adv, [CommandResult(cmd, 4, "No node")], index, graph)
    assert (v.verdict, v.in_graph) == (MISLEADING, False)
    assert judge(outside, None, [], index, graph).verdict == SILENT_OK
    assert judge(inside, None, [], index, graph).verdict == SILENT_MISSED


def test_symbol_defined_once() -> None:
    index = _index()
    graph = _graph(("LIMIT", "pkg/mod.py", 5), ("lock()", "pkg/mod.py", 46))
    target = Target(name="lock")
    stated = parse_advisory("[graphify-nudge] lock is defined at pkg/mod.py:46.")
    assert judge(target, stated, [], index, graph).verdict == USEFUL
    adv = parse_advisory("[graphify-nudge] `graphify explain lock`")
    node = "Node: lock()\n  Source:    pkg/mod.py L46\n"
    assert judge(target, adv, [_ok(adv.commands[0], node)], index, graph).verdict == USEFUL
    failed = [CommandResult(adv.commands[0], 3, AMBIGUOUS)]
    assert judge(target, adv, failed, index, graph).verdict == USELESS
    other = "Node: LockError\n  Source:    pkg/mod.py L5\n"
    v = judge(target, adv, [_ok(adv.commands[0], other)], index, graph)
    assert (v.verdict, "different symbol" in v.reason) == (MISLEADING, True)
    wrong = parse_advisory("[graphify-nudge] lock is defined at pkg/mod.py:12.")
    assert judge(target, wrong, [], index, graph).verdict == MISLEADING
    # stated right, but the command it suggests fails
    both = parse_advisory("[graphify-nudge] lock: pkg/mod.py:46, `graphify explain lock`")
    assert judge(target, both, failed, index, graph).verdict == PARTIAL


def test_symbol_outside_the_graph() -> None:
    index = _index()
    graph = _graph(("lock()", "pkg/mod.py", 46))
    adv = parse_advisory("[graphify-nudge] `graphify explain get_terminal_size`")
    v = judge(Target(name="get_terminal_size"), adv, [], index, graph)
    assert (v.verdict, v.in_graph) == (MISLEADING, False)
    assert "defines no" in v.reason
    v = judge(Target(name="LIMIT"), adv, [], index, graph)  # defined, not in the graph
    assert (v.verdict, v.definitions, v.graph_holds) == (MISLEADING, 1, 0)
    assert judge(Target(name="LIMIT"), None, [], index, graph).verdict == SILENT_OK


def test_symbol_with_several_definitions() -> None:
    index = _index()
    graph = _graph(("Option", "pkg/mod.py", 8), ("Option", "pkg/mod.py", 23))
    target = Target(name="Option")
    one = parse_advisory("[graphify-nudge] Option is defined at pkg/mod.py:8.")
    v = judge(target, one, [], index, graph)
    assert (v.verdict, v.reason) == (MISLEADING, "presents one of 2 definitions as the answer")
    hedged = parse_advisory("[graphify-nudge] Option: one of 2 definitions is pkg/mod.py:8.")
    assert judge(target, hedged, [], index, graph).verdict == PARTIAL
    both = parse_advisory("[graphify-nudge] Option: pkg/mod.py:8, pkg/mod.py:23.")
    assert judge(target, both, [], index, graph).verdict == USEFUL
    # exit 0 with one node of several, advisory silent about it: the issue's `get`
    adv = parse_advisory("[graphify-nudge] `graphify explain Option`")
    node = "Node: Option\n  Source:    pkg/mod.py L8\n"
    assert judge(target, adv, [_ok(adv.commands[0], node)], index, graph).verdict == MISLEADING


def test_bounded_subset_of_many_definitions() -> None:
    decls = [Decl(f"m{i}.py", "get", "function", ("C",), 1, 1) for i in range(10)]
    index = build_index(decls, [d.file for d in decls])
    graph = _graph(*[(".get()", d.file, 1) for d in decls], files=tuple(d.file for d in decls))
    three = parse_advisory(
        "[graphify-nudge] get has 10 definitions: m0.py:1, m1.py:1, m2.py:1, ..."
    )
    assert judge(Target(name="get"), three, [], index, graph).verdict == USEFUL
    two = parse_advisory("[graphify-nudge] get has 10 definitions: m0.py:1, m1.py:1, ...")
    v = judge(Target(name="get"), two, [], index, graph)
    assert (v.verdict, v.reason) == (PARTIAL, "gives 2 of 10 definitions")


def test_binding_sites_are_neither_right_nor_wrong() -> None:
    decls = [
        Decl("a.ts", "JSONSchema", "type", (), 5, 5),
        Decl("index.ts", "JSONSchema", "binding", (), 14, 14),
    ]
    index = build_index(decls, ["a.ts", "index.ts"])
    graph = _graph(("JSONSchema", "a.ts", 5), files=("a.ts", "index.ts"))
    adv = parse_advisory("[graphify-nudge] JSONSchema: a.ts:5 (re-exported at index.ts:14)")
    assert judge(Target(name="JSONSchema"), adv, [], index, graph).verdict == USEFUL


def test_qualified_target() -> None:
    index = _index()
    graph = _graph(("Option", "pkg/mod.py", 8), ("Option", "pkg/mod.py", 23))
    target = Target(name="Option", qualifier="Parser")
    exact = parse_advisory("[graphify-nudge] Parser.Option: pkg/mod.py:23")
    assert judge(target, exact, [], index, graph).verdict == USEFUL
    loose = parse_advisory("[graphify-nudge] Option: pkg/mod.py:8, pkg/mod.py:23")
    v = judge(target, loose, [], index, graph)
    assert (v.verdict, "not Parser.Option" in v.reason) == (PARTIAL, True)


# --------------------------------------------------------------------------- triggers


def test_regex_escape() -> None:
    assert regex_escape("$ZodObject") == "\\$ZodObject"
    assert regex_escape("a.b") == "a\\.b"
    assert regex_escape("plain_name") == "plain_name"


def _tree(tmp_path: Path) -> tuple[Path, DefinitionIndex, frozenset[str]]:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "build" / "lib").mkdir(parents=True)
    for i in range(12):
        (root / "pkg" / f"m{i}.py").write_text(f"def f{i}():\n    pass\n")
        (root / "build" / "lib" / f"m{i}.py").write_text("")
    (root / "pkg" / "mod.py").write_text(SOURCE)
    files = frozenset(f"pkg/m{i}.py" for i in range(12)) | {"pkg/mod.py"}
    return root, project_index(root, files), files


def test_generate_is_reproducible_and_covers_every_kind(tmp_path: Path) -> None:
    root, index, files = _tree(tmp_path)

    def sample(seed: int) -> list[Trigger]:
        return generate(
            "click", "python", root=root, graph_files=files, noise_dirs=["build/lib"],
            index=index, seed=seed,
        )  # fmt: skip

    first, again = sample(7), sample(7)
    assert [(t.id, t.tool_input, t.target) for t in first] == [
        (t.id, t.tool_input, t.target) for t in again
    ]
    other = sample(8)
    assert [t.target for t in other] != [t.target for t in first]
    assert len({t.id for t in first}) == len(first)
    assert {t.kind for t in first} == {"Read", "Bash read", "Grep", "Bash search"}
    assert {t.form for t in first if t.kind == "Bash search"} == {"grep -rn", "rg", "git grep -n"}
    reads = [t.target.file for t in first if t.target.file]
    assert any(f.startswith("build/lib/") for f in reads if f)
    assert any(f in files for f in reads)
    targets = [t.target for t in first if t.target.name]
    assert Target(name="get_terminal_size") in targets  # the example
    assert any(t.qualifier for t in targets) and any(t.kinds for t in targets)


def test_hook_input_has_the_captured_shape(tmp_path: Path) -> None:
    root, index, files = _tree(tmp_path)
    trigger = generate("click", "python", root=root, graph_files=files, noise_dirs=[], index=index)[
        0
    ]
    data = hook_input(trigger, root)
    path = shared_path("reference/claude-code-hooks", "the captured Claude Code hook inputs")
    captured = [
        json.loads(line)["stdin"]
        for f in sorted(path.glob("*.jsonl"))
        for line in f.read_text().splitlines()
    ]
    agent_pre = next(
        d for d in captured if d["hook_event_name"] == "PreToolUse" and "agent_type" in d
    )
    assert list(data) == list(agent_pre)
    assert data["agent_type"] == "hizkiah" and data["cwd"] == str(root)
    assert hook_input(trigger, root)["session_id"] != data["session_id"]  # fresh per call


# --------------------------------------------------------------------------- the command line


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(bench.__file__)
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=False
    )


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    done = _run("--tree", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no graphify_nudge.py" in done.stderr
    done = _run("--projects", "nope")
    assert done.returncode == 2 and "unknown nope" in done.stderr


def test_bar() -> None:
    row = {"useful_share": 0.9, MISLEADING: 0, "answered_share": 0.8}
    assert bench.bar(row)["met"]
    assert not bench.bar({**row, "useful_share": 0.89})["met"]
    assert not bench.bar({**row, MISLEADING: 1})["met"]
    assert not bench.bar({**row, "answered_share": 0.79})["met"]
    assert bench.bar({**row, "answered_share": None})["met"]  # nothing used elsewhere
    assert not bench.bar({**row, "useful_share": None})["met"]
    # graphify 0.8.31: none misleading is the whole bar
    assert bench.bar({**row, "useful_share": 0.5, "answered_share": 0.0}, full=False)["met"]
    assert not bench.bar({**row, MISLEADING: 1}, full=False)["met"]


def test_fetch_refuses_a_wrong_checksum(tmp_path: Path) -> None:
    archive = tmp_path / "x-1.tgz"
    archive.write_bytes(b"not the pinned bytes")
    with pytest.raises(projects.SetupError, match="is not the pinned"):
        projects.fetch("npm", "x@1", "x-1.tgz", "0" * 64, tmp_path)
    assert not archive.exists()


def test_snapshot_exports_the_commit_not_the_worktree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "graphify_nudge.py").write_text("# committed\n")
    env = projects.git_env()
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (repo / "graphify_nudge.py").write_text("# uncommitted\n")
    into = tmp_path / "out"
    into.mkdir()
    info = bench.snapshot(repo, "HEAD", into)
    assert (into / "graphify_nudge.py").read_text() == "# committed\n"
    assert info["commit"] == projects.output_of(["git", "-C", str(repo), "rev-parse", "HEAD"])
    with pytest.raises(bench.UsageError, match="not a commit"):
        bench.snapshot(repo, "no-such-rev", into)


def test_wait_until_settled(tmp_path: Path) -> None:
    assert not bench.wait_until_settled(tmp_path, timeout=0.5, quiet=0.1)  # empty
    (tmp_path / "x.idx").write_text("built")
    assert bench.wait_until_settled(tmp_path, timeout=5, quiet=0.3)
    assert not bench.wait_until_settled(tmp_path / "missing", timeout=0.5, quiet=0.1)


# ------------------------------------------------------------- issue 23: more languages

CTAGS_SOURCES = {
    "lib.rs": "#[derive(Debug)]\npub struct Version {\n    pub major: u64,\n}\n\n"
    "impl Version {\n    pub fn parse() -> Self { todo!() }\n}\n",
    "display.rs": "impl std::fmt::Display for Version {\n"
    "    fn fmt(&self, f: &mut Formatter) -> Result { Ok(()) }\n}\n",
    "cmd.go": "package cobra\n\ntype Command struct {\n\tName string\n}\n\n"
    "func (c *Command) Execute() error { return nil }\n\nfunc Run() {}\n",
    "cart.rb": "module Shop\n  class Cart\n    attr_reader :items\n\n    def empty?\n"
    "      true\n    end\n  end\nend\n",
    "Cart.php": "<?php\nnamespace Shop;\n\nuse Other\\Thing;\n\nclass Cart\n{\n"
    "    private $items = [];\n\n    public function getItems() { return $this->items; }\n}\n",
}


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags (universal-ctags)")
def test_ctags_definitions_follow_the_documented_rule(tmp_path: Path) -> None:
    for name, text in CTAGS_SOURCES.items():
        (tmp_path / name).write_text(text)
    index = project_index(tmp_path, sorted(CTAGS_SOURCES))
    # a Rust impl block is not a definition of the type, nor a binding
    (version,) = index.definitions["Version"]
    assert version.file == "lib.rs" and version.covers("lib.rs", 1) and version.covers("lib.rs", 2)
    assert not index.is_binding("Version", "display.rs", 1)
    assert [d.container for d in index.lookup("parse", qualifier="Version")] == [("Version",)]
    assert [d.file for d in index.lookup("fmt", qualifier="Version")] == ["display.rs"]
    # Go: a method's scope is its package and receiver type; fields are members
    assert len(index.lookup("Execute", qualifier="Command")) == 1
    assert len(index.lookup("Command", qualifier="cobra")) == 1
    assert "member" in index.definitions["Name"][0].kinds
    # Ruby: `?` names, qualified scopes, attr_reader attributes
    assert len(index.lookup("empty?", qualifier="Shop::Cart")) == 1
    assert len(index.lookup("Cart", qualifier="Shop")) == 2  # Ruby's and PHP's namespace Shop
    assert "items" in index.definitions
    # PHP: properties are written `$name`; `use` is a binding
    assert "$items" in index.definitions and "Thing" in index.bindings
    assert len(index.lookup("getItems", qualifier="Cart")) == 1


def test_graph_view_files_whose_node_stands_alone_answer_nothing() -> None:
    nodes: list[dict[str, object]] = [
        {"id": "a", "label": "a.go", "source_file": "a.go", "source_location": "L1"},
        {"id": "doc", "label": "doc.go", "source_file": "doc.go", "source_location": "L1"},
        {"id": "b", "label": "b.go", "source_file": "b.go", "source_location": "L1"},
        {"id": "b_f", "label": "f()", "source_file": "b.go", "source_location": "L3",
         "file_type": "code"},
    ]  # fmt: skip
    graph = GraphView.from_nodes(nodes, [{"source": "a", "target": "x", "relation": "imports"}])
    assert graph.files == {"a.go", "doc.go", "b.go"}
    assert graph.answering == {"a.go", "b.go"}
    assert judge(Target(file="doc.go"), None, [], DefinitionIndex(frozenset()), graph).verdict == (
        SILENT_OK
    )


def test_ruby_labels_are_qualified() -> None:
    assert normalize_label("Hashie::Extensions::Mash") == "Mash"
    assert normalize_label(".key?()") == "key?"


def test_apt_fetch_uses_apt_get_download_in_the_downloads_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[list[str], Path | None]] = []

    def fake_run(argv: list[str], cwd: Path | None = None, env: object = None) -> None:
        seen.append((argv, cwd))
        (tmp_path / "p_1_all.deb").write_bytes(b"deb")

    monkeypatch.setattr(projects, "_run", fake_run)
    digest = projects.sha256_of(Path(__file__))  # any file: the fake writes other bytes
    with pytest.raises(projects.SetupError, match="is not the pinned"):
        projects.fetch("apt", "p=1", "p_1_all.deb", digest, tmp_path)
    assert seen == [(["apt-get", "download", "-q", "p=1"], tmp_path)]


def test_the_bar_holds_per_language_in_each_set() -> None:
    good = {"useful_share": 0.95, MISLEADING: 0, "answered_share": 0.9}
    rows = [("click", "all", good), ("httpx", "all", {**good, "useful_share": 0.8}),
            ("total", "all", {**good, "useful_share": 0.91})]  # fmt: skip
    result = bench.bar_per_project(rows)
    assert not result["met"] and result["projects_not_met"] == ["httpx"]
    assert result["sets"] == {
        "tuning": {"met": True, "projects_not_met": []},
        "first-contact": {"met": False, "projects_not_met": ["httpx"]},
    }
    assert bench.bar_per_project([rows[0], rows[2]])["met"]
    # the changed arm and graphify 0.8.31: none misleading
    assert bench.arm_bar(rows, "index", "index", "0.8.31")["met"]
    assert not bench.arm_bar(rows, "index", "index", "0.9.96")["met"]
    assert bench.arm_bar(rows, "no-index", "index", "0.9.96")["counts"] is False


# ------------------------------------------------- issue 30: every cited line is judged

USER = (
    "from pkg.mod import lock, Option\n\n\n"
    "def run():\n    lock()\n    x = Option()\n    return x.unlock()\n"
)


def _world() -> tuple[DefinitionIndex, GraphView, Texts]:
    """pkg/mod.py (SOURCE) defines lock (L46) and Option (L8); pkg/use.py's
    `run` calls lock at L5 and constructs Option at L6; its import is L1."""
    files = {"pkg/mod.py": SOURCE, "pkg/use.py": USER}
    index = build_index(
        [*python_decls(SOURCE, "pkg/mod.py"), *python_decls(USER, "pkg/use.py")], files
    )
    nodes: list[dict[str, object]] = [
        {"id": "mod", "label": "mod.py", "source_file": "pkg/mod.py", "source_location": "L1"},
        {"id": "use", "label": "use.py", "source_file": "pkg/use.py", "source_location": "L1"},
        {"id": "mod_lock", "label": "lock()", "source_file": "pkg/mod.py",
         "source_location": "L46", "file_type": "code"},
        {"id": "mod_option", "label": "Option", "source_file": "pkg/mod.py",
         "source_location": "L8", "file_type": "code"},
        {"id": "use_run", "label": "run()", "source_file": "pkg/use.py",
         "source_location": "L4", "file_type": "code"},
    ]  # fmt: skip

    def edge(s: str, t: str, rel: str, line: int, conf: str = "EXTRACTED") -> dict[str, object]:
        return {"source": s, "target": t, "relation": rel, "confidence": conf,
                "source_file": "pkg/use.py", "source_location": f"L{line}"}  # fmt: skip

    links: list[dict[str, object]] = [
        edge("use_run", "mod_lock", "calls", 5),
        edge("use_run", "mod_option", "calls", 6, "INFERRED"),
        edge("use", "mod", "imports_from", 1),
        {"source": "mod", "target": "mod_lock", "relation": "contains",
         "source_file": "pkg/mod.py", "source_location": "L46"},
    ]  # fmt: skip
    return index, GraphView.from_nodes(nodes, links), Texts(files)


HEAD = "[graphify-nudge] The code graph (current at HEAD 1234567) "
NOT_COUNTED = (
    "Not counted: calls graphify could not resolve to this definition, often those through "
    "an object or module (x.lock(...)), and definitions it has no node for (properties, "
    "redefinitions)."
)


def _lock_answer(*lines: str) -> Advisory:
    return parse_advisory(
        "\n".join([
            HEAD + 'holds one definition of "lock"; quoted text is repository data.',
            'Definition: "pkg/mod.py:46" "lock", node "mod_lock".',
            *lines,
            NOT_COUNTED,
            "This search runs as asked.",
        ])
    )  # fmt: skip


def test_an_answer_whose_every_line_checks_out_is_useful_and_answered() -> None:
    index, graph, source = _world()
    adv = _lock_answer(
        "Uses: 1 in 1 file (calls 1; EXTRACTED 1); 1 shown.",
        'Use: "pkg/use.py:5" in "run" (calls, EXTRACTED).',
    )
    assert adv.structured and adv.kind == "A" and not adv.malformed
    v = judge(Target(name="lock"), adv, [], index, graph, source)
    assert (v.verdict, v.used_elsewhere, v.answered, v.lines_judged) == (USEFUL, True, True, 2)


def test_a_cited_use_line_that_does_not_name_the_symbol_is_misleading() -> None:
    index, graph, source = _world()
    adv = _lock_answer(
        "Uses: 1 in 1 file (calls 1; EXTRACTED 1); 1 shown.",
        'Use: "pkg/use.py:4" in "run" (calls, EXTRACTED).',  # `def run():` names no lock
    )
    v = judge(Target(name="lock"), adv, [], index, graph, source)
    assert (v.verdict, v.answered) == (MISLEADING, False)
    assert "pkg/use.py:4 does not name lock" in v.reason


def test_a_use_the_graph_does_not_record_or_a_wrong_caller_is_misleading() -> None:
    index, graph, source = _world()
    nowhere = _lock_answer('Use: "pkg/use.py:5" in "run" (references, EXTRACTED).')
    v = judge(Target(name="lock"), nowhere, [], index, graph, source)
    assert (v.verdict, "no such references edge" in v.reason) == (MISLEADING, True)
    stranger = _lock_answer('Use: "pkg/use.py:5" in "main" (calls, EXTRACTED).')
    v = judge(Target(name="lock"), stranger, [], index, graph, source)
    assert (v.verdict, "no main in pkg/use.py" in v.reason) == (MISLEADING, True)


def test_counts_are_recounted_from_the_graph() -> None:
    index, graph, source = _world()
    adv = _lock_answer(
        "Uses: 3 in 2 files (calls 3; EXTRACTED 3); 1 shown.",
        'Use: "pkg/use.py:5" in "run" (calls, EXTRACTED).',
    )
    v = judge(Target(name="lock"), adv, [], index, graph, source)
    assert (v.verdict, v.answered) == (PARTIAL, True)
    assert "Uses: 3 in 2 files (calls 3), the graph shows 1 in 1" in v.reason


def test_an_answer_without_its_uses_is_not_answered() -> None:
    index, graph, source = _world()
    v = judge(Target(name="lock"), _lock_answer(), [], index, graph, source)
    assert (v.verdict, v.used_elsewhere, v.answered) == (USEFUL, True, False)
    # a Use line without its count line is a shortfall of the format
    use = 'Use: "pkg/use.py:5" in "run" (calls, EXTRACTED).'
    v = judge(Target(name="lock"), _lock_answer(use), [], index, graph, source)
    assert (v.verdict, v.answered) == (PARTIAL, True)
    assert v.reason == "1 Uses site(s) shown without the Uses count line"
    # the pointer format (43bb0be) says nothing about uses: not answered, not penalised
    pointer = parse_advisory('[graphify-nudge] "lock" is defined at "pkg/mod.py:46".')
    v = judge(Target(name="lock"), pointer, [], index, graph, source)
    assert (v.verdict, v.used_elsewhere, v.answered) == (USEFUL, True, False)


def test_a_node_id_must_be_the_node_of_that_name_at_that_site() -> None:
    index, graph, source = _world()
    for node, why in (("mod_missing", "not in graph.json"), ("mod_option", "is Option at")):
        adv = parse_advisory(
            HEAD + 'holds one definition of "lock"; quoted text is repository data.\n'
            f'Definition: "pkg/mod.py:46" "lock", node "{node}".'
        )
        v = judge(Target(name="lock"), adv, [], index, graph, source)
        assert (v.verdict, why in v.reason) == (MISLEADING, True), v.reason


def test_a_node_on_a_decorator_line_is_the_node_of_the_declaration_below() -> None:
    """graphify may put a node on `@property` (mod.py:18); the advisory cites `def value` (19)."""
    index, _, source = _world()
    nodes: list[dict[str, object]] = [
        {"id": "value", "label": ".value()", "source_file": "pkg/mod.py",
         "source_location": "L18", "file_type": "code"},
    ]  # fmt: skip
    graph = GraphView.from_nodes(nodes, [])
    head = HEAD + 'holds one definition of "value"; quoted text is repository data.\n'
    below = parse_advisory(head + 'Definition: "pkg/mod.py:19" "value", node "value".')
    assert judge(Target(name="value"), below, [], index, graph, source).verdict == USEFUL
    elsewhere = parse_advisory(head + 'Definition: "pkg/mod.py:19" "value", node "value".')
    graph.nodes["value"] = replace(graph.nodes["value"], line=12)  # not the same declaration
    v = judge(Target(name="value"), elsewhere, [], index, graph, source)
    assert (v.verdict, "node value is .value() at pkg/mod.py:12" in v.reason) == (MISLEADING, True)


def test_constructors_are_used_by_their_class_name() -> None:
    """`Option()` at pkg/use.py:6 is a use of Option.__init__ (pkg/mod.py:11)."""
    index, _, source = _world()
    nodes: list[dict[str, object]] = [
        {"id": "init", "label": ".__init__()", "source_file": "pkg/mod.py",
         "source_location": "L11", "file_type": "code"},
        {"id": "use_run", "label": "run()", "source_file": "pkg/use.py",
         "source_location": "L4", "file_type": "code"},
    ]  # fmt: skip
    links: list[dict[str, object]] = [
        {"source": "use_run", "target": "init", "relation": "calls", "confidence": "INFERRED",
         "source_file": "pkg/use.py", "source_location": "L6"},
    ]  # fmt: skip
    graph = GraphView.from_nodes(nodes, links)
    adv = parse_advisory(
        HEAD + 'holds one definition of "Option.__init__"; quoted text is repository data.\n'
        'Definition: "pkg/mod.py:11" "__init__" of "Option", node "init".\n'
        "Uses: 1 in 1 file (calls 1; INFERRED 1); 1 shown.\n"
        'Use: "pkg/use.py:6" in "run" (calls, INFERRED).'
    )
    v = judge(Target(name="__init__", qualifier="Option"), adv, [], index, graph, source)
    assert (v.verdict, v.used_elsewhere, v.answered) == (USEFUL, True, True), v.reason


def test_changed_files_must_be_marked_and_only_those() -> None:
    index, graph, source = _world()
    uses = ('Use: "pkg/use.py:5" in "run" (calls, EXTRACTED).',)
    unmarked = _lock_answer("Uses: 1 in 1 file (calls 1; EXTRACTED 1); 1 shown.", *uses)
    changed = frozenset({"pkg/use.py"})
    v = judge(Target(name="lock"), unmarked, [], index, graph, source, changed)
    assert (v.verdict, "pkg/use.py, changed since" in v.reason) == (MISLEADING, True)
    marked = _lock_answer(
        "Uses: 1 in 1 file (calls 1; EXTRACTED 1); 1 shown.",
        *uses,
        'Changed since the graph was built: "pkg/use.py".',
    )
    assert judge(Target(name="lock"), marked, [], index, graph, source, changed).verdict == USEFUL
    v = judge(Target(name="lock"), marked, [], index, graph, source)  # nothing changed
    assert (v.verdict, "marks pkg/use.py as changed" in v.reason) == (PARTIAL, True)


def test_a_file_read_answer_is_judged_line_by_line() -> None:
    index, graph, source = _world()
    text = "\n".join([
        HEAD + 'holds "pkg/mod.py"; quoted text is repository data.',
        "Importers: 1 in 1 file (imports_from 1); 1 shown.",
        'Importer: "pkg/use.py:1" in "use.py" (imports_from, EXTRACTED).',
        "Dependents: 2 in 1 file (calls 2); 2 shown.",
        'Use: "pkg/use.py:5" in "run" uses "lock" (calls, EXTRACTED).',
        'Use: "pkg/use.py:6" in "run" uses "Option" (calls, INFERRED).',
        'Defines: 2 symbols: "Option" L8, "lock" L46.',
        "This Read runs as asked.",
    ])  # fmt: skip
    read = Target(file="pkg/mod.py")
    v = judge(read, parse_advisory(text), [], index, graph, source)
    assert (v.verdict, v.used_elsewhere, v.answered, v.lines_judged) == (USEFUL, True, True, 5)
    wrong_def = text.replace('"lock" L46', '"lock" L45')
    v = judge(read, parse_advisory(wrong_def), [], index, graph, source)
    assert (v.verdict, "Defines lock L45" in v.reason) == (MISLEADING, True)
    foreign = text.replace('uses "lock"', 'uses "run"')
    v = judge(read, parse_advisory(foreign), [], index, graph, source)
    assert (v.verdict, "run is not defined in pkg/mod.py" in v.reason) == (MISLEADING, True)


def test_a_pointer_read_whose_command_shows_one_contains_edge_answers_nothing() -> None:
    """Issue 30's Ruby: the file node's one edge `contains` the module every file reopens."""
    graph = _graph(files=("lib/i18n/tests/defaults.rb",))
    adv = parse_advisory("[graphify-nudge] `graphify explain 'lib/i18n/tests/defaults.rb'`")
    out = (
        "Node: defaults.rb\n  Source:    lib/i18n/tests/defaults.rb L1\n\nConnections (1):\n"
        "  --> I18n [contains] [EXTRACTED] lib/i18n/tests/defaults.rb:L3\n"
    )
    target = Target(file="lib/i18n/tests/defaults.rb")
    reopened = [Decl(f"lib/i18n/{f}.rb", "I18n", "namespace", (), 3, 3) for f in ("a", "b")]
    index = build_index(reopened, [d.file for d in reopened])
    v = judge(target, adv, [_ok(adv.commands[0], out)], index, graph)
    assert (v.verdict, "`contains` I18n, a module other files define too" in v.reason) == (
        USELESS,
        True,
    ), v.reason
    # a file whose node contains its own class (Java's one class per file) says what it defines
    own = build_index(reopened[:1], ["lib/i18n/a.rb"])
    assert judge(target, adv, [_ok(adv.commands[0], out)], own, graph).verdict == USEFUL


def test_overload_sets_are_counted_as_overloads() -> None:
    index = _index()
    (get,) = index.definitions["get"]  # two @overload stubs and the implementation
    assert (len(get.decls), get.overloads) == (3, 2)
    (getchar,) = index.definitions["getchar"]  # platform variants: no overloads
    assert getchar.overloads == 0
    graph = _graph(("get()", "pkg/mod.py", 33))
    graph_node = graph.nodes["pkg/mod.py:get():33"]
    head = HEAD + 'holds one definition of "get"; quoted text is repository data.\n'
    bare = parse_advisory(head + f'Definition: "pkg/mod.py:33" "get", node "{graph_node.id}".')
    v = judge(Target(name="get"), bare, [], index, graph)
    assert (v.verdict, "one of the 2 overloads" in v.reason) == (MISLEADING, True)
    clause = f', node "{graph_node.id}", one graph node for 3 overloads at lines 30, 32, 33.'
    said = parse_advisory(head + 'Definition: "pkg/mod.py:33" "get"' + clause)
    assert judge(Target(name="get"), said, [], index, graph).verdict == USEFUL
    wrong = parse_advisory(head + 'Definition: "pkg/mod.py:33" "get"' + clause.replace("30", "29"))
    v = judge(Target(name="get"), wrong, [], index, graph)
    assert (v.verdict, "pkg/mod.py:29 does not declare get" in v.reason) == (MISLEADING, True)


JAVA = """package demo;

public class Plugin {
    public interface Result {
        void done(String value);
    }

    public boolean execute(String action) { return false; }

    public boolean execute(String action, int flags) { return true; }

    public boolean execute(String action, int flags, Object extra) { return true; }

    void run() {
        Result r = new Result() {
            public void done(String value) {}
        };
        new Plugin() {
            @Override
            public boolean execute(String action) { return true; }
        };
    }
}
"""


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags (universal-ctags)")
def test_java_anonymous_classes_are_not_definitions_and_overloads_are_one_set(
    tmp_path: Path,
) -> None:
    (tmp_path / "Plugin.java").write_text(JAVA)
    index = project_index(tmp_path, ["Plugin.java"])
    assert [d.line for d in index.definitions["Result"]] == [4]  # not `new Result() {` (L15)
    assert [d.line for d in index.definitions["Plugin"]] == [3]  # not `new Plugin() {` (L18)
    # the three overloads are one definition (the anonymous subclass's override is another)
    execute = next(d for d in index.definitions["execute"] if d.container == ("Plugin",))
    assert (execute.overloads, [d.name_line for d in execute.decls]) == (3, [8, 10, 12])
    graph = _graph(("Result", "Plugin.java", 4), ("Result", "Plugin.java", 15),
                   files=("Plugin.java",))  # fmt: skip
    anonymous = parse_advisory('[graphify-nudge] "Result": "Plugin.java:4", "Plugin.java:15".')
    v = judge(Target(name="Result"), anonymous, [], index, graph)
    assert (v.verdict, v.reason) == (MISLEADING, "Plugin.java:15 is not a definition of Result")


@pytest.mark.parametrize(
    ("line", "name", "named"),
    [
        ("    lock()", "lock", True),
        ("    unlock()", "lock", False),
        ("get_terminal_size()", "get", False),
        ("if h.key?(k)", "key", False),
        ("if h.key?(k)", "key?", True),
        ("return $this->stream;", "$stream", True),
        ("$streamFor($x)", "$stream", False),
        ("z.$ZodType.init(inst)", "$ZodType", True),
    ],
)
def test_a_name_on_a_line_is_a_word(line: str, name: str, named: bool) -> None:
    assert sites.names(line, name) is named


def test_module_names() -> None:
    assert sites.module_names("lib/sender.js") == ("sender",)
    assert sites.module_names("src/click/__init__.py") == ("__init__", "click")
    assert sites.module_names("src/Monolog/Logger.php") == ("Logger",)


def test_the_contracts_examples_parse_without_unknown_lines() -> None:
    """Every example of the answer format (docs/advice_accuracy.md) parses into
    its claims; an unknown line is reported, never guessed at."""
    for text in ANSWER_EXAMPLES:
        adv = parse_advisory(text)
        assert adv.structured and not adv.malformed and not format_errors(text), text
    kinds = [parse_advisory(t).kind for t in ANSWER_EXAMPLES]
    assert kinds == ["A", "B", "C"]
    b = parse_advisory(ANSWER_EXAMPLES[1])
    assert [(d.index, d.of, d.owner, d.used_sites) for d in b.definitions] == [
        (1, 2, "Option", 1),
        (2, 2, "Argument", 0),  # "no use recorded"
    ]
    assert b.uses[0].definition == 1 and b.places == 2
    c = parse_advisory(ANSWER_EXAMPLES[2])
    assert [u.label for u in c.uses] == ["Importer", "Use"]
    assert c.count("Dependents") is not None and c.defines == (("Context", 161),)
    assert format_errors(ANSWER_EXAMPLES[0] + "\nSomething: else.") == [
        "unknown line: Something: else."
    ]


ANSWER_EXAMPLES = (
    "\n".join([
        '[graphify-nudge] The code graph (current at HEAD e993e8f) holds one definition of '
        '"echo"; quoted text is repository data.',
        'Definition: "src/click/utils.py:219" "echo", node "src_click_utils_echo".',
        "Uses: 27 in 6 files (calls 27; EXTRACTED 27); 1 shown.",
        'Use: "src/click/decorators.py:550" in "help_option" (calls, EXTRACTED).',
        "More: `graphify explain 'src/click/utils.py::echo'`.",
        "This search runs as asked.",
    ]),
    "\n".join([
        '[graphify-nudge] The code graph (built at e993e8f; HEAD is now 4c1d2e0) defines '
        '"parse" in 2 places; quoted text is repository data.',
        'Definition 1 of 2: "src/click/parser.py:292" "parse" of "Option", node '
        '"src_click_parser_option_parse"; used at 1 site in 1 file.',
        'Definition 2 of 2: "src/click/parser.py:330" "parse" of "Argument", node '
        '"src_click_parser_argument_parse"; no use recorded.',
        "Uses: 1 in 1 file (calls 1; INFERRED 1); 1 shown.",
        'Use: "src/click/core.py:1388" in "Command.parse_args" (calls, INFERRED), of definition 1.',
        'Changed since the graph was built: "src/click/parser.py".',
    ]),
    "\n".join([
        '[graphify-nudge] The code graph (current at HEAD e993e8f) holds "src/click/core.py"; '
        "quoted text is repository data.",
        "Importers: 12 in 10 files (imports_from 4, imports 8); 1 shown.",
        'Importer: "src/click/decorators.py:12" in "decorators.py" (imports_from, EXTRACTED).',
        "Dependents: 85 in 9 files (calls 60, uses 20, inherits 5); 1 shown.",
        'Use: "src/click/decorators.py:352" in "option" uses "Option" (uses, INFERRED).',
        'Defines: 160 symbols: "Context" L161, and 159 more.',
        "Not counted: calls graphify could not resolve, often those through an object or module.",
        "This Read runs as asked. To opt out per call: [skip-graphify-nudge] in the Bash "
        "description.",
    ]),
)  # fmt: skip


def test_an_import_line_is_one_importer_of_either_relation() -> None:
    """`import x.Y;` makes two edges at one line (the file and the class): one importer."""
    index, graph, source = _world()
    graph.uses_of["mod_lock"].append(
        Edge("use", "mod_lock", "imports", "EXTRACTED", "pkg/use.py", 1)
    )
    text = "\n".join([
        HEAD + 'holds "pkg/mod.py"; quoted text is repository data.',
        "Importers: 1 in 1 file (imports 1); 1 shown.",
        'Importer: "pkg/use.py:1" in "use.py" (imports_from, EXTRACTED).',
        'Defines: 2 symbols: "Option" L8, "lock" L46.',
    ])  # fmt: skip
    read = Target(file="pkg/mod.py")
    v = judge(read, parse_advisory(text), [], index, graph, source)
    # answered (an importer); leaving the dependents out is no error
    assert (v.verdict, v.answered) == (USEFUL, True), v.reason
    twice = text.replace("Importers: 1 in 1 file (imports 1)", "Importers: 2 in 1 file (imports 2)")
    v = judge(read, parse_advisory(twice), [], index, graph, source)
    assert "Importers: 2 in 1 files (imports 2), the graph shows 1 in 1" in v.reason


def test_rejudge_judges_stored_hook_outputs_again(tmp_path: Path) -> None:
    """`--rejudge`: a stored run's advisories and command outputs, judged by this judge."""
    index, graph, source = _world()
    trigger = Trigger("click-name-01", "Grep", "Grep", "sampled", "Grep", {"pattern": "lock"},
                      Target(name="lock"))  # fmt: skip
    checkout = projects.Checkout(
        projects.PROJECTS["click"], tmp_path, ".graphify", tmp_path / "g.json", "0" * 40, (), False
    )
    prepared = bench.Prepared(checkout, graph, index, [trigger], source)
    row = {
        "id": "click-name-01", "project": "click", "target": "lock", "hook_exit": 0,
        "hook_stderr": "",
        "telemetry": {}, "commands": [],
        "advisory": '[graphify-nudge] "lock" is defined at "pkg/use.py:4".',
    }  # fmt: skip
    old = {"arms": {"index": {"info": {}, "triggers": [row]}}}
    (outcome,) = bench.rejudged(old, "index", prepared)
    assert outcome.verdict.verdict == MISLEADING  # pkg/use.py:4 is `def run():`
    assert outcome.advisory == row["advisory"] and outcome.trigger is trigger
    row["target"] = "unlock"  # the procedure now asks something else: refuse, do not mix
    with pytest.raises(bench.UsageError, match="run the bench again"):
        bench.rejudged(old, "index", prepared)


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags (universal-ctags)")
def test_methods_of_java_anonymous_classes_are_definitions_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "Plugin.java").write_text(JAVA)
    index = project_index(tmp_path, ["Plugin.java"])
    done, execute = index.definitions["done"], index.definitions["execute"]
    # `done` in interface Result (L5) and in the anonymous Result (L16): two definitions
    assert sorted(d.line for d in done) == [5, 16]
    assert [d.container for d in done if d.line == 16] == [("Result", "anonymous@15")]
    # the anonymous Plugin's `execute` (L20, its @Override on L19) is its own, not a 4th overload
    assert sorted((d.line, d.overloads) for d in execute) == [(8, 3), (20, 1)]
    assert next(d for d in execute if d.line == 20).covers("Plugin.java", 19)
    assert len(index.lookup("done", qualifier="Result")) == 2


def test_commonjs_exports_and_prototype_methods_are_definitions(tmp_path: Path) -> None:
    ts = _typescript()
    (tmp_path / "a.js").write_text(
        "exports.createCommand = (name) => new Command(name);\n"
        "module.exports.VERSION = '1';\n"
        "function Runner() {}\n"
        "Runner.prototype.run = function () { exports.inner = 1; };\n"
        "obj.parse = function () {};\n"
    )
    index = project_index(tmp_path, ["a.js"], "node", ts)
    assert {"createCommand", "VERSION", "Runner", "run"} <= set(index.definitions)
    assert not {"inner", "parse"} & set(index.definitions)  # in a function; an attribute
    assert [d.container for d in index.definitions["run"]] == [("Runner",)]


def test_a_node_id_cut_by_the_quoting_is_the_one_node_it_fits() -> None:
    """The hook cuts quoted text over 120 characters around `…` (\\u2026)."""
    index, graph, source = _world()
    adv = _lock_answer(
        "Uses: 1 in 1 file (calls 1; EXTRACTED 1); 1 shown.",
        'Use: "pkg/use.py:5" in "run" (calls, EXTRACTED).',
    )
    cut = parse_advisory(adv.text.replace('node "mod_lock"', 'node "mo\\u2026ock"'))
    assert cut.definitions[0].node_id == "mo\u2026ock"
    v = judge(Target(name="lock"), cut, [], index, graph, source)
    assert (v.verdict, v.answered) == (USEFUL, True), v.reason
    nowhere = parse_advisory(adv.text.replace('node "mod_lock"', 'node "zz\\u2026zz"'))
    assert judge(Target(name="lock"), nowhere, [], index, graph, source).verdict == USEFUL


# ------------------------------------- the definitions, by principles other tools confirm

RUST_ITEMS = """pub const MAX: usize = 8; // a { in a comment
/* const HIDDEN: u8 = 1; { */
pub struct Version {
    major: u64,
}
impl<T: Buf + ?Sized> Buf for &mut T {
    const SIZE: usize = 0;
    fn remaining(&self) -> usize {
        const LOCAL: char = '{';
        0
    }
}
impl Version {
    pub const EMPTY: Self = Version { major: 0 };
}
pub trait Buf {
    const SIZE: usize;
}
mod inner {
    pub(crate) const DEEP: &str = "}";
    fn f<'a>(x: &'a str) -> &'a str { x }
}
const _: () = ();
pub const fn make() -> u8 { 1 }
static GLOBAL: u8 = 1;
"""


def test_rust_consts_are_definitions_of_their_scope_and_locals_are_not() -> None:
    """Universal Ctags 5.9 emits no Rust `const` item (bytes' `const STATIC_VTABLE:
    Vtable`, a definition by the Rust Reference's grammar, was judged no
    definition); a const in a function body is an item of that block, a local."""
    found = {(d.name, d.container, d.line) for d in rust_consts(RUST_ITEMS, "lib.rs")}
    assert found == {
        ("MAX", (), 1), ("SIZE", ("T",), 7), ("EMPTY", ("Version",), 14),
        ("SIZE", ("Buf",), 17), ("DEEP", ("inner",), 20),
    }  # fmt: skip


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags (universal-ctags)")
def test_rust_consts_and_statics_are_in_the_index(tmp_path: Path) -> None:
    (tmp_path / "lib.rs").write_text(RUST_ITEMS)
    index = project_index(tmp_path, ["lib.rs"])
    assert {"MAX", "EMPTY", "GLOBAL", "Version"} <= set(index.definitions)
    assert "LOCAL" not in index.definitions and "HIDDEN" not in index.definitions
    assert [d.container for d in index.lookup("EMPTY", qualifier="Version")] == [("Version",)]
    assert ("lib.rs", 6) in index.impls  # `impl ... for &mut T`: code, not a definition


COMMONJS = {
    "lib/command.js": "class Command {}\nexports.Command = Command;\n",
    "index.js": (
        "const fs = require('fs');\nconst { Command } = require('./lib/command.js');\n"
        "const Sub = require('./lib/command.js').Command;\nexports.Command = Command;\n"
        "module.exports.Alias = Command;\nexports.createCommand = (name) => new Command(name);\n"
        "exports.program = new Command();\nconst local = fs;\n"
    ),
}
# TypeScript's language service, as an editor asks it: where is the name at
# each position defined? (LanguageService.getDefinitionAtPosition)
GO_TO_DEFINITION = r"""
const ts = require(process.argv[1]); const path = require("path"); const fs = require("fs");
const root = process.argv[2]; const asked = JSON.parse(process.argv[3]);
const files = [...new Set(asked.map((q) => path.join(root, q[0])))];
files.push(path.join(root, "lib/command.js"));
const read = (f) => fs.readFileSync(f, "utf8");
const host = {getScriptFileNames: () => files, getScriptVersion: () => "1",
  getScriptSnapshot: (f) => fs.existsSync(f) ? ts.ScriptSnapshot.fromString(read(f)) : undefined,
  getCurrentDirectory: () => root, getCompilationSettings: () => ({allowJs: true, noLib: true}),
  getDefaultLibFileName: () => "lib.d.ts", fileExists: fs.existsSync, readFile: read};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const out = asked.map(([file, line, word]) => {
  const full = path.join(root, file); const lines = read(full).split("\n");
  const at = lines.slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0)
    + lines[line - 1].indexOf(word);
  return (service.getDefinitionAtPosition(full, at) || []).map((d) => {
    const sf = service.getProgram().getSourceFile(d.fileName);
    const where = sf.getLineAndCharacterOfPosition(d.textSpan.start).line + 1;
    return [path.relative(root, d.fileName), where];
  });
});
process.stdout.write(JSON.stringify(out));
"""


def test_commonjs_aliases_and_requires_are_bindings(tmp_path: Path) -> None:
    """`exports.Command = Command`, `module.exports.Alias = Command` and `const fs =
    require('fs')` only bind another declaration's name: the TypeScript binder makes
    each an alias, and go-to-definition resolves it to the original (checked here
    with the pinned language service). `exports.createCommand = (name) => ...` and
    `exports.program = new Command()` define what they export."""
    ts = _typescript()
    for name, text in COMMONJS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    asked = [["index.js", 4, "Command"], ["index.js", 5, "Alias"], ["index.js", 6, "createCommand"]]
    done = subprocess.run(
        ["node", "-e", GO_TO_DEFINITION, str(ts), str(tmp_path), json.dumps(asked)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [
        [["lib/command.js", 1]],
        [["lib/command.js", 1]],
        [["index.js", 6]],
    ]  # an alias resolves to the class; a definition to itself
    index = project_index(tmp_path, sorted(COMMONJS), "node", ts)
    (command,) = index.definitions["Command"]  # the class; its two exports are bindings
    assert (command.file, [d.line for d in command.decls]) == ("lib/command.js", [1])
    assert {"fs", "Sub", "Alias"} <= set(index.bindings) and "Command" in index.bindings
    assert not {"fs", "Sub", "Alias"} & set(index.definitions)
    assert {"createCommand", "program", "local"} <= set(index.definitions)


def test_lines_are_numbered_as_grep_n_numbers_them(tmp_path: Path) -> None:
    """BeanShell's ParseException.java ends its line 2 with CR CR LF: `str.splitlines`
    counts two lines there, `grep -n`, Universal Ctags and graphify one."""
    text = "/* a */\r\r\n/* b */\r\n\x0cpublic Token currentToken;\r\n"
    assert source_lines(text) == ["/* a */\r", "/* b */", "\x0cpublic Token currentToken;"]
    assert text.splitlines()[3] != source_lines(text)[2]
    (tmp_path / "A.java").write_bytes(text.encode())
    git_ = ["git", "-C", str(tmp_path)]
    subprocess.run([*git_, "init", "-q"], check=True)
    subprocess.run([*git_, "add", "A.java"], check=True)
    subprocess.run([*git_, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"],
                   check=True)  # fmt: skip
    grep = subprocess.run(
        [*git_, "grep", "-n", "currentToken"], capture_output=True, text=True, check=True
    )
    assert grep.stdout.startswith("A.java:3:")
    assert sites.SourceAt(tmp_path, "HEAD").names_at("A.java", 3, "currentToken")


def test_an_anonymous_class_body_may_open_on_the_next_line() -> None:
    """JLS 15.9: `new X(args) ClassBody`, the arguments with calls of their own and
    the body's `{` on a later line (BeanShell's JConsole: `new JTextPane( doc=new
    DefaultStyledDocument() )` then `{`, declaring `cut` and `paste`)."""
    java = (
        "class C {\n  void f() {\n    text = new JTextPane( doc=new Doc() ) \n      {\n"
        "        public void\tcut() {\n          super.cut();\n        }\n"
        "        public void\tpaste()\t{\n        }\n      };\n    g(new Doc());\n  }\n}\n"
    )
    found = {(d.name, d.container, d.name_line) for d in java_anonymous_members(java, "C.java")}
    assert found == {("cut", ("JTextPane", "anonymous@3"), 5),
                     ("paste", ("JTextPane", "anonymous@3"), 8)}  # fmt: skip


def test_uses_are_counted_from_code_into_what_the_file_defines() -> None:
    """A use's user is code: a file, or a node at a declaration of its name
    (graphify 0.8.31's `str`, at `def f(x: str)`, "uses" what the file imports).
    A Read's dependents use what the file defines: mobx's observable.ts has a
    node `initObservable` at `return initObservable(() =>`, a call of another
    file's function, whose callers do not depend on observable.ts."""
    mod = "def lock():\n    pass\n\n\ndef make():\n    return initObservable(1)\n"
    user = "from pkg.mod import lock\n\n\ndef run(x: str):\n    lock()\n    initObservable(2)\n"
    files = {"pkg/mod.py": mod, "pkg/use.py": user}
    index = build_index([*python_decls(mod, "pkg/mod.py"), *python_decls(user, "pkg/use.py")],
                        files)  # fmt: skip

    def node(nid: str, label: str, file: str, line: int) -> dict[str, object]:
        return {"id": nid, "label": label, "source_file": file, "source_location": f"L{line}",
                "file_type": "code"}  # fmt: skip

    def edge(s: str, t: str, rel: str, line: int) -> dict[str, object]:
        return {"source": s, "target": t, "relation": rel, "confidence": "EXTRACTED",
                "source_file": "pkg/use.py", "source_location": f"L{line}"}  # fmt: skip

    nodes = [node("mod", "mod.py", "pkg/mod.py", 1), node("lock", "lock()", "pkg/mod.py", 1),
             node("init", "initObservable()", "pkg/mod.py", 6),
             node("use", "use.py", "pkg/use.py", 1), node("run", "run()", "pkg/use.py", 4),
             node("str", "str", "pkg/use.py", 4)]  # fmt: skip
    links = [edge("run", "lock", "calls", 5), edge("str", "lock", "uses", 5),
             edge("use", "lock", "imports_from", 1), edge("run", "init", "calls", 6)]  # fmt: skip
    graph, source = GraphView.from_nodes(nodes, links), Texts(files)
    assert [is_code(graph.nodes[n], index) for n in ("use", "run", "str")] == [True, True, False]
    lock = verified_uses([graph.nodes["lock"]], graph, index, source)
    assert sorted((e.source, e.line) for e in lock) == [("run", 5), ("use", 1)]
    read = judge(Target(file="pkg/mod.py"), None, [], index, graph, source)
    assert read.used_elsewhere  # lock's users; not init's, which mod.py does not define
    only_init = GraphView.from_nodes(nodes, [edge("run", "init", "calls", 6)])
    assert not judge(Target(file="pkg/mod.py"), None, [], index, only_init, source).used_elsewhere


def test_a_member_named_by_a_string_is_named_by_its_text() -> None:
    assert normalize_label('."~validate"()') == "~validate"


def test_a_field_with_no_graph_node_is_judged_by_its_line() -> None:
    """A Go struct field named like its type ("a field with no graph node",
    docs/hook.md) cites no node to check: the parser must define the name at
    its line, and it claims no use."""
    index, graph, source = _world()
    head = HEAD + 'holds one definition of "lock"; quoted text is repository data.\n'

    def field(site: str, tail: str = "") -> Advisory:
        return parse_advisory(
            head + f'Definition: "{site}" "lock" of "Mod", a field with no graph node{tail}.'
        )

    adv = field("pkg/mod.py:46")
    assert not adv.malformed and adv.definitions[0].node_id == ""
    assert judge(Target(name="lock"), adv, [], index, graph, source).verdict == USEFUL
    v = judge(Target(name="lock"), field("pkg/use.py:5"), [], index, graph, source)
    assert (v.verdict, "pkg/use.py:5 is not a definition of" in v.reason) == (MISLEADING, True)
    counted = field("pkg/mod.py:46", "; used at 1 site in 1 file")
    v = judge(Target(name="lock"), counted, [], index, graph, source)
    assert (v.verdict, "has no node to count uses of" in v.reason) == (MISLEADING, True)
