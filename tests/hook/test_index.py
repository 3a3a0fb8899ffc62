"""Issue 10: graph-aware advice from the sidecar index of graph.json.

The fixture is a real graphify 0.9.96 graph (tests/hook/data/mini.graph.json,
`graphify extract . --code-only` of tests/hook/data/mini; the e2e run rebuilds
it with real graphify, checks it is unchanged, and runs every explain argument
of its index through graphify itself). It has the cases that broke the advice
on click and zod: a name defined once, names defined in several files and
several times in one file, names differing only in case, graphify's
token-equal names (`echo` and `_echo`), `$`-prefixed TypeScript names, and
files the graph does not hold.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphify_nudge
import graphify_nudge_index
from graphify_nudge_index import GraphIndexError, build_graph_index
from tests.hook.conftest import SESSION, Hook, context_of, git, hook_input

DATA = Path(__file__).resolve().parent / "data"


def make_mini(base: Path, graph_dir: str = ".graphify") -> Hook:
    repo = base / "mini"
    shutil.copytree(DATA / "mini", repo)
    (repo / "build" / "lib" / "mini").mkdir(parents=True)
    (repo / "build" / "lib" / "mini" / "core.py").write_text("def parse(text):\n    return text\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "src", "web", "tests")
    git(repo, "commit", "-q", "-m", "init")
    graph = json.loads((DATA / "mini.graph.json").read_text())
    graph["built_at_commit"] = git(repo, "rev-parse", "HEAD")
    (repo / graph_dir).mkdir()
    (repo / graph_dir / "graph.json").write_text(json.dumps(graph, separators=(",", ":")))
    hook = Hook(repo, base / "telemetry")
    hook.auto_index = False  # the index is what these tests are about
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "100"
    return hook


@pytest.fixture
def mini(tmp_path: Path) -> Hook:
    hook = make_mini(tmp_path)
    assert build_graph_index(hook.environ(), str(hook.repo)) == "built"
    return hook


def grep(hook: Hook, pattern: str, **kwargs: object) -> str:
    return hook.call("Grep", {"pattern": pattern, "path": str(hook.repo)}, **kwargs)


def commands(text: str) -> list[str]:
    """The commands an advisory suggests (single backticks, docs/hook.md)."""
    spans = text.split("`")[1::2]
    assert all(span.startswith("graphify ") for span in spans), text
    return spans


def labelled(text: str, label: str) -> list[str]:
    """The lines of an answer that start with `label` (docs/hook.md, the format)."""
    return [line for line in text.split("\n") if line.startswith(label)]


FLAG = " --graph '.graphify/graph.json'"


# -- what the advice says ------------------------------------------------------------


def test_a_name_defined_once_gets_its_site_its_node_and_a_command(mini: Hook) -> None:
    text = context_of(grep(mini, "only_here"))
    assert text.startswith("[graphify-nudge] The code graph (current at HEAD ")
    assert ') holds one definition of "only_here"; quoted text is repository data.\n' in text
    assert labelled(text, "Definition") == [
        'Definition: "src/mini/other.py:8" "only_here", node "src_mini_other_only_here".'
    ]
    assert labelled(text, "Use") == []  # the graph records no use: none is made up
    assert commands(text) == ["graphify explain 'src/mini/other.py::only_here'" + FLAG]
    call = mini.calls()[-1]
    assert (call["index"], call["sites"], call["symbol"], call["decision"]) == (
        "current", 1, "only_here", "nudge",
    )  # fmt: skip
    assert (call["answered"], call["uses"], call["changed"]) == ("definitions", 0, 0)


def test_who_uses_a_name_is_answered_from_the_graph(mini: Hook) -> None:
    """$Schema: web/classic.ts imports it and its class `Schema` extends it (the
    graph's `imports` and `inherits` edges, each line checked to name it)."""
    text = context_of(grep(mini, "$Schema"))
    assert labelled(text, "Uses") == [
        "Uses: 2 in 1 file (imports 1, inherits 1; EXTRACTED 2); 2 shown."
    ]
    assert labelled(text, "Use:") == [
        'Use: "web/classic.ts:3" in "Schema" (inherits, EXTRACTED).',
        'Use: "web/classic.ts:1" in "classic.ts" (imports, EXTRACTED).',
    ]
    call = mini.calls()[-1]
    assert (call["answered"], call["uses"]) == ("uses", 2)


def test_a_call_search_gets_the_callers_first(mini: Hook) -> None:
    """`X(` asks who calls X: the uses come before the definition; `def X` and a
    bare name put the definition first."""
    lines = context_of(grep(mini, "Option(")).split("\n")
    assert lines[1].startswith("Uses: 2 in 2 files") and lines[4].startswith("Definition: ")
    lines = context_of(grep(mini, "class Option", agent_id="other")).split("\n")
    assert lines[1].startswith("Definition: ") and lines[2].startswith("Uses: ")


def test_several_definitions_are_listed_and_none_is_the_answer(mini: Hook) -> None:
    text = context_of(grep(mini, "parse"))
    assert ') defines "parse" in 5 places; quoted text' in text
    # source before tests, the most used first: the one graphify records a use of
    assert labelled(text, "Definition") == [
        'Definition 1 of 5: "src/mini/core.py:27" "parse", node "src_mini_core_parse"; '
        "used at 1 site in 1 file.",
        'Definition 2 of 5: "src/mini/core.py:14" "parse" of "Option", '
        'node "src_mini_core_option_e31d97_parse"; no use recorded.',
        'Definition 3 of 5: "src/mini/core.py:19" "parse" of "Reader", '
        'node "src_mini_core_reader_parse"; no use recorded.',
        'Definition 4 of 5: "src/mini/other.py:4" "parse", node "src_mini_other_parse"; '
        "no use recorded.",
        'Definition 5 of 5: "web/schema.ts:4" "parse" of "$Schema", '
        'node "web_schema_schema_parse"; no use recorded.',
    ]
    assert labelled(text, "Use:") == [
        'Use: "src/mini/__init__.py:3" in "__init__.py" (imports, EXTRACTED), of definition 1.'
    ]
    # three `parse` in core.py: `core.py::parse` would be ambiguous, the node id is not
    assert commands(text) == ["graphify explain 'src_mini_core_parse'" + FLAG]
    assert len(text) <= graphify_nudge.MAX_ADVISORY_CHARS and mini.calls()[-1]["sites"] == 5


def test_case_matters_as_grep_has_it(mini: Hook) -> None:
    """`Option` (the class) and `option` (the function) share graphify's
    case-insensitive key; a case-sensitive search names one of them."""
    text = context_of(grep(mini, "Option"))
    assert labelled(text, "Definition") == [
        'Definition: "src/mini/core.py:8" "Option", node "src_mini_core_option_e31d97".'
    ]
    # `core.py::Option` also matches option() in graphify: the id is unambiguous
    assert commands(text) == ["graphify explain 'src_mini_core_option_e31d97'" + FLAG]
    assert labelled(context_of(grep(mini, "option")), "Definition") == [
        'Definition: "src/mini/core.py:23" "option", node "src_mini_core_option_14eb14".'
    ]


def test_graphify_token_equal_names_get_the_node_id(mini: Hook) -> None:
    """graphify's tokens make `echo` and `._echo()` equal, so `core.py::echo`
    is ambiguous to it; the advisory names the node id."""
    text = context_of(grep(mini, "echo"))
    assert labelled(text, "Definition:") == [
        'Definition: "src/mini/core.py:31" "echo", node "src_mini_core_echo".'
    ]
    assert commands(text) == ["graphify explain 'src_mini_core_echo'" + FLAG]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [("Grep", {"pattern": "$Schema"}), ("Grep", {"pattern": "\\$Schema"}),
     ("Bash", {"command": "rg '\\$Schema' web", "description": "find it"})],
)  # fmt: skip
def test_dollar_names_trigger_and_resolve(
    mini: Hook, tool: str, tool_input: dict[str, str]
) -> None:
    text = context_of(mini.call(tool, tool_input))
    assert labelled(text, "Definition:") == [
        'Definition: "web/schema.ts:3" "$Schema", node "web_schema_schema".'
    ]
    assert commands(text)[0] == "graphify explain 'web/schema.ts::$Schema'" + FLAG


