"""Smoke tests of the benchmark harness itself. No timed assertion here: the
numbers belong to `tox -e bench`; these check the fixtures, the hook inputs,
the statistics, the --check rule and the JSON shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import _env, _stats, cold_start
from bench import _scenarios as sc
from tests.shared_data import shared_dir, shared_path

REFERENCE = shared_dir() / "reference" / "claude-code-hooks"
NAIVE = Path(cold_start.__file__).resolve().parent / "naive_hook.py"


def _reference_inputs() -> list[dict[str, Any]]:
    out = []
    for f in sorted(REFERENCE.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            stdin = json.loads(line)["stdin"]
            out.append(json.loads(stdin) if isinstance(stdin, str) else stdin)
    return out


# --------------------------------------------------------------------------- inputs


def test_inputs_have_the_captured_shape() -> None:
    shared_path("reference/claude-code-hooks", "the captured Claude Code hook inputs")
    ref = _reference_inputs()
    agent_pre = next(d for d in ref if d["hook_event_name"] == "PreToolUse" and "agent_type" in d)
    main_pre = next(
        d for d in ref if d["hook_event_name"] == "PreToolUse" and "agent_type" not in d
    )
    agent_post = next(d for d in ref if d["hook_event_name"] == "PostToolUse" and "agent_type" in d)
    start = next(d for d in ref if d["hook_event_name"] == "SessionStart")
    root = "/tmp/x"
    mine = sc.tool_input(
        "PreToolUse", root, "s", "Read", {"file_path": "a"}, agent_type="hizkiah", agent_id="a" * 17
    )
    assert list(mine) == list(agent_pre)
    mine = sc.tool_input(
        "PreToolUse", root, "s", "Read", {"file_path": "a"}, agent_type=None, agent_id=None
    )
    assert list(mine) == list(main_pre)
    mine = sc.tool_input(
        "PostToolUse",
        root,
        "s",
        "Read",
        {},
        agent_type="hizkiah",
        agent_id="a" * 17,
        tool_response={},
    )
    assert list(mine) == list(agent_post)
    assert list(sc.session_start_input(root, "s")) == list(start)
    assert tuple(agent_pre) == sc.PRE_TOOL_USE_KEYS
    assert tuple(agent_post) == sc.POST_TOOL_USE_KEYS
    # the captured values that are not ours to vary
    assert agent_pre["permission_mode"] == "bypassPermissions"
    assert agent_pre["effort"] == {"level": "high"}
    grep = next(d for d in ref if d.get("tool_name") == "Grep" and "agent_type" in d)
    assert set(sc._grep_symbol(root)) == set(grep["tool_input"])
    bash = next(d for d in ref if d.get("tool_name") == "Bash")
    assert set(sc._bash("x", "y")(root)) == set(bash["tool_input"])


def test_call_maker_sessions() -> None:
    by_policy: dict[str, list[dict[str, Any]]] = {}
    for scen in sc.all_scenarios():
        maker = sc.CallMaker(scen, "/r")
        calls = [json.loads(maker.next()) for _ in range(3)]
        by_policy.setdefault(scen.session, calls)
        for c in calls:
            assert c["cwd"] == "/r"
            if scen.agent is None or scen.event == "SessionStart":
                assert "agent_type" not in c
            else:
                assert c["agent_type"] == scen.agent
                assert len(c["agent_id"]) == 17
    fixed, fresh = by_policy["fixed"], by_policy["fresh"]
    assert len({c["session_id"] for c in fixed}) == 1
    assert len({c["agent_id"] for c in fixed}) == 1
    assert len({c["session_id"] for c in fresh}) == 3
    agents = by_policy["agents"]  # one busy session, a new agent per call
    assert len({c["session_id"] for c in agents}) == 1
    assert len({c["agent_id"] for c in agents}) == 3
    assert set(by_policy) == {"fixed", "fresh", "agents"}
    raw = sc.CallMaker(sc.all_scenarios()[0], "/r").next()
    assert b", " not in raw and b": " not in raw  # compact, like JSON.stringify


def test_scenarios_cover_the_issue() -> None:
    keys = {s.key for s in sc.all_scenarios()}
    for name in (
        "out_of_scope/advise",
        "main_thread/advise",
        "read_fresh/advise",
        "read_fresh/telemetry",
        "grep_stale/advise",
        "graph_absent/advise",
        "no_built_at_cold/advise",
        "no_built_at_warm/advise",
        "bash_trigger/advise",
        "bash_non_trigger/advise",
        "mode_off/off",
        "session_10k/advise",
        "graph_50mb/advise",
        "packed_refs/advise",
        "worktree/advise",
        # issue 10: an index lookup for a 50 MiB graph; a missing/outdated index
        "index_50mb/advise",
        "index_not_in_graph/advise",
        "index_missing/advise",
        "index_spawn/advise",
        "index_outdated/advise",
    ):
        assert name in keys
    assert len(keys) == len(sc.all_scenarios())  # no duplicate keys
    peers = {s.peer for s in sc.all_scenarios() if s.peer}
    assert peers == {"read", "search"}


# --------------------------------------------------------------------------- fixtures


def _head_via_git(root: Path) -> str:
    return sc.git(root, "rev-parse", "HEAD")


def _tail(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_bytes())
    assert isinstance(data, dict)
    return data


def test_fixtures(tmp_path: Path) -> None:
    fx = {name: sc.build_fixture(name, tmp_path, big_graph_bytes=300_000) for name in sc.FIXTURES}
    for f in fx.values():
        assert _head_via_git(f.root) == f.head
        assert (f.root / "src" / "app.py").is_file()
    fresh = _tail(fx["fresh"].root / ".graphify" / "graph.json")
    assert fresh["built_at_commit"] == fx["fresh"].head
    assert list(fresh)[-1] == "built_at_commit"  # graphify writes it last
    assert {"directed", "multigraph", "graph", "nodes", "links", "hyperedges"} <= set(fresh)
    graph_mtime = (fx["fresh"].root / ".graphify" / "graph.json").stat().st_mtime
    assert graph_mtime > (fx["fresh"].root / "src" / "app.py").stat().st_mtime

    stale = _tail(fx["stale"].root / ".graphify" / "graph.json")
    assert stale["built_at_commit"] != fx["stale"].head
    assert stale["built_at_commit"] == sc.git(fx["stale"].root, "rev-parse", "HEAD~1")

    assert fx["absent"].graph is None
    assert not (fx["absent"].root / ".graphify").exists()
    assert not (fx["absent"].root / "graphify-out").exists()

    nobuilt_path = fx["nobuilt"].root / ".graphify" / "graph.json"
    assert "built_at_commit" not in _tail(nobuilt_path)
    commit_time = int(sc.git(fx["nobuilt"].root, "log", "-1", "--format=%ct"))
    assert nobuilt_path.stat().st_mtime < commit_time

    big = fx["big"].root / ".graphify" / "graph.json"
    assert big.stat().st_size >= 300_000
    assert _tail(big)["built_at_commit"] == fx["big"].head

    packed = fx["packed"].root / ".git"
    assert not (packed / "refs" / "heads" / "main").exists()
    assert fx["packed"].head in (packed / "packed-refs").read_text()
    assert (packed / "HEAD").read_text().strip() == "ref: refs/heads/main"

    huge = _tail(fx["huge_label"].root / ".graphify" / "graph.json")["nodes"]
    assert max(len(n["label"]) for n in huge) > 300_000 * 0.8 * sc.HUGE_LABEL_BYTES / (50 << 20)
    dups = _tail(fx["duplicates"].root / ".graphify" / "graph.json")["nodes"]
    assert sum(n["label"] == "apply_overlay()" for n in dups) == sc.DUPLICATES + 1

    wt = fx["worktree"].root
    assert (wt / ".git").is_file()
    gitdir = Path((wt / ".git").read_text().split(":", 1)[1].strip())
    assert (gitdir / "commondir").is_file()
    assert _tail(wt / ".graphify" / "graph.json")["built_at_commit"] == fx["worktree"].head


def test_index_fixtures_are_staged(tmp_path: Path) -> None:
    """Every graph gets its index before it is timed; the index_* fixtures are
    put in the state they are named after (with the repo's own hook)."""
    hooks = Path(__file__).resolve().parents[2]
    index_of = {}
    for name in ("fresh", *sc.INDEX_STATES):
        fixture = sc.build_fixture(name, tmp_path)
        assert sc.build_index(fixture, sys.executable, hooks) in ("built", "current")
        index_of[name] = {p.suffix: p for p in fixture.index_dir.iterdir()}
    assert ".idx" in index_of["fresh"]
    assert ".idx" not in index_of["index_missing"] and ".idx" not in index_of["index_spawn"]
    for name in ("index_missing", "index_outdated"):
        assert index_of[name][".attempt"].read_bytes().endswith(b"\tspawned")
    outdated = index_of["index_outdated"][".idx"].read_bytes().split(b"\t")[1]
    assert outdated == b"0" * 40 + b":1"
    spawn = sc.build_fixture("index_spawn", tmp_path / "again")
    sc.build_index(spawn, sys.executable, hooks)
    sc.reset_index_attempt(spawn)
    assert not [p for p in spawn.index_dir.iterdir() if p.suffix in (".idx", ".attempt")]


def test_big_graph_size_is_reached_and_valid(tmp_path: Path) -> None:
    p = tmp_path / "g.json"
    size = sc.write_graph(p, "a" * 40, 1.0, 2_000_000)
    assert size == p.stat().st_size >= 2_000_000
    assert len(_tail(p)["nodes"]) > 1000
    assert p.stat().st_mtime == 1.0


def test_prefill_fallback_writes_schema_lines(tmp_path: Path) -> None:
    """Without a usable hook, the 10k session is still made of schema-v1 lines."""
    fx = sc.build_fixture("session10k", tmp_path)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "graphify_nudge.py").write_text("def run(stdin, environ):\n    raise SystemExit(3)\n")
    session, lines, how = sc.prefill_session(fx, sys.executable, hooks, n=300)
    assert lines == 300
    assert "schema-v1" in how
    first = json.loads(sc.telemetry_file(fx, session).read_bytes().splitlines()[0])
    assert first["v"] == 1 and first["event"] == "call" and first["session"] == session


