"""Transcripts of the real CLI at both ends of the supported range, captured
from the e2e run (tests/metrics/capture_transcripts.py), and the drift check
that holds the telemetry against them.

The same scripted session (docs/e2e.md: three nudges, one lookup, 2 of 3
nudges followed by it, 2 of 5 triggers after it), through CLI 2.1.69, which
writes no ``.meta.json`` and no advisory into any transcript, and CLI
2.1.332, which records each advisory as a ``hook_additional_context``
attachment of the subagent's transcript.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.metrics.helpers import Telemetry, cli, report

FIXTURES = Path(__file__).parent / "fixtures"
OLD = FIXTURES / "cc-2.1.69-transcripts"
NEW = FIXTURES / "cc-2.1.332-transcripts"
NEW_TELEMETRY = FIXTURES / "cc-2.1.332-telemetry"
SESSION = "c3b2293d-3c3d-4353-9eb4-3fb1a20c7633"

pytest.importorskip("graphify_nudge")

CALLS = {"calls": 6, "triggers": 5, "triggers_consulted": 2, "lookups": 1}


def _counts(data: dict[str, object]) -> dict[str, object]:
    return {k: data[k] for k in CALLS}


def test_the_floor_cli_gives_the_consultation_rate_and_says_it_cannot_see_nudges() -> None:
    assert not list(OLD.rglob("*.meta.json"))  # 2.1.69: the agent type is in the main file only
    data = report("--from-transcripts", str(OLD))
    assert _counts(data) == CALLS
    assert data["pre_read_consultation_rate"] == pytest.approx(0.4)
    assert (data["nudges"], data["nudge_respect_ratio"]) == (0, None)
    assert any("no [graphify-nudge] advisory is recorded" in v for v in data["verdict"])


def test_the_newest_cli_gives_both_ratios_as_the_telemetry_does() -> None:
    data = report("--from-transcripts", str(NEW))
    assert _counts(data) == CALLS
    assert (data["nudges"], data["nudges_respected"]) == (3, 2)
    assert data["nudge_respect_ratio"] == pytest.approx(2 / 3)
    assert data["pre_read_consultation_rate"] == pytest.approx(0.4)
    assert not any("not measurable" in v for v in data["verdict"])
    telemetry = report("--telemetry-dir", str(NEW_TELEMETRY), "--transcripts", "none")
    for key in ("nudges", "nudges_respected", "nudge_respect_ratio", *CALLS):
        assert data[key] == telemetry[key], key


def test_without_the_launch_the_floor_clis_agent_is_unknown(tmp_path: Path) -> None:
    """The agent type of a 2.1.69 subagent comes from the Agent call that
    started it (``toolUseResult.agentId``): without it no call is in scope."""
    dest = tmp_path / "t"
    shutil.copytree(OLD, dest)
    (main,) = [p for p in dest.rglob("*.jsonl") if "subagents" not in p.parts]
    lines = []
    for line in main.read_text().splitlines():
        obj = json.loads(line)
        obj.pop("toolUseResult", None)
        lines.append(json.dumps(obj))
    main.write_text("\n".join(lines) + "\n")
    code, _out, err = cli("--from-transcripts", str(dest), "--format", "json")
    data = json.loads(_out) if code == 0 else {}
    assert code == 0, err
    assert data["calls"] == 0 and data["data_quality"]["out_of_scope_calls"] == 6


# -- drift ----------------------------------------------------------------------


def test_no_drift_when_the_telemetry_recorded_the_session() -> None:
    data = report("--telemetry-dir", str(NEW_TELEMETRY), "--transcripts", str(NEW))
    assert data["drift"] == {
        "transcripts": str(NEW),
        "sessions": 1,
        "calls": 6,
        "unrecorded_sessions": [],
        "unrecorded_calls": 0,
        "short_sessions": [],
    }
    assert not any(v.startswith("drift") for v in data["verdict"])


def test_calls_the_hook_never_recorded_are_flagged(tmp_path: Path) -> None:
    """The client changed under a hook that fails open: the session started
    (the hook ran at SessionStart) but no call of the five agents was recorded."""
    t = Telemetry(tmp_path / "telemetry")
    t.start(SESSION)
    data = report("--telemetry-dir", str(t.dir), "--transcripts", str(NEW))
    assert data["drift"]["unrecorded_sessions"] == [SESSION]
    assert data["drift"]["unrecorded_calls"] == 6
    (line,) = [v for v in data["verdict"] if v.startswith("drift")]
    assert "6 calls by the five agents in 1 session" in line and "routing check" in line


def test_a_session_with_the_hook_off_is_no_drift(tmp_path: Path) -> None:
    t = Telemetry(tmp_path / "telemetry", mode="off")
    t.start(SESSION)
    data = report("--telemetry-dir", str(t.dir), "--transcripts", str(NEW))
    assert data["drift"]["unrecorded_sessions"] == []


def test_fewer_calls_recorded_than_the_transcripts_hold(tmp_path: Path) -> None:
    dest = tmp_path / "telemetry"
    dest.mkdir()
    lines = (NEW_TELEMETRY / f"{SESSION}.jsonl").read_text().splitlines()
    kept = [ln for ln in lines if '"event":"call"' not in ln or '"toolu_e2e_sub_05"' not in ln]
    assert len(kept) == len(lines) - 1
    (dest / f"{SESSION}.jsonl").write_text("\n".join(kept) + "\n")
    data = report("--telemetry-dir", str(dest), "--transcripts", str(NEW))
    assert data["drift"]["short_sessions"] == [SESSION]
    assert any("fewer of the five agents' calls" in v for v in data["verdict"])


def test_the_default_is_the_projects_own_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    config = tmp_path / "config"
    mangled = "".join(c if c.isalnum() else "-" for c in str(project))
    shutil.copytree(NEW / "-tmp-e2e-advise-repo", config / "projects" / mangled)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    t = Telemetry(tmp_path / "telemetry")
    t.start(SESSION)
    data = report("--telemetry-dir", str(t.dir))
    assert data["drift"]["transcripts"] == str(config / "projects" / mangled)
    assert data["drift"]["unrecorded_calls"] == 6
    assert "drift" not in report("--telemetry-dir", str(t.dir), "--transcripts", "none")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nowhere"))
    assert "drift" not in report("--telemetry-dir", str(t.dir))  # none there: not checked


def test_a_missing_transcripts_dir_given_by_hand_is_unusable(tmp_path: Path) -> None:
    t = Telemetry(tmp_path / "telemetry")
    t.start(SESSION)
    code, out, err = cli("--telemetry-dir", str(t.dir), "--transcripts", str(tmp_path / "no"))
    assert (code, out) == (2, "")
    assert err.startswith("mishkan metrics: ") and err.count("\n") == 1
