"""Issue 15 and issue 10 item 3, with the real Claude Code CLI 2.1.197.

* **The narrowed matchers lose no lookup.** Install registers PostToolUse and
  PostToolUseFailure only for Bash and graphify's MCP tools. An evidence hook
  sits in the same matcher group as graphify-nudge, so it fires exactly when
  the nudge does: it must fire after a successful ``graphify explain``, after
  one that exits non-zero (PostToolUseFailure) and after an MCP lookup
  (``mcp__graphify__query_graph``, a stub MCP server named graphify), and
  never after a Read or a Grep.
* **Claude Code's matcher semantics**, as :func:`mishkan_core.hook_chain.
  matcher_matches` models them: evidence hooks with a dozen matchers, checked
  against every tool call of the run.
* **Frontmatter registration** (``mishkan install --scope agents``) fires for
  a bare agent's calls and no one else's; a plugin's agent
  (``mishkan:salma``, loaded with ``--plugin-dir``) does not run frontmatter
  hooks at all, and the CLI says so.
* **Every off switch works**: an exported ``MISHKAN_GRAPHIFY_NUDGE=off`` in the
  shell that runs ``claude`` silences the installed ``--mode=advise`` hook, as
  do ``.claude/settings.local.json`` env, ``claude --settings``,
  ``mishkan install --mode off`` and ``--uninstall``; with nothing exported
  the installed mode nudges.
* **The printed refresh command** (real graphify) gives ``routing check`` a
  refresh trigger.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import agent_file, hook_chain
from tests.e2e.harness import (
    AGENT_FILE,
    LOG_HOOK,
    LOOKUP_COMMAND,
    MARKER,
    SOURCE_REL,
    SYMBOL,
    Claude,
    Project,
    ScenarioRun,
    base_path,
    build_graph,
    build_index,
    make_project,
    mishkan_command,
    nudge_count,
    run,
    run_scenario,
)
from tests.e2e.stub_api import Script, Text, ToolUse

pytestmark = pytest.mark.e2e

PYTHON = sys.executable
FAILED_LOOKUP = 'graphify explain "no_such_symbol_zz" --graph .graphify/graph.json'
CD_LOOKUP = f'graphify explain "{SYMBOL}" --graph ../.graphify/graph.json'
MCP_TOOL = "mcp__graphify__query_graph"
CAP = 10

#: matchers whose meaning the e2e run pins down (label -> matcher)
MATCHERS = {
    "star": "*",
    "exact-bash": "Bash",
    "prefix-bas": "Bas",  # a name list compares exact names: never fires
    "regex-ba.h": "Ba.h",  # a regex ...
    "regex-a.h": "a.h",  # ... searched, not anchored
    "anchored": "^Bash$",
    "list-pipe": "Read|Grep",
    "list-comma": "Read, Grep",
    "old-name-task": "Task",  # the Agent tool's old name
    "mcp-exact": "mcp__graphify",  # an exact name no tool has
    "mcp-regex": "mcp__graphify__.*",
    "lookups": hook_chain.LOOKUP_MATCHER,
    "invalid": "(unclosed",
}

MCP_SERVER = r"""
import json, sys

def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()

TOOL = {
    "name": "query_graph",
    "description": "Ask the code graph a question (e2e stub of graphify's MCP server).",
    "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}},
                    "required": ["question"]},
}
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue  # a notification
    if method == "initialize":
        reply(msg_id, {"protocolVersion": msg["params"].get("protocolVersion", "2024-11-05"),
                       "capabilities": {"tools": {}},
                       "serverInfo": {"name": "graphify", "version": "0.9.96-e2e"}})
    elif method == "tools/list":
        reply(msg_id, {"tools": [TOOL]})
    elif method == "tools/call":
        reply(msg_id, {"content": [{"type": "text",
               "text": "Node: apply_overlay()\n  src/overlay/core.py:L1\n"}], "isError": False})
    elif method == "ping":
        reply(msg_id, {})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": -32601, "message": "not found"}}) + "\n")
        sys.stdout.flush()
