"""Requirement 1: the hook acts only for the five agents, case-insensitively."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hook.conftest import Hook, hook_input


@pytest.mark.parametrize("agent", ["hizkiah", "Salma", "OHOLIAB", "nathan", "Zadok"])
def test_the_five_agents_are_in_scope(hook: Hook, fresh_graph: Path, agent: str) -> None:
    assert hook.call(agent_type=agent).startswith("{")
    assert hook.calls()[0]["agent_type"] == agent


@pytest.mark.parametrize("agent", ["mishkan:hizkiah", "other-plugin:Salma", "a:b:zadok"])
def test_a_plugin_agent_is_the_same_agent(hook: Hook, fresh_graph: Path, agent: str) -> None:
    # A plugin's agents/hizkiah.md arrives as agent_type "<plugin>:hizkiah" (CLI 2.1.197).
    assert hook.call(agent_type=agent).startswith("{")
    assert hook.calls()[0]["agent_type"] == agent


@pytest.mark.parametrize(
    "agent", ["hiram", "caleb", "general-purpose", "Explore", "", "hizkiahx", "hizkiah:x", ":"]
)
def test_other_agents_are_a_no_op(hook: Hook, fresh_graph: Path, agent: str) -> None:
    assert hook.call(agent_type=agent) == ""
    assert hook.events() == []


def test_main_thread_calls_have_no_agent_fields_and_are_a_no_op(
    hook: Hook, fresh_graph: Path
) -> None:
    hook.auto_index = False  # the index lives in the telemetry directory
    assert hook.call(agent_type=None, agent_id=None) == ""
    assert not hook.telemetry.exists()


def test_subagent_type_in_tool_input_is_not_identity(hook: Hook, fresh_graph: Path) -> None:
    # Only the Agent call that launches a subagent carries subagent_type; the
    # subagent's own calls carry top-level agent_type (measured, 2.1.197).
    data = hook_input(hook.repo, agent_type=None, agent_id=None)
    data["tool_input"]["subagent_type"] = "hizkiah"
    assert hook(data) == ""


def test_non_string_agent_type_is_out_of_scope(hook: Hook, fresh_graph: Path) -> None:
    data = hook_input(hook.repo)
    data["agent_type"] = ["hizkiah"]
    assert hook(data) == ""
