"""bench/session_starts.py: the mix and the starts it implies (nothing timed here)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import session_starts as bench


def test_the_mix_is_a_realistic_100_calls() -> None:
    session = bench.calls()
    assert len(session) == 100
    assert sorted(map(repr, session)) == sorted(
        repr((who, tool, data, fails)) for who, tool, data, fails, n in bench.MIX for _ in range(n)
    )
    assert bench.mix_summary(session) == {
        "main thread": 52,
        "other agents": 22,
        "in-scope agents": 26,
        "failed calls": 5,
        "lookups": 4,
    }


def test_starts_per_registration() -> None:
    session = bench.calls()
    counts = {arm.name: bench._by_event(bench.starts(arm, session)) for arm in bench.arms()}
    assert counts == {
        # every call twice, a failed call's PostToolUseFailure never registered
        "before": {"SessionStart": 1, "PreToolUse": 100, "PostToolUse": 95},
        # PostToolUse only for Bash and graphify MCP: 17 of them; every failure is a Bash call
        "settings": {
            "SessionStart": 1,
            "PreToolUse": 100,
            "PostToolUse": 17,
            "PostToolUseFailure": 5,
        },
        # with if: Bash(graphify *): only the 2 Bash lookups and the MCP one after
        # success, the 1 failing lookup after failure (CLI 2.1.85+)
        "settings-if": {
            "SessionStart": 1,
            "PreToolUse": 100,
            "PostToolUse": 3,
            "PostToolUseFailure": 1,
        },
        # only the five agents' calls
        "agents": {"SessionStart": 1, "PreToolUse": 26, "PostToolUse": 7, "PostToolUseFailure": 2},
        "agents-if": {
            "SessionStart": 1,
            "PreToolUse": 26,
            "PostToolUse": 3,
            "PostToolUseFailure": 1,
        },
    }


def test_hook_inputs_look_like_claude_code(tmp_path: Path) -> None:
    call = ("salma", "Bash", {"command": "graphify explain 'Option'"}, True)
    data = json.loads(bench.hook_input(tmp_path, "s1", "PostToolUseFailure", call, 7))
    assert data["agent_type"] == "salma" and data["tool_use_id"] == "toolu_bench0007"
    assert data["hook_event_name"] == "PostToolUseFailure" and "error" in data
    main = json.loads(
        bench.hook_input(
            tmp_path, "s1", "PreToolUse", ("main", "Read", {"file_path": "a.py"}, False), 1
        )
    )
    assert "agent_type" not in main and main["tool_input"]["file_path"] == str(tmp_path / "a.py")


def test_markdown() -> None:
    result = {
        "python": "/py",
        "rounds": 3,
        "calls": 100,
        "mix": {"main thread": 52},
        "bare_start_ms": 10.0,
        "arms": {
            "before": {
                "describe": "d",
                "starts": 196,
                "starts_by_event": {"PreToolUse": 100, "PostToolUse": 95, "SessionStart": 1},
                "hook_ms": 2000.0,
                "start_p50_ms": 10.2,
                "advisories_per_session": 7.0,
                "vs_before": 1.0,
            }
        },
    }
    text = bench.markdown(result)
    assert "| before: d | 196 | 100 / 95 / 0 / 1 | 2000.0 | 10.2 | 7.0 | 1.00x |" in text