"""


# --------------------------------------------------------------------------- #
# helpers


def _mishkan(project: Project, *argv: str) -> str:
    done = run(
        [*mishkan_command(), *argv],
        cwd=project.root,
        env={"PATH": base_path(), "HOME": str(project.home)},
    )
    return done.stdout


def _install(project: Project, *argv: str) -> str:
    return _mishkan(project, "install", "--project", str(project.repo), "--python", PYTHON, *argv)


def _evidence(project: Project, label: str) -> dict[str, Any]:
    command = f"{shlex.quote(PYTHON)} -I -S {LOG_HOOK} {project.hook_log} {label}"
    return {"type": "command", "command": command}


def _settings(project: Project) -> Path:
    return project.repo / ".claude" / "settings.json"


def _edit_settings(project: Project, edit: Any) -> None:
    """Edit settings.json as JSON; telemetry goes outside the repo."""
    path = _settings(project)
    doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    edit(doc)
    doc.setdefault("env", {})["MISHKAN_TELEMETRY_DIR"] = str(project.telemetry)
    doc["env"]["MISHKAN_GRAPHIFY_NUDGE_CAP"] = str(CAP)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def _beside_ours(project: Project, hooks: dict[str, Any], prefix: str) -> None:
    """An evidence handler in each matcher group that holds graphify-nudge,
    with the same ``if``: it starts exactly when ours does."""
    for event, groups in hooks.items():
        for group in groups:
            mine = [h for h in group["hooks"] if hook_chain.is_ours(h.get("command"))]
            if mine:
                evidence = _evidence(project, f"{prefix}{event}")
                if "if" in mine[0]:
                    evidence["if"] = mine[0]["if"]
                group["hooks"].append(evidence)


def _fired(run_: ScenarioRun, label: str) -> list[dict[str, Any]]:
    return [c["input"] for c in run_.hook_calls if c["event_arg"] == label]


def _ids(inputs: list[dict[str, Any]]) -> list[str]:
    return [str(i.get("tool_use_id")) for i in inputs]


def _completed(run_: ScenarioRun, keys: tuple[str, ...]) -> None:
    assert run_.cli.returncode == 0, run_.diagnostics()
    missing = [k for k in keys if k not in run_.ids]
    assert not missing, f"the CLI never reached {missing}\n{run_.diagnostics()}"
    disabled = [e for e in run_.telemetry if e.get("event") == "self_disable"]
    assert not disabled, f"the hook self-disabled (machine overloaded?): {disabled}"


def _project(tmp_path_factory: pytest.TempPathFactory, name: str, graphify: Path) -> Project:
    project = make_project(tmp_path_factory.mktemp(name))
    build_graph(project, graphify)
    build_index(project, graphify)  # the hook answers only from a current index (issue 29)
    return project


# --------------------------------------------------------------------------- #
# run 1: the narrowed matchers, the matcher semantics, an MCP lookup

LOOKUP_KEYS = {
    "lookup": "PostToolUse",
    "bad_lookup": "PostToolUseFailure",
    "mcp_lookup": "PostToolUse",
    "cd_lookup": "PostToolUse",
    "env_lookup": "PostToolUse",
    "pipe_lookup": "PostToolUse",
}
#: Bash calls that are no lookup: with `if` (CLI 2.1.85+) they start no hook after them
OTHER_BASH = {
    "git_status": "git status --short",
    "failing": "sh -c 'exit 3'",
    "grep_graphify": "grep -rn graphify src || true",
}
NOT_LOOKUPS = ("read1", "grep", "read2")
RUN1_SUB = ("read1", "grep", "lookup", "bad_lookup", "mcp_lookup", "cd_lookup", "env_lookup",
            "pipe_lookup", *OTHER_BASH, "read2")  # fmt: skip
#: `if` conditions whose meaning the e2e run pins down (label -> condition)
CONDITIONS = {
    "lookup-if": hook_chain.LOOKUP_IF,
    "colon-form": "Bash(graphify:*)",
    "whole-command": "Bash(git status --short)",
    "tool-only": "Read",
    "other-tool": "Grep",
}


def _run1_script(repo: Path) -> dict[str, Script]:
    source = str(repo / SOURCE_REL)
    return {
        "main": [
            ToolUse(
                "launch",
                "Agent",
                {"subagent_type": "hizkiah", "description": "Find it", "prompt": f"Find {SYMBOL}"},
            ),
            Text("done"),
        ],
        "sub": [
            ToolUse("read1", "Read", {"file_path": source}),
            ToolUse("grep", "Grep", {"pattern": SYMBOL, "path": str(repo)}),
            ToolUse("lookup", "Bash", {"command": LOOKUP_COMMAND, "description": "graph"}),
            ToolUse("bad_lookup", "Bash", {"command": FAILED_LOOKUP, "description": "graph"}),
            ToolUse("mcp_lookup", MCP_TOOL, {"question": f"who calls {SYMBOL}"}),
            ToolUse("cd_lookup", "Bash", {"command": f"cd src && {CD_LOOKUP}", "description": "g"}),
            ToolUse(
                "env_lookup",
                "Bash",
                {"command": f"GRAPHIFY_OUT=.graphify {LOOKUP_COMMAND}", "description": "graph"},
            ),
            ToolUse(
                "pipe_lookup",
                "Bash",
                {"command": f"{LOOKUP_COMMAND} | head -20", "description": "graph"},
            ),
            *(ToolUse(k, "Bash", {"command": c, "description": k}) for k, c in OTHER_BASH.items()),
            ToolUse("read2", "Read", {"file_path": source}),
            Text(f"{SYMBOL} is in {SOURCE_REL}."),
        ],
    }


@pytest.fixture(scope="module")
def narrowed(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude, graphify_bin: Path
) -> ScenarioRun:
    project = _project(tmp_path_factory, "narrowed", graphify_bin)
    agent = project.repo / ".claude" / "agents" / "hizkiah.md"  # may call the MCP lookup too
    agent.write_text(
        agent.read_text().replace("tools: Read, Grep, Bash", f"tools: Read, Grep, Bash, {MCP_TOOL}")
    )
    _install(project, "--mode", "advise")

    def edit(doc: dict[str, Any]) -> None:
        hooks = doc["hooks"]
        _beside_ours(project, hooks, "ours-")
        for event in ("PostToolUse", "PostToolUseFailure"):
            hooks[event].append({"matcher": "*", "hooks": [_evidence(project, f"all-{event}")]})
        for label, matcher in MATCHERS.items():
            hooks["PreToolUse"].append(
                {"matcher": matcher, "hooks": [_evidence(project, f"m:{label}")]}
            )
        for label, condition in CONDITIONS.items():
            handler = {**_evidence(project, f"if:{label}"), "if": condition}
            hooks["PreToolUse"].append({"matcher": "*", "hooks": [handler]})

    _edit_settings(project, edit)
    server = project.root / "mcp_graphify.py"
    server.write_text(MCP_SERVER, encoding="utf-8")
    config = project.root / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"graphify": {"command": PYTHON, "args": [str(server)]}}}),
        encoding="utf-8",
    )
    result = run_scenario(
        "narrowed",
        project,
        claude_bin,
        "bypassPermissions",
        script=_run1_script(project.repo),
        extra_args=["--mcp-config", str(config)],
    )
    _completed(result, ("launch", *RUN1_SUB))
    return result


def test_every_lookup_reaches_the_hook(narrowed: ScenarioRun) -> None:
    for key, event in LOOKUP_KEYS.items():
        tid = narrowed.tool_use_id(key)
        assert _ids(_fired(narrowed, f"all-{event}")).count(tid) == 1, (key, narrowed.diagnostics())
        assert _ids(_fired(narrowed, f"ours-{event}")).count(tid) == 1, (
            key,
            narrowed.diagnostics(),
        )


def test_a_failed_lookup_fires_post_tool_use_failure(narrowed: ScenarioRun) -> None:
    tid = narrowed.tool_use_id("bad_lookup")
    assert tid in _ids(_fired(narrowed, "all-PostToolUseFailure"))
    assert tid not in _ids(_fired(narrowed, "all-PostToolUse"))


def test_no_start_after_calls_whose_result_the_hook_ignores(narrowed: ScenarioRun) -> None:
    """Reads, Greps and the Agent call never start the hook after them; other
    Bash calls do not either on CLIs with `if` (2.1.85+), and still do on
    older ones, which ignore the field (the registration is the same)."""
    ours = _ids(_fired(narrowed, "ours-PostToolUse") + _fired(narrowed, "ours-PostToolUseFailure"))
    everything = _ids(
        _fired(narrowed, "all-PostToolUse") + _fired(narrowed, "all-PostToolUseFailure")
    )
    for key in (*NOT_LOOKUPS, "launch"):
        tid = narrowed.tool_use_id(key)
        assert tid in everything, key  # the call completed
        assert tid not in ours, key  # ... and started no interpreter for graphify-nudge
    assert narrowed.claude is not None
    filtered = narrowed.claude.has("if_field")
    for key in OTHER_BASH:
        tid = narrowed.tool_use_id(key)
        assert tid in everything, key
        assert (tid in ours) is not filtered, (key, narrowed.claude.version)


def test_if_semantics(narrowed: ScenarioRun) -> None:
    """Which `if` handlers Claude Code ran, for every PreToolUse of the run,
    is what :func:`hook_chain.if_matches` predicts for this CLI."""
    assert narrowed.claude is not None
    calls = {i["tool_use_id"]: i for i in _fired(narrowed, "m:star")}
    for label, condition in CONDITIONS.items():
        fired = set(_ids(_fired(narrowed, f"if:{label}")))
        expected = {
            tid
            for tid, i in calls.items()
            if hook_chain.if_matches(
                condition, i["tool_name"], i["tool_input"], narrowed.claude.version
            )
        }
        wrong = sorted(str(calls[t]["tool_input"])[:80] for t in fired ^ expected)
        assert fired == expected, (label, condition, wrong)


def test_the_hook_used_the_lookups(narrowed: ScenarioRun) -> None:
    """The hook read both successful lookups' results (Bash and MCP), and so
    stayed silent on read2, whose file the lookup named."""
    results = {
        e.get("tool_use_id") for e in narrowed.telemetry if e.get("event") == "lookup_result"
    }
    assert {narrowed.tool_use_id("lookup"), narrowed.tool_use_id("mcp_lookup")} <= results
    read1 = narrowed.telemetry_call("read1")
    read2 = narrowed.telemetry_call("read2")
    assert read1.get("decision") == "nudge", narrowed.diagnostics()
    assert (read2.get("decision"), read2.get("reason")) == ("silent", "consulted_file")


def test_matcher_semantics(narrowed: ScenarioRun) -> None:
    """Which matcher groups Claude Code ran, for every PreToolUse of the run,
    is what :func:`hook_chain.matcher_matches` predicts."""
    calls = {i["tool_use_id"]: i["tool_name"] for i in _fired(narrowed, "m:star")}
    assert {"Read", "Grep", "Bash", "Agent", MCP_TOOL} <= set(calls.values()), calls
    for label, matcher in MATCHERS.items():
        fired = set(_ids(_fired(narrowed, f"m:{label}")))
        version = narrowed.claude.version if narrowed.claude else None
        expected = {
            tid for tid, tool in calls.items() if hook_chain.matcher_matches(matcher, tool, version)
        }
        assert fired == expected, (label, matcher, sorted(calls[t] for t in fired ^ expected))


def test_the_installed_mode_nudges_when_nothing_is_exported(narrowed: ScenarioRun) -> None:
    starts = [e for e in narrowed.telemetry if e.get("event") == "session_start"]
    assert [e.get("mode") for e in starts] == ["advise"], narrowed.diagnostics()
    assert sum(nudge_count(r.body) for r in narrowed.role_requests("sub")) > 0


# --------------------------------------------------------------------------- #
# run 2: frontmatter registration, a bare agent and a plugin's agent

AGENTS = ("salma", "oholiab", "nathan", "zadok")
RUN2_SUB = ("read1", "lookup", "read2")


def _plain_agent(name: str) -> str:
    return f"---\nname: {name}\ndescription: {name} (e2e)\ntools: Read, Bash\n---\nFixture agent.\n"


def _with_evidence(text: str, project: Project, prefix: str) -> str:
    """Each of our frontmatter lines gets an evidence handler in its group,
    labelled with the event key the line sits under."""
    out = []
    event = ""
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.rstrip(":") in hook_chain.EVENTS and stripped.endswith(":"):
            event = stripped[:-1]
        elif stripped.startswith("- {") and hook_chain.is_ours(stripped):
            group = json.loads(stripped[2:])
            evidence = _evidence(project, f"{prefix}{event}")
            if "if" in group["hooks"][0]:  # start exactly when ours does
                evidence["if"] = group["hooks"][0]["if"]
            group["hooks"].append(evidence)
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}- {json.dumps(group)}\n")
            continue
        out.append(line)
    return "".join(out)


@pytest.fixture(scope="module")
def frontmatter(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude, graphify_bin: Path
) -> tuple[ScenarioRun, Path]:
    project = _project(tmp_path_factory, "frontmatter", graphify_bin)
    agents = project.repo / ".claude" / "agents"
    for name in AGENTS:
        (agents / f"{name}.md").write_text(_plain_agent(name), encoding="utf-8")
    _install(project, "--scope", "agents", "--mode", "advise")
    hizkiah = agents / "hizkiah.md"
    hizkiah.write_text(_with_evidence(hizkiah.read_text(), project, "fm-"), encoding="utf-8")

    # the plugin `mishkan` brings its own salma, with the very same frontmatter hooks
    plugin = project.root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "mishkan", "version": "0.0.1", "description": "e2e"})
    )
    (plugin / "agents").mkdir()
    command = next(h.command for h in hook_chain.ours(agent_file.read_hooks(hizkiah.read_text())))
    body = AGENT_FILE.replace("name: hizkiah", "name: salma").replace("Hizkiah", "Salma")
    installed = agent_file.install(body, command or "", hook_chain.TOOL_EVENTS)
    (plugin / "agents" / "salma.md").write_text(_with_evidence(installed, project, "plugin-fm-"))

    _edit_settings(
        project,
        lambda doc: (
            doc["hooks"]
            .setdefault("PreToolUse", [])
            .append({"matcher": "*", "hooks": [_evidence(project, "all-PreToolUse")]})
        ),
    )
    source = str(project.repo / SOURCE_REL)
    sub: Script = [
        ToolUse("read1", "Read", {"file_path": source}),
        ToolUse("lookup", "Bash", {"command": LOOKUP_COMMAND, "description": "graph"}),
        ToolUse("read2", "Read", {"file_path": source}),
        Text("done"),
    ]
    main: Script = [
        ToolUse(
            "launch_bare", "Agent", {"subagent_type": "hizkiah", "description": "a", "prompt": "x"}
        ),
        ToolUse(
            "launch_plugin",
            "Agent",
            {"subagent_type": "mishkan:salma", "description": "b", "prompt": "y"},
        ),
        Text("done"),
    ]
    result = run_scenario(
        "frontmatter",
        project,
        claude_bin,
        "bypassPermissions",
        script={"main": main, "sub": sub},
        extra_args=["--plugin-dir", str(plugin), "--debug"],
    )
    _completed(result, ("launch_bare", "launch_plugin", *RUN2_SUB))
    return result, plugin


def _pre_by_agent(run_: ScenarioRun) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i in _fired(run_, "all-PreToolUse"):
        out.setdefault(str(i.get("agent_type") or "main"), []).append(str(i.get("tool_name")))
    return out


def test_frontmatter_fires_for_the_bare_agent_only(frontmatter: tuple[ScenarioRun, Path]) -> None:
    run_, _plugin = frontmatter
    calls = _pre_by_agent(run_)
    assert calls.get("hizkiah") == ["Read", "Bash", "Read"], calls
    assert calls.get("main") == ["Agent", "Agent"], calls
    pre = _fired(run_, "fm-PreToolUse")
    assert [i.get("agent_type") for i in pre] == ["hizkiah"] * 3, run_.diagnostics()
    post = _fired(run_, "fm-PostToolUse")
    assert [(i.get("agent_type"), i.get("tool_name")) for i in post] == [("hizkiah", "Bash")]
    agents = {e.get("agent_type") for e in run_.telemetry_calls()}
    assert agents == {"hizkiah"}, run_.diagnostics()  # nothing for the main thread's calls
    assert [e.get("mode") for e in run_.telemetry if e.get("event") == "session_start"] == [
        "advise"
    ]


def test_a_plugin_agent_runs_no_frontmatter_hooks(frontmatter: tuple[ScenarioRun, Path]) -> None:
    run_, plugin = frontmatter
    calls = _pre_by_agent(run_)
    assert calls.get("mishkan:salma") == ["Read", "Bash", "Read"], calls  # it ran ...
    assert [c for c in run_.hook_calls if c["event_arg"].startswith("plugin-fm-")] == []
    assert not [e for e in run_.telemetry_calls() if e.get("agent_type") == "mishkan:salma"]
    logs = run_.cli.stderr + "".join(
        p.read_text(errors="replace") for p in (run_.project.home / ".claude" / "debug").glob("*")
    )
    if run_.claude is not None and run_.claude.has("plugin_hooks_notice"):
        assert "sets hooks, which is ignored for plugin agents" in logs  # ... and says why
    # routing check reports it, given the same plugin
    out = run(
        [
            *mishkan_command(),
            "routing",
            "check",
            "--project",
            str(run_.project.repo),
            "--plugin-dir",
            str(plugin),
            "--user-dir",
            str(run_.project.home / ".claude"),
        ],
        cwd=run_.project.root,
        env={"PATH": base_path(), "HOME": str(run_.project.home)},
        check=False,
    ).stdout
    assert "ignores hooks in a plugin agent's frontmatter" in out


# --------------------------------------------------------------------------- #
# runs 3-7: every way to turn the hook off

OFF_SUB = ("read1", "grep")


def _off_script(repo: Path) -> dict[str, Script]:
    source = str(repo / SOURCE_REL)
    return {
        "main": [
            ToolUse(
                "launch", "Agent", {"subagent_type": "hizkiah", "description": "a", "prompt": "x"}
            ),
            Text("done"),
        ],
        "sub": [
            ToolUse("read1", "Read", {"file_path": source}),
            ToolUse("grep", "Grep", {"pattern": SYMBOL, "path": str(repo)}),
            Text("done"),
        ],
    }


@pytest.mark.parametrize(
    "way",
    [
        "export",
        "settings.local.json",
        "~/.claude/settings.json",
        "claude --settings",
        "install --mode off",
        "uninstall",
    ],
)
def test_every_off_switch(
    way: str, tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude, graphify_bin: Path
) -> None:
    name = "off-" + "".join(c if c.isalnum() else "-" for c in way)
    project = _project(tmp_path_factory, name, graphify_bin)
    _install(project, "--mode", "off" if way == "install --mode off" else "advise")
    if way == "uninstall":
        _mishkan(project, "install", "--project", str(project.repo), "--uninstall")
    _edit_settings(project, lambda doc: doc.setdefault("hooks", {}))
    env: dict[str, str] = {}
    args: list[str] = []
    if way == "export":
        env["MISHKAN_GRAPHIFY_NUDGE"] = "off"
    elif way == "settings.local.json":
        local = project.repo / ".claude" / "settings.local.json"
        local.write_text('{"env": {"MISHKAN_GRAPHIFY_NUDGE": "off"}}\n')
    elif way == "~/.claude/settings.json":
        user = project.home / ".claude" / "settings.json"
        user.parent.mkdir(parents=True, exist_ok=True)
        user.write_text('{"env": {"MISHKAN_GRAPHIFY_NUDGE": "off"}}\n')
    elif way == "claude --settings":
        args = ["--settings", '{"env": {"MISHKAN_GRAPHIFY_NUDGE": "off"}}']
    result = run_scenario(
        "off",
        project,
        claude_bin,
        "bypassPermissions",
        script=_off_script(project.repo),
        extra_env=env,
        extra_args=args,
    )
    _completed(result, ("launch", *OFF_SUB))
    assert sum(nudge_count(r.body) for r in result.requests) == 0, result.diagnostics()
    assert result.telemetry_calls() == [], result.diagnostics()
    starts = [e.get("mode") for e in result.telemetry if e.get("event") == "session_start"]
    assert starts == ([] if way == "uninstall" else ["off"]), result.diagnostics()


def test_a_project_env_pin_defeats_the_exported_off_switch(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude, graphify_bin: Path
) -> None:
    """Why install writes no env and routing check flags one: settings `env`
    beats what the user exported."""
    project = _project(tmp_path_factory, "pinned", graphify_bin)
    _install(project, "--mode", "telemetry")
    _edit_settings(
        project, lambda doc: doc.setdefault("env", {}).update(MISHKAN_GRAPHIFY_NUDGE="advise")
    )
    result = run_scenario(
        "pinned",
        project,
        claude_bin,
        "bypassPermissions",
        script=_off_script(project.repo),
        extra_env={"MISHKAN_GRAPHIFY_NUDGE": "off"},
    )
    _completed(result, ("launch", *OFF_SUB))
    starts = [e.get("mode") for e in result.telemetry if e.get("event") == "session_start"]
    assert starts == ["advise"], result.diagnostics()
    assert sum(nudge_count(r.body) for r in result.requests) > 0


# --------------------------------------------------------------------------- #
# the refresh command install prints, run for real


def test_the_printed_refresh_command_gives_routing_check_a_trigger(
    tmp_path_factory: pytest.TempPathFactory, graphify_bin: Path
) -> None:
    project = _project(tmp_path_factory, "refresh", graphify_bin)
    printed = _install(project)
    command = next(line.strip() for line in printed.splitlines() if "graphify hook install" in line)
    # install linked graphify-out -> .graphify: the command needs no GRAPHIFY_OUT
    assert command == f"cd {project.repo} && graphify hook install"
    assert os.readlink(project.repo / "graphify-out") == ".graphify"
    env = {"PATH": base_path(), "HOME": str(project.home)}
    run(["/bin/sh", "-c", command], cwd=project.root, env=env)
    check = [*mishkan_command(), "routing", "check", "--project", str(project.repo)]
    out = run(
        [*check, "--user-dir", str(project.home / ".claude")],
        cwd=project.root,
        env=env,
        check=False,
    )
    assert "graph-refresh" not in out.stdout, out.stdout
    assert "graph refresh: graphify's git hooks are installed" in _install(project)
    assert os.access(project.repo / ".git" / "hooks" / "post-commit", os.X_OK)
    assert MARKER not in out.stdout