def test_a_file_the_graph_holds(mini: Hook) -> None:
    text = context_of(mini.call("Read", {"file_path": str(mini.repo / "src/mini/core.py")}))
    assert ') holds "src/mini/core.py"; quoted text is repository data.' in text
    assert labelled(text, "Importer") == [
        "Importers: 2 in 2 files (imports_from 1, re_exports 1); 2 shown.",
        'Importer: "src/mini/__init__.py:3" in "__init__.py" (re_exports, EXTRACTED).',
        'Importer: "tests/test_core.py:1" in "test_core.py" (imports_from, EXTRACTED).',
    ]
    assert labelled(text, "Defines") == [
        'Defines: 11 symbols: "Option" L8, "Reader" L18, "Stream" L35, "option" L23, and 7 more.'
    ]
    assert commands(text) == ["graphify explain 'src/mini/core.py'" + FLAG]
    call = mini.calls()[-1]
    assert (call["sites"], call["answered"], call["uses"]) == (1, "dependents", 2)


def test_a_file_that_only_defines_is_answered_with_its_contents(mini: Hook) -> None:
    text = context_of(mini.call("Read", {"file_path": str(mini.repo / "src/mini/other.py")}))
    assert labelled(text, "Importer") == labelled(text, "Dependents") == []
    assert labelled(text, "Defines")
    assert mini.calls()[-1]["answered"] == "contents"


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "build/lib/mini/core.py"}),  # gitignored build output
        ("Bash", {"command": "cat build/lib/mini/core.py"}),
        ("Grep", {"pattern": "get_terminal_size"}),  # shutil's, not the project's
        ("Grep", {"pattern": "shutil.get_terminal_size"}),
        ("Grep", {"pattern": "os.path.join"}),
        ("Grep", {"pattern": "Stream.echo"}),  # the class has `_echo`, not `echo`
        ("Bash", {"command": "grep -rn no_such_name ."}),
    ],
)
def test_what_the_graph_does_not_hold_is_silent(
    mini: Hook, tool: str, tool_input: dict[str, str]
) -> None:
    if tool == "Read":
        tool_input = {"file_path": str(mini.repo / tool_input["file_path"])}
    assert mini.call(tool, tool_input) == ""
    call = mini.calls()[-1]
    assert (call["decision"], call["reason"], call["sites"]) == ("silent", "not_in_graph", 0)


