"""`mishkan demo`: the whole D-009 loop on a small built-in project.

It builds a throwaway git project, gives it a graph (real `graphify` when it
is on PATH, else a minimal graph.json with the same `built_at_commit` tail),
installs the hook with `mishkan install --mode advise`, then plays a short
scripted session through the exact commands written into settings.json, the
way Claude Code would (each event's matcher decides whether the hook starts):
two agents, Read, Grep and Bash searches, a graphify lookup, and a
main-thread call. It prints what each call gave the model, or why it gave
nothing (the reason the hook recorded, in plain words), and ends with
`mishkan metrics` over the telemetry the hook wrote. `mishkan install` and
`mishkan metrics` run as a user runs them, each in a process of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from mishkan_core import child, graph_refresh, machine_config
from mishkan_core.metrics.glossary import why_silent

SESSION = "demo-5f0c2b1e"
FILES = {
    "src/overlay.py": "def apply_overlay(page, layer):\n    return merge(page, layer)\n\n\n"
    "def merge(page, layer):\n    return {**page, **layer}\n",
    "src/render.py": "from src.overlay import apply_overlay\n\n\n"
    "def render_page(page):\n    return apply_overlay(page, {'theme': 'dark'})\n",
    "README.md": "# demo project\n",
}
# (agent_type, agent_id, tool, tool_input, tool_response for PostToolUse or None)
SCRIPT: list[tuple[str | None, str | None, str, dict[str, Any], dict[str, Any] | None]] = [
    ("hizkiah", "a11", "Read", {"file_path": "{root}/src/overlay.py"}, None),
    ("hizkiah", "a11", "Bash", {"command": "grep -rn apply_overlay ."}, None),
    (
        "hizkiah",
        "a11",
        "Bash",
        {"command": "graphify explain 'apply_overlay' --graph .graphify/graph.json"},
        {"stdout": "Node: apply_overlay()\n  <-- render_page() [calls] src/render.py:L5\n"},
    ),
    ("hizkiah", "a11", "Read", {"file_path": "{root}/src/render.py"}, None),
    (None, None, "Read", {"file_path": "{root}/src/render.py"}, None),
    ("salma", "b22", "Grep", {"pattern": "render_page", "path": "{root}"}, None),
    ("salma", "b22", "Read", {"file_path": "{root}/README.md"}, None),
    ("salma", "b22", "Edit", {"file_path": "{root}/src/render.py"}, None),
    ("salma", "b22", "Bash", {"command": "python -m pytest -q"}, None),
    ("salma", "b22", "Bash", {"command": "graphify query 'who calls render_page'"}, None),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="build the demo project here and keep it (must not exist): a real install, "
        "whose hook bytecode goes to your cache as install puts it (without it, nothing "
        "is left anywhere)",
    )


def run(args: argparse.Namespace) -> int:
    if args.project and Path(args.project).exists():
        print(f"mishkan demo: error: {args.project} already exists", file=sys.stderr)
        return 2
    if shutil.which("git") is None:
        print("mishkan demo: error: git is not on PATH", file=sys.stderr)
        return 2
    if args.project:
        return _demo(Path(args.project).resolve())
    # the hook's bytecode and this machine's hook config go beside the
    # throwaway project, not into the user's (install writes both)
    with (
        tempfile.TemporaryDirectory(prefix="mishkan-demo-") as tmp,
        machine_config.elsewhere(Path(tmp)),
    ):
        return _demo(Path(tmp) / "project")


def _git(root: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid"]
    done = subprocess.run(
        ["git", *ident, "-C", str(root), *argv], check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def _build_project(root: Path) -> str:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "demo project")
    head = _git(root, "rev-parse", "HEAD")
    graphify = shutil.which("graphify")
    env = {**os.environ, "GRAPHIFY_OUT": ".graphify"}
    # in the dialect of the graphify found: `update .` where extract needs an LLM key
    argv = graph_refresh.build_argv(graph_refresh.graphify_at(graphify))
    if graphify:
        subprocess.run([graphify, *argv[1:]], cwd=root, env=env, capture_output=True, check=False)
    graph = root / ".graphify" / "graph.json"
    how = " ".join(argv)
    if not graph.exists():
        graph.parent.mkdir(exist_ok=True)
        body = {"nodes": _minimal_nodes(), "links": [], "hyperedges": [], "built_at_commit": head}
        graph.write_text(json.dumps(body))
        how = "a minimal graph.json (graphify is not installed)"
    import graphify_nudge_index  # the hook's index builder (`mishkan graph-index`)

    graphify_nudge_index.build_graph_index({"CLAUDE_PROJECT_DIR": str(root)}, str(root))
    return how


def _minimal_nodes() -> list[dict[str, str]]:
    """graphify 0.9.96's nodes for FILES: a node per file (`overlay.py`, L1) and
    per function (`apply_overlay()`, L<line>), so the graph holds what it would."""
    nodes = []
    for rel, text in FILES.items():
        if not rel.endswith(".py"):
            continue
        stem = rel[:-3].replace("/", "_")
        nodes.append({"id": stem, "label": rel.rsplit("/", 1)[-1], "file_type": "code",
                      "source_file": rel, "source_location": "L1"})  # fmt: skip
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("def "):
                name = line[4 : line.index("(")]
                nodes.append({"id": f"{stem}_{name}", "label": f"{name}()", "file_type": "code",
                              "source_file": rel, "source_location": f"L{number}"})  # fmt: skip
    return nodes


def _hook_input(root: Path, event: str, step: tuple[Any, ...], n: int) -> dict[str, Any]:
    agent_type, agent_id, tool, tool_input, response = step
    data: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": f"/tmp/.claude/projects/demo/{SESSION}.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
    }
    if agent_type:
        data["agent_id"], data["agent_type"] = agent_id, agent_type
    data["hook_event_name"] = event
    data["tool_name"] = tool
    data["tool_input"] = json.loads(json.dumps(tool_input).replace("{root}", str(root)))
    if event == "PostToolUse":
        data["tool_response"] = response or {}
    data["tool_use_id"] = f"toolu_demo{n:04d}"
    return data


def _fire(command: str, root: Path, data: dict[str, Any]) -> str:
    # the mode comes from --mode= on the registered command; an exported
    # MISHKAN_GRAPHIFY_NUDGE would win over it, so the demo does not pass one on
    env = {k: v for k, v in os.environ.items() if k != "MISHKAN_GRAPHIFY_NUDGE"}
    env["CLAUDE_PROJECT_DIR"] = str(root)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(data).encode(),
        capture_output=True,
        env=env,
        cwd=root,
        timeout=30,
        check=False,
    )
    if done.returncode != 0 or done.stderr:
        raise RuntimeError(f"hook exited {done.returncode}: {done.stderr.decode()[:200]}")
    return done.stdout.decode()


def _mishkan(*args: str) -> int:
    """``mishkan ARGS`` in a child, its output straight to this terminal."""
    sys.stdout.flush()
    return subprocess.run(child.mishkan_argv(*args), check=False).returncode


def _recorded(telemetry: Path) -> dict[str, dict[str, Any]]:
    """The hook's ``call`` lines of the demo session, by tool_use_id."""
    import graphify_nudge

    path = telemetry / f"{graphify_nudge.session_file_name(SESSION)}.jsonl"
    calls: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        record = json.loads(line)
        if record.get("event") == "call":
            calls[record.get("tool_use_id")] = record
    return calls


