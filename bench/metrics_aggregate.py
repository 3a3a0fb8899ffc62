"""Benchmark: `mishkan metrics` over 1,000,000 generated telemetry events.

Generates schema-v1 lines (docs/telemetry.md) shaped like the hook's, spread
over many sessions and the five agents, into a temporary directory, then times
the whole report path (list files, read line by line, JSON-decode, validate,
aggregate, build the report) on one core. Target (issue 4): under 10 s.

    python3 bench/metrics_aggregate.py [--events N] [--sessions N] [--keep DIR]

Prints the event count, the wall and CPU time, events per second and the peak
RSS before and after aggregating (memory is bounded by sessions, not events).
Not run by the unit tests; use an absolute interpreter path, not a pyenv shim.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mishkan_core.metrics import collect  # noqa: E402

AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--sessions", type=int, default=2_000)
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args()
    directory = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="metrics-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        n = generate(directory, args.events, args.sessions)
        size = sum(f.stat().st_size for f in directory.iterdir())
        print(f"generated {n:,} events in {args.sessions:,} sessions "
              f"({size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")  # fmt: skip
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        ns = argparse.Namespace(telemetry_dir=str(directory), from_transcripts=None,
                                since=None, until=None, sprint="bench", format="json")  # fmt: skip
        wall0, cpu0 = time.perf_counter(), time.process_time()
        report = collect(ns)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        events = report["data_quality"]["events"]
        print(f"python {sys.version.split()[0]} on one core")
        print(f"aggregated {events:,} events: wall {wall:.2f} s, cpu {cpu:.2f} s, "
              f"{events / wall:,.0f} events/s")  # fmt: skip
        print(f"peak RSS {rss_before / 1024:.0f} MB before, {rss_after / 1024:.0f} MB after")
        print(f"triggers {report['triggers']:,}, nudges {report['nudges']:,}, "
              f"lookups {report['lookups']:,}; nudge-respect "
              f"{report['nudge_respect_ratio']:.4f}, consultation "
              f"{report['pre_read_consultation_rate']:.4f}")  # fmt: skip
        load = os.getloadavg()[0]
        cores = os.cpu_count() or 1
        print(f"load average {load:.2f} on {cores} cores during the run")
        cpu_ok, wall_ok = cpu < 10, wall < 10
        print(f"{'PASS' if cpu_ok else 'FAIL'}: cpu {cpu:.2f} s < 10 s for {events:,} events")
        print(
            f"{'PASS' if wall_ok else 'FAIL'}: wall {wall:.2f} s < 10 s"
            + ("" if wall_ok or load < cores else " (the machine was busy: wall includes waiting)")
        )
        return 0 if cpu_ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
