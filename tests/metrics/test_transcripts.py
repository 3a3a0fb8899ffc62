"""Backfill from Claude Code transcripts: the captured 2.1.197 sample and
edge cases in the same shape."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.metrics.helpers import cli, report

SAMPLE = Path(__file__).parent / "fixtures" / "cc-2.1.197-transcripts"
SESSION = "3d7f224f-d067-448e-a460-e76f9d5496bd"
PROJECT = "-tmp-cchar-repo"
AGENT = "aa4daced19ec4f6fe"

pytest.importorskip("graphify_nudge")


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
