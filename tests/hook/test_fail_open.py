"""Requirement 13: whatever the input, exit 0, no traceback, and no output
that could change the tool call."""

from __future__ import annotations

import json
import random
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
    assert (
        len(payload["hookSpecificOutput"]["additionalContext"]) <= graphify_nudge.MAX_ADVISORY_CHARS
    )


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
    max_examples=1_000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(data=st.data())
def test_property_inputs_are_harmless(project: Hook, data: st.DataObject) -> None:
    """Hypothesis over the input grammar (it shrinks a failure to its essence)."""
    raw = data.draw(hook_inputs(str(project.repo)))
    mode = data.draw(st.sampled_from(["advise", "telemetry", "off"]))
    project.env["MISHKAN_GRAPHIFY_NUDGE"] = mode
    # The unguarded pipeline raises nothing on these inputs, so guarded_run
    # (exactly what main() runs between reading stdin and _exit(0)) is run.
    assert_harmless(graphify_nudge.run(raw, project.environ()))


# -- the bulk: ten thousand inputs from a seeded generator of the same grammar ----------
#
# Hypothesis spends ~5 ms generating each recursive example and the hook ~0.05 ms
# running it, so the bulk comes from a plain seeded generator: same grammar,
# mostly in-scope agents (so inputs get past the fast exits), plus the hostile
# classes of issue 11 (deep nesting, long runs of one character, torn JSON).

_WORDS = [
    "grep", "rg", "cat", "sed", "-n", "-rn", "-e", "graphify", "explain", "query",
    "apply_overlay", "$Zod", "\\$x", "a.b", "def f", "src/app.py", "'", '"', "\\", "$(", ")",
    "`", "|", "&&", ";", "<<EOF", "EOF", "\n", "2>&1", ">", "<", "#", "bash", "-c", "xargs",
    "env", "FOO=1", "../../etc/x.py", "*.py", "( ", "{", "[skip-graphify-nudge]",
]  # fmt: skip
# weighted toward what reaches the pipeline: in-scope agents, tool events
_EVENTS = ["PreToolUse"] * 12 + ["PostToolUse"] * 3 + ["PostToolUseFailure"] * 2 + [
    "SessionStart", "Stop", 7, None,
]  # fmt: skip
_AGENTS = ["hizkiah", "SALMA", "mishkan:nathan", "x:y:zadok"] * 4 + ["hiram", "", 3, None]
_TOOLS = ["Read", "Grep", "Bash", "Edit", "mcp__graphify__query", "Agent", 5, None]


def _value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([None, True, False, 0, -1, 2**70, 1.5, "", "x", "é", "\x00", "a" * 50])
    if roll < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["a", "file_path", "pattern", "command", "metadata", "description"]):
            _value(rng, depth + 1) for _ in range(rng.randrange(4))}  # fmt: skip


def _fuzz_tool_input(rng: random.Random, root: str) -> object:
    roll = rng.random()
    if roll < 0.1:
        return _value(rng)
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(12)))
    return {
        "file_path": rng.choice([f"{root}/src/app.py", "src/x.ts", "/etc/a.py", "", words]),
        "pattern": rng.choice(["apply_overlay", "a.*", "", "$ZodType", "\\bx\\(", words]),
        "command": words,
        "description": rng.choice(["x", "look", "", "[skip-graphify-nudge] y"]),
        **({"metadata": {"skip_graphify_nudge": True}} if roll < 0.2 else {}),
    }


def fuzz_input(rng: random.Random, root: str) -> bytes:
    roll = rng.random()
    if roll < 0.03:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    if roll < 0.06:  # deep nesting
        return b'{"agent_type":"hizkiah","a":' + b"[" * rng.randrange(10, 200_000) + b"1"
    if roll < 0.09:  # a long run of one character in one field
        char = rng.choice(["a", "(", "\\\\", "$", "'", "/", "\u00e9"])
        field = rng.choice(["session_id", "agent_id", "cwd", "tool_use_id", "pattern"])
        run = char * rng.randrange(1, 200_000)
        return json.dumps({"hook_event_name": "PreToolUse", "agent_type": "hizkiah",
                           "tool_name": "Grep", "tool_input": {"pattern": run},
                           field: run}).encode()  # fmt: skip
    data: dict[str, object] = {
        "session_id": rng.choice(["s1", "s2", "../../x", "", "a.", "a_2e"]),
        "cwd": rng.choice([root, root + "/src", "/", "", 5]),
        "hook_event_name": rng.choice(_EVENTS),
        "agent_type": rng.choice(_AGENTS),
        "agent_id": rng.choice(["a1", "a2", "", None]),
        "tool_name": rng.choice(_TOOLS),
        "tool_input": _fuzz_tool_input(rng, root),
    }
    for key in list(data):
        if rng.random() < 0.05:
            del data[key]
    if rng.random() < 0.2:
        data["tool_response"] = {"stdout": rng.choice(["src/app.py:L3", "", "x" * 1000])}
    if rng.random() < 0.2:
        data["error"] = rng.choice(["Exit code 3\nsrc/app.py", "Exit code 99999999", 5])
    raw = json.dumps(data).encode()
    if rng.random() < 0.1:  # torn
        raw = raw[: rng.randrange(len(raw) + 1)]
    return raw


def test_fuzz_ten_thousand_inputs_are_harmless(project: Hook) -> None:
    rng = random.Random(20260101)
    root = str(project.repo)
    for i in range(10_000):
        raw = fuzz_input(rng, root)
        project.env["MISHKAN_GRAPHIFY_NUDGE"] = ("advise", "telemetry", "off")[i % 3]
        try:
            assert_harmless(graphify_nudge.run(raw, project.environ()))
        except Exception as exc:  # name the input: there is no shrinking here
            raise AssertionError(f"input {i}: {raw[:300]!r}") from exc
    # the bulk reaches the pipeline, not only the fast exits (mode off is a third)
    lines = sum(len(path.read_bytes().splitlines()) for path in project.telemetry.glob("*.jsonl"))
    assert lines >= 2_500


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
