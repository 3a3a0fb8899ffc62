"""Benchmark: `mishkan metrics` on 1,000,000 events, and on hostile input.

Two kinds of case, each run as a fresh child process (`python -m
mishkan_core.metrics`) whose wall time, CPU time and peak RSS are measured by
the parent (``wait4``):

* ``throughput``: schema-v1 lines (docs/telemetry.md) shaped like the hook's,
  over many sessions and the five agents; the whole report path (list files,
  read line by line, JSON-decode, validate, aggregate, build the report).
  Target (issue 4): under 10 s of CPU for 1,000,000 events.
* the hostile cases of issue 11: a 1 GiB sparse file (with and without a
  trailing newline), a 64 MiB line of one character, a line of 100,000 ``[``,
  a transcript with 200,000 tool_uses that never get a result, a transcript
  line with 50,000 ``<system-reminder>`` tags and no closing one. Memory must
  stay flat whatever the line lengths; each must end with exit 0 or 2, never
  a traceback, within ``HOSTILE_CPU`` seconds of CPU and ``HOSTILE_RSS_MB``
  of peak RSS.

``--tree DIR`` (repeatable) runs every case against the source tree DIR (a
checkout holding ``mishkan_core/`` and ``graphify_nudge.py``), so an old and a
new tree are compared in the same run, on the same generated input:

    git archive main mishkan_core graphify_nudge.py | tar -x -C /tmp/before
    python3 bench/metrics_aggregate.py --tree /tmp/before --tree .

Not run by the unit tests; use an absolute interpreter path, not a pyenv shim.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")
#: a hostile case that runs longer than this is stopped and reported as such
CASE_TIMEOUT = 120.0
#: what a hostile case may cost: seconds of CPU, MB of peak RSS (flat memory)
HOSTILE_CPU = 5.0
HOSTILE_RSS_MB = 100.0


def generate(directory: Path, events: int, sessions: int, seed: int = 9) -> int:
    """Write ``events`` lines over ``sessions`` files; return the count written."""
    rng = random.Random(seed)
    per_session = events // sessions
    written = 0
    ts = 1796015332.0
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    for s in range(sessions):
        session = f"{s:08x}-d067-448e-a460-e76f9d5496bd"
        mode = "advise" if s % 2 else "telemetry"
        n = per_session if s < sessions - 1 else events - written
        lines = []
        for i in range(n):
            ts += 0.013
            if i == 0:
                obj: dict[str, object] = {
                    "v": 1, "ts": round(ts, 3), "event": "session_start",
                    "session": session, "mode": mode, "source": "startup",
                }  # fmt: skip
                lines.append(dumps(obj))
                continue
            agent = AGENTS[rng.randrange(5)]
            roll = rng.random()
            kind = (
                "lookup"
                if roll < 0.15
                else "read"
                if roll < 0.55
                else "grep"
                if roll < 0.75
                else "other"
            )
            trigger = kind in ("read", "grep") and rng.random() < 0.7
            decision = None
            if trigger:
                decision = "nudge" if mode == "advise" and rng.random() < 0.4 else "silent"
            obj = {
                "v": 1, "ts": round(ts, 3), "event": "call", "session": session, "mode": mode,
                "agent_type": agent, "agent_id": f"a{agent}{s % 7}", "tool": "Read",
                "tool_use_id": f"toolu_{i:08d}", "kind": kind, "trigger": trigger,
                "via": "Read", "target": "src/mishkan_core/metrics/aggregate.py",
                "symbols": [], "graph": "fresh" if trigger else None, "stale_by": None,
                "built_at": "3acc13e" if trigger else None, "decision": decision,
                "reason": (
                    ("fresh" if decision == "nudge" else "telemetry_mode") if trigger else None
                ),
            }  # fmt: skip
            lines.append(dumps(obj))
        (directory / f"{session}.jsonl").write_text("\n".join(lines) + "\n")
        written += n
    return written


_VALID = (
    '{"v":1,"ts":1796015332.5,"event":"session_start","session":"s","mode":"advise"}\n'
    '{"v":1,"ts":1796015333.0,"event":"call","session":"s","mode":"advise",'
    '"agent_type":"hizkiah","agent_id":"a1","kind":"read","trigger":true,'
    '"decision":"nudge","graph":"fresh"}\n'
)


def _sparse(directory: Path, newline: bool) -> list[str]:
    path = directory / "a.jsonl"
    with path.open("wb") as fh:
        fh.truncate(1 << 30)  # 1 GiB of holes: `truncate -s 1G d/a.jsonl`
    if newline:
        with path.open("ab") as fh:
            fh.write(b"\n")
    return ["--telemetry-dir", str(directory)]


def _long_run(directory: Path) -> list[str]:
    with (directory / "a.jsonl").open("w") as fh:
        fh.write(_VALID)
        chunk = "a" * (1 << 20)
        for _ in range(64):  # one 64 MiB line of one character
            fh.write(chunk)
        fh.write("\n")
        fh.write(_VALID)
    return ["--telemetry-dir", str(directory)]


def _deep(directory: Path) -> list[str]:
    (directory / "a.jsonl").write_text(_VALID + "[" * 100_000 + "\n" + _VALID)
    return ["--telemetry-dir", str(directory)]


def _unanswered(directory: Path) -> list[str]:
    sub = directory / "proj" / "sess" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.meta.json").write_text('{"agentType":"hizkiah"}')
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    with (sub / "agent-a1.jsonl").open("w") as fh:
        for i in range(200_000):
            block = {"type": "tool_use", "id": f"t{i}", "name": "Read",
                     "input": {"file_path": "/w/a.py"}}  # fmt: skip
            line = {"type": "assistant", "timestamp": "2026-11-30T05:08:52.700Z",
                    "sessionId": "sess", "cwd": "/w", "agentId": "a1",
                    "message": {"content": [block]}}  # fmt: skip
            fh.write(dumps(line) + "\n")
    return ["--from-transcripts", str(directory)]


def _unclosed_reminders(directory: Path) -> list[str]:
    sub = directory / "proj" / "sess" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.meta.json").write_text('{"agentType":"hizkiah"}')
    line = {"type": "user", "timestamp": "2026-11-30T05:08:52.700Z", "sessionId": "sess",
            "message": {"content": "<system-reminder>" * 50_000}}  # fmt: skip
    (sub / "agent-a1.jsonl").write_text(json.dumps(line) + "\n")
    return ["--from-transcripts", str(directory)]


HOSTILE = {
    "sparse 1 GiB": lambda d: _sparse(d, newline=False),
    "sparse 1 GiB + newline": lambda d: _sparse(d, newline=True),
    "64 MiB line of one char": _long_run,
    "100,000 '[' line": _deep,
    "200k unanswered tool_uses": _unanswered,
    "50k unclosed <system-reminder>": _unclosed_reminders,
}


def run_child(tree: Path, argv: list[str], timeout: float) -> dict[str, object]:
    """Run `python -m mishkan_core.metrics ARGV` from ``tree``: wall, cpu, RSS, rc."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "mishkan_core.metrics", *argv, "--format", "json"]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=str(tree), env=env, stdout=out, stderr=err)
        timed_out = False
        while True:  # wait4, not Popen.wait: it gives the child's own rusage
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                _, status, rusage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped above
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    result: dict[str, object] = {
        "wall": wall,
        "cpu": rusage.ru_utime + rusage.ru_stime,
        "rss_mb": rusage.ru_maxrss / 1024,
        "rc": None if timed_out else proc.returncode,
        "traceback": "Traceback" in stderr,
    }
    if result["rc"] == 0:
        try:
            report = json.loads(stdout)
            result["events"] = report["data_quality"]["events"]
            result["report"] = report
        except ValueError as exc:
            result["stdout_not_json"] = str(exc)
    return result


