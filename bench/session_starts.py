"""Interpreter starts and hook milliseconds per 100 tool calls, by registration.

Claude Code starts a fresh process for every hook a call matches. So what a
session pays for graphify-nudge is (starts per call) x (cost of a start). The
cold-start bench (bench/cold_start.py) measures the second factor; this one
measures the first, and the product, for a realistic session:

* a mix of 100 tool calls (:data:`MIX`), most of them from the main thread
  and from agents out of D-009's scope, some from the five in-scope agents,
  a few lookups, a few that fail (Claude Code then fires PostToolUseFailure);
* five registrations (:func:`arms`):

  - ``before``: main at 47db6e0: PreToolUse and PostToolUse on ``*`` in
    settings, no PostToolUseFailure;
  - ``settings``: ``mishkan install`` at 9707cc6: PreToolUse on ``*``,
    PostToolUse and PostToolUseFailure only for Bash and graphify MCP tools;
  - ``settings-if``: ``mishkan install`` now: the Bash half of the Post
    groups has ``if: Bash(graphify *)`` (hook_chain.GROUPS), so a Bash call
    that is no lookup starts nothing when it returns (CLI 2.1.85 and later);
  - ``agents`` / ``agents-if``: ``mishkan install --scope agents``, before and
    after the same change: the tool events in the five agents' frontmatter,
    so other calls start nothing.

  Each arm also pays one SessionStart.

Which hooks a call starts is decided exactly as CLI 2.1.332 decides it
(:func:`mishkan_core.hook_chain.matcher_matches` and ``if_matches``; verified
end to end on that CLI in tests/e2e/test_e2e_registration.py). On a CLI
before 2.1.85 the ``-if`` arms cost what the arms without it cost.

Each start is then *run*: the command ``mishkan install`` registered,
through ``/bin/sh -c`` as Claude Code runs it, with the hook input Claude
Code would send, in a real git project with a fresh graph. The arms are
interleaved round by round, next to a baseline of ``python -I -S -c pass``
starts in the same run, and the report gives medians
over rounds: starts and total hook milliseconds per 100 calls, and each arm
against ``before``.

    python bench/session_starts.py [--rounds 7] [--python /abs/python3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

SCOPE = ("hizkiah", "salma", "oholiab", "nathan", "zadok")
OTHERS = ("general-purpose", "Explore", "test-runner")
LOOKUP = "graphify explain 'apply_overlay' --graph .graphify/graph.json"

#: (who, tool, input, fails, count). "main" is the main thread; others are
#: agent types. 100 calls: 52 main thread, 22 other agents, 26 in scope; 5 fail.
MIX: list[tuple[str, str, dict[str, Any], bool, int]] = [
    ("main", "Read", {"file_path": "src/overlay.py"}, False, 14),
    ("main", "Bash", {"command": "git status"}, False, 8),
    ("main", "Bash", {"command": "python -m pytest -q"}, True, 2),
    ("main", "Grep", {"pattern": "render_page"}, False, 5),
    ("main", "Glob", {"pattern": "src/**/*.py"}, False, 5),
    ("main", "Edit", {"file_path": "src/render.py"}, False, 7),
    ("main", "Write", {"file_path": "NOTES.md"}, False, 2),
    ("main", "TodoWrite", {"todos": []}, False, 4),
    ("main", "Agent", {"subagent_type": "hizkiah", "prompt": "x"}, False, 3),
    ("main", "TaskOutput", {"task_id": "b1"}, False, 2),
    ("general-purpose", "Read", {"file_path": "docs/guide.md"}, False, 6),
    ("general-purpose", "WebFetch", {"url": "https://example.org"}, False, 2),
    ("Explore", "Grep", {"pattern": "TODO"}, False, 4),
    ("Explore", "Glob", {"pattern": "**/*.md"}, False, 3),
    ("Explore", "Read", {"file_path": "src/render.py"}, False, 4),
    ("test-runner", "Bash", {"command": "python -m pytest -q tests"}, True, 1),
    ("test-runner", "Bash", {"command": "python -m pytest -q tests/unit"}, False, 2),
    ("hizkiah", "Read", {"file_path": "src/overlay.py"}, False, 5),
    ("hizkiah", "Bash", {"command": "grep -rn apply_overlay ."}, False, 2),
    ("hizkiah", "Bash", {"command": LOOKUP}, False, 2),
    ("hizkiah", "Edit", {"file_path": "src/overlay.py"}, False, 3),
    ("salma", "Grep", {"pattern": "render_page"}, False, 2),
    ("salma", "Bash", {"command": "graphify explain 'Option'"}, True, 1),
    ("salma", "mcp__graphify__query_graph", {"question": "who calls render_page"}, False, 1),
    ("salma", "Read", {"file_path": "src/render.py"}, False, 3),
    ("zadok", "Read", {"file_path": "src/render.py"}, False, 3),
    ("zadok", "Bash", {"command": "git diff"}, False, 2),
    ("zadok", "Bash", {"command": "ruff check ."}, True, 1),
    ("nathan", "Read", {"file_path": "src/overlay.py"}, False, 1),
]


#: one matcher group: (matcher, the handler's ``if``)
Group = tuple[Optional[str], Optional[str]]


@dataclass(frozen=True)
class Arm:
    name: str
    describe: str
    #: event -> the groups registered for it (each starts the hook when its
    #: matcher and its ``if`` let the call through)
    groups: dict[str, tuple[Group, ...]]
    agents_only: bool  # the tool events are registered only for the five agents


def arms() -> list[Arm]:
    from mishkan_core import hook_chain as hc

    #: main at 9707cc6: one lookup group per Post event, no ``if``
    narrowed: dict[str, tuple[Group, ...]] = {e: ((hc.MATCHERS[e], None),) for e in hc.TOOL_EVENTS}
    with_if = {e: hc.GROUPS[e] for e in hc.TOOL_EVENTS}
    return [
        Arm(
            "before",
            "settings: PreToolUse and PostToolUse on '*' (main 47db6e0)",
            {"PreToolUse": (("*", None),), "PostToolUse": (("*", None),)},
            False,
        ),
        Arm(
            "settings",
            "settings: PreToolUse '*', Post/PostFailure on Bash and graphify MCP (main 9707cc6)",
            narrowed,
            False,
        ),
        Arm(
            "settings-if",
            "settings: the same, Bash only with if: Bash(graphify *) (CLI 2.1.85+)",
            with_if,
            False,
        ),
        Arm(
            "agents",
            "the five agents' frontmatter (mishkan install --scope agents, main 9707cc6)",
            narrowed,
            True,
        ),
        Arm(
            "agents-if",
            "the five agents' frontmatter, with if (CLI 2.1.85+)",
            with_if,
            True,
        ),
    ]


def calls() -> list[tuple[str, str, dict[str, Any], bool]]:
    """The mix, interleaved deterministically so no arm sees a lucky order."""
    expanded = [(who, tool, data, fails) for who, tool, data, fails, n in MIX for _ in range(n)]
    # a fixed shuffle: stride through the list with a step coprime to its length
    step = 37
    assert len(expanded) == 100
    return [expanded[(i * step) % len(expanded)] for i in range(len(expanded))]


def starts(arm: Arm, session: list[tuple[str, str, dict[str, Any], bool]]) -> list[tuple[str, int]]:
    """(event, call index) of every hook start ``arm`` causes; SessionStart first.
    A call starts each group whose matcher and ``if`` let it through, exactly as
    CLI 2.1.332 decides (hook_chain.matcher_matches and if_matches, verified end
    to end in tests/e2e/test_e2e_registration.py)."""
    from mishkan_core import hook_chain as hc

    out: list[tuple[str, int]] = [("SessionStart", -1)]
    for i, (who, tool, data, fails) in enumerate(session):
        if arm.agents_only and who not in SCOPE:
            continue
        for event in ("PreToolUse", "PostToolUseFailure" if fails else "PostToolUse"):
            for matcher, condition in arm.groups.get(event, ()):
                if hc.matcher_matches(matcher, tool) and hc.if_matches(condition, tool, data):
                    out.append((event, i))
    return out


# ---------------------------------------------------------------------------
# A project to run the hook in


def _git(root: Path, *argv: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(
        ["git", *ident, "-C", str(root), *argv], check=True, capture_output=True, env=env
    )


def make_project(root: Path, python: str) -> str:
    """A git project with a fresh graph and the hook installed (advise mode);
    returns the registered command."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "overlay.py").write_text("def apply_overlay(page, layer):\n    return page\n")
    (root / "src" / "render.py").write_text("from src.overlay import apply_overlay\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "bench project")
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    (root / ".graphify").mkdir()
    (root / ".graphify" / "graph.json").write_text(
        json.dumps({"nodes": [], "links": [], "built_at_commit": head})
    )
    from mishkan_core import hook_chain
    from mishkan_core.cli import main as mishkan

    argv = ["install", "--project", str(root), "--mode", "advise", "--python", python]
    with open(os.devnull, "w") as sink:
        stdout, sys.stdout = sys.stdout, sink
        try:
            if mishkan(argv) != 0:
                raise SystemExit("bench: mishkan install failed")
        finally:
            sys.stdout = stdout
    doc = json.loads((root / ".claude" / "settings.json").read_text())
    return next(h.command for h in hook_chain.ours(doc["hooks"]) if h.command)


def hook_input(root: Path, session_id: str, event: str, call: Any, index: int) -> bytes:
    data: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": f"/tmp/.claude/projects/bench/{session_id}.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event == "SessionStart":
        data["source"] = "startup"
        return json.dumps(data).encode()
    who, tool, tool_input, _fails = call
    if who != "main":
        data["agent_id"] = f"a{abs(hash(who)) % 10_000:04d}"
        data["agent_type"] = who
    data["tool_name"] = tool
    data["tool_input"] = {
        k: (str(root / v) if k == "file_path" else v) for k, v in tool_input.items()
    }
    data["tool_use_id"] = f"toolu_bench{index:04d}"
    if event == "PostToolUse":
        data["tool_response"] = {"stdout": "Node: apply_overlay()\n  src/overlay.py:L1\n"}
    elif event == "PostToolUseFailure":
        data["error"] = "Exit code 3\nAmbiguous: 'Option' matches 4 nodes in different files"
    return json.dumps(data).encode()


def _run(command: str, stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bool]:
    """Milliseconds from spawn to reap, and whether the hook printed advice."""
    started = time.perf_counter_ns()
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    spent = (time.perf_counter_ns() - started) / 1e6
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"bench: the hook failed: {done.stderr.decode()[:200]}")
    return spent, bool(done.stdout)


