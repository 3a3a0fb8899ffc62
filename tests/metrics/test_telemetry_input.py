"""Reading the telemetry directory: damage is counted, unusable input exits 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mishkan_core.metrics import telemetry
from tests.metrics.helpers import Telemetry, cli, report


def _good(tmp_path: Path) -> Telemetry:
    t = Telemetry(tmp_path / "t")
    t.start("s")
    t.lookup("s", "salma")
    t.trigger("s", "salma")
    return t


def test_torn_malformed_unknown_schema_and_foreign_are_counted(tmp_path: Path) -> None:
    t = _good(tmp_path)
    t.raw("s.jsonl", "not json\n")
    t.raw("s.jsonl", "[1, 2]\n")
    t.raw("s.jsonl", '{"v":1,"ts":1796015340,"event":"call","session":"s"}\n')  # fields missing
    t.raw("s.jsonl", '{"v":1,"ts":"x","event":"session_start","session":"s","mode":"advise"}\n')
    t.raw("s.jsonl", '{"v":2,"ts":1796015340,"event":"call","session":"s"}\n')
    t.raw("s.jsonl", '{"v":1,"ts":1796015341,"event":"teleport","session":"s"}\n')
    t.raw("s.jsonl", b"\xff\xfe garbage\n".decode("latin-1"))
    t.raw("s.jsonl", '{"v":1,"ts":1796015342,"event":"call","session":"s","agent_typ')  # torn
    t.raw("notes.txt", "hello\n")
    (t.dir / "sub").mkdir()
    (t.dir / ".state").mkdir()
    (t.dir / ".state" / "s.json").write_text("{}")
    t.raw("transcript.jsonl", json.dumps({"type": "user", "sessionId": "x"}) + "\n")
    data = report("--telemetry-dir", str(t.dir))
    dq = data["data_quality"]
    assert dq["torn"] == 1
    assert dq["malformed"] == 6
    assert dq["unknown_schema"] == 1
    assert dq["foreign_files"] == 3  # notes.txt, sub/, transcript.jsonl (.state is the hook's)
    assert dq["events"] == 3
    assert dq["files"] == 1
    assert data["triggers"] == 1 and data["triggers_consulted"] == 1


def test_the_reader_groups_by_the_session_field_not_the_file_name(tmp_path: Path) -> None:
    t = _good(tmp_path)
    (t.dir / "renamed.jsonl").write_text((t.dir / "s.jsonl").read_text())
    (t.dir / "s.jsonl").unlink()
    data = report("--telemetry-dir", str(t.dir))
    assert list(data["per_session"]) == ["s"]


def test_missing_directory_exits_2_with_one_line(tmp_path: Path) -> None:
    code, out, err = cli("--telemetry-dir", str(tmp_path / "nope"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "telemetry directory not found" in err


def test_a_file_instead_of_a_directory_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    code, _, err = cli("--telemetry-dir", str(path))
    assert code == 2 and "not a directory" in err


def test_empty_or_all_garbage_directory_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("--telemetry-dir", str(empty))
    assert code == 2 and "no readable telemetry" in err
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "a.jsonl").write_text("nope\n{\n")
    code, _, err = cli("--telemetry-dir", str(garbage))
    assert code == 2 and "malformed 2" in err


def test_unreadable_directory_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(path: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "scandir", denied)  # root reads through chmod 000
    code, _, err = cli("--telemetry-dir", str(tmp_path))
    assert code == 2
    assert (
        err == f"mishkan metrics: cannot read telemetry directory {tmp_path}: Permission denied\n"
    )


def test_unreadable_file_is_counted_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = _good(tmp_path)
    (t.dir / "other.jsonl").write_text("")
    real_open = open

    def fake_open(path: object, *args: object, **kwargs: object) -> object:
        if str(path).endswith("other.jsonl"):
            raise PermissionError(13, "denied")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", fake_open)
    data = report("--telemetry-dir", str(t.dir))
    assert data["data_quality"]["unreadable_files"] == 1
    assert data["triggers"] == 1


def test_default_directory_follows_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISHKAN_TELEMETRY_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert telemetry.default_dir() == os.path.join(str(tmp_path), ".mishkan/telemetry")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/proj")
    assert telemetry.default_dir() == "/proj/.mishkan/telemetry"
    monkeypatch.setenv("MISHKAN_TELEMETRY_DIR", "/elsewhere")
    assert telemetry.default_dir() == "/elsewhere"
    monkeypatch.delenv("MISHKAN_TELEMETRY_DIR")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    t = Telemetry(tmp_path / ".mishkan" / "telemetry")
    t.trigger("s", "nathan")
    data = report()
    assert data["triggers"] == 1
    assert data["input"] == str(tmp_path / ".mishkan" / "telemetry")


def _timed(tmp_path: Path) -> Path:
    d = tmp_path / "t"
    d.mkdir()
    lines = []
    for day, ts in (("a", 1796083200.0), ("b", 1796169600.0 - 1), ("c", 1796169600.0)):
        # 2026-12-01T00:00:00Z, 2026-12-01T23:59:59Z, 2026-12-02T00:00:00Z
        lines.append(
            json.dumps(
                {"v": 1, "ts": ts, "event": "session_start", "session": day, "mode": "telemetry"}
            )
        )
    (d / "x.jsonl").write_text("\n".join(lines) + "\n")
    return d


def test_since_and_until_select_by_event_time(tmp_path: Path) -> None:
    d = _timed(tmp_path)
    data = report("--telemetry-dir", str(d), "--since", "2026-12-01", "--until", "2026-12-01")
    assert list(data["per_session"]) == ["a", "b"]  # a bare --until date includes its day
    assert data["data_quality"]["outside_window"] == 1
    data = report("--telemetry-dir", str(d), "--since", "2026-12-01T23:59:59Z")
    assert list(data["per_session"]) == ["b", "c"]
    data = report("--telemetry-dir", str(d), "--until", "2026-12-01T00:00:00+00:00")
    assert list(data["per_session"]) == ["a"]
    data = report("--telemetry-dir", str(d), "--since", "2027-01-01")
    assert data["sessions"] == 0  # an empty window is a report, not an error
    assert data["verdict"] == ["phase 1: baseline measured, 0 sessions (pre-Read consultation "
                               "rate n/a)"]  # fmt: skip


def test_bad_dates_and_formats_are_usage_errors(tmp_path: Path) -> None:
    code, _, err = cli("--telemetry-dir", str(tmp_path), "--since", "last tuesday")
    assert code == 2 and "not an ISO date" in err
    code, _, err = cli("--telemetry-dir", str(tmp_path), "--format", "pdf")
    assert code == 2 and "invalid choice" in err
    code, _, err = cli("--telemetry-dir", str(tmp_path), "--from-transcripts", str(tmp_path))
    assert code == 2 and "not allowed with" in err


def test_fast_and_slow_json_paths_agree(tmp_path: Path) -> None:
    t = _good(tmp_path)
    line = '{"v":1,"ts":1796015340,"event":"session_start","session":"s2","mode":"advise"}'
    t.raw("s.jsonl", f"  {line}  \n")  # blanks around: valid JSON, accepted
    t.raw("s.jsonl", f"{line} trailing\n")  # extra data: malformed
    t.raw("s.jsonl", f"{line}{line}\n")  # two objects on one line: malformed
    t.raw("s.jsonl", '{"v":1,"ts":true,"event":"session_start","session":"s3","mode":"x"}\n')
    t.raw("s.jsonl", '{"v":true,"ts":1,"event":"session_start","session":"s4","mode":"x"}\n')
    data = report("--telemetry-dir", str(t.dir))
    assert set(data["per_session"]) == {"s", "s2"}
    assert data["data_quality"]["malformed"] == 3  # trailing, doubled, boolean ts
    assert data["data_quality"]["unknown_schema"] == 1  # v: true is not version 1
