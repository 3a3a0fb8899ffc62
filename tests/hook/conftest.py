"""Fixtures for the hook's tests: real git repos, hook inputs shaped like the
captured Claude Code 2.1.197 ones, and two ways to run the hook (a real
`python -I -S` subprocess, and in-process for speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import graphify_nudge
import graphify_nudge_index

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "graphify_nudge.py"
SESSION = "3d7f224f-d067-448e-a460-e76f9d5496bd"
AGENT_ID = "aa4daced19ec4f6fe"


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    out = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    )
    return out.stdout.strip()


#: functions src/names.py defines, one a line: distinct targets for tests
#: that need several (each advised once per agent), all in the graph
NAMES = ("sym0", "sym1", "sym2", "sym3", "second", "other", "x_other", "a1", "a2", "a3", "a4",
         "a5", "x2")  # fmt: skip


def make_repo(path: Path) -> Path:
    """A small project with one commit: src/app.py, src/main.py, src/names.py, docs."""
    (path / "src").mkdir(parents=True)
    (path / "src" / "app.py").write_text("def apply_overlay(x):\n    return helper(x)\n")
    (path / "src" / "main.py").write_text("from src.app import apply_overlay\n")
    (path / "src" / "names.py").write_text("".join(f"def {name}():\n" for name in NAMES))
    (path / "README.md").write_text("# demo\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    return path


#: what graphify 0.9.96 makes of `make_repo`'s two files: their nodes, the
#: function, and main.py's import of it (at the lines make_repo writes them)
REPO_NODES: list[dict[str, Any]] = [
    *({"id": f"src_names_{name}", "label": f"{name}()", "file_type": "code",
       "source_file": "src/names.py", "source_location": f"L{line}"}
      for line, name in enumerate(NAMES, 1)),
    {"id": "src_app", "label": "app.py", "file_type": "code", "source_file": "src/app.py",
     "source_location": "L1"},
    {"id": "src_main", "label": "main.py", "file_type": "code", "source_file": "src/main.py",
     "source_location": "L1"},
    {"id": "src_app_apply_overlay", "label": "apply_overlay()", "file_type": "code",
     "source_file": "src/app.py", "source_location": "L1"},
]  # fmt: skip
REPO_LINKS: list[dict[str, Any]] = [
    {"source": "src_app", "target": "src_app_apply_overlay", "relation": "contains",
     "confidence": "EXTRACTED", "source_file": "src/app.py", "source_location": "L1"},
    {"source": "src_main", "target": "src_app_apply_overlay", "relation": "imports_from",
     "confidence": "EXTRACTED", "source_file": "src/main.py", "source_location": "L1"},
]  # fmt: skip


def write_graph(
    repo: Path, built_at: str | None, rel: str = ".graphify/graph.json", mtime: float | None = None
) -> Path:
    """A graph.json shaped like graphify 0.9.96's, ending with built_at_commit."""
    graph = repo / rel
    graph.parent.mkdir(parents=True, exist_ok=True)
    body: dict[str, Any] = {
        "directed": True,
        # 0.9.96 records its release before the nodes
        "graph": {"schema_version": 1, "graphify_version": "0.9.96"},
        "nodes": REPO_NODES,
        "links": REPO_LINKS,
        "hyperedges": [],
    }
    if built_at is not None:
        body["built_at_commit"] = built_at
    graph.write_text(json.dumps(body, separators=(",", ":")))
    if mtime is not None:
        os.utime(graph, (mtime, mtime))
    return graph


