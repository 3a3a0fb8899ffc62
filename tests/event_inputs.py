"""One hook input per event the hook is registered for, as the real CLI sent
them (../shared/reference/claude-code-hooks; PostToolUseFailure from
tests/hook/data), moved to a project: what a test feeds the registered command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.shared_data import shared_path

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart")
FAILURES = Path(__file__).parent / "hook" / "data" / "post_tool_use_failure.jsonl"


def inputs(project: Path) -> dict[str, dict[str, Any]]:
    """One input per event, as the CLI sent it, moved to ``project``: a
    subagent's where the capture has one."""
    reference = shared_path("reference/claude-code-hooks", "the captured Claude Code hook inputs")
    found: dict[str, dict[str, Any]] = {}
    lines = (reference / "agent-scenario-hook-inputs.jsonl").read_text().splitlines()
    for line in lines:
        data = json.loads(line)["stdin"]
        event = data.get("hook_event_name")
        if event in EVENTS and (event not in found or "agent_type" in data):
            found[event] = data
    found["PostToolUseFailure"] = json.loads(FAILURES.read_text().splitlines()[0])
    for data in found.values():
        data["cwd"] = str(project)
    assert sorted(found) == sorted(EVENTS)
    return found
