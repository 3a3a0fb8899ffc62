"""Backfill from Claude Code transcripts: the captured 2.1.197 sample and
edge cases in the same shape."""

from __future__ import annotations

import inspect
import json
import os
import shutil
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.metrics.helpers import cli, no_hang, report

SAMPLE = Path(__file__).parent / "fixtures" / "cc-2.1.197-transcripts"
SESSION = "3d7f224f-d067-448e-a460-e76f9d5496bd"
PROJECT = "-tmp-cchar-repo"
AGENT = "aa4daced19ec4f6fe"

graphify_nudge = pytest.importorskip("graphify_nudge")


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "projects"
    shutil.copytree(SAMPLE, dest)
    return dest


def _sub(root: Path) -> Path:
    return root / PROJECT / SESSION / "subagents"


def _append(path: Path, obj: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(obj) + "\n")


def _line(kind: str, ts: str, agent: bool = True, **fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"isSidechain": agent, "type": kind, "timestamp": ts}
    if agent:
        obj["agentId"] = AGENT
    obj.update(fields)
    obj.update({"cwd": "/tmp/cchar/repo", "sessionId": SESSION})
    return obj


def _tool_use(ts: str, tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    return _line("assistant", ts, message={"role": "assistant", "content": [block]})


def _result(ts: str, tool_id: str, *extra: dict[str, Any]) -> dict[str, Any]:
    blocks = [{"tool_use_id": tool_id, "type": "tool_result", "content": "ok"}, *extra]
    return _line("user", ts, message={"role": "user", "content": blocks})


def test_the_captured_sample(tmp_path: Path) -> None:
    data = report("--from-transcripts", str(SAMPLE))
    # hizkiah: Read src/app.py and Grep apply_overlay, both triggers, no lookup
    assert data["triggers"] == 2
    assert data["triggers_consulted"] == 0
    assert data["pre_read_consultation_rate"] == 0.0
    assert data["lookups"] == 0
    # the dump hook's "NUDGE-CONTEXT" lacks the [graphify-nudge] marker, and it
    # was attached to main-thread calls only: no nudge, ratio null
    assert data["nudges"] == 0 and data["nudge_respect_ratio"] is None
    assert list(data["per_agent"]) == ["hizkiah"]
    assert data["sessions"] == 1 and list(data["per_session"]) == [SESSION]
    assert data["fresh"] is None and data["sessions_off"] is None
    dq = data["data_quality"]
    assert dq["main_thread_calls"] == 4  # Read, Grep, Bash, Agent of the main thread
    assert dq["files"] == 2 and dq["malformed"] == 0 and dq["torn"] == 0
    assert data["verdict"] == [
        "phase 1: baseline measured, 1 session (pre-Read consultation rate 0.0%)",
        "from transcripts: no [graphify-nudge] advisory is recorded for subagent calls, "
        "so the nudge-respect ratio is not measurable here",
    ]


def test_main_thread_markers_and_lookups_do_not_count(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    main = root / PROJECT / f"{SESSION}.jsonl"
    text = main.read_text().replace("NUDGE-CONTEXT", "[graphify-nudge] NUDGE-CONTEXT")
    main.write_text(text)
    _append(
        main,
        _tool_use(
            "2026-11-30T05:08:52.700Z",
            "toolu_m",
            "Bash",
            {"command": "graphify query apply_overlay"},
        ),
    )
    data = report("--from-transcripts", str(root))
    assert data["nudges"] == 0  # the marked calls are the main thread's
    assert data["triggers_consulted"] == 0  # main-thread lookup is out of scope
    assert data["data_quality"]["main_thread_calls"] == 5


def test_subagent_markers_lookups_and_opt_out(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    sub = _sub(root) / f"agent-{AGENT}.jsonl"
    marker = "[graphify-nudge] `graphify explain helper` answers who calls helper."
    _append(sub, _tool_use("2026-11-30T05:08:54.000Z", "t1", "Grep", {"pattern": "helper"}))
    _append(
        sub,
        _line(
            "attachment",
            "2026-11-30T05:08:54.010Z",
            attachment={
                "type": "hook_additional_context",
                "content": [marker],
                "hookName": "PreToolUse:Grep",
                "toolUseID": "t1",
                "hookEvent": "PreToolUse",
            },
        ),
    )
    _append(sub, _result("2026-11-30T05:08:54.020Z", "t1"))
    _append(
        sub,
        _tool_use(
            "2026-11-30T05:08:54.100Z",
            "t2",
            "Bash",
            {"command": "cd /tmp/cchar/repo && graphify explain helper"},
        ),
    )
    _append(sub, _result("2026-11-30T05:08:54.120Z", "t2"))
    _append(
        sub,
        _tool_use(
            "2026-11-30T05:08:54.200Z", "t3", "Read", {"file_path": "/tmp/cchar/repo/src/b.py"}
        ),
    )
    reminder = {"type": "text", "text": f"<system-reminder>\n{marker}\n</system-reminder>"}
    _append(sub, _result("2026-11-30T05:08:54.220Z", "t3", reminder))
    _append(
        sub,
        _tool_use(
            "2026-11-30T05:08:54.300Z",
            "t4",
            "Read",
            {"file_path": "/tmp/cchar/repo/src/c.py", "metadata": {"skip_graphify_nudge": True}},
        ),
    )
    _append(sub, _result("2026-11-30T05:08:54.320Z", "t4"))
    data = report("--from-transcripts", str(root))
    assert data["triggers"] == 5  # 2 of the sample + Grep helper, Read b.py, Read c.py
    assert data["lookups"] == 1
    assert data["nudges"] == 2 and data["nudges_respected"] == 1  # t1 yes, t3 pending at end
    assert data["triggers_consulted"] == 2  # t3, t4
    assert data["opt_outs"] == 1
    assert data["phase"] == 2


def test_agent_type_from_attribution_when_meta_is_missing(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (_sub(root) / f"agent-{AGENT}.meta.json").unlink()
    data = report("--from-transcripts", str(root))
    assert list(data["per_agent"]) == ["hizkiah"]  # attributionAgent on the lines


def test_out_of_scope_agent_is_not_counted(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    meta = _sub(root) / f"agent-{AGENT}.meta.json"
    meta.write_text(json.dumps({"agentType": "Explore"}))
    data = report("--from-transcripts", str(root))
    assert data["triggers"] == 0 and data["per_agent"] == {}
    assert data["data_quality"]["out_of_scope_calls"] == 2
    assert data["sessions"] == 1


def test_torn_and_malformed_lines_are_counted(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    sub = _sub(root) / f"agent-{AGENT}.jsonl"
    with sub.open("a") as fh:
        fh.write("{not json\n")
        fh.write('{"type":"assistant","message":{"content":[{"type":"tool_use"')
    (root / PROJECT / "notes.txt").write_text("x")
    data = report("--from-transcripts", str(root))
    dq = data["data_quality"]
    assert (dq["malformed"], dq["torn"], dq["foreign_files"]) == (1, 1, 1)
    assert data["triggers"] == 2


def test_session_without_main_file(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / PROJECT / f"{SESSION}.jsonl").unlink()
    data = report("--from-transcripts", str(root))
    assert data["triggers"] == 2 and list(data["per_session"]) == [SESSION]


def test_unusable_transcript_dirs_exit_2(tmp_path: Path) -> None:
    code, _, err = cli("--from-transcripts", str(tmp_path / "nope"))
    assert code == 2 and "transcript directory not found" in err
    code, _, err = cli("--from-transcripts", str(tmp_path))
    assert code == 2 and "no Claude Code transcripts" in err
    f = tmp_path / "file"
    f.write_text("")
    code, _, err = cli("--from-transcripts", str(f))
    assert code == 2 and "not a directory" in err


def test_transcript_window_uses_line_timestamps(tmp_path: Path) -> None:
    data = report("--from-transcripts", str(SAMPLE), "--since", "2026-12-01")
    assert data["sessions"] == 0 and data["triggers"] == 0
    assert data["data_quality"]["outside_window"] == 2
    data = report("--from-transcripts", str(SAMPLE), "--until", "2026-11-30")
    assert data["triggers"] == 2


def test_other_files_in_a_session_directory_are_not_sessions(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    extra = root / PROJECT / SESSION / "tool-results"
    extra.mkdir()
    (extra / "big-output.jsonl").write_text('{"type":"user"}\n')
    data = report("--from-transcripts", str(root))
    assert list(data["per_session"]) == [SESSION] and data["sessions"] == 1


# --------------------------------------------------------------------------- #
# hostile input, by class (issue 11)


def _outside_session(tmp_path: Path) -> Path:
    """A copy of the sample outside the input, with two extra hizkiah triggers."""
    outside = _copy(tmp_path / "outside")
    sub = _sub(outside) / f"agent-{AGENT}.jsonl"
    for i in (1, 2):
        _append(sub, _tool_use("2026-11-30T05:08:54.000Z", f"x{i}", "Grep", {"pattern": "evil"}))
    return outside


# each case replaces one path component of the sample by a link to the outside copy
_LINKED: dict[str, Callable[[Path, Path], tuple[Path, Path]]] = {
    "project dir": lambda root, out: (root / PROJECT, out / PROJECT),
    "session dir": lambda root, out: (root / PROJECT / SESSION, out / PROJECT / SESSION),
    "subagents dir": lambda root, out: (_sub(root), _sub(out)),
    "agent file": lambda root, out: (
        _sub(root) / f"agent-{AGENT}.jsonl",
        _sub(out) / f"agent-{AGENT}.jsonl",
    ),
    "main file": lambda root, out: (
        root / PROJECT / f"{SESSION}.jsonl",
        out / PROJECT / f"{SESSION}.jsonl",
    ),
}


@pytest.mark.parametrize("component", sorted(_LINKED))
def test_a_link_at_any_path_component_is_not_followed(tmp_path: Path, component: str) -> None:
    root = _copy(tmp_path)
    outside = _outside_session(tmp_path)
    inside, target = _LINKED[component](root, outside)
    if inside.is_dir():
        shutil.rmtree(inside)
    else:
        inside.unlink()
    inside.symlink_to(target)
    code, out, err = cli("--from-transcripts", str(root), "--format", "json")
    if component in ("project dir",):
        assert code == 2 and "no Claude Code transcripts" in err  # nothing left to read
        return
    assert code == 0, err
    data = json.loads(out)
    # never the outside copy's 4: the sample's 2 only while its agent file is still read
    assert data["triggers"] == (2 if component == "main file" else 0), component
    assert data["data_quality"]["foreign_files"] >= 1 or component != "main file"


def test_a_link_to_a_device_or_fifo_and_fifos_never_block(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    meta = _sub(root) / f"agent-{AGENT}.meta.json"
    meta.unlink()
    os.mkfifo(meta)  # agent type then comes from attributionAgent
    os.mkfifo(_sub(root) / "agent-fifo.jsonl")
    os.mkfifo(root / PROJECT / "other-session.jsonl")
    (_sub(root) / "agent-tty.jsonl").symlink_to("/dev/tty")
    with no_hang():
        code, out, err = cli("--from-transcripts", str(root), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["triggers"] == 2 and list(data["per_agent"]) == ["hizkiah"]
    assert data["data_quality"]["foreign_files"] == 3  # two fifos and the tty link


def test_deep_nesting_and_long_runs_are_counted(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    sub = _sub(root) / f"agent-{AGENT}.jsonl"
    nested: Any = "<system-reminder>[graphify-nudge] x</system-reminder>"
    for _ in range(400):  # within the decoder's limit, deeper than any Python frame budget
        nested = [{"type": "text", "content": nested}]
    with sub.open("a") as fh:
        fh.write("[" * 100_000 + "\n")  # issue 11 item 6: RecursionError before
        fh.write("a" * 200_000 + "\n")
        fh.write(json.dumps(_line("user", "2026-11-30T05:08:55.000Z", message=nested)) + "\n")
        fh.write(json.dumps({"type": "user", "message": {"content": "<system-reminder>" * 50_000}}))
        fh.write("\n")
    meta = _sub(root) / f"agent-{AGENT}.meta.json"
    meta.write_text('{"agentType":' + "[" * 5_000 + "]" * 5_000 + "}")
    code, out, err = cli("--from-transcripts", str(root), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["data_quality"]["malformed"] == 2
    assert data["triggers"] == 2 and list(data["per_agent"]) == ["hizkiah"]


def test_an_over_long_line_is_counted_not_held(tmp_path: Path) -> None:
    from mishkan_core.metrics import transcripts

    root = _copy(tmp_path)
    sub = _sub(root) / f"agent-{AGENT}.jsonl"
    with sub.open("a") as fh:
        fh.write('{"type":"user","x":"' + "a" * (transcripts.MAX_LINE + 10) + '"}\n')
    data = report("--from-transcripts", str(root))
    assert data["data_quality"]["oversized"] == 1 and data["triggers"] == 2


def test_unanswered_tool_uses_wait_in_a_bounded_queue(tmp_path: Path) -> None:
    """Issue 11 item 10: 200k unanswered tool_uses were O(n^2) and all held."""
    from mishkan_core.metrics import transcripts

    path = tmp_path / "agent-a1.jsonl"
    with path.open("w") as fh:
        for i in range(500):
            line = _tool_use("2026-11-30T05:08:54.000Z", f"t{i}", "Read", {"file_path": "a.py"})
            fh.write(json.dumps(line) + "\n")
    calls = transcripts._agent_calls(
        os.open(path, os.O_RDONLY),
        "agent-a1.jsonl",
        agent_type="hizkiah",
        session_hint="s",
        nudged={},
        in_scope=lambda agent: True,
        classify=graphify_nudge.classify_call,
        quality=transcripts.new_quality(),
    )
    generator = cast("Generator[Any, None, None]", calls)
    seen = 0
    for _ in generator:
        seen += 1
        pending = inspect.getgeneratorlocals(generator)["pending"]
        assert len(pending) <= transcripts.MAX_IN_FLIGHT
    assert seen == 500


def test_a_plugin_agent_is_the_same_agent(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    meta = _sub(root) / f"agent-{AGENT}.meta.json"
    meta.write_text(json.dumps({"agentType": "mishkan:Hizkiah"}))
    data = report("--from-transcripts", str(root))
    assert list(data["per_agent"]) == ["hizkiah"] and data["triggers"] == 2


_hostile = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.none(), max_size=2),
    st.dictionaries(st.sampled_from(["type", "text", "content", "id"]), st.text(max_size=4)),
)
_KEYS = ("type", "timestamp", "sessionId", "agentId", "attributionAgent", "cwd", "message")


def _transcript_line(kind: str, edits: dict[str, Any], block_edits: dict[str, Any]) -> str:
    block: dict[str, Any] = {"type": "tool_use", "id": "t", "name": "Grep"}
    block["input"] = {"pattern": "apply_overlay"}
    block.update(block_edits)
    line = _line(kind, "2026-11-30T05:08:54.000Z", message={"content": [block]})
    line.update(edits)
    return json.dumps(line)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(
                _transcript_line,
                st.sampled_from(["assistant", "user", "attachment", "system"]),
                st.dictionaries(st.sampled_from(_KEYS), _hostile, max_size=2),
                st.dictionaries(st.sampled_from(["id", "name", "input", "type"]), _hostile),
            ),
            st.sampled_from(["[" * 100_000, "{" * 3_000, "x" * 5_000, "", "null", "NaN"]),
        ),
        max_size=10,
    )
)
def test_fuzz_any_transcript_lines_give_a_report(lines: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = _copy(Path(tmp))
        sub = _sub(root) / f"agent-{AGENT}.jsonl"
        with sub.open("a") as fh:
            fh.write("\n".join(lines) + "\n")
        code, out, err = cli("--from-transcripts", str(root), "--format", "json")
        assert code == 0, err

        def refuse(name: str) -> None:
            raise AssertionError(name)

        data = json.loads(out, parse_constant=refuse)
        assert data["triggers"] >= 0
