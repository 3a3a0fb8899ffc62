"""Reading the telemetry directory: damage is counted, unusable input exits 2."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert dq["malformed"] == 5
    assert dq["other_events"] == 1  # "teleport": a newer hook's event is not damage
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
    real_open = os.open

    def fake_open(path: str, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith("other.jsonl"):
            raise PermissionError(13, "denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)  # root reads through chmod 000
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


# --------------------------------------------------------------------------- #
# hostile input, by class (issue 11): every line is counted, nothing is fatal


def _strict(out: str) -> dict[str, Any]:
    """Parse as JSON proper: NaN and Infinity are refused."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in --format json output")

    data: dict[str, Any] = json.loads(out, parse_constant=refuse)
    return data


def _damage_adds_up(dq: dict[str, int]) -> None:
    parts = ("events", "outside_window", "malformed", "oversized", "unknown_schema")
    assert dq["lines"] == sum(dq[k] for k in parts) + dq["other_events"] + dq["torn"], dq


def test_deep_nesting_is_malformed_not_a_recursion_error(tmp_path: Path) -> None:
    t = _good(tmp_path)
    t.raw("s.jsonl", "[" * 100_000 + "\n")  # issue 11 item 6: rc 1 with RecursionError
    deep = '{"v":1,"ts":1796015340,"event":"session_start","session":"d","mode":"advise","x":'
    t.raw("s.jsonl", deep + "[" * 50_000 + "]" * 50_000 + "}\n")
    t.raw("s.jsonl", "{" * 30_000 + "\n")
    code, out, err = cli("--telemetry-dir", str(t.dir), "--format", "json")
    assert code == 0, err
    dq = _strict(out)["data_quality"]
    assert dq["malformed"] == 3 and dq["events"] == 3
    _damage_adds_up(dq)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("mode", "[]"),  # issue 11 item 6: TypeError unhashable list
        ("mode", '{"a":1}'),
        ("mode", "7"),
        ("session", "[]"),
        ("session", "null"),
        ("event", "[]"),
        ("event", "{}"),
        ("ts", '"1"'),
        ("ts", "true"),
        ("ts", "NaN"),
        ("ts", "Infinity"),
        ("ts", "-Infinity"),
        ("ts", "1e400"),
        ("ts", "-5"),
        ("ts", "1" + "0" * 30),
    ],
)
def test_a_wrong_type_in_any_field_is_malformed(tmp_path: Path, field: str, value: str) -> None:
    t = _good(tmp_path)
    fields = {"v": "1", "ts": "1796015340", "event": '"session_start"', "session": '"x"'}
    fields["mode"] = '"advise"'
    fields[field] = value
    t.raw("s.jsonl", "{" + ",".join(f'"{k}":{v}' for k, v in fields.items()) + "}\n")
    code, out, err = cli("--telemetry-dir", str(t.dir), "--format", "json")
    assert code == 0, err
    data = _strict(out)
    assert data["data_quality"]["malformed"] == 1, (field, value)
    assert "x" not in data["per_session"]


@pytest.mark.parametrize(
    "field", ["agent_type", "agent_id", "kind", "trigger", "decision", "graph", "reason", "agent"]
)
def test_a_wrong_type_in_a_call_field_is_malformed(tmp_path: Path, field: str) -> None:
    t = _good(tmp_path)
    call = {
        "v": 1, "ts": 1796015340, "event": "call", "session": "x", "mode": "advise",
        "agent_type": "salma", "agent_id": "a", "kind": "read", "trigger": True,
        "decision": "nudge", "graph": "fresh", "reason": "fresh", "agent": "salma",
    }  # fmt: skip
    bad: object
    for bad in ([], {"k": 1}, 3):
        call[field] = bad
        t.raw("s.jsonl", json.dumps(call) + "\n")
    data = report("--telemetry-dir", str(t.dir))
    assert data["data_quality"]["malformed"] == 3, field
    assert "x" not in data["per_session"]


@pytest.mark.parametrize("field", ["session", "agent_type"])
def test_a_name_longer_than_the_hook_writes_is_malformed(tmp_path: Path, field: str) -> None:
    """The hook cuts both to 256 characters (docs/telemetry.md); a longer one
    is a line it never wrote, and every report prints each name many times."""
    t = _good(tmp_path)
    call = {"v": 1, "ts": 1796015340, "event": "call", "session": "x", "mode": "advise",
            "agent_type": "salma", "agent_id": "a", "kind": "read", "trigger": True}  # fmt: skip
    for length, name in ((256, "y" * 256), (257, "z" * 257)):
        t.raw("s.jsonl", json.dumps({**call, field: name, "tool_use_id": str(length)}) + "\n")
    data = report("--telemetry-dir", str(t.dir))
    assert data["data_quality"]["malformed"] == 1
    names = data["per_session"] if field == "session" else data["per_agent"]
    assert "y" * 256 in names and "z" * 257 not in names


