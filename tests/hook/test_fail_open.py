"""Requirement 13: whatever the input, exit 0, no traceback, and no output
that could change the tool call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphify_nudge
from tests.hook.conftest import HOOK, Hook, hook_input, write_graph

ALLOWED_SHAPE = {"hookSpecificOutput": {"hookEventName", "additionalContext"}}


def assert_harmless(output: str) -> None:
    """Empty, or exactly {"hookSpecificOutput": {"hookEventName", "additionalContext"}}."""
    if not output:
        return
    payload = json.loads(output)
    assert set(payload) == set(ALLOWED_SHAPE)
    assert set(payload["hookSpecificOutput"]) == ALLOWED_SHAPE["hookSpecificOutput"]
    assert payload["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert len(payload["hookSpecificOutput"]["additionalContext"].encode()) <= 400


shell_words = st.sampled_from(
    ["grep", "rg", "cat", "sed", "-n", "-rn", "-e", "graphify", "explain", "query", "apply_overlay",
     "src/app.py", "'", '"', "\\", "$(", ")", "`", "|", "&&", ";", "<<EOF", "EOF", "\n", "2>&1",
     ">", "<", "#", "bash", "-c", "xargs", "env", "FOO=1", "../../etc/x.py", "*.py", "( ", "{"]
)  # fmt: skip
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
json_value = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


ROOT = "/@ROOT@"  # replaced by the real project root after generation
_tool_input = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "file_path": st.one_of(
                st.sampled_from([f"{ROOT}/src/app.py", "src/x.ts", "/etc/a.py", ""]), json_value
            ),
            "pattern": st.one_of(st.sampled_from(["apply_overlay", "a.*", ""]), json_value),
            "command": st.one_of(st.lists(shell_words, max_size=12).map(" ".join), json_value),
            "multiline": json_value,
            "metadata": st.one_of(st.just({"skip_graphify_nudge": True}), json_value),
        },
    ),
    json_value,
)
_hook_dict = st.fixed_dictionaries(
    {},
    optional={
        "session_id": st.one_of(st.sampled_from(["s1", "../../x", ""]), json_value),
        "cwd": st.one_of(st.just(ROOT), json_value),
        "hook_event_name": st.one_of(
            st.sampled_from(["PreToolUse", "PostToolUse", "SessionStart", "Stop"]), json_value
        ),
        "agent_type": st.one_of(st.sampled_from(["hizkiah", "SALMA", "hiram"]), json_value),
        "agent_id": st.one_of(st.sampled_from(["a1", "a2"]), json_value),
        "tool_name": st.sampled_from(
            ["Read", "Grep", "Bash", "Edit", "mcp__graphify__query", "Agent", 5, None]
        ),
        "tool_input": _tool_input,
        "tool_response": json_value,
    },
)
_torn = st.tuples(_hook_dict.map(json.dumps), st.floats(0, 1)).map(
    lambda pair: pair[0][: int(len(pair[0]) * pair[1])]
)
HOOK_INPUTS = st.one_of(
    st.binary(max_size=200),
    json_value.map(json.dumps).map(str.encode),
    _torn.map(str.encode),
    _hook_dict.map(json.dumps).map(str.encode),
    _hook_dict.map(json.dumps).map(str.encode),
    _hook_dict.map(json.dumps).map(str.encode),
)


def hook_inputs(root: str) -> st.SearchStrategy[bytes]:
    return HOOK_INPUTS.map(lambda raw: raw.replace(ROOT.encode(), root.encode()))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Hook:
    from tests.hook.conftest import git, make_repo

    base = tmp_path_factory.mktemp("prop")
    repo = make_repo(base / "repo")
    write_graph(repo, git(repo, "rev-parse", "HEAD"))
    return Hook(repo, base / "telemetry")


@settings(
    max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(data=st.data())
def test_property_ten_thousand_inputs_are_harmless(project: Hook, data: st.DataObject) -> None:
    raw = data.draw(hook_inputs(str(project.repo)))
    mode = data.draw(st.sampled_from(["advise", "telemetry", "off"]))
    project.env["MISHKAN_GRAPHIFY_NUDGE"] = mode
    # guarded_run is exactly what main() runs between reading stdin and _exit(0).
    assert_harmless(graphify_nudge.guarded_run(raw, project.environ()))
    # And the unguarded pipeline itself raises nothing on these inputs.
    assert_harmless(graphify_nudge.run(raw, project.environ()))


@settings(
    max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(data=st.data())
def test_property_real_subprocess(project: Hook, data: st.DataObject) -> None:
    raw = data.draw(hook_inputs(str(project.repo)))
    project.env["MISHKAN_GRAPHIFY_NUDGE"] = "advise"
    result = project.subprocess(raw)
    assert (result.returncode, result.stderr) == (0, b"")
    assert_harmless(result.stdout.decode())


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b"null",
        b"[]",
        b'"x"',
        b"\xff\xfe\x00garbage",
        b'{"hook_event_name":"PreToolUse","tool_name":"Read","agent_type":"hizkiah","tool_input":{"file_path":5}}',
        b'{"hook_event_name":"PreToolUse","agent_type":"hizkiah","tool_input":[]}',
        b'{"hook_event_name":"PreToolUse","agent_type":"hizkiah","tool_name":"Bash","tool_input":{"command":"'
        + b"$(" * 5000
        + b'"}}',
        b'{"agent_type":"hizkiah",' + b'"a":[' * 100_000 + b"]" * 100_000 + b"}",
        b'{"agent_type": NaN}',
        b'{"hook_event_name":"PreToolUse","agent_type":"hizkiah"}' + b" trailing",
    ],
    ids=lambda raw: f"{len(raw)}B:{raw[:24]!r}",
)
def test_bad_input_subprocess(hook: Hook, raw: bytes) -> None:
    result = hook.subprocess(raw)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_five_megabyte_stdin(hook: Hook) -> None:
    write_graph(hook.repo, "0" * 40)
    data = hook_input(
        hook.repo,
        "Write",
        {"file_path": str(hook.repo / "big.py"), "content": "x = '\\n'\n" * 500_000},
    )
    raw = json.dumps(data).encode()
    assert len(raw) > 5_000_000
    result = hook.subprocess(raw)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert hook.calls()[0]["tool"] == "Write"


def test_oversized_stdin_is_ignored(hook: Hook) -> None:
    raw = b'{"agent_type":"hizkiah","x":"' + b"a" * (graphify_nudge.MAX_STDIN + 10) + b'"}'
    result = hook.subprocess(raw)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_closed_stdout_is_fail_open(hook: Hook, tmp_path: Path) -> None:
    write_graph(hook.repo, "0" * 40)
    data = json.dumps(hook_input(hook.repo, "Grep", {"pattern": "x"})).encode()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(HOOK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=hook.env,
    )  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(data, timeout=30)
    assert (proc.returncode, err) == (0, b"")
