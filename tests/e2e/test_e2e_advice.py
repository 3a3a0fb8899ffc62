"""Issue 10 with the real Claude Code CLI 2.1.197 and the real graphify 0.9.96.

One scripted session in a project whose graph graphify built and whose index
`mishkan graph-index` built: a plugin's agent (`mishkan:hizkiah`, from a local
plugin loaded with `--plugin-dir`) greps a name the graph defines once, runs
a search marked with the per-call opt-out, runs a graphify lookup that exits
non-zero, then reads the file that lookup named and a file it did not name.
Beside it, the graph the hook's unit tests use is rebuilt with real graphify,
and every `explain` argument its index chose is resolved by graphify itself.
All of it on every release of the graphify axis (tests/e2e/graphify_axis.py;
0.8.31 and 0.9.96): the advice is in the dialect of the release on PATH.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge
import graphify_nudge_index
from bench import _graphify
from tests.e2e import graphify_axis
from tests.e2e.graphify_axis import Release
from tests.e2e.harness import (
    AGENT_FILE,
    MARKER,
    SOURCE_REL,
    SYMBOL,
    Claude,
    Project,
    ScenarioRun,
    build_graph,
    build_index,
    git,
    head_sha,
    install_hook,
    make_project,
    run,
    run_scenario,
    strings_in,
    tool_env,
)
from tests.e2e.stub_api import Text, ToolUse

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
MINI = REPO_ROOT / "tests" / "hook" / "data" / "mini"
MINI_GRAPH = REPO_ROOT / "tests" / "hook" / "data" / "mini.graph.json"
MINI_GRAPH_OLDEST = REPO_ROOT / "tests" / "hook" / "data" / "mini-0.8.31.graph.json"
#: issue 23: Go, Rust, Ruby, PHP and JavaScript shapes (tests/hook/test_languages.py)
POLYGLOT = REPO_ROOT / "tests" / "hook" / "data" / "polyglot"
POLYGLOT_GRAPH = REPO_ROOT / "tests" / "hook" / "data" / "polyglot.graph.json"
OTHER_REL = "src/overlay/util.py"  # never named by the failing lookup
#: a lookup an agent types with a partial name: graphify exits 3, "Ambiguous:
#: 'apply' matches 2 nodes in src/overlay/core.py", naming the file
FAILING_LOOKUP = "graphify explain apply --graph .graphify/graph.json"
#: a lookup of a name the graph does not hold: graphify 0.9.96 exits 4; 0.8.31
#: prints "No node matching" and exits 0, so the CLI fires PostToolUse
MISSING_LOOKUP = "graphify explain no_such_name_here --graph .graphify/graph.json"
OPT_OUT = {
    "command": "grep -rn merge_layer src",
    "description": f"{graphify_nudge.OPT_OUT_MARKER} where merge_layer is spelled out",
}
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart")


def _plugin(root: Path) -> Path:
    """A local plugin `mishkan` whose agents/hizkiah.md is the fixture's agent."""
    plugin = root / "plugin-mishkan"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "mishkan", "version": "0.0.1", "description": "e2e plugin"})
    )
    (plugin / "agents").mkdir()
    (plugin / "agents" / "hizkiah.md").write_text(AGENT_FILE, encoding="utf-8")
    return plugin


def _register_post_tool_use_failure(project: Project) -> None:
    """PostToolUseFailure for Bash, with the command install registered for
    PostToolUse (install registers both)."""
    path = project.repo / ".claude" / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    hooks = settings["hooks"]
    nudge = [
        hook["command"]
        for group in hooks.get("PostToolUse", [])
        for hook in group.get("hooks", [])
        if "graphify_nudge" in hook.get("command", "")
    ]
    failure = hooks.setdefault("PostToolUseFailure", [])
    if nudge and not any("graphify_nudge" in json.dumps(group) for group in failure):
        failure.insert(0, {"matcher": "Bash", "hooks": [{"type": "command", "command": nudge[0]}]})
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def _script(repo: Path) -> dict[str, list[Any]]:
    return {
        "main": [
            ToolUse("launch", "Agent", {"subagent_type": "mishkan:hizkiah",
                                        "description": f"Find {SYMBOL}",
                                        "prompt": f"Where is {SYMBOL} defined?"}),
            Text("done"),
        ],
        "sub": [
            # the ADR's per-call opt-out: the CLI rejects it before any hook runs
            ToolUse("metadata_read", "Read", {"file_path": str(repo / SOURCE_REL),
                                              "metadata": {"skip_graphify_nudge": True}}),
            ToolUse("grep", "Grep", {"pattern": SYMBOL, "path": str(repo),
                                     "output_mode": "content"}),
            ToolUse("opt_out", "Bash", OPT_OUT),
            ToolUse("failed_lookup", "Bash", {"command": FAILING_LOOKUP,
                                              "description": "Ask the code graph"}),
            ToolUse("missing_lookup", "Bash", {"command": MISSING_LOOKUP,
                                               "description": "Ask the code graph again"}),
            ToolUse("read_named", "Read", {"file_path": str(repo / SOURCE_REL)}),
            ToolUse("read_other", "Read", {"file_path": str(repo / OTHER_REL)}),
            Text("done"),
        ],
    }  # fmt: skip