def _fmt(value: object, unit: str, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}{unit}" if isinstance(value, float) else f"{value}{unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--sessions", type=int, default=2_000)
    parser.add_argument("--keep", metavar="DIR", help="generate the 1M events into DIR and keep it")
    parser.add_argument(
        "--tree",
        action="append",
        type=Path,
        metavar="DIR",
        help="source tree to measure (repeatable; default: this checkout)",
    )
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-hostile", action="store_true")
    args = parser.parse_args()
    trees: list[Path] = [t.resolve() for t in (args.tree or [ROOT])]
    work = Path(tempfile.mkdtemp(prefix="metrics-bench-"))
    failed = False
    print(f"python {sys.version.split()[0]}; trees: {', '.join(map(str, trees))}")
    try:
        if not args.skip_throughput:
            data = Path(args.keep) if args.keep else work / "events"
            data.mkdir(parents=True, exist_ok=True)
            if not any(data.glob("*.jsonl")):
                t0 = time.perf_counter()
                n = generate(data, args.events, args.sessions)
                size = sum(f.stat().st_size for f in data.iterdir())
                print(f"generated {n:,} events in {args.sessions:,} sessions "
                      f"({size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")  # fmt: skip
            for tree in trees:
                r = run_child(tree, ["--telemetry-dir", str(data), "--sprint", "bench"], 600)
                events = r.get("events") or 0
                assert isinstance(events, int)
                cpu = r["cpu"]
                ok = r["rc"] == 0 and isinstance(cpu, float) and cpu < 10
                failed |= not ok
                report = r.get("report")
                extra = ""
                if isinstance(report, dict):
                    respect = report["nudge_respect_ratio"]
                    consult = report["pre_read_consultation_rate"]
                    extra = f"; nudge-respect {respect:.4f}, consultation {consult:.4f}"
                rate = events / cpu if isinstance(cpu, float) and cpu else 0
                print(f"{'PASS' if ok else 'FAIL'} throughput [{tree.name}]: {events:,} events, "
                      f"wall {_fmt(r['wall'], ' s')}, cpu {_fmt(cpu, ' s')} "
                      f"({rate:,.0f} events/cpu-s), peak RSS {_fmt(r['rss_mb'], ' MB', 0)}"
                      f"{extra}")  # fmt: skip
        if not args.skip_hostile:
            for name, make in HOSTILE.items():
                case = work / "".join(c if c.isalnum() else "_" for c in name)
                case.mkdir()
                argv = make(case)
                for tree in trees:
                    r = run_child(tree, argv, CASE_TIMEOUT)
                    rss, cpu = r["rss_mb"], r["cpu"]
                    ok = (
                        r["rc"] in (0, 2)
                        and not r["traceback"]
                        and "stdout_not_json" not in r
                        and isinstance(rss, float)
                        and rss < HOSTILE_RSS_MB
                        and isinstance(cpu, float)
                        and cpu < HOSTILE_CPU
                    )
                    failed |= not ok
                    verdict = "PASS" if ok else "FAIL"
                    rc = "timeout" if r["rc"] is None else f"rc {r['rc']}"
                    note = " traceback" if r["traceback"] else ""
                    print(f"{verdict} {name} [{tree.name}]: {rc}{note}, wall "
                          f"{_fmt(r['wall'], ' s')}, cpu {_fmt(r['cpu'], ' s')}, "
                          f"peak RSS {_fmt(rss, ' MB', 0)}")  # fmt: skip
                shutil.rmtree(case, ignore_errors=True)
        load = os.getloadavg()[0]
        print(f"load average {load:.2f} on {os.cpu_count() or 1} cores at the end of the run")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