def test_prefill_inputs_never_consult_the_timed_target() -> None:
    inputs = sc.prefill_inputs("/r", "s", 500)
    assert len(inputs) == 500
    for raw in inputs:
        assert b"apply_overlay" not in raw and b"src/app.py" not in raw
        assert json.loads(raw)["agent_type"] in sc.PREFILL_AGENTS


# --------------------------------------------------------------------------- statistics


def test_percentile() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert _stats.percentile(xs, 50) == pytest.approx(50.5)
    assert _stats.percentile(xs, 95) == pytest.approx(95.05)
    assert _stats.percentile([3.0], 99) == 3.0
    assert _stats.percentile(list(reversed(xs)), 0) == 1.0


def _arm(name: str, ms: list[float], wrong: int = 0) -> _stats.ArmResult:
    r = _stats.ArmResult(name, [int(x * 1e6) for x in ms], [int(x * 0.5e6) for x in ms])
    r.wrong_output = wrong
    if wrong:
        r.first_problem = "printed: x"
    return r


def _results(hook_ms: float, bare_ms: float = 10.0, wrong: int = 0) -> Any:
    arms = {
        "bare": _arm("bare", [bare_ms] * 20),
        "hook": _arm("hook", [hook_ms] * 20, wrong),
        "hook_script": _arm("hook_script", [hook_ms + 5] * 20),
    }
    return {"3.11": {"read_fresh/advise": _stats.scenario_summary(arms)}}


