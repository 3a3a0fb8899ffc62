"""Issue 11: a hostile clone, a torn file, a FIFO or a huge line never gets past the hook.

One test per class, each over every place the class can strike: every file
the hook reads (FIFOs, devices), every path component it writes through
(symlinks), every private file it keeps (torn, deeply nested, oversized), every
input string (long runs of one character), a full disk, concurrency, and
hostile environment values. The hook is run as Claude Code runs it (a fresh
`python -I -S` subprocess) wherever the class depends on that: on CPython 3.10
and 3.11 a torn JSON file only fails when `json.decoder` is *not* imported,
which pytest always has.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphify_nudge
import graphify_nudge_index
from graphify_nudge import session_file_name
from tests.hook.conftest import (
    HOOK,
    NAMES,
    SESSION,
    Hook,
    context_of,
    git,
    hook_input,
    write_graph,
)

#: the longest any single hook call may take here: well below the 10 s
#: timeout Claude Code gives a hook, whatever is planted in the project
CALL_SECONDS = 6.0
STATE_NAME = session_file_name(SESSION)


def grep_input(hook: Hook, pattern: str = "apply_overlay", **kwargs: Any) -> dict[str, Any]:
    return hook_input(hook.repo, "Grep", {"pattern": pattern, "path": str(hook.repo)}, **kwargs)


def run_timed(hook: Hook, data: dict[str, Any] | bytes) -> subprocess.CompletedProcess[bytes]:
    started = time.monotonic()
    result = hook.subprocess(data)
    assert time.monotonic() - started < CALL_SECONDS
    assert (result.returncode, result.stderr) == (0, b"")
    return result


def snapshot(root: Path) -> dict[str, tuple[int, float, bytes]]:
    """Every path under root, with its type, mtime and (for files) content."""
    out: dict[str, tuple[int, float, bytes]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        out[str(path.relative_to(root))] = (st.st_mode, st.st_mtime, content)
    return out


# -- torn, damaged and oversized private files ------------------------------------

DAMAGE = {
    "torn": b'{"agents":{"a1',
    "garbage": b"\xff\xfe\x00\x01 not json",
    "deep": b"[" * 100_000,
    "deep-object": b'{"agents":' * 50_000,
    "nan": b'{"agents":NaN}',
    "wrong-types": b'{"agents":[],"symbols":{"a":1},"files":7}',
    "empty": b"",
    "oversized": b'{"symbols":["' + b"a" * (1 << 20) + b'"]}',
}


def private_files(hook: Hook) -> dict[str, Path]:
    state = hook.telemetry / ".state"
    return {
        "session-state": state / f"{STATE_NAME}.json",
        "commit-times": state / ".commit-times.json",
    }


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("which", ["session-state", "commit-times"])
def test_damaged_state_is_discarded_and_rebuilt(hook: Hook, which: str, damage: str) -> None:
    """Issue 11 item 2: `printf '{"agents":{"a1' > .state/s1.json` silenced the hook
    for the session (SystemError from the bare scanner on 3.10/3.11)."""
    write_graph(hook.repo, None, mtime=1.0)  # no built_at_commit: reads commit-times too
    (hook.repo / ".git" / "logs" / "HEAD").unlink()  # no reflog: HEAD's commit time decides
    path = private_files(hook)[which]
    path.parent.mkdir(parents=True)
    path.write_bytes(DAMAGE[damage])
    result = run_timed(hook, grep_input(hook))
    assert context_of(result.stdout.decode())  # nudged: the damage was not trusted
    assert (hook.calls()[-1]["graph"], hook.calls()[-1]["stale_by"]) == ("stale", "commit_time")
    run_timed(hook, grep_input(hook, "second"))
    assert hook.calls()[-1]["decision"] == "nudge"
    if which == "session-state":  # the rebuilt state counts both
        (agent,) = json.loads(path.read_bytes())["agents"].values()
        assert agent["nudges"] == 2
    else:  # the cache was rewritten whole, with HEAD's commit time
        assert json.loads(path.read_bytes())["times"]


def test_a_huge_agent_id_never_grows_the_state_past_its_limit(hook: Hook) -> None:
    """Issue 11 item 2: a 1 MiB agent_id grew the state file past its read limit."""
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "2"
    huge = "a" * (1 << 20)
    outputs = [run_timed(hook, grep_input(hook, f"sym{i}", agent_id=huge)).stdout for i in range(4)]
    assert [bool(out) for out in outputs] == [True, True, False, False]  # the cap held
    state = hook.telemetry / ".state" / f"{STATE_NAME}.json"
    assert state.stat().st_size < 4096
    line = (hook.telemetry / f"{STATE_NAME}.jsonl").read_bytes().splitlines()[-1]
    assert len(line) < 4096 and json.loads(line)["agent_id"] == "a" * 256


def test_damaged_index_is_never_fatal(hook: Hook, tmp_path: Path) -> None:
    graph = write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    hook.auto_index = False
    graphify_nudge_index.build_graph_index(hook.environ(), str(hook.repo))
    index = hook.telemetry / ".index" / f"{graphify_nudge._index_name(str(graph))}.idx"
    header = index.read_bytes().split(b"\n", 1)[0] + b"\n"
    for body in [b"s\tapply_overlay\t" + b"[" * 100_000, b"s\tapply_overlay\t[1,[[1]]]",
                 b"\xff" * 10_000, b"s\t" + b"z" * 200_000]:  # fmt: skip
        index.write_bytes(header + body + b"\n")
        assert (run_timed(hook, grep_input(hook, "apply_overlay")).returncode) == 0
    index.write_bytes(b"torn")
    run_timed(hook, grep_input(hook, "x_other"))
    assert hook.calls()[-1]["index"] == "unreadable"


# -- FIFOs and devices where a file should be ----------------------------------------


def _loose_object(hook: Hook) -> Path:
    sha = git(hook.repo, "rev-parse", "HEAD")
    return hook.repo / ".git" / "objects" / sha[:2] / sha[2:]


def _plant_fifo(path: Path) -> None:
    if path.is_dir():
        path.rename(path.with_name(path.name + ".moved"))
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


READ_PATHS: dict[str, Callable[[Hook], Path]] = {
    "graph.json": lambda h: h.repo / ".graphify" / "graph.json",
    ".git": lambda h: h.repo / ".git",
    ".git/HEAD": lambda h: h.repo / ".git" / "HEAD",
    "loose ref": lambda h: h.repo / ".git" / "refs" / "heads" / "main",
    "packed-refs": lambda h: h.repo / ".git" / "packed-refs",
    "loose object": _loose_object,
    "session state": lambda h: h.telemetry / ".state" / f"{STATE_NAME}.json",
    "commit times": lambda h: h.telemetry / ".state" / ".commit-times.json",
    "event log": lambda h: h.telemetry / f"{STATE_NAME}.jsonl",
    "read file": lambda h: h.repo / "src" / "app.py",
}


@pytest.mark.parametrize("where", sorted(READ_PATHS))
def test_a_fifo_anywhere_never_blocks(hook: Hook, where: str) -> None:
    """Issue 11 item 4: a FIFO at .graphify/graph.json, .git, .git/HEAD,
    packed-refs or a loose object hung the hook until Claude Code killed it."""
    write_graph(hook.repo, None, mtime=1.0)  # no built_at: HEAD, refs and objects are read
    if where == "packed-refs":
        git(hook.repo, "pack-refs", "--all")
    path = READ_PATHS[where](hook)
    _plant_fifo(path)
    for data in (
        grep_input(hook),
        hook_input(hook.repo),
        hook_input(hook.repo, event="SessionStart"),
    ):
        run_timed(hook, data)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
@pytest.mark.parametrize("where", ["commit times", "session state", "graph.json", ".git/HEAD"])
def test_a_link_to_a_device_is_never_read(hook: Hook, where: str, device: str) -> None:
    """Issue 11 item 4: a committed `.state/commit-times.json -> /dev/tty`."""
    write_graph(hook.repo, None, mtime=1.0)
    path = READ_PATHS[where](hook)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    path.symlink_to(device)
    run_timed(hook, grep_input(hook))


@pytest.mark.parametrize("mode", ["off", "advise"])
def test_stdin_never_closed_is_bounded(hook: Hook, mode: str) -> None:
    """Issue 11 item 4: stdin that is never closed blocked the hook forever, even in mode off."""
    hook.env["MISHKAN_GRAPHIFY_NUDGE"] = mode
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(HOOK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=hook.env,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(hook_input(hook.repo, event="SessionStart")).encode())
    proc.stdin.flush()  # ...and never closed
    started = time.monotonic()
    out, err = _wait_open(proc)
    assert time.monotonic() - started < graphify_nudge.STDIN_SECONDS + 2
    assert (proc.returncode, out, err) == (0, b"", b"")
    assert hook.events()[0]["event"] == "session_start"  # what came was still used
    proc.stdin.close()


def _wait_open(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Wait for the process without closing its stdin."""
    assert proc.stdout is not None and proc.stderr is not None
    proc.wait(timeout=CALL_SECONDS)
    return proc.stdout.read(), proc.stderr.read()