def test_unknown_fields_reasons_and_events_are_tolerated(tmp_path: Path) -> None:
    t = _good(tmp_path)
    call = {
        "v": 1, "ts": 1796015340, "event": "call", "session": "s", "mode": "advise",
        "agent_type": "salma", "agent_id": "a", "kind": "read", "trigger": True,
        "decision": "silent", "graph": "fresh", "reason": "a_reason_from_the_future",
        "new_field": {"nested": [1, 2]}, "stale_by": ["not", "read"],
    }  # fmt: skip
    t.raw("s.jsonl", json.dumps(call) + "\n")
    t.raw("s.jsonl", json.dumps({"v": 1, "ts": 1796015341, "event": "index_built",
                                 "session": "s", "mode": "advise"}) + "\n")  # fmt: skip
    data = report("--telemetry-dir", str(t.dir))
    dq = data["data_quality"]
    assert dq["malformed"] == 0 and dq["other_events"] == 1
    assert data["triggers"] == 2


def test_fifo_and_links_in_the_directory_never_block_and_are_not_followed(
    tmp_path: Path,
) -> None:
    t = _good(tmp_path)
    os.mkfifo(t.dir / "fifo.jsonl")
    outside = tmp_path / "outside.jsonl"
    outside.write_text(
        json.dumps({"v": 1, "ts": 1796015340, "event": "session_start", "session": "evil"}) + "\n"
    )
    (t.dir / "link.jsonl").symlink_to(outside)
    (t.dir / "tty.jsonl").symlink_to("/dev/tty")
    (t.dir / "dir.jsonl").mkdir()
    linked_top = tmp_path / "top-link"
    linked_top.symlink_to(t.dir)  # the directory the user names may be a link
    code, out, err = cli("--telemetry-dir", str(linked_top), "--format", "json")
    assert code == 0, err
    data = _strict(out)
    assert "evil" not in data["per_session"]
    assert data["data_quality"]["foreign_files"] == 4
    assert data["data_quality"]["events"] == 3


def test_a_sparse_gigabyte_beside_real_telemetry_is_one_oversized_line(tmp_path: Path) -> None:
    t = _good(tmp_path)
    with (t.dir / "a.jsonl").open("wb") as fh:
        fh.truncate(1 << 30)  # issue 11 item 7: 13.7 s and 2.1 GB before
    data = report("--telemetry-dir", str(t.dir))
    assert data["data_quality"]["oversized"] == 1 and data["triggers"] == 1


_hostile_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(
        [
            "advise",
            "off",
            "telemetry",
            "nudge",
            "opt_out",
            "fresh",
            "stale",
            "not_in_graph",
            "lookup",
            "read",
            "call",
            "session_start",
            "self_disable",
            "mishkan:hizkiah",
        ]
    ),
)
_FIELDS = ("v", "ts", "event", "session", "mode", "agent_type", "agent_id", "kind", "trigger",
           "decision", "graph", "reason", "agent", "new_field")  # fmt: skip
_junk_line = st.sampled_from(
    [
        "[" * 100_000,
        "{" * 5_000,
        '{"v":1' + " " * 3_000,
        "a" * 5_000,
        "NaN",
        "",
        "\x00" * 10,
        '{"v":1,"ts":1,"event":"call","session":"s"}',
        '{"v":1,"session":"\ud800"}',
    ]
)  # the lone surrogate is written as invalid UTF-8


def _base(event: str, session: str, ts: float) -> dict[str, Any]:
    obj: dict[str, Any] = {"v": 1, "ts": ts, "event": event, "session": session, "mode": "advise"}
    if event in ("call", "self_disable"):
        obj.update(agent_type="Hizkiah", agent_id="a1", kind="read", trigger=True,
                   decision="nudge", graph="fresh", reason="fresh")  # fmt: skip
    return obj


_line = st.one_of(
    st.builds(
        lambda event, session, ts, edits: json.dumps({**_base(event, session, ts), **edits}),
        st.sampled_from(["call", "session_start", "self_disable", "lookup_result"]),
        st.sampled_from(["s", "t"]),
        st.floats(1.7e9, 1.8e9),
        st.dictionaries(st.sampled_from(_FIELDS), _hostile_value, max_size=3),
    ),
    _junk_line,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_line, max_size=12), st.one_of(st.none(), st.text(max_size=30)))
def test_fuzz_any_lines_give_a_report_and_every_line_is_counted(
    lines: list[str], torn: str | None
) -> None:
    """Wrong types anywhere, deep nesting, long runs, NaN, a torn tail: exit 0,
    JSON proper, and lines = events + every kind of damage."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        valid = json.dumps(_base("session_start", "anchor", 1.79e9))
        body = "\n".join([valid, *lines]) + "\n" + (torn or "")
        (d / "a.jsonl").write_text(body, encoding="utf-8", errors="surrogatepass")
        code, out, err = cli("--telemetry-dir", str(d), "--format", "json")
        assert code == 0, err
        data = _strict(out)
        _damage_adds_up(data["data_quality"])
        for fmt in ("text", "markdown", "html"):
            code, _, err = cli("--telemetry-dir", str(d), "--format", fmt)
            assert code == 0, err
