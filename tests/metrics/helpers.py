"""Shared helpers: run the metrics command in-process, build telemetry lines."""

from __future__ import annotations

import argparse
import io
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from mishkan_core.cli import _ArgumentParser
from mishkan_core.metrics import cli as metrics


def parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog="mishkan metrics")
    metrics.add_arguments(p)
    return p


def cli(*argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``mishkan metrics ARGV``, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = metrics.run(parser().parse_args(list(argv)))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@contextmanager
def no_hang(seconds: int = 20) -> Iterator[None]:
    """Fail (not hang) if the body blocks, e.g. on opening a FIFO."""

    def _alarm(signum: int, frame: object) -> None:
        raise AssertionError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def report(*argv: str) -> dict[str, Any]:
    code, out, err = cli(*argv, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


class Telemetry:
    """Hand-written schema-v1 lines (docs/telemetry.md), one file per session."""

    def __init__(self, directory: Path, mode: str = "advise") -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.mode = mode
        self.ts = 1796015332.0

    def _write(self, session: str, obj: dict[str, Any]) -> None:
        self.ts += 0.5
        line = {"v": 1, "ts": round(self.ts, 3), "session": session, "mode": self.mode}
        line.update(obj)
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in session) or "unknown"
        with (self.dir / f"{name}.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")

    def start(self, session: str, mode: str | None = None) -> None:
        saved = self.mode
        self.mode = mode or saved
        self._write(session, {"event": "session_start", "source": "startup"})
        self.mode = saved

    def call(
        self,
        session: str,
        agent_type: str,
        kind: str = "other",
        *,
        trigger: bool = False,
        decision: str | None = None,
        graph: str | None = None,
        agent_id: str | None = None,
        reason: str | None = None,
        **extra: Any,
    ) -> None:
        if trigger and graph is None:
            graph = "fresh"
        if trigger and decision is None:
            decision = "silent"
        self._write(
            session,
            {
                "event": "call",
                "agent_type": agent_type,
                "agent_id": agent_id or f"id-{agent_type.lower()}",
                "tool": "Read",
                "tool_use_id": None,
                "kind": kind,
                "trigger": trigger,
                "via": None,
                "target": None,
                "symbols": [],
                "graph": graph,
                "stale_by": None,
                "built_at": None,
                "decision": decision,
                "reason": reason,
                **extra,
            },
        )

    def nudge(self, session: str, agent_type: str, **kw: Any) -> None:
        self.call(session, agent_type, "read", trigger=True, decision="nudge", **kw)

    def trigger(self, session: str, agent_type: str, **kw: Any) -> None:
        self.call(session, agent_type, "grep", trigger=True, **kw)

    def lookup(self, session: str, agent_type: str, **kw: Any) -> None:
        self.call(session, agent_type, "lookup", **kw)

    def other(self, session: str, agent_type: str, **kw: Any) -> None:
        self.call(session, agent_type, "other", **kw)

    def self_disable(self, session: str, agent: str | None) -> None:
        self._write(
            session,
            {
                "event": "self_disable",
                "agent_type": agent,
                "agent_id": None,
                "elapsed_ms": 250.0,
                "message": "graphify nudge self-disabled: budget exceeded",
            },
        )

    def raw(self, name: str, text: str) -> None:
        with (self.dir / name).open("a", encoding="utf-8") as fh:
            fh.write(text)