def measure(rounds: int, python: str) -> dict[str, Any]:
    from mishkan_core import machine_config

    session = calls()
    plan = {arm.name: starts(arm, session) for arm in arms()}
    bare = f"{python} -I -S -c pass"
    totals: dict[str, list[float]] = {name: [] for name in plan}
    per_start: dict[str, list[float]] = {name: [] for name in [*plan, "bare"]}
    advised: dict[str, int] = dict.fromkeys(plan, 0)
    prefix = "mishkan-bench-sessions-"
    # install's config and bytecode go into the throwaway dir, not the user's
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, machine_config.elsewhere(Path(tmp)):
        root = Path(tmp) / "project"
        command = make_project(root, python)
        names = list(plan)
        for r in range(rounds):
            # rotate the order every round: no arm always runs first (cold) or last
            for name in names[r % len(names) :] + names[: r % len(names)]:
                events = plan[name]
                telemetry = Path(tmp) / f"telemetry-{name}-{r}"
                env = {
                    **{k: v for k, v in os.environ.items() if not k.startswith("MISHKAN_")},
                    "CLAUDE_PROJECT_DIR": str(root),
                    "MISHKAN_TELEMETRY_DIR": str(telemetry),
                }
                session_id = f"bench-{name}-{r}"
                runs = [
                    _run(
                        command,
                        hook_input(root, session_id, ev, session[i] if i >= 0 else None, i),
                        env,
                        root,
                    )
                    for ev, i in events
                ]
                totals[name].append(sum(ms for ms, _printed in runs))
                per_start[name].extend(ms for ms, _printed in runs)
                advised[name] += sum(printed for _ms, printed in runs)
            # the baseline, in the same round: a bare interpreter through /bin/sh
            per_start["bare"].extend(_run(bare, b"", dict(os.environ), root)[0] for _ in range(40))
    bare_ms = statistics.median(per_start["bare"])
    result: dict[str, Any] = {
        "python": python,
        "rounds": rounds,
        "calls": len(session),
        "mix": mix_summary(session),
        "bare_start_ms": round(bare_ms, 2),
        "arms": {},
    }
    before = statistics.median(totals["before"])
    for arm in arms():
        total = statistics.median(totals[arm.name])
        result["arms"][arm.name] = {
            "describe": arm.describe,
            "starts": len(plan[arm.name]),
            "starts_by_event": _by_event(plan[arm.name]),
            "hook_ms": round(total, 1),
            "start_p50_ms": round(statistics.median(per_start[arm.name]), 2),
            "vs_before": round(total / before, 3),
            "advisories_per_session": round(advised[arm.name] / rounds, 1),
            "bare_equivalent_ms": round(len(plan[arm.name]) * bare_ms, 1),
        }
    return result