def test_summary_shape() -> None:
    row = _results(11.0)["3.11"]["read_fresh/advise"]
    for arm in ("bare", "hook", "hook_script"):
        for key in ("p50_ms", "p95_ms", "p99_ms", "ratio_p95", "calls"):
            assert key in row[arm]
    assert row["hook"]["ratio_p95"] == pytest.approx(1.1)
    assert row["bare"]["ratio_p95"] == 1.0
    assert row["hook"]["ratio_cpu_p95"] == pytest.approx(1.1)
    gain = _stats.registration_gain(_results(11.0))
    assert gain["3.11"]["median_p95_saving_ms"] == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("hook_ms", "bare_ms", "wrong", "violations"),
    [
        (11.0, 10.0, 0, 0),  # 1.1x, 11 ms: fine
        (12.0, 10.0, 0, 0),  # exactly 1.2x is within
        (12.1, 10.0, 0, 1),  # 1.21x
        (49.0, 45.0, 0, 0),  # within both
        (51.0, 45.0, 0, 1),  # over 50 ms, within 1.2x
        (70.0, 50.0, 0, 2),  # over both
        (10.0, 10.0, 3, 1),  # fast, but it measured the wrong path
    ],
)
def test_check(hook_ms: float, bare_ms: float, wrong: int, violations: int) -> None:
    bad = _stats.check(_results(hook_ms, bare_ms, wrong))
    assert len(bad) == violations, bad
    for line in bad:
        assert "3.11 read_fresh/advise" in line