# -- symlinks at every path component the hook writes through ------------------------


def write_paths(hook: Hook) -> dict[str, Path]:
    tel = hook.telemetry
    graph = hook.repo / ".graphify" / "graph.json"
    index = graphify_nudge._index_name(str(graph))
    return {
        ".mishkan": hook.repo / ".mishkan",
        ".mishkan/telemetry": hook.repo / ".mishkan" / "telemetry",
        ".state": tel / ".state",
        ".index": tel / ".index",
        "event log": tel / f"{STATE_NAME}.jsonl",
        "session state": tel / ".state" / f"{STATE_NAME}.json",
        "disabled marker": tel / ".state" / f"{STATE_NAME}.disabled",
        "commit times": tel / ".state" / ".commit-times.json",
        "index": tel / ".index" / f"{index}.idx",
        "index attempt": tel / ".index" / f"{index}.attempt",
        "index lock": tel / ".index" / f"{index}.lock",
    }


#: the private files whose names a repository can plant: replaced, never written through
REPLACED = ("commit times", "index", "index attempt", "index lock")


def _calls(hook: Hook) -> Iterator[dict[str, Any]]:
    yield hook_input(hook.repo, event="SessionStart")
    yield grep_input(hook)
    yield hook_input(hook.repo)
    yield hook_input(hook.repo, "Bash", {"command": "graphify explain x"})
    yield hook_input(hook.repo, "Bash", {"command": "graphify explain x"}, event="PostToolUse",
                     tool_response={"stdout": "src/app.py"})  # fmt: skip


