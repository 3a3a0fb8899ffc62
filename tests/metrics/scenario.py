"""One scripted session, played through the real hook and written as transcripts.

The script interleaves two in-scope agents (hizkiah, salma), the main thread
and an out-of-scope agent (hiram); it has nudges respected within 3 calls,
one respected exactly at the 3rd call, some "respected" only at the 4th (too
late), Bash-carried greps and reads, an MCP lookup, a consulted-symbol
silence, an opt-out, and lookups both before and after triggers.

Expected figures (worked by hand, see EXPECTED below):

step agent   call                            trigger consulted decision respected
 1   main    Bash graphify query alpha       (main thread: not recorded)
 2   hizkiah Read src/f01.py                 yes   no   nudge   yes (step 5, 2nd call)
 3   salma   Grep beta_fn                    yes   no   nudge   no (lookup at 4th call)
 4   hizkiah Bash echo hi                    -
 5   hizkiah Bash graphify query f01_thing   lookup
 6   salma   Bash ls                         -
 7   salma   Read README.md                  no
 8   salma   Bash cat notes.txt              no
 9   salma   Bash graphify explain beta_fn   lookup (4th call after step 3)
10   hiram   Bash graphify query gamma       (out of scope: not recorded)
11   hizkiah Bash grep -rn gamma_fn src      yes   yes  nudge   no (12, 13, 14)
12   hizkiah Read src/f02.py                 yes   yes  nudge   yes (step 15, 3rd call)
13   hizkiah Grep delta_fn                   yes   yes  nudge   yes (step 15, 2nd call)
14   hizkiah Grep beta_fn                    yes   yes  silent (consulted_symbol)
15   hizkiah mcp__graphify__query delta_fn   lookup
16   salma   Grep eps_fn                     yes   yes  nudge   no (17, 18, 19)
17   salma   Read src/f03.py                 yes   yes  nudge   yes (step 20, 3rd call)
18   salma   Bash echo x                     -
19   salma   Bash echo y                     -
20   salma   Bash graphify path f03 x        lookup
21   hizkiah Read src/f04.py (opt-out)       yes   yes  opt_out
22   main    Read src/f05.py                 (main thread: not recorded)
23   hiram   Read src/f06.py                 (out of scope: not recorded)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import graphify_nudge_index

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "graphify_nudge.py"
MARKER = "[graphify-nudge]"

AGENTS = {
    "hizkiah": "a1b2c3d4e5f6a7b8c",
    "salma": "b9c8d7e6f5a4b3c2d",
    "hiram": "c0ffee00c0ffee001",
}


@dataclass
class Step:
    agent: str  # "main" or an agent type
    tool: str
    tool_input: dict[str, Any]
    response: Any = field(default_factory=lambda: {"stdout": "", "stderr": ""})


def script(root: str) -> list[Step]:
    def p(rel: str) -> str:
        return f"{root}/{rel}"

    return [
        Step("main", "Bash", {"command": "graphify query alpha", "description": "q"}),
        Step("hizkiah", "Read", {"file_path": p("src/f01.py")}),
        Step("salma", "Grep", {"pattern": "beta_fn", "path": root, "output_mode": "content"}),
        Step("hizkiah", "Bash", {"command": "echo hi", "description": "Say hi"}),
        Step("hizkiah", "Bash", {"command": "graphify query f01_thing", "description": "q"}),
        Step("salma", "Bash", {"command": "ls", "description": "list"}),
        Step("salma", "Read", {"file_path": p("README.md")}),
        Step("salma", "Bash", {"command": "cat notes.txt", "description": "notes"}),
        Step("salma", "Bash", {"command": "graphify explain beta_fn", "description": "q"}),
        Step("hiram", "Bash", {"command": "graphify query gamma", "description": "q"}),
        Step("hizkiah", "Bash", {"command": "grep -rn gamma_fn src", "description": "g"}),
        Step("hizkiah", "Read", {"file_path": p("src/f02.py")}),
        Step("hizkiah", "Grep", {"pattern": "delta_fn", "path": root}),
        Step("hizkiah", "Grep", {"pattern": "beta_fn", "path": root}),
        Step("hizkiah", "mcp__graphify__query", {"question": "who calls delta_fn"}),
        Step("salma", "Grep", {"pattern": "eps_fn", "path": root}),
        Step("salma", "Read", {"file_path": p("src/f03.py")}),
        Step("salma", "Bash", {"command": "echo x", "description": "x"}),
        Step("salma", "Bash", {"command": "echo y", "description": "y"}),
        Step("salma", "Bash", {"command": "graphify path f03 x", "description": "q"}),
        Step(
            "hizkiah",
            "Read",
            {"file_path": p("src/f04.py"), "metadata": {"skip_graphify_nudge": True}},
        ),
        Step("main", "Read", {"file_path": p("src/f05.py")}),
        Step("hiram", "Read", {"file_path": p("src/f06.py")}),
    ]


#: the figures the scenario gives in mode advise (phase 2) with a hook that
#: answers (issue 30): each of the 7 advisories carries the answer (the
#: definitions, or what a file defines), so none opens a respect window and
#: the nudge-respect ratio has nothing to measure; the respect column above
#: is what a hook that only pointed to a lookup gave (POINTING)
EXPECTED = {
    "nudge_respect_ratio": None,
    "pre_read_consultation_rate": Fraction(7, 9),
    "answered_share": Fraction(7, 9),
    "graph_served_rate": Fraction(9, 9),
    "triggers": 9,
    "triggers_consulted": 7,
    "triggers_served": 9,
    "nudges": 7,
    "nudges_answered": 7,
    "nudges_respected": 0,
    "lookups": 4,
    "opt_outs": 1,
}
EXPECTED_AGENTS = {
    "hizkiah": {
        "triggers": 6,
        "triggers_consulted": 5,
        "nudges": 4,
        "nudges_answered": 4,
        "nudges_respected": 0,
        "lookups": 2,
        "opt_outs": 1,
    },
    "salma": {
        "triggers": 3,
        "triggers_consulted": 2,
        "nudges": 3,
        "nudges_answered": 3,
        "nudges_respected": 0,
        "lookups": 2,
        "opt_outs": 0,
    },
}
#: the same script's figures when its advisories only point (the respected
#: column of the table above): what telemetry without `answered` gives
POINTING = {"nudge_respect_ratio": Fraction(4, 7), "nudges_respected": 4}


#: the functions each source file defines (the script searches for these names)
DEFINITIONS = {
    "f01": ["f01_thing"],
    "f02": ["f02_thing", "beta_fn"],
    "f03": ["f03_thing", "gamma_fn"],
    "f04": ["f04_thing", "delta_fn"],
    "f05": ["f05_thing", "eps_fn"],
    "f06": ["f06_thing"],
    "f07": ["f07_thing"],
}


def _graph(head: str) -> dict[str, Any]:
    """graph.json in graphify 0.9.96's shape for the project's files: a node per
    file (`f01.py`) and per function (`beta_fn()`), with its source location."""
    nodes: list[dict[str, Any]] = []
    for stem, names in DEFINITIONS.items():
        source = f"src/{stem}.py"
        nodes.append(
            {"id": f"src_{stem}", "label": f"{stem}.py", "file_type": "code",
             "source_file": source, "source_location": "L1"}
        )  # fmt: skip
        for line, name in enumerate(names, 1):
            nodes.append(
                {"id": f"src_{stem}_{name}", "label": f"{name}()", "file_type": "code",
                 "source_file": source, "source_location": f"L{2 * line - 1}"}
            )  # fmt: skip
    return {"directed": False, "nodes": nodes, "links": [], "built_at_commit": head}


def make_project(tmp: Path) -> Path:
    """A git repo with source files and a fresh `.graphify/graph.json` that holds
    them (the hook advises only about what the graph holds)."""
    root = tmp / "proj"
    (root / "src").mkdir(parents=True)
    for stem, names in DEFINITIONS.items():
        body = "".join(f"def {name}():\n    pass\n" for name in names)
        (root / "src" / f"{stem}.py").write_text(body)
    (root / "README.md").write_text("# proj\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True, env=env)
    subprocess.run([*git, "add", "."], check=True, env=env)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True, env=env)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, env=env, capture_output=True, text=True
    ).stdout.strip()
    graph = root / ".graphify" / "graph.json"
    graph.parent.mkdir()
    graph.write_text(json.dumps(_graph(head)) + "\n")
    future = os.stat(graph).st_mtime + 3600  # newer than every source file
    os.utime(graph, (future, future))
    return root


@dataclass
class Played:
    """What one run of the script produced."""

    session: str
    root: str
    steps: list[Step]
    contexts: list[str | None]  # the additionalContext the hook printed, per step


class Hook:
    """The real hook file, run as ``python -I -S graphify_nudge.py`` per event."""

    def __init__(self, root: Path, telemetry: Path, mode: str, cap: int = 100) -> None:
        self.root = root
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "MISHKAN_TELEMETRY_DIR": str(telemetry),
            "MISHKAN_GRAPHIFY_NUDGE": mode,
            "MISHKAN_GRAPHIFY_NUDGE_CAP": str(cap),
            "CLAUDE_PROJECT_DIR": str(root),
        }
        # What `mishkan graph-index` does: the index before the first call, so
        # no trigger meets a missing index (the hook would build it detached).
        graphify_nudge_index.build_graph_index(self.env, str(root))

    def send(self, payload: dict[str, Any]) -> str:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(HOOK)],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=REPO,
            env=self.env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.decode()


def play(hook: Hook, session: str, steps: list[Step]) -> Played:
    """SessionStart, then Pre- and PostToolUse for every step, shaped like the
    captured inputs of Claude Code 2.1.197."""
    root = str(hook.root)
    transcript = f"/home/u/.claude/projects/-proj/{session}.jsonl"
    hook.send(
        {
            "session_id": session,
            "transcript_path": transcript,
            "cwd": root,
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    )
    contexts: list[str | None] = []
    for i, step in enumerate(steps, 1):
        base: dict[str, Any] = {
            "session_id": session,
            "transcript_path": transcript,
            "cwd": root,
            "prompt_id": "c6e21be8-678e-4488-9ed1-736255f9e0af",
            "permission_mode": "bypassPermissions",
        }
        if step.agent != "main":
            base["agent_id"] = AGENTS.get(step.agent, f"{step.agent}0123456789abcdef")
            base["agent_type"] = step.agent
        base["effort"] = {"level": "high"}
        tool_use_id = f"toolu_{i:04d}"
        pre = {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": step.tool,
            "tool_input": step.tool_input,
            "tool_use_id": tool_use_id,
        }
        out = hook.send(pre).strip()
        context = None
        if out:
            context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            assert context.startswith(MARKER)
        contexts.append(context)
        post = {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": step.tool,
            "tool_input": step.tool_input,
            "tool_response": step.response,
            "tool_use_id": tool_use_id,
        }
        hook.send(post)
    _assert_not_self_disabled(hook)
    return Played(session, root, steps, contexts)


def _assert_not_self_disabled(hook: Hook) -> None:
    """The hook disables itself after one call over 200 ms; the exact ratios
    then cannot hold. Say so plainly instead of failing on a number."""
    directory = Path(hook.env["MISHKAN_TELEMETRY_DIR"])
    for path in directory.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if '"event":"self_disable"' in line:
                raise AssertionError(f"the hook self-disabled (a call took > 200 ms): {line}")


def session_off(hook: Hook, session: str) -> None:
    hook.send(
        {
            "session_id": session,
            "transcript_path": f"/x/{session}.jsonl",
            "cwd": str(hook.root),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    )


# ---------------------------------------------------------------------------
# Transcripts of the same session, in Claude Code 2.1.197's shape


def _iso(ts: float) -> str:
    moment = datetime.fromtimestamp(ts, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class _Writer:
    def __init__(self, path: Path, session: str, cwd: str, agent_id: str | None) -> None:
        self.fh = path.open("w", encoding="utf-8")
        self.session = session
        self.cwd = cwd
        self.agent_id = agent_id
        self.parent: str | None = None
        self.n = 0

    def line(self, kind: str, ts: float, **fields: Any) -> None:
        self.n += 1
        uuid = f"{self.agent_id or 'main'}-{self.n:06d}"
        obj: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None}
        if self.agent_id is not None:
            obj["agentId"] = self.agent_id
        obj.update(fields)
        obj.update(
            {
                "type": kind,
                "uuid": uuid,
                "timestamp": _iso(ts),
                "userType": "external",
                "entrypoint": "sdk-cli",
                "cwd": self.cwd,
                "sessionId": self.session,
                "version": "2.1.197",
                "gitBranch": "master",
            }
        )
        self.parent = uuid
        self.fh.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def close(self) -> None:
        self.fh.close()


def _assistant(content: list[dict[str, Any]], msg: str, agent: str | None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "message": {
            "id": msg,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8",
            "content": content,
            "stop_reason": "tool_use",
            "stop_sequence": None,
        },
        "requestId": "req_" + msg,
    }
    if agent is not None:
        fields["attributionAgent"] = agent
    return fields


def write_transcripts(
    played: Played,
    project_dir: Path,
    *,
    start: float = 1796015332.0,
    reminder_steps: frozenset[int] = frozenset(),
) -> Path:
    """Write ``<project_dir>/<session>.jsonl`` and its ``subagents/`` files.

    A step whose hook printed an advisory carries it as a
    ``hook_additional_context`` attachment, or (for steps in
    ``reminder_steps``) as a ``<system-reminder>`` in its tool_result message.
    """
    project_dir.mkdir(parents=True, exist_ok=True)
    session = played.session
    main = _Writer(project_dir / f"{session}.jsonl", session, played.root, None)
    sub_dir = project_dir / session / "subagents"
    sub_dir.mkdir(parents=True, exist_ok=True)
    writers: dict[str, _Writer] = {}
    main.line("user", start, message={"role": "user", "content": "go"})
    for name, agent_id in AGENTS.items():
        w = _Writer(sub_dir / f"agent-{agent_id}.jsonl", session, played.root, agent_id)
        writers[name] = w
        (sub_dir / f"agent-{agent_id}.meta.json").write_text(
            json.dumps({"agentType": name, "description": "task", "spawnDepth": 1})
        )
        main.line(
            "assistant",
            start + 0.001,
            **_assistant(
                [
                    {
                        "type": "tool_use",
                        "id": f"toolu_agent_{name}",
                        "name": "Agent",
                        "input": {"description": "t", "prompt": "p", "subagent_type": name},
                    }
                ],
                f"msg_agent_{name}",
                None,
            ),
        )
        w.line("user", start + 0.002, message={"role": "user", "content": f"{name} task"})
    for i, (step, context) in enumerate(zip(played.steps, played.contexts), 1):
        ts = start + i * 0.25
        w = main if step.agent == "main" else writers[step.agent]
        agent = None if step.agent == "main" else step.agent
        tool_id = f"toolu_{i:04d}"
        w.line(
            "assistant", ts, **_assistant([{"type": "text", "text": f"Step {i}."}], f"m{i}", agent)
        )
        w.line(
            "assistant",
            ts + 0.001,
            **_assistant(
                [{"type": "tool_use", "id": tool_id, "name": step.tool, "input": step.tool_input}],
                f"m{i}",
                agent,
            ),
        )
        result: list[dict[str, Any]] = [
            {"tool_use_id": tool_id, "type": "tool_result", "content": "ok"}
        ]
        if context is not None and i in reminder_steps:
            result.append(
                {
                    "type": "text",
                    "text": f"<system-reminder>\nPreToolUse:{step.tool} hook additional "
                    f"context: {context}\n</system-reminder>",
                }
            )
        elif context is not None:
            w.line(
                "attachment",
                ts + 0.05,
                attachment={
                    "type": "hook_additional_context",
                    "content": [context],
                    "hookName": f"PreToolUse:{step.tool}",
                    "toolUseID": tool_id,
                    "hookEvent": "PreToolUse",
                },
            )
        w.line(
            "user",
            ts + 0.1,
            message={"role": "user", "content": result},
            sourceToolAssistantUUID=w.parent,
        )
    for w in writers.values():
        w.close()
    main.line("assistant", start + 100, **_assistant([{"type": "text", "text": "done"}], "e", None))
    main.close()
    return project_dir