@pytest.fixture(scope="module")
def session(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude, graphify_release: Release
) -> ScenarioRun:
    root = tmp_path_factory.mktemp(f"advice-{graphify_release.version}")
    project = make_project(root)
    build_graph(project, graphify_release.bin)
    install_hook(project, "advise", cap=10, log_events=EVENTS)
    _register_post_tool_use_failure(project)
    built = build_index(project, graphify_release.bin)
    assert built.startswith("graph index built"), built
    result = run_scenario(
        "advice",
        project,
        claude_bin,
        "bypassPermissions",
        script=_script(project.repo),
        extra_args=["--plugin-dir", str(_plugin(root))],
    )
    assert result.cli.returncode == 0, result.diagnostics()
    missing = [k for k in ("launch", "grep", "opt_out", "failed_lookup", "missing_lookup",
                           "read_other") if k not in result.ids]  # fmt: skip
    assert not missing, f"the CLI never reached {missing}\n{result.diagnostics()}"
    assert not [e for e in result.telemetry if e.get("event") == "self_disable"]
    return result


def _tool_result(run_: ScenarioRun, key: str) -> dict[str, Any]:
    return run_.tool_results()[run_.tool_use_id(key)]


def _advisory_after(run_: ScenarioRun, key: str) -> str:
    """The advisory the model read with `key`'s tool result."""
    texts = run_.advisories_after(key)
    assert texts, f"no advisory reached the model after {key}\n{run_.diagnostics()}"
    return texts[-1]


def _names_it(repo: Path, use_line: str, name: str) -> bool:
    """The cited `"path:line"` of a `Use:` line is a line of the file that names `name`."""
    path, _, line = use_line.split('"')[1].rpartition(":")
    text = (repo / path).read_text(encoding="utf-8").split("\n")[int(line) - 1]
    return name in text


def _commands(advisory: str) -> list[str]:
    spans = advisory.split("`")[1::2]
    assert spans and all(span.startswith("graphify ") for span in spans), advisory
    return spans


def test_a_plugin_agent_is_in_scope_and_nudged(session: ScenarioRun) -> None:
    inputs = session.hook_inputs("PreToolUse", "grep")
    assert inputs and inputs[0]["agent_type"] == "mishkan:hizkiah"
    call = session.telemetry_call("grep")
    assert (call["agent_type"], call["agent"], call["decision"]) == (
        "mishkan:hizkiah", "hizkiah", "nudge",
    )  # fmt: skip