@pytest.mark.parametrize("component", sorted(write_paths(Hook(Path("/r"), Path("/t")))))
def test_a_symlink_at_any_component_is_never_followed(
    repo: Path, tmp_path: Path, component: str
) -> None:
    """Issue 11 items 1 and 5: `.state -> V` created V/s1.json and overwrote
    V/commit-times.json; `.mishkan -> V` created V/telemetry/...; every write
    is relative to a directory opened without following links."""
    hook = Hook(repo, repo / ".mishkan" / "telemetry")
    del hook.env["MISHKAN_TELEMETRY_DIR"]  # the default: inside the (hostile) project
    hook.auto_index = False  # the index directory is written too
    write_graph(repo, None, mtime=1.0)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "commit-times.json").write_text("keep\n")
    (victim / f"{STATE_NAME}.json").write_text("keep\n")
    link = write_paths(hook)[component]
    link.parent.mkdir(parents=True, exist_ok=True)
    target = victim if component.startswith(".") else victim / "commit-times.json"
    link.symlink_to(target)
    before = snapshot(victim)
    for data in _calls(hook):
        run_timed(hook, data)
    time.sleep(0.3)  # a background index build, had it been started, gets its chance
    assert snapshot(victim) == before
    # never followed; a file written whole (`_replace`) or the build's lock puts
    # its own in the link's place
    assert link.is_symlink() or component in REPLACED


def test_a_project_dir_that_is_not_utf8_is_used_byte_for_byte(tmp_path: Path) -> None:
    """Issue 11 item 5: CLAUDE_PROJECT_DIR=caf\\xe9 made the hook create caf\\xef\\xbf\\xbd/."""
    from tests.hook.conftest import make_repo

    base = os.fsencode(tmp_path)
    project = base + b"/caf\xe9"
    make_repo(Path(os.fsdecode(project)))
    env = {b"PATH": os.environb.get(b"PATH", b"/usr/bin"), b"CLAUDE_PROJECT_DIR": project,
           b"MISHKAN_GRAPHIFY_NUDGE": b"advise", b"MISHKAN_GRAPHIFY_INDEX": b"off"}  # fmt: skip
    for event in ("SessionStart", "PreToolUse"):
        data = hook_input(Path("/x"), "Grep", {"pattern": "apply_overlay"}, event=event)
        data["cwd"] = os.fsdecode(project)
        raw = json.dumps(data).encode()
        command = [sys.executable, "-I", "-S", str(HOOK)]
        result = subprocess.run(
            command, input=raw, capture_output=True, env=env, timeout=30, check=False
        )
        assert (result.returncode, result.stderr) == (0, b"")
    assert sorted(os.listdir(base)) == [b"caf\xe9"]
    log = project + b"/.mishkan/telemetry/" + STATE_NAME.encode() + b".jsonl"
    with open(log, "rb") as lines:
        assert [json.loads(line)["event"] for line in lines] == ["session_start", "call"]