def test_qualified_names_narrow_the_definitions(mini: Hook) -> None:
    text = context_of(grep(mini, "Reader.parse"))
    assert 'holds one definition of "Reader.parse"' in text
    assert labelled(text, "Definition:") == [
        'Definition: "src/mini/core.py:19" "parse" of "Reader", node "src_mini_core_reader_parse".'
    ]
    assert commands(text) == ["graphify explain 'src_mini_core_reader_parse'" + FLAG]
    assert 'defines "mini.core.parse" in 3 places' in context_of(grep(mini, "mini.core.parse"))
    text = context_of(grep(mini, "other.parse"))
    assert 'holds one definition of "other.parse"' in text and '"src/mini/other.py:4"' in text


def test_not_in_graph_also_in_telemetry_mode(mini: Hook) -> None:
    mini.env["MISHKAN_GRAPHIFY_NUDGE"] = "telemetry"
    grep(mini, "no_such_name")
    grep(mini, "only_here")
    assert [c["reason"] for c in mini.calls()] == ["not_in_graph", "telemetry_mode"]


def test_a_stale_graph_still_knows_what_it_holds(mini: Hook) -> None:
    (mini.repo / "new.py").write_text("def brand_new():\n    pass\n")
    git(mini.repo, "add", "new.py")
    git(mini.repo, "commit", "-q", "-m", "more")
    assert grep(mini, "brand_new") == ""
    assert mini.calls()[-1]["reason"] == "not_in_graph"
    text = context_of(grep(mini, "only_here"))
    assert "HEAD is now" in text and commands(text)[0].startswith(
        "graphify explain 'src/mini/other.py"
    )


# -- once per target, per agent, per session --------------------------------------------


def test_the_same_target_is_advised_once_and_repeats_do_not_eat_the_cap(mini: Hook) -> None:
    mini.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "3"
    outputs = [grep(mini, name) for name in ("only_here", "only_here", "only_here", "echo")]
    outputs.append(mini.call("Bash", {"command": "rg only_here src", "description": "again"}))
    outputs.append(mini.call("Read", {"file_path": str(mini.repo / "src/mini/core.py")}))
    outputs.append(grep(mini, "safeParse"))
    assert [bool(o) for o in outputs] == [True, False, False, True, False, True, False]
    assert [c["reason"] for c in mini.calls()] == [
        "fresh", "already_advised", "already_advised", "fresh", "already_advised", "fresh", "cap",
    ]  # fmt: skip
    assert grep(mini, "only_here", agent_type="salma", agent_id="other")  # per agent


