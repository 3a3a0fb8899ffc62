"""Probe hook: log the raw stdin like log_hook.py, and answer every PreToolUse
with an ``additionalContext`` that names the call (``E2E-PROBE-CONTEXT
<tool_use_id>``), so the version probe can see where, and whether, a CLI
delivers it. Always exits 0.

Usage: python3 context_hook.py <log file> <label>
"""

from __future__ import annotations

import json
import os
import sys
import time

PROBE_MARKER = "E2E-PROBE-CONTEXT"


def main() -> None:
    try:
        log_path, label = sys.argv[1], sys.argv[2]
        raw = sys.stdin.buffer.read()
        line = json.dumps(
            {"event_arg": label, "ts": time.time(), "stdin": raw.decode("utf-8", "replace")}
        )
        fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
        data = json.loads(raw)
        if data.get("hook_event_name") == "PreToolUse":
            context = f"{PROBE_MARKER} {data.get('tool_use_id')}"
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                          "additionalContext": context}}  # fmt: skip
            sys.stdout.write(json.dumps(out))
    except Exception:  # evidence only: never disturb the run
        pass


if __name__ == "__main__":
    main()