# -- session ids ----------------------------------------------------------------------


def test_session_file_names_are_injective_on_the_reported_pair() -> None:
    """Issue 11 item 11: "a." and "a_-b5451746" shared one file, state and cap."""
    assert session_file_name("a.") != session_file_name("a_-b5451746")
    assert session_file_name(SESSION) == SESSION


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.text(max_size=200), st.text(max_size=200))
def test_session_file_names_are_injective(a: str, b: str) -> None:
    name_a, name_b = session_file_name(a), session_file_name(b)
    assert (name_a == name_b) == (a == b)
    for name in (name_a, name_b):
        assert name and "/" not in name and not name.startswith(".") and len(name) <= 128
        assert name.isascii() and name.isprintable()


# -- a full disk ------------------------------------------------------------------------


def _limited(limit: int) -> Any:
    def apply() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _run_limited(hook: Hook, data: dict[str, Any], limit: int) -> bytes:
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK)], input=json.dumps(data).encode(),
        capture_output=True, env=hook.env, preexec_fn=_limited(limit), timeout=30, check=False,
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (0, b"")
    return result.stdout


@pytest.mark.parametrize("limit", [0, 300, 700])
def test_the_cap_holds_on_a_full_disk(hook: Hook, limit: int) -> None:
    """Issue 11 item 12: on ENOSPC 8 of 8 calls nudged with cap 3. A nudge
    that cannot be recorded is not printed."""
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    outputs = [_run_limited(hook, grep_input(hook, f"sym{i}"), limit) for i in range(8)]
    nudged = sum(bool(out) for out in outputs)
    assert nudged <= 3
    if limit == 0:
        assert nudged == 0


def test_a_write_that_cannot_complete_leaves_no_fragment(hook: Hook) -> None:
    """Issue 11 item 12: a partial line merged with the next one once space was freed."""
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    run_timed(hook, hook_input(hook.repo, event="SessionStart"))
    log = hook.telemetry / f"{STATE_NAME}.jsonl"
    size = log.stat().st_size
    _run_limited(hook, hook_input(hook.repo), size + 40)  # room for 40 bytes of a ~500-byte line
    assert log.stat().st_size == size
    run_timed(hook, hook_input(hook.repo))  # space freed
    lines = log.read_bytes().split(b"\n")
    assert lines[-1] == b"" and [json.loads(line)["event"] for line in lines[:-1]] == [
        "session_start", "call",
    ]  # fmt: skip


# -- concurrency ------------------------------------------------------------------------