# -- lookups that fail -----------------------------------------------------------------


def captured_failures(repo: Path) -> list[dict[str, object]]:
    """The PostToolUseFailure inputs CLI 2.1.197 sent for failed Bash calls (e2e capture)."""
    out = []
    for line in (DATA / "post_tool_use_failure.jsonl").read_text().splitlines():
        data = json.loads(line)
        data["cwd"] = str(repo)
        data["session_id"] = SESSION
        out.append(data)
    return out


def test_a_failed_lookup_is_recorded_and_its_files_are_not_readvised(mini: Hook) -> None:
    no_match, ambiguous, failed_read = captured_failures(mini.repo)
    assert ambiguous["hook_event_name"] == "PostToolUseFailure" and "tool_response" not in ambiguous
    ambiguous["error"] = (
        "Exit code 3\nAmbiguous: 'parse' matches 2 nodes in different files.\n"
        "  src/mini/other.py\n    id: src_mini_other_parse\n  web/schema.ts\n"
        "    id: web_schema_schema_parse\nRetry with path::symbol ..."
    )
    for data in (no_match, ambiguous, failed_read):
        assert mini(data) == ""
    results = [e for e in mini.events() if e["event"] == "lookup_result"]
    assert [(r["failed"], r["exit_code"], r["files"]) for r in results] == [
        (True, 4, 0), (True, 3, 2),
    ]  # fmt: skip
    # (the failed Read is no lookup: nothing recorded for it)
    assert results[0]["agent"] == "hizkiah"
    assert mini.call("Read", {"file_path": str(mini.repo / "src/mini/other.py")}) == ""
    assert mini.calls()[-1]["reason"] == "consulted_file"
    assert mini.call("Read", {"file_path": str(mini.repo / "web/classic.ts")})  # not named


def test_a_lookup_that_finds_nothing_and_exits_0_is_recorded_as_failed(mini: Hook) -> None:
    """graphify 0.8.31 (D-008's) prints "No node matching" and exits 0: the CLI
    fires PostToolUse, never PostToolUseFailure (tests/e2e/test_e2e_advice.py)."""
    for command, stdout in (
        ("graphify explain nothing_here", "No node matching 'nothing_here' found.\n"),
        ("graphify query 'who calls nothing_here'", "No matching nodes found.\n"),
        ("graphify explain only_here", "Node: only_here()\n  Source:    src/mini/other.py L8\n"),
    ):
        response = {"stdout": stdout, "stderr": "", "interrupted": False}
        mini.call("Bash", {"command": command})
        mini.call("Bash", {"command": command}, event="PostToolUse", tool_response=response)
    results = [e for e in mini.events() if e["event"] == "lookup_result"]
    assert [(r["failed"], r["exit_code"], r["files"]) for r in results] == [
        (True, None, 0), (True, None, 0), (False, None, 1),
    ]  # fmt: skip


def test_the_bash_description_opt_out(mini: Hook) -> None:
    marked = {"command": "rg only_here src", "description": "[skip-graphify-nudge] a TODO hunt"}
    assert mini.call("Bash", marked) == ""
    call = mini.calls()[-1]
    assert (call["decision"], call["reason"], call["trigger"], call["index"]) == (
        "opt_out", "description", True, None,
    )  # fmt: skip
    # a Bash advisory names the opt-out that works there, when it fits
    assert "[skip-graphify-nudge] in the Bash description." in context_of(
        mini.call("Bash", {"command": "cat src/mini/other.py", "description": "look"})
    )


# -- building the index -----------------------------------------------------------------


def index_files(hook: Hook) -> dict[str, Path]:
    directory = hook.telemetry / ".index"
    name = graphify_nudge._index_name(str(hook.repo / ".graphify" / "graph.json"))
    return {ext: directory / f"{name}.{ext}" for ext in ("idx", "attempt", "lock")}