def hook_input(
    repo: Path,
    tool_name: str | None = "Read",
    tool_input: dict[str, Any] | None = None,
    *,
    event: str = "PreToolUse",
    agent_type: str | None = "hizkiah",
    agent_id: str | None = AGENT_ID,
    session_id: str = SESSION,
    tool_response: Any = None,
    tool_use_id: str = "toolu_stub0013",
) -> dict[str, Any]:
    """The stdin Claude Code 2.1.197 sends (see shared/reference/claude-code-hooks)."""
    data: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": f"/tmp/home/.claude/projects/x/{session_id}.jsonl",
        "cwd": str(repo),
        "prompt_id": "c6e21be8-678e-4488-9ed1-736255f9e0af",
        "permission_mode": "bypassPermissions",
    }
    if agent_id is not None:
        data["agent_id"] = agent_id
    if agent_type is not None:
        data["agent_type"] = agent_type
    data["effort"] = {"level": "high"}
    data["hook_event_name"] = event
    if event == "SessionStart":
        data["source"] = "startup"
        for key in ("prompt_id", "permission_mode", "agent_id", "agent_type", "effort"):
            data.pop(key, None)
        return data
    data["tool_name"] = tool_name
    data["tool_input"] = (
        tool_input if tool_input is not None else {"file_path": str(repo / "src/app.py")}
    )
    if event == "PostToolUse":
        data["tool_response"] = tool_response if tool_response is not None else {}
        data["duration_ms"] = 3
    data["tool_use_id"] = tool_use_id
    return data


class Hook:
    """Runs the hook against one project, with one environment."""

    def __init__(self, repo: Path, telemetry: Path, mode: str = "advise") -> None:
        self.repo = repo
        self.telemetry = telemetry
        self.env: dict[str, str] = {
            # not the developer's PATH: the index builder reads the release of
            # the graphify found there, and its dialect would change the advice
            "PATH": "/usr/bin:/bin",
            "CLAUDE_PROJECT_DIR": str(repo),
            "MISHKAN_TELEMETRY_DIR": str(telemetry),
            "MISHKAN_GRAPHIFY_NUDGE": mode,
        }
        # The hook answers only from a current index. Before each call, build
        # it synchronously, as a session finds it once the background build is
        # done: no background build then starts (the index is current), and
        # none can finish mid-test and change the decisions under test. Tests
        # of the index's own states turn this off.
        self.auto_index = True

    def environ(self) -> dict[bytes, bytes]:
        return {k.encode(): v.encode() for k, v in self.env.items()}

    def index(self) -> None:
        """Build the index of the graph the hook would use, if there is one."""
        if not self.auto_index or "off" in (
            self.env.get("MISHKAN_GRAPHIFY_INDEX", "").lower(),
            self.env.get("MISHKAN_GRAPHIFY_NUDGE", "").strip().lower(),
        ):
            return  # no index to read, or a hook that does nothing
        try:
            graphify_nudge_index.build_graph_index(self.env, str(self.repo))
        except (graphify_nudge_index.GraphIndexError, OSError):
            pass  # no graph, one the builder refuses, a hostile index directory: no index

    def __call__(self, data: dict[str, Any] | bytes, **kwargs: Any) -> str:
        """In process, through the same fail-open wrapper main() uses."""
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        self.index()
        return graphify_nudge.guarded_run(raw, self.environ())

    def call(self, *args: Any, **kwargs: Any) -> str:
        return self(hook_input(self.repo, *args, **kwargs))

    def subprocess(
        self, data: dict[str, Any] | bytes, python: str = sys.executable, hook_file: Path = HOOK
    ) -> subprocess.CompletedProcess[bytes]:
        """The real file, as Claude Code runs it: a fresh `python -I -S`."""
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        self.index()
        return subprocess.run(
            [python, "-I", "-S", str(hook_file)],
            input=raw,
            capture_output=True,
            env=self.env,
            timeout=30,
            check=False,
        )

    def events(self, session: str = SESSION) -> list[dict[str, Any]]:
        path = self.telemetry / f"{graphify_nudge.session_file_name(session)}.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def calls(self, session: str = SESSION) -> list[dict[str, Any]]:
        return [e for e in self.events(session) if e["event"] == "call"]


def context_of(output: str) -> str:
    """The additionalContext of an advise-mode output, checking its exact shape."""
    payload = json.loads(output)
    assert list(payload) == ["hookSpecificOutput"]
    specific = payload["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == "PreToolUse"
    text = specific["additionalContext"]
    assert isinstance(text, str)
    return text


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def hook(repo: Path, tmp_path: Path) -> Hook:
    return Hook(repo, tmp_path / "telemetry")


@pytest.fixture
def fresh_graph(repo: Path) -> Path:
    return write_graph(repo, git(repo, "rev-parse", "HEAD"))


HookFactory = Callable[..., Hook]

#: tests/hook/data holds a small project for graphify to build a graph from, not tests
collect_ignore = ["data"]