def test_check_ignores_peers_and_script() -> None:
    res = _results(10.0)
    res["3.11"]["read_fresh/advise"]["graphify_read"] = {"p95_ms": 120.0, "ratio_p95": 9.0}
    assert _stats.check(res) == []


def test_document_and_worst() -> None:
    res = _results(11.0)
    res["3.13"] = _results(13.0)["3.11"]
    doc = _stats.document({"cpu": "x"}, {"calls": 20}, res, {"read_fresh/advise": "w"}, {})
    assert doc["worst"]["python"] == "3.13"
    assert doc["worst"]["ratio_p95"] == pytest.approx(1.3)
    json.dumps(doc)  # serialisable


def test_verify() -> None:
    ok = b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}'
    assert cold_start.verify("advisory", 0, ok, b"") == ""
    assert cold_start.verify("silent", 0, b"", b"") == ""
    assert cold_start.verify("silent", 0, ok, b"")
    assert cold_start.verify("advisory", 0, b"", b"")
    assert cold_start.verify("silent", 0, b"", b"Traceback\nValueError: x")
    assert cold_start.verify("silent", 256, b"", b"")  # exit 1
    deny = (
        b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x",'
        b'"permissionDecision":"allow"}}'
    )
    assert cold_start.verify("advisory", 0, deny, b"")
    assert cold_start.verify(None, 0, b"anything", b"noise") == ""


# --------------------------------------------------------------------------- environment


def test_interpreter_is_resolved_to_a_binary() -> None:
    interp = _env.probe(sys.executable)
    assert interp.version == "{}.{}".format(*sys.version_info[:2])
    assert os.path.isabs(interp.path)
    assert not _env.is_script(interp.path)


def test_shim_scripts_are_detected(tmp_path: Path) -> None:
    shim = tmp_path / "python3"
    shim.write_text('#!/bin/sh\nexec python3 "$@"\n')
    assert _env.is_script(str(shim))


def test_peer_pin() -> None:
    assert _env.peer_requirement() == "graphifyy==0.9.96"
    old = _env.Interpreter("3.9", "3.9.18", "/x")
    exe, note = _env.find_graphify(old, None, install=False)
    assert exe is None and "3.10" in note


def test_unknown_scenario_is_a_usage_error() -> None:
    with pytest.raises(_env.SetupError):
        cold_start.select(sc.all_scenarios(), "nope")
    assert [s.key for s in cold_start.select(sc.all_scenarios(), "mode_off")] == ["mode_off/off"]


# --------------------------------------------------------------------------- the naive hook


def _naive(fx: sc.Fixture, data: dict[str, Any], mode: str) -> subprocess.CompletedProcess[bytes]:
    env = {"PATH": os.environ.get("PATH", ""), "MISHKAN_GRAPHIFY_NUDGE": mode}
    env["CLAUDE_PROJECT_DIR"] = str(fx.root)
    return subprocess.run(
        [sys.executable, "-I", "-S", str(NAIVE)],
        input=sc.encode(data),
        env=env,
        capture_output=True,
        check=True,
    )