def wait_for(predicate: object, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not callable(predicate) or not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_missing_index_is_built_in_the_background(tmp_path: Path) -> None:
    hook = make_mini(tmp_path)
    files = index_files(hook)
    result = hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "only_here"}))
    # without the index nothing is certain (issue 29): silent, and a detached build started
    assert result.stdout == b""
    assert hook.calls()[-1]["index"] in ("missing", "building")
    assert hook.calls()[-1]["reason"] == "no_index"
    wait_for(lambda: files["idx"].exists() and b"built" in files["attempt"].read_bytes())
    hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "only_here"}, agent_id="b"))
    assert hook.calls()[-1]["index"] == "current"


def test_the_tool_call_never_waits_for_the_build(tmp_path: Path) -> None:
    """The builder runs in its own session with stdio on /dev/null: a hook
    whose stdout is a pipe returns while a slow build is still running."""
    hook = make_mini(tmp_path)
    graph_path = hook.repo / ".graphify" / "graph.json"
    graph = json.loads(graph_path.read_text())
    filler = [
        {"id": f"n{i}", "label": f"filler_{i}()", "source_file": f"gen/f{i % 500}.py",
         "source_location": f"L{i}", "file_type": "code"}
        for i in range(150_000)
    ]  # fmt: skip
    graph["nodes"] += filler
    graph_path.write_text(json.dumps(graph, separators=(",", ":")))
    started = time.monotonic()
    result = hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "only_here"}))
    returned = time.monotonic() - started
    assert result.returncode == 0 and hook.calls()[-1]["index"] == "building"
    assert not index_files(hook)["idx"].exists()  # still building when the call returned
    assert returned < 2.0
    wait_for(index_files(hook)["idx"].exists, 120)


def test_a_graph_that_cannot_be_parsed_is_not_retried_on_every_call(tmp_path: Path) -> None:
    hook = make_mini(tmp_path)
    (hook.repo / ".graphify" / "graph.json").write_text('{"nodes": [' + "1," * 1000)
    files = index_files(hook)
    hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "a1"}))
    wait_for(
        lambda: b"failed" in (files["attempt"].read_bytes() if files["attempt"].exists() else b"")
    )
    stamp = files["attempt"].stat().st_mtime_ns
    for i in range(5):
        hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": f"b{i}"}, agent_id=f"x{i}"))
    assert files["attempt"].stat().st_mtime_ns == stamp  # no new attempt: no new process
    assert [c["index"] for c in hook.calls()[1:]] == ["failed"] * 5
    with pytest.raises(GraphIndexError, match=r"graph\.json"):
        build_graph_index(hook.environ(), str(hook.repo))


def test_without_its_builder_beside_it_the_hook_works_as_without_an_index(
    tmp_path: Path,
) -> None:
    """Only graphify_nudge.py in the hooks directory: no build is attempted (no
    attempt recorded, no process), the hook is silent as without an index, and
    every call says why; the builder, once copied there, is used at once."""
    hook = make_mini(tmp_path)
    alone = tmp_path / "hooks" / "graphify_nudge.py"
    alone.parent.mkdir()
    shutil.copy2(graphify_nudge.__file__, alone)
    files = index_files(hook)
    for i in range(3):
        data = hook_input(hook.repo, "Grep", {"pattern": "only_here"}, agent_id=f"a{i}")
        result = hook.subprocess(data, hook_file=alone)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert [c["index"] for c in hook.calls()] == ["no_builder"] * 3
    assert [c["reason"] for c in hook.calls()] == ["no_index"] * 3
    assert sorted(p.name for p in files["idx"].parent.iterdir()) == []
    shutil.copy2(graphify_nudge_index.__file__, alone.with_name("graphify_nudge_index.py"))
    hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "echo"}), hook_file=alone)
    assert hook.calls()[-1]["index"] == "building"
    wait_for(lambda: files["idx"].exists() and b"built" in files["attempt"].read_bytes())
    result = hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "parse"}), hook_file=alone)
    assert hook.calls()[-1]["index"] == "current" and context_of(result.stdout.decode())
    assert not (alone.parent / "__pycache__").exists()  # the builder wrote only its index


