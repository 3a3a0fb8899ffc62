"""Evidence hook: append the raw stdin of every hook call to a JSONL file.

Registered next to graphify_nudge in the end-to-end tests only, so that the
tests can check exactly what Claude Code sent (``agent_type`` and ``agent_id``
on the subagent's calls, none on the main thread's). It prints nothing and
always exits 0, so it never changes a tool call.

Usage: python3 log_hook.py <log file> <event name>
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    try:
        log_path, event = sys.argv[1], sys.argv[2]
        raw = sys.stdin.buffer.read()
        line = json.dumps(
            {
                "event_arg": event,
                "ts": time.time(),
                "stdin": raw.decode("utf-8", "replace"),
                "env": {k: v for k, v in os.environ.items() if k.startswith(("CLAUDE", "MISHKAN"))},
            }
        )
        fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except Exception:  # evidence only: never disturb the run
        pass


if __name__ == "__main__":
    main()