@pytest.mark.parametrize(
    ("fixture", "scenario", "advice"),
    [
        ("fresh", "read_fresh", "graphify explain"),
        ("stale", "grep_stale", "built at"),
        ("absent", "graph_absent", "not scanned"),
        ("nobuilt", "no_built_at_warm", "built at"),
        ("fresh", "bash_trigger", "apply_overlay"),
    ],
)
def test_naive_hook_does_the_job(tmp_path: Path, fixture: str, scenario: str, advice: str) -> None:
    fx = sc.build_fixture(fixture, tmp_path)
    scen = next(s for s in sc.all_scenarios() if s.key == f"{scenario}/advise")
    data = json.loads(sc.CallMaker(scen, str(fx.root)).next())
    out = _naive(fx, data, "advise")
    assert cold_start.verify("advisory", 0, out.stdout, out.stderr) == ""
    assert advice in out.stdout.decode()
    assert _naive(fx, data, "telemetry").stdout == b""


@pytest.mark.parametrize(
    "scenario", ["out_of_scope/advise", "main_thread/advise", "bash_non_trigger/advise"]
)
def test_naive_hook_stays_silent(tmp_path: Path, scenario: str) -> None:
    fx = sc.build_fixture("fresh", tmp_path)
    scen = next(s for s in sc.all_scenarios() if s.key == scenario)
    out = _naive(fx, json.loads(sc.CallMaker(scen, str(fx.root)).next()), "advise")
    assert out.stdout == b"" and out.stderr == b""


# --------------------------------------------------------------------------- end to end


def test_harness_end_to_end_with_a_stub_hook(tmp_path: Path) -> None:
    """The whole harness on a stub hook, 3 calls: exit codes, JSON shape, --check."""
    stub = tmp_path / "graphify_nudge.py"
    stub.write_text("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    out = tmp_path / "r.json"
    md = tmp_path / "r.md"
    argv = [
        "--python",
        sys.executable,
        "--calls",
        "3",
        "--no-peers",
        "--hook",
        str(stub),
        "--scenarios",
        "mode_off,out_of_scope",
        "--json",
        str(out),
        "--markdown",
        str(md),
    ]
    assert cold_start.main(argv) == 0
    doc = json.loads(out.read_text())
    py = "{}.{}".format(*sys.version_info[:2])
    assert set(doc["results"]) == {py}
    assert set(doc["results"][py]) == {"mode_off/off", "out_of_scope/advise"}
    row = doc["results"][py]["mode_off/off"]
    assert set(row) >= {"bare", "hook", "hook_script"}
    assert set(row["hook"]) >= {"p50_ms", "p95_ms", "p99_ms", "ratio_p95"}
    assert row["hook"]["calls"] == 3
    assert "naive" in doc["results"][py]["out_of_scope/advise"]
    assert doc["machine"]["pythons"][py]["path"]
    assert "| mode_off/off |" in md.read_text()
    # --check with an impossible budget must fail (synthetic, not a timing claim)
    assert cold_start.main([*argv, "--check", "--max-ms", "0.001"]) == 1
    assert cold_start.main([*argv, "--check", "--max-ms", "1e9", "--max-ratio", "1e9"]) == 0


def test_usage_errors() -> None:
    assert cold_start.main(["--hook", "/nonexistent/graphify_nudge.py"]) == 2
    assert cold_start.main(["--python", "/nonexistent/python", "--no-peers"]) == 2
    assert cold_start.main(["--calls", "0"]) == 2


def test_markdown_tables() -> None:
    res = _results(11.0)
    res["3.11"]["read_fresh/advise"]["naive"] = {"p95_ms": 40.0, "ratio_p95": 4.0}
    res["3.11"]["read_fresh/advise"]["graphify_read"] = {"p95_ms": 90.0, "ratio_p95": 9.0}
    res["3.11"]["grep_stale/advise"] = {
        "bare": res["3.11"]["read_fresh/advise"]["bare"],
        "hook": res["3.11"]["read_fresh/advise"]["hook"],
        "graphify_search": {"p95_ms": 80.0, "ratio_p95": 8.0},
    }
    machine = {"pythons": {"3.11": {"version": "3.11.7", "path": "/x"}}}
    text = _stats.markdown(_stats.document(machine, {}, res, {}, {}))
    assert "| 3.11.7 | 10.0 / 10.0 ms | 1.10x / 1.10x (read_fresh/advise) | 1.60x | 4.00x" in text
    assert "9.00x / 8.00x |" in text
    assert "| read_fresh/advise | 11.0 (1.10x) |" in text
    assert "| graphify_search | grep_stale/advise | 80.0 (8.00x) |" in text