def test_an_outdated_index_is_rebuilt(mini: Hook) -> None:
    (mini.repo / "x.py").write_text("y = 1\n")
    git(mini.repo, "add", "x.py")
    git(mini.repo, "commit", "-q", "-m", "x")
    graph_path = mini.repo / ".graphify" / "graph.json"
    graph = json.loads(graph_path.read_text())
    graph["built_at_commit"] = git(mini.repo, "rev-parse", "HEAD")
    graph_path.write_text(json.dumps(graph, separators=(",", ":")))
    assert grep(mini, "only_here") == ""  # nothing certain about the new graph yet
    assert mini.calls()[-1]["index"] == "building"
    wait_for(lambda: b"built" in index_files(mini)["attempt"].read_bytes())
    grep(mini, "safeParse")
    assert mini.calls()[-1]["index"] == "current"


def test_one_builder_at_a_time(mini: Hook) -> None:
    """A second builder (another process: lockf locks belong to processes) leaves at once."""
    files = index_files(mini)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time;fd=os.open(sys.argv[1],os.O_RDWR);"
         "os.lockf(fd,os.F_LOCK,0);print('held',flush=True);time.sleep(60)", str(files["lock"])],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    directory = os.open(files["idx"].parent, os.O_RDONLY)
    graph = str(mini.repo / ".graphify" / "graph.json")
    try:
        assert graphify_nudge_index._build_locked(graph, directory, wait=False) == "busy"
    finally:
        holder.kill()
        holder.wait()
    assert graphify_nudge_index._build_locked(graph, directory, wait=False) == "current"
    os.close(directory)


def test_mishkan_graph_index_command(tmp_path: Path) -> None:
    hook = make_mini(tmp_path, graph_dir="graphify-out")
    command = [sys.executable, "-m", "mishkan_core", "graph-index", "--project", str(hook.repo)]
    env = {**hook.env}
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert (first.returncode, first.stdout) == (0, "graph index built: graphify-out/graph.json\n")
    again = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert (again.returncode, again.stdout) == (0, "graph index current: graphify-out/graph.json\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    command[-1] = str(empty)
    none = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert none.returncode == 2 and none.stderr.startswith("mishkan graph-index: no graph")
    assert none.stderr.count("\n") == 1


# -- the lookup itself ------------------------------------------------------------------

_KEYS = st.text(alphabet="abc_$xyz", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    entries=st.dictionaries(
        _KEYS, st.integers(0, graphify_nudge.INDEX_MAX_LINE - 16), max_size=300
    ),
    probes=st.lists(_KEYS, max_size=30),
)
def test_the_binary_search_finds_exactly_what_is_there(
    tmp_path_factory: pytest.TempPathFactory, entries: dict[str, int], probes: list[str]
) -> None:
    """Keys that prefix each other, lines far longer than a read block."""
    path = tmp_path_factory.mktemp("idx") / "i.idx"
    lines = sorted(f"s\t{key}\t{'p' * size}".encode() for key, size in entries.items())
    path.write_bytes(b"graphify-nudge-index 1\tk\t0\n" + b"".join(line + b"\n" for line in lines))
    fd = os.open(path, os.O_RDONLY)
    try:
        index = graphify_nudge._Index("current", fd, len(b"graphify-nudge-index 1\tk\t0\n"),
                                      path.stat().st_size)  # fmt: skip
        for key in [*entries, *probes]:
            line = graphify_nudge._index_line(index, b"s\t" + key.encode() + b"\t")
            if key in entries:
                assert line == f"s\t{key}\t{'p' * entries[key]}".encode()
            else:
                assert line is None
    finally:
        os.close(fd)


def test_an_index_without_the_release_s_capabilities_is_rebuilt(mini: Hook) -> None:
    """An index the hook wrote before it recorded what the user's graphify
    accepts (a three-field header) is rebuilt, never read as the newest
    release's: its commands could be in a dialect that release rejects."""
    grep(mini, "safeParse")
    wait_for(lambda: b"built" in index_files(mini)["attempt"].read_bytes())
    index = index_files(mini)["idx"]
    head, _, body = index.read_bytes().partition(b"\n")
    fields = head.split(b"\t")
    assert len(fields) == 5
    index.write_bytes(b"\t".join(fields[:3]) + b"\n" + body)
    index_files(mini)["attempt"].unlink()
    grep(mini, "safeParse")
    assert mini.calls()[-1]["index"] == "building"  # read as current before
    wait_for(lambda: len(index.read_bytes().partition(b"\n")[0].split(b"\t")) == 5)
