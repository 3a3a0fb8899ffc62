"""The command as a process: exit codes, one stderr line, bounded memory."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

from mishkan_core.metrics import telemetry
from mishkan_core.metrics.aggregate import Aggregator
from tests.metrics.scenario import REPO
from tests.metrics.test_formats import EXAMPLE


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mishkan_core.metrics", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def test_report_exits_0_and_prints_json() -> None:
    done = _run("--telemetry-dir", str(EXAMPLE), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["triggers"] == 11
    assert done.stderr == ""


def test_unusable_input_exits_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    for argv in (
        ("--telemetry-dir", str(tmp_path / "missing")),
        ("--from-transcripts", str(tmp_path / "missing")),
        ("--telemetry-dir", str(tmp_path), "--until", "tomorrow"),
    ):
        done = _run(*argv)
        assert done.returncode == 2, argv
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def _peak(directory: Path) -> int:
    tracemalloc.start()
    try:
        agg = Aggregator()
        agg.feed_all(telemetry.read_dir(str(directory), telemetry.new_quality()))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _write(directory: Path, events: int) -> None:
    directory.mkdir()
    base = {"v": 1, "event": "call", "session": "s", "mode": "advise", "agent_type": "salma",
            "tool": "Read", "kind": "read", "trigger": True, "graph": "fresh",
            "decision": "nudge", "reason": "fresh", "target": "src/app.py"}  # fmt: skip
    with (directory / "s.jsonl").open("w") as fh:
        for i in range(events):
            fh.write(json.dumps({**base, "ts": 1796015332 + i, "agent_id": f"a{i % 5}"}) + "\n")


def test_memory_does_not_grow_with_events(tmp_path: Path) -> None:
    _write(tmp_path / "small", 2_000)
    _write(tmp_path / "large", 40_000)
    small, large = _peak(tmp_path / "small"), _peak(tmp_path / "large")
    assert large < small + 64 * 1024, (small, large)  # 20x the events, same footprint