def test_the_cap_holds_under_concurrency(hook: Hook, tmp_path: Path) -> None:
    """Issue 11 item 13: 32 processes x 200 calls, one agent, cap 3: exactly 3 nudges.
    (The calls cycle over the graph's NAMES, more than 3, so only the cap can stop
    a fourth nudge; `already_advised` silences repeats.)"""
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    hook.index()
    worker = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {str(HOOK.parent)!r})
        import graphify_nudge
        env = {{k.encode(): v.encode() for k, v in json.loads(sys.argv[1]).items()}}
        raw = sys.stdin.buffer.read()
        names = {NAMES!r}
        nudged = 0
        for i in range(200):
            tag = names[(int(sys.argv[2]) + i) % len(names)].encode()
            nudged += bool(graphify_nudge.run(raw.replace(b"SYMBOL", tag), env))
        print(nudged)
        """
    )
    raw = json.dumps(grep_input(hook, "SYMBOL")).encode()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", worker, json.dumps(hook.env), str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for n in range(32)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(raw)
        proc.stdin.close()
    printed = 0
    for proc in procs:
        assert proc.stdout is not None
        printed += int(proc.stdout.read())
        assert proc.wait(timeout=300) == 0
    records = [r for r in hook.events() if r["event"] == "call"]
    assert len(records) == 32 * 200
    assert printed == 3 == sum(r["decision"] == "nudge" for r in records)
    assert not [r for r in hook.events() if r["event"] == "self_disable"]


# -- hostile environment values -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MISHKAN_GRAPHIFY_NUDGE_CAP", "9" * 5000),
        ("MISHKAN_GRAPHIFY_NUDGE_CAP", "-1"),
        ("MISHKAN_GRAPHIFY_NUDGE_CAP", "³"),
        ("MISHKAN_GRAPHIFY_NUDGE", "a" * 100_000),
        ("MISHKAN_TELEMETRY_DIR", "t" * 100_000),
        ("MISHKAN_GRAPHIFY_GRAPH", "/" * 100_000),
        ("GRAPHIFY_OUT", "." * 100_000),
        ("CLAUDE_PROJECT_DIR", "\\" * 100_000),
    ],
    ids=lambda value: value[:12],
)
def test_hostile_environment_values(hook: Hook, name: str, value: str) -> None:
    """Issue 11 item 14: a 5000-digit cap silently disabled everything, SessionStart included."""
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    hook.env[name] = value
    for data in (hook_input(hook.repo, event="SessionStart"), grep_input(hook)):
        run_timed(hook, data)
    if name == "MISHKAN_GRAPHIFY_NUDGE_CAP":
        assert hook.events()[0]["event"] == "session_start"
        assert hook.calls()[0]["decision"] == "nudge"


def test_a_huge_cap_is_no_cap() -> None:
    settings_ = graphify_nudge._Settings({b"MISHKAN_GRAPHIFY_NUDGE_CAP": b"9" * 5000})
    assert settings_.cap == graphify_nudge.MAX_CAP


# -- long runs of one character in every input string ------------------------------------

LONG = 1 << 20


@pytest.mark.parametrize("char", ["a", "(", "\\", "'", '"', "$", "/", "\u00e9", "\x00", "`"])
@pytest.mark.parametrize("field", ["session_id", "agent_id", "pattern", "command", "file_path"])
def test_long_runs_of_one_character(hook: Hook, field: str, char: str) -> None:
    write_graph(hook.repo, git(hook.repo, "rev-parse", "HEAD"))
    run = char * LONG
    if field == "pattern":
        data = grep_input(hook, run)
    elif field == "command":
        data = hook_input(hook.repo, "Bash", {"command": "grep -rn " + run})
    elif field == "file_path":
        data = hook_input(hook.repo, "Read", {"file_path": run})
    elif field == "session_id":
        data = grep_input(hook, session_id=run)
    else:
        data = grep_input(hook, agent_id=run)
    started = time.monotonic()
    out = graphify_nudge.run(json.dumps(data).encode(), hook.environ())
    assert time.monotonic() - started < CALL_SECONDS
    assert out == "" or context_of(out)
    for path in hook.telemetry.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 64 * 1024, path  # nothing grows with the input


# -- the fuzz test: every hazard class at every location ------------------------------------


def _plant(path: Path, hazard: str, outside: Path) -> None:
    if path.is_symlink() or path.exists():
        raise FileExistsError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if hazard == "fifo":
        os.mkfifo(path)
    elif hazard == "symlink-out":
        path.symlink_to(outside)
    elif hazard == "device":
        path.symlink_to("/dev/zero")
    else:
        content = {"torn": b'{"a":[1,', "deep": b"[" * 200_000, "long-run": b"\\" * LONG}
        path.write_bytes(content[hazard])


HAZARDS = ["fifo", "symlink-out", "torn", "deep", "long-run", "device"]
LOCATIONS = sorted(set(READ_PATHS) | set(write_paths(Hook(Path("/r"), Path("/t")))))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(
    hazards=st.lists(
        st.tuples(st.sampled_from(HAZARDS), st.sampled_from(LOCATIONS)), min_size=1, max_size=3
    ),
    mode=st.sampled_from(["advise", "telemetry", "off"]),
)
def test_property_hazards_anywhere_are_harmless(
    tmp_path_factory: pytest.TempPathFactory, hazards: list[tuple[str, str]], mode: str
) -> None:
    from tests.hook.conftest import make_repo

    base = tmp_path_factory.mktemp("hazard")
    repo = make_repo(base / "repo")
    hook = Hook(repo, repo / ".mishkan" / "telemetry", mode)
    del hook.env["MISHKAN_TELEMETRY_DIR"]
    write_graph(repo, None, mtime=1.0)
    outside = base / "outside"
    outside.mkdir()
    places = {name: get(hook) for name, get in READ_PATHS.items()}
    places.update(write_paths(hook))
    for hazard, location in hazards:
        try:
            _plant(places[location], hazard, outside)
        except OSError:
            pass  # an earlier hazard already took this place or its parent
    before = snapshot(outside)
    for data in _calls(hook):
        result = run_timed(hook, data)
        assert result.stdout == b"" or context_of(result.stdout.decode())
    assert snapshot(outside) == before