def _demo(root: Path) -> int:
    root.mkdir(parents=True)
    how = _build_project(root)
    print(f"project: {root}\ngraph:   {how}\n")
    print("$ mishkan install --project <project> --mode advise")
    if _mishkan("install", "--project", str(root), "--mode", "advise") != 0:
        return 2
    from mishkan_core import hook_chain

    settings = json.loads((root / ".claude" / "settings.json").read_text())
    ours = hook_chain.ours(settings["hooks"])
    registered = {h.event: h for h in ours}
    print(f"\nregistered: {registered['PreToolUse'].command}\n")
    start = {"session_id": SESSION, "cwd": str(root), "hook_event_name": "SessionStart"}
    _fire(registered["SessionStart"].command or "", root, {**start, "source": "startup"})
    telemetry = root / ".mishkan" / "telemetry"
    starts = 1
    for n, step in enumerate(SCRIPT, 1):
        who = step[0] or "main thread"
        shown = step[3].get("file_path") or step[3].get("pattern") or step[3].get("command")
        printed = ""
        for handler in ours:
            # as Claude Code decides: the event, the group's matcher, the handler's `if`
            if handler.event in ("PreToolUse", "PostToolUse") and hook_chain.starts(
                handler, step[2], step[3]
            ):
                data = _hook_input(root, handler.event, step, n)
                out = _fire(handler.command or "", root, data)
                printed = printed or out
                starts += 1
        context = json.loads(printed)["hookSpecificOutput"]["additionalContext"] if printed else ""
        if not context:
            context = "no advice: " + why_silent(_recorded(telemetry).get(f"toolu_demo{n:04d}"))
        print(f"{n:2}. {who:11} {step[2]:5} {str(shown).replace('{root}/', '')}")
        shown = context.replace("\n", "\n       ")  # an answer's lines, indented
        print(f"    -> {shown}")
    print(f"\nthe hook started {starts} times for {len(SCRIPT)} tool calls and a session start")
    print(f"\n$ mishkan metrics --telemetry-dir {telemetry} --sprint demo")
    return _mishkan("metrics", "--telemetry-dir", str(telemetry), "--sprint", "demo")