def test_the_unique_symbol_advisory_names_its_site_and_its_command_resolves(
    session: ScenarioRun, graphify_release: Release
) -> None:
    advisory = _advisory_after(session, "grep")
    assert f'holds one definition of "{SYMBOL}";' in advisory
    (definition,) = [line for line in advisory.split("\n") if line.startswith("Definition")]
    assert definition.startswith(f'Definition: "{SOURCE_REL}:23" "{SYMBOL}", node "')
    call = session.telemetry_call("grep")
    assert (call["index"], call["sites"], call["answered"]) == ("current", 1, "uses")
    # who uses it, each site a line that names it (the fixture's cli.py calls it)
    uses = [line for line in advisory.split("\n") if line.startswith("Use: ")]
    assert uses and all(_names_it(session.project.repo, line, SYMBOL) for line in uses)
    command = _commands(advisory)[0]
    # the release's dialect: `path::name` from 0.9.x, the bare (unique) name before
    arg = (
        f"{SOURCE_REL}::{SYMBOL}"
        if graphify_nudge_index.EXPLAIN_PATH_NAME in graphify_release.accepts
        else SYMBOL
    )
    assert command == f"graphify explain '{arg}' --graph '.graphify/graph.json'"
    done = subprocess.run(shlex.split(command), cwd=session.project.repo,
                          env=tool_env(session.project), capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Node: {SYMBOL}()" in done.stdout
    assert f"Source:    {SOURCE_REL} L23" in done.stdout


def test_the_advertised_opt_out_works_in_the_real_cli(session: ScenarioRun) -> None:
    """`[skip-graphify-nudge]` in a Bash description: the CLI accepts the call,
    the command runs, the hook records the opt-out and adds nothing."""
    result = _tool_result(session, "opt_out")
    assert not result.get("is_error"), result
    assert "merge_layer" in json.dumps(result)
    call = session.telemetry_call("opt_out")
    assert (call["trigger"], call["decision"], call["reason"]) == (True, "opt_out", "description")
    advisory_calls = [e for e in session.telemetry_calls() if e["decision"] == "nudge"]
    body = session.role_requests("sub")[-1].body
    assert sum(s.count(MARKER) for s in strings_in(body)) == len(advisory_calls)


def test_the_adrs_metadata_opt_out_is_rejected_by_the_cli(session: ScenarioRun) -> None:
    """The evidence for dropping the ADR's per-call hint (the README's deviations):
    CLI 2.1.197 refuses `metadata` on Read before any hook runs."""
    result = _tool_result(session, "metadata_read")
    assert result.get("is_error") is True
    assert "InputValidationError" in json.dumps(result)
    assert "metadata" in json.dumps(result)
    assert session.hook_inputs("PreToolUse", "metadata_read") == []


def _lookup_results(session: ScenarioRun, key: str) -> list[tuple[Any, Any, Any]]:
    tid = session.tool_use_id(key)
    return [(e["failed"], e["exit_code"], e["files"]) for e in session.telemetry
            if e.get("event") == "lookup_result" and e.get("tool_use_id") == tid]  # fmt: skip


def test_a_failed_lookup_is_recorded_and_its_file_is_not_readvised(
    session: ScenarioRun, graphify_release: Release
) -> None:
    if graphify_nudge_index.EXPLAIN_EXIT_CODES in graphify_release.accepts:
        # exit 3, "Ambiguous", naming core.py: PostToolUseFailure
        failures = session.hook_inputs("PostToolUseFailure", "failed_lookup")
        assert failures and failures[0]["error"].startswith("Exit code 3")
        assert "tool_response" not in failures[0]
        assert _lookup_results(session, "failed_lookup") == [(True, 3, 1)]
        missing = session.hook_inputs("PostToolUseFailure", "missing_lookup")
        assert missing and missing[0]["error"].startswith("Exit code 4")
        assert _lookup_results(session, "missing_lookup") == [(True, 4, 0)]
    else:
        # 0.8.31 answers the first match (`apply_overlay()` in core.py) and exits
        # 0; a name it does not hold is "No node matching", exit 0 too: the CLI
        # fires PostToolUse, never PostToolUseFailure, and the hook records the
        # miss as failed from graphify's own words
        for key in ("failed_lookup", "missing_lookup"):
            assert session.hook_inputs("PostToolUseFailure", key) == []
            assert session.hook_inputs("PostToolUse", key)
        ((failed, code, files),) = _lookup_results(session, "failed_lookup")
        assert (failed, code) == (False, None) and files >= 1  # core.py and its neighbours
        assert _lookup_results(session, "missing_lookup") == [(True, None, 0)]
    named = session.telemetry_call("read_named")
    assert (named["decision"], named["reason"]) == ("silent", "consulted_file")
    other = session.telemetry_call("read_other")
    assert other["decision"] == "nudge"
    command = _commands(_advisory_after(session, "read_other"))[0]
    if graphify_nudge_index.EXPLAIN_PATH_NAME in graphify_release.accepts:
        assert command == f"graphify explain '{OTHER_REL}' --graph '.graphify/graph.json'"
    else:  # no `explain PATH` on 0.8.31: the file's node id
        assert command.startswith("graphify explain '") and OTHER_REL not in command
    done = subprocess.run(shlex.split(command), cwd=session.project.repo,
                          env=tool_env(session.project), capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0 and f"Source:    {OTHER_REL}" in done.stdout


# -- the hook's test graph is graphify's own, and graphify agrees with its index --------


def _graph_of(source: Path, work: Path, graphify: Path) -> dict[str, Any]:
    from mishkan_core import graph_refresh

    shutil.copytree(source, work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "init")
    env = {"PATH": f"{graphify.parent}:/usr/bin:/bin", "HOME": str(work.parent)}
    argv = graph_refresh.build_argv(graph_refresh.graphify_at(str(graphify)))
    run([str(graphify), *argv[1:]], cwd=work, env=env)
    graph: dict[str, Any] = json.loads((work / "graphify-out" / "graph.json").read_text())
    assert graph["built_at_commit"] == head_sha(work)
    return graph


def _shape(graph: dict[str, Any]) -> set[tuple[Any, ...]]:
    keys = ("id", "label", "source_file", "source_location", "file_type")
    return {tuple(node.get(k) for k in keys) for node in graph["nodes"]}


def _resolve_all(
    graph_path: Path, index_lines: list[bytes], work: Path, release: Release
) -> list[str]:
    """Every explain argument of an index, resolved by that graphify release itself."""
    return _graphify.resolve_all(release.python, graph_path, index_lines, work)


@pytest.mark.parametrize(("source", "kept"), [(MINI, MINI_GRAPH), (POLYGLOT, POLYGLOT_GRAPH)])
def test_the_unit_test_graph_is_what_graphify_builds(
    tmp_path: Path, graphify_bin: Path, source: Path, kept: Path
) -> None:
    built = _graph_of(source, tmp_path / source.name, graphify_bin)
    assert _shape(built) == _shape(json.loads(kept.read_text()))


def test_the_unit_test_graph_of_the_oldest_release_is_what_it_builds(tmp_path: Path) -> None:
    """tests/hook/test_graphify_releases.py reads graphify 0.8.31's graph of the same project."""
    oldest = graphify_axis.release(graphify_nudge_index.GRAPHIFY_OLDEST)
    built = _graph_of(MINI, tmp_path / "mini", oldest.bin)
    assert _shape(built) == _shape(json.loads(MINI_GRAPH_OLDEST.read_text()))


@pytest.mark.parametrize("which", ["mini", "polyglot", "fixture_repo"])
def test_graphify_resolves_every_argument_the_index_chose(
    tmp_path: Path, graphify_release: Release, which: str
) -> None:
    source = {"mini": MINI, "polyglot": POLYGLOT}.get(which, REPO_ROOT / "tests/e2e/fixture_repo")
    graph = _graph_of(source, tmp_path / which, graphify_release.bin)
    graph_path = tmp_path / which / "graphify-out" / "graph.json"
    nodes, links, _ = graphify_nudge_index._load_graph(str(graph_path))
    lines = graphify_nudge_index._index_lines(
        nodes, links, str(graph_path), graphify_release.accepts
    )
    assert len(lines) >= len({n["source_file"] for n in graph["nodes"] if n["source_file"]})
    assert _resolve_all(graph_path, lines, tmp_path, graphify_release) == []


# -- issue 29 item 5: a commit graphify finds structurally unchanged is not stale ------------


def _hook_says(project: Project, env: dict[str, str]) -> str:
    """The advisory the installed hook prints for a Grep of SYMBOL (a new session)."""
    data = {"session_id": str(uuid.uuid4()), "transcript_path": "/dev/null",
            "cwd": str(project.repo), "agent_id": "a1", "agent_type": "hizkiah",
            "hook_event_name": "PreToolUse", "tool_name": "Grep",
            "tool_input": {"pattern": SYMBOL, "path": str(project.repo)},
            "tool_use_id": "toolu_1"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(REPO_ROOT / "graphify_nudge.py")],
        input=json.dumps(data), capture_output=True, text=True, timeout=60, check=False,
        env={**env, "CLAUDE_PROJECT_DIR": str(project.repo), "MISHKAN_GRAPHIFY_NUDGE": "advise"},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def test_a_commit_graphify_finds_unchanged_is_not_stale(
    tmp_path: Path, graphify_release: Release
) -> None:
    """Real graphify on both ends: after a comment-only commit, `graphify update .`
    says "No code-graph topology changes detected; outputs left untouched" and
    keeps graph.json (its built_at_commit behind HEAD) but rewrites its
    manifest.json; the hook calls the graph current. A file edited after that
    run is the one marked changed."""
    project = make_project(tmp_path)
    env = {"PATH": f"{graphify_release.bin.parent}:/usr/bin:/bin", "HOME": str(project.home),
           "MISHKAN_TELEMETRY_DIR": str(project.telemetry)}  # fmt: skip
    update = {**env, "GRAPHIFY_OUT": ".graphify"}
    graphify = str(graphify_release.bin)
    run([graphify, "update", "."], cwd=project.repo, env=update)  # the graph `update` keeps
    git(project.repo, "add", "-A")
    git(project.repo, "commit", "-q", "-m", "graph", "--allow-empty")
    run([graphify, "update", "."], cwd=project.repo, env=update)
    built = graphify_nudge.built_at_commit(str(project.graph))
    build_index(project, graphify_release.bin)
    with (project.repo / SOURCE_REL).open("a", encoding="utf-8") as out:
        out.write("# a comment, no structure\n")
    git(project.repo, "commit", "-q", "-am", "a comment")
    head = head_sha(project.repo)
    graph_bytes = project.graph.read_bytes()
    done = run([graphify, "update", "."], cwd=project.repo, env=update)
    assert "No code-graph topology changes detected" in done.stdout + done.stderr
    assert project.graph.read_bytes() == graph_bytes  # untouched: built_at_commit behind
    assert built is not None and not head.startswith(built)
    advisory = _hook_says(project, env)
    assert f"(current at HEAD {head[:7]}, no structural change since {built[:7]})" in advisory
    assert "HEAD is now" not in advisory and "Changed since" not in advisory
    (project.repo / SOURCE_REL).write_text(
        (project.repo / SOURCE_REL).read_text(encoding="utf-8") + "# after graphify's run\n"
    )
    assert f'Changed since the graph was built: "{SOURCE_REL}".' in _hook_says(project, env)
