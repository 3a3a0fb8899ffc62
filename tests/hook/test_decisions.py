"""Requirements 5 to 9: already consulted, modes, opt-out, caps and wording."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path

import pytest

import graphify_nudge
from graphify_nudge import MAX_ADVISORY_CHARS, Call, Graph, Hit, advisory
from tests.hook.conftest import NAMES, Hook, context_of, git, hook_input


def grep(hook: Hook, pattern: str = "apply_overlay", **kwargs: object) -> str:
    return hook.call("Grep", {"pattern": pattern, "path": str(hook.repo)}, **kwargs)


def bash(hook: Hook, command: str, **kwargs: object) -> str:
    return hook.call("Bash", {"command": command, "description": "x"}, **kwargs)


# -- 5. already consulted ------------------------------------------------------


def test_lookup_of_the_same_symbol_silences_later_triggers(hook: Hook, fresh_graph: Path) -> None:
    assert bash(hook, 'graphify explain "apply_overlay" --graph .graphify/graph.json') == ""
    assert grep(hook) == ""
    assert bash(hook, "grep -rn apply_overlay .") == ""
    calls = hook.calls()
    assert [c["kind"] for c in calls] == ["lookup", "grep", "grep"]
    assert [c["reason"] for c in calls[1:]] == ["consulted_symbol", "consulted_symbol"]
    assert all(c["trigger"] for c in calls[1:])  # still recorded as triggers
    assert grep(hook, "other")  # a different symbol still gets the nudge


def test_qualified_lookup_covers_the_bare_name(hook: Hook, fresh_graph: Path) -> None:
    bash(hook, "graphify affected app.apply_overlay")
    assert grep(hook) == ""


def test_lookup_by_another_agent_of_the_session_counts(hook: Hook, fresh_graph: Path) -> None:
    bash(hook, "graphify query 'who calls apply_overlay'", agent_type="salma", agent_id="s1")
    assert grep(hook) == ""


def test_lookup_output_naming_the_file_silences_its_read(hook: Hook, fresh_graph: Path) -> None:
    command = "graphify explain helper --graph .graphify/graph.json"
    bash(hook, command)
    response = {
        "stdout": "Node: helper()\n  Source:    src/app.py L4\n  <-- main() src/main.py:L4\n"
    }
    hook.call("Bash", {"command": command}, event="PostToolUse", tool_response=response)
    assert hook.call() == ""  # src/app.py
    assert hook.call("Read", {"file_path": str(hook.repo / "src/main.py")}) == ""
    assert hook.calls()[-1]["reason"] == "consulted_file"
    result = [e for e in hook.events() if e["event"] == "lookup_result"]
    assert result[0]["files"] == 2


def test_mcp_lookup_output(hook: Hook, fresh_graph: Path) -> None:
    tool = "mcp__graphify__query"
    hook.call(tool, {"question": "where is apply_overlay"})
    hook.call(
        tool,
        {"question": "x"},
        event="PostToolUse",
        tool_response=[{"type": "text", "text": "src/app.py:L1"}],
    )
    assert grep(hook) == "" and hook.call() == ""


def test_read_of_a_file_named_in_a_lookup_argument(hook: Hook, fresh_graph: Path) -> None:
    bash(hook, "graphify explain src/app.py")
    assert hook.call() == ""


# -- 6. modes ------------------------------------------------------------------


def test_telemetry_is_the_default_mode(repo: Path, tmp_path: Path, fresh_graph: Path) -> None:
    hook = Hook(repo, tmp_path / "tel")
    del hook.env["MISHKAN_GRAPHIFY_NUDGE"]
    assert grep(hook) == ""
    call = hook.calls()[0]
    assert (call["mode"], call["trigger"], call["decision"], call["reason"]) == (
        "telemetry", True, "silent", "telemetry_mode",
    )  # fmt: skip


@pytest.mark.parametrize("value", ["", "bogus", "ADVISE ", "Advise"])
def test_mode_values(repo: Path, tmp_path: Path, fresh_graph: Path, value: str) -> None:
    hook = Hook(repo, tmp_path / "tel", mode=value)
    expected = value.strip().lower() == "advise"
    assert bool(grep(hook)) is expected


@pytest.mark.parametrize(
    ("exported", "installed", "expected"),
    [
        (None, "advise", "advise"),  # the registered command's --mode= is the default
        ("off", "advise", "off"),  # an exported MISHKAN_GRAPHIFY_NUDGE wins
        ("telemetry", "advise", "telemetry"),
        ("advise", "telemetry", "advise"),
        ("", "advise", "advise"),  # set but empty: not a choice
        (None, None, "telemetry"),
        (None, "bogus", "telemetry"),
    ],
)
def test_exported_mode_wins_over_the_installed_default(
    hook: Hook, fresh_graph: Path, exported: object, installed: object, expected: str
) -> None:
    repo = hook.repo
    if exported is None:
        del hook.env["MISHKAN_GRAPHIFY_NUDGE"]
    else:
        hook.env["MISHKAN_GRAPHIFY_NUDGE"] = str(exported)
    argv = ["-c", "/hooks"] + ([f"--mode={installed}"] if installed is not None else [])
    mode = graphify_nudge._argv_mode(argv)
    raw = json.dumps(hook_input(repo, "Grep", {"pattern": "apply_overlay"})).encode()
    hook.index()
    output = graphify_nudge.guarded_run(raw, hook.environ(), None, mode)
    assert bool(output) is (expected == "advise")
    calls = hook.calls()
    assert [c["mode"] for c in calls] == ([] if expected == "off" else [expected])


def test_advise_mode_prints_only_additional_context(hook: Hook, fresh_graph: Path) -> None:
    context_of(grep(hook))  # asserts the exact shape: no permissionDecision, no updatedInput


def test_off_does_nothing_but_record_session_start(
    repo: Path, tmp_path: Path, fresh_graph: Path
) -> None:
    hook = Hook(repo, tmp_path / "tel", mode="off")
    assert grep(hook) == "" and hook.call() == ""
    assert not hook.telemetry.exists()
    assert hook(hook_input(repo, event="SessionStart")) == ""
    (event,) = hook.events()
    assert (event["event"], event["mode"], event["source"]) == ("session_start", "off", "startup")


def test_session_start_is_recorded_in_every_mode(hook: Hook) -> None:
    hook(hook_input(hook.repo, event="SessionStart"))
    assert hook.events()[0]["event"] == "session_start"


@pytest.mark.parametrize(
    ("exported", "installed", "unknown"),
    [
        ("false", "advise", "MISHKAN_GRAPHIFY_NUDGE=false"),  # exported wins, and is named
        (None, "bogus", "--mode=bogus"),
        ("OFF", "advise", None),  # a mode, whatever its case
        ("telemetry", None, None),
        (None, None, None),  # nothing given: the phase-1 default, not a surprise
        ("x" * 1000, None, "MISHKAN_GRAPHIFY_NUDGE=" + "x" * 41),  # cut to 64 characters
    ],
)
def test_session_start_names_a_mode_setting_it_does_not_know(
    hook: Hook, exported: str | None, installed: str | None, unknown: str | None
) -> None:
    """An unrecognised setting runs as telemetry (D-009's phase-1 default); the
    session_start line says which setting it was, so the report can tell the user."""
    if exported is None:
        del hook.env["MISHKAN_GRAPHIFY_NUDGE"]
    else:
        hook.env["MISHKAN_GRAPHIFY_NUDGE"] = exported
    raw = json.dumps(hook_input(hook.repo, event="SessionStart")).encode()
    assert graphify_nudge.guarded_run(raw, hook.environ(), None, installed) == ""
    (event,) = hook.events()
    assert list(event)[-2:] == ["source", "unknown_mode"]
    assert event["unknown_mode"] == unknown
    if unknown is not None:
        assert event["mode"] == "telemetry"


# -- 7. opt-out ----------------------------------------------------------------


def test_per_call_opt_out(hook: Hook, fresh_graph: Path) -> None:
    data = hook_input(
        hook.repo, "Grep", {"pattern": "apply_overlay", "metadata": {"skip_graphify_nudge": True}}
    )
    assert hook(data) == ""
    call = hook.calls()[0]
    assert (call["decision"], call["reason"], call["trigger"]) == ("opt_out", "metadata", True)
    truthy_string = hook_input(
        hook.repo, "Grep", {"pattern": "x2", "metadata": {"skip_graphify_nudge": "yes"}}
    )
    assert hook(truthy_string)  # only a real `true` opts out


# -- 8. caps -------------------------------------------------------------------


def test_default_cap_is_three_per_agent(hook: Hook, fresh_graph: Path) -> None:
    outputs = [grep(hook, name) for name in NAMES[:5]]
    assert [bool(o) for o in outputs] == [True, True, True, False, False]
    assert hook.calls()[-1]["reason"] == "cap"
    assert grep(hook, NAMES[6], agent_type="salma", agent_id="other")  # per agent


def test_cap_from_environment(hook: Hook, fresh_graph: Path) -> None:
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "1"
    assert [bool(grep(hook, name)) for name in NAMES[:3]] == [True, False, False]
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "0"
    assert grep(hook, NAMES[5], agent_id="new") == ""


def test_cap_is_per_session(hook: Hook, fresh_graph: Path) -> None:
    for name in NAMES[:3]:
        grep(hook, name)
    assert grep(hook, NAMES[5], session_id="another-session")


def test_absent_advisory_once_per_agent(hook: Hook) -> None:
    assert grep(hook, "a1") and not grep(hook, "a2") and not hook.call()
    assert hook.calls()[-1]["reason"] == "shown_once"
    assert grep(hook, "a3", agent_type="nathan", agent_id="n1")


def test_a_graph_behind_head_still_answers_each_target(hook: Hook) -> None:
    """Each answer is about its own target (its cited files marked when changed),
    not a warning to show once: the graph behind HEAD says so in every header."""
    from tests.hook.conftest import write_graph

    write_graph(hook.repo, "0" * 40, mtime=time.time() - 100)  # before HEAD last moved
    head = git(hook.repo, "rev-parse", "--short=7", "HEAD")
    for name in ("a1", "a2"):
        text = context_of(grep(hook, name))
        assert f"(built at 0000000; HEAD is now {head})" in text
    assert [c["reason"] for c in hook.calls()] == ["stale", "stale"]


# -- 9. wording ------------------------------------------------------------------


def _command_in(text: str) -> list[str]:
    return shlex.split(text.split("`")[-2])


def test_wording_is_short_factual_and_names_a_real_command(hook: Hook, fresh_graph: Path) -> None:
    for out in (grep(hook, "apply_overlay"), hook.call(), bash(hook, "sed -n 1,9p src/names.py")):
        text = context_of(out)
        assert len(text) <= MAX_ADVISORY_CHARS
        assert text.startswith("[graphify-nudge] ")
        for imperative in ("MUST", "must ", "You should", "always", "never", "IMPORTANT",
                           "Name the one", "Run ", "Use the", "Read the"):  # fmt: skip
            assert imperative not in text
        argv = _command_in(text)
        assert argv[:2] == ["graphify", "explain"] and argv[3:] == [
            "--graph",
            ".graphify/graph.json",
        ]
        assert "graphify search" not in text  # no such command in graphify 0.9.96
    text = context_of(grep(hook, "other", agent_id="fresh-agent"))
    assert _command_in(text)[2] == "src/names.py::other"


NO_USES: list[object] = [0, 0, [], [], []]


def test_symbol_is_shell_quoted() -> None:
    graph = Graph()
    graph.state, graph.display, graph.head = "fresh", "my graph/g.json", "a" * 40
    hit = Hit("file", file=["src/it's.py", NO_USES, NO_USES, [1, [["x", 1]]]])
    text = advisory(Call("read", True, "Read", "src/it's.py"), graph, hit) or ""
    assert _command_in(text) == ["graphify", "explain", "src/it's.py", "--graph", "my graph/g.json"]


def _symbol_hit(length: int, sites: int) -> Hit:
    """A name of `length` characters defined `sites` times, each with 6 long uses."""
    name, path, text = "s" * length, "p" * min(length, 500) + ".py", "u" * min(length, 500)
    uses = [6, 6, [["calls", 6]], [["EXTRACTED", 6]], [[path, 9, text, "calls", "EXTRACTED"]] * 6]
    row = (name, path, 1, text, text, "", text[:400], list(range(1, 65)), uses)
    return Hit("symbol", sites=[row] * sites, total=sites)


@pytest.mark.parametrize("state", ["fresh", "stale", "absent"])
def test_every_advisory_fits_its_bound_or_is_withheld(state: str) -> None:
    graph = Graph()
    graph.state, graph.head, graph.built_at = state, "b" * 40, "c" * 40
    graph.stale_by = "commit" if state == "stale" else None
    for length in (1, 50, 150, 300, 1000):
        for sites in (1, 2, 64):
            call = Call("grep", True, "Bash", "s" * length, symbol="s" * length)
            text = advisory(call, graph, _symbol_hit(length, sites))
            assert text is not None and len(text) <= MAX_ADVISORY_CHARS


def test_suggested_command_matches_the_head(hook: Hook, fresh_graph: Path) -> None:
    assert git(hook.repo, "rev-parse", "--short=7", "HEAD") in context_of(grep(hook))
