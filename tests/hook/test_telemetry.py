"""Requirements 10 to 12: the telemetry files, bounded state, self-disable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import graphify_nudge
from graphify_nudge import SELF_DISABLE_MESSAGE, session_file_name
from tests.hook.conftest import HOOK, SESSION, Hook, hook_input

CALL_KEYS = [
    "v", "ts", "event", "session", "mode", "agent_type", "agent_id", "tool", "tool_use_id",
    "agent", "kind", "trigger", "via", "target", "symbols", "graph", "stale_by", "built_at",
    "decision", "reason", "symbol", "index", "sites", "answered", "uses", "changed",
]  # fmt: skip


def test_call_line_follows_the_documented_schema(hook: Hook, fresh_graph: Path) -> None:
    hook.call("Grep", {"pattern": "apply_overlay"})
    (line,) = (hook.telemetry / f"{SESSION}.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert list(record) == CALL_KEYS
    assert record["v"] == graphify_nudge.SCHEMA_VERSION == 1
    assert isinstance(record["ts"], float) and abs(record["ts"] - time.time()) < 60
    assert line == json.dumps(record, separators=(",", ":"))  # compact, ASCII
    # what the advisory answered: main.py's import of the function is its one use
    assert (record["answered"], record["uses"], record["changed"]) == ("uses", 1, 0)
    docs = (Path(__file__).parents[2] / "docs" / "telemetry.md").read_text()
    for key in CALL_KEYS[5:]:
        assert f"`{key}`" in docs


def test_every_tool_call_of_the_five_is_recorded(hook: Hook, fresh_graph: Path) -> None:
    for tool, tool_input in [
        ("Edit", {"file_path": str(hook.repo / "a.py"), "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": "pytest -q"}),
        ("Read", {"file_path": str(hook.repo / "README.md")}),
        ("TodoWrite", {"todos": []}),
    ]:
        hook.call(tool, tool_input)
    assert [(c["tool"], c["kind"], c["trigger"]) for c in hook.calls()] == [
        ("Edit", "other", False), ("Bash", "other", False), ("Read", "read", False),
        ("TodoWrite", "other", False),
    ]  # fmt: skip


def test_one_file_per_session_in_the_default_directory(repo: Path, fresh_graph: Path) -> None:
    hook = Hook(repo, repo / "unused")
    del hook.env["MISHKAN_TELEMETRY_DIR"]
    hook.call("Grep", {"pattern": "a"}, session_id="s-1")
    hook.call("Grep", {"pattern": "b"}, session_id="s-2")
    directory = repo / ".mishkan" / "telemetry"
    assert sorted(p.name for p in directory.glob("*.jsonl")) == ["s-1.jsonl", "s-2.jsonl"]
    assert oct(directory.stat().st_mode & 0o777) == "0o700"
    assert oct((directory / "s-1.jsonl").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    "session_id",
    [
        "../../x",
        "/etc/passwd",
        "a/../../b",
        "..",
        ".",
        "",
        "x\x00y",
        "é" * 50,
        "a b",
        "s" * 500,
        "\\..\\x",
    ],
)
def test_hostile_session_ids_never_escape_the_directory(
    hook: Hook, fresh_graph: Path, tmp_path: Path, session_id: str
) -> None:
    before = set(tmp_path.rglob("*"))
    hook.call("Grep", {"pattern": "a"}, session_id=session_id)
    name = session_file_name(session_id)
    assert "/" not in name and not name.startswith(".") and len(name) <= 110
    created = set(tmp_path.rglob("*")) - before
    assert created, "something was written"
    for path in created:
        assert path.resolve().is_relative_to(hook.telemetry.resolve()), path
    assert (hook.telemetry / f"{name}.jsonl").exists()
    recorded = json.loads((hook.telemetry / f"{name}.jsonl").read_text())["session"]
    assert recorded == session_id[:256]  # telemetry strings are cut to 256 characters


def test_sanitised_names_do_not_collide() -> None:
    assert session_file_name("a/b") != session_file_name("a_b") != session_file_name("a?b")
    assert session_file_name("3d7f224f-d067") == "3d7f224f-d067"


def test_symlink_at_the_log_path_is_not_followed(
    hook: Hook, fresh_graph: Path, tmp_path: Path
) -> None:
    target = tmp_path / "outside.txt"
    target.write_text("keep\n")
    hook.telemetry.mkdir(parents=True)
    (hook.telemetry / f"{SESSION}.jsonl").symlink_to(target)
    assert hook.call("Grep", {"pattern": "apply_overlay"})  # still advises
    assert target.read_text() == "keep\n"


def test_nothing_written_outside_the_telemetry_dir(
    hook: Hook, fresh_graph: Path, tmp_path: Path
) -> None:
    def snapshot() -> dict[Path, float]:
        return {
            p: p.stat().st_mtime
            for p in tmp_path.rglob("*")
            if not p.is_relative_to(hook.telemetry)
        }

    before = snapshot()
    hook(hook_input(hook.repo, event="SessionStart"))
    for command in ["graphify explain x", "grep -rn y .", "cat src/app.py"]:
        hook.call("Bash", {"command": command})
        hook.call(
            "Bash",
            {"command": command},
            event="PostToolUse",
            tool_response={"stdout": "src/app.py"},
        )
    hook.call()
    assert snapshot() == before


def test_state_stays_bounded_however_long_the_session(hook: Hook, fresh_graph: Path) -> None:
    for i in range(600):
        hook.call("Bash", {"command": f"graphify explain sym_{i}"})
    state = hook.telemetry / ".state" / f"{SESSION}.json"
    assert len(json.loads(state.read_text())["symbols"]) == graphify_nudge.MAX_REMEMBERED
    assert state.stat().st_size < 16_000


def test_the_event_log_is_never_read_back(hook: Hook, fresh_graph: Path) -> None:
    # A huge, garbage log changes nothing: the hook keeps its own small state.
    hook.telemetry.mkdir(parents=True)
    log = hook.telemetry / f"{SESSION}.jsonl"
    log.write_bytes(b"not json\n" * 200_000)
    assert hook.call("Grep", {"pattern": "apply_overlay"})
    assert log.read_bytes().endswith(b"\n") and log.stat().st_size > 1_800_000


def test_a_slow_wall_clock_call_is_recorded_not_disabling(hook: Hook, fresh_graph: Path) -> None:
    """Issue 10 item 6: a loaded machine stretches calls; that is not the hook's cost."""
    data = json.dumps(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})).encode()
    slow_start = time.perf_counter() - 0.5  # as if the call had waited 500 ms for a CPU
    hook.index()
    assert graphify_nudge.guarded_run(data, hook.environ(), slow_start)
    slow = hook.events()[-1]
    assert slow["event"] == "slow_call" and slow["elapsed_ms"] >= 500 and slow["cpu_ms"] < 200
    assert slow["agent"] == "hizkiah"
    assert hook.call("Read", {"file_path": str(hook.repo / "src/app.py")})  # still on