def _by_event(events: list[tuple[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for event, _i in events:
        out[event] = out.get(event, 0) + 1
    return out


def mix_summary(session: list[tuple[str, str, dict[str, Any], bool]]) -> dict[str, int]:
    return {
        "main thread": sum(1 for c in session if c[0] == "main"),
        "other agents": sum(1 for c in session if c[0] in OTHERS),
        "in-scope agents": sum(1 for c in session if c[0] in SCOPE),
        "failed calls": sum(1 for c in session if c[3]),
        "lookups": sum(1 for c in session if "graphify" in c[1] or "graphify" in str(c[2])),
    }


def markdown(result: dict[str, Any]) -> str:
    mix = ", ".join(f"{v} {k}" for k, v in result["mix"].items())
    lines = [
        f"Per {result['calls']} tool calls ({mix}), plus one SessionStart; "
        f"{result['python']}, median of {result['rounds']} rounds; a bare "
        f"`-I -S -c pass` start took {result['bare_start_ms']} ms in the same run.",
        "",
        "| registration | starts | Pre / Post / PostFailure / SessionStart | hook ms "
        "| ms per start | advisories | vs before |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, arm in result["arms"].items():
        by = arm["starts_by_event"]
        split = " / ".join(
            str(by.get(e, 0))
            for e in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart")
        )
        lines.append(
            f"| {name}: {arm['describe']} | {arm['starts']} | {split} | {arm['hook_ms']} | "
            f"{arm['start_p50_ms']} | {arm['advisories_per_session']} | {arm['vs_before']:.2f}x |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="sessions per arm (default 7)")
    parser.add_argument(
        "--python",
        default=os.path.realpath(sys.executable),
        help="the interpreter to register (an absolute real binary, never a shim)",
    )
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        print("session_starts: --rounds must be at least 1", file=sys.stderr)
        return 2
    result = measure(args.rounds, os.path.realpath(args.python))
    sys.stdout.write(markdown(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main())