def test_self_disable_after_a_call_over_its_cpu_budget(hook: Hook, fresh_graph: Path) -> None:
    data = json.dumps(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})).encode()
    # as if the hook itself had computed for 500 ms
    hook.index()
    graphify_nudge.guarded_run(data, hook.environ(), None, None, time.process_time() - 0.5)
    events = hook.events()
    assert events[-1]["event"] == "self_disable"
    assert events[-1]["cpu_ms"] >= 500
    assert (
        events[-1]["message"]
        == SELF_DISABLE_MESSAGE
        == "graphify nudge self-disabled: budget exceeded"
    )
    read_app = {"file_path": str(hook.repo / "src/app.py")}
    assert hook.call("Read", read_app) == ""  # the rest of the session: nothing
    assert len(hook.events()) == len(events)
    assert hook.call("Read", read_app, session_id="next")  # other sessions unaffected


def test_concurrent_writers_leave_every_line_intact(hook: Hook, fresh_graph: Path) -> None:
    """16 processes x 200 calls against one session, through the hook's own writer."""
    worker = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {str(HOOK.parent)!r})
        import graphify_nudge
        env = {{k.encode(): v.encode() for k, v in json.loads(sys.argv[1]).items()}}
        raw = sys.stdin.buffer.read()
        for i in range(200):
            tag = sys.argv[2].encode() + b"-" + str(i).encode()
            graphify_nudge.run(raw.replace(b"WORKER", tag), env)
        """
    )
    data = hook_input(
        hook.repo, "Bash", {"command": "make build", "description": "x" * 300}, tool_use_id="WORKER"
    )
    raw = json.dumps(data).encode()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", worker, json.dumps(hook.env), str(n)], stdin=subprocess.PIPE
        )
        for n in range(16)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(raw)
        proc.stdin.close()
    assert all(proc.wait(timeout=120) == 0 for proc in procs)
    lines = (hook.telemetry / f"{SESSION}.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    records = [json.loads(line) for line in lines[:-1]]
    assert len(records) == 16 * 200
    assert len({r["tool_use_id"] for r in records}) == 16 * 200


def test_unwritable_telemetry_dir_is_silent(hook: Hook, fresh_graph: Path, tmp_path: Path) -> None:
    """Issue 11 item 12: a nudge the cap cannot count is never shown."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    hook.env["MISHKAN_TELEMETRY_DIR"] = str(blocker / "telemetry")  # ENOTDIR on every write
    for _ in range(5):
        assert hook.call("Grep", {"pattern": "apply_overlay"}) == ""


def test_full_disk_is_fail_open(hook: Hook, fresh_graph: Path) -> None:
    import resource

    def no_file_growth() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # every write: EFBIG

    data = json.dumps(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})).encode()
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK)], input=data, capture_output=True, env=hook.env,
        preexec_fn=no_file_growth, timeout=30, check=False,
    )  # fmt: skip
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_python_version_matrix_subprocess(hook: Hook, fresh_graph: Path) -> None:
    """The real file under `python -I -S`, exit 0, exact output."""
    result = hook.subprocess(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}))
    assert result.returncode == 0 and result.stderr == b""
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"].startswith(
        "[graphify-nudge]"
    )
    assert os.path.exists(hook.telemetry / f"{SESSION}.jsonl")
