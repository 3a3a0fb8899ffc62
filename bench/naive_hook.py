"""The naive reference hook: the same job as graphify_nudge.py, done plainly.

It exists only to be measured (bench/cold_start.py): `import json, re`, read
the whole graph with json.load, ask `git` for HEAD through subprocess, append a
telemetry line, print the advisory in advise mode. No state, no caps. Run as
`python -I -S bench/naive_hook.py` with the hook JSON on stdin.
"""

import json
import os
import re
import subprocess
import sys
import time
from typing import Any

SCOPE = {"hizkiah", "salma", "oholiab", "nathan", "zadok"}
EXTS = {".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".php", ".rb"}
SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
BASH_GREP = re.compile(
    r"(?:^|[;&|(]\s*)(?:grep|egrep|fgrep|rg|ag|ack|git\s+grep)\s+(?:-\S+\s+)*['\"]?([A-Za-z_]\w*)['\"]?(?:\s|$)"
)
BASH_READ = re.compile(r"(?:^|[;&|(]\s*)(?:cat|head|tail|less|sed\s+-n\s+\S+)\s+(?:-\S+\s+)*(\S+)")


def classify(tool: str, args: dict[str, Any], root: str) -> tuple[bool, str]:
    """(is a trigger, the symbol or file to suggest)."""
    if tool == "Read":
        path = str(args.get("file_path", ""))
        inside = os.path.abspath(path).startswith(root.rstrip("/") + "/")
        return os.path.splitext(path)[1] in EXTS and inside and "/.git/" not in path, path
    if tool == "Grep":
        pattern = str(args.get("pattern", ""))
        return bool(SYMBOL.match(pattern)) and not args.get("multiline"), pattern
    if tool == "Bash":
        command = str(args.get("command", ""))
        m = BASH_GREP.search(command)
        if m:
            return True, m.group(1)
        m = BASH_READ.search(command)
        if m and os.path.splitext(m.group(1))[1] in EXTS:
            return True, m.group(1)
    return False, ""


def graph_state(root: str, target: str) -> tuple[str, str]:
    graph = os.environ.get("MISHKAN_GRAPHIFY_GRAPH") or ""
    candidates = [graph] if graph else []
    if os.environ.get("GRAPHIFY_OUT"):
        candidates.append(os.path.join(os.environ["GRAPHIFY_OUT"], "graph.json"))
    candidates += [".graphify/graph.json", "graphify-out/graph.json"]
    for c in candidates:
        path = os.path.join(root, c)
        if os.path.exists(path):
            break
    else:
        return "absent", ""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], check=False, cwd=root, capture_output=True, text=True
    ).stdout.strip()
    built = data.get("built_at_commit")
    if built:
        return ("fresh" if built == head else "stale"), str(built)[:7]
    commit_time = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], check=False, cwd=root, capture_output=True, text=True
    ).stdout.strip()
    if commit_time and os.path.getmtime(path) < int(commit_time):
        return "stale", head[:7]
    return "fresh", head[:7]


def main() -> None:
    try:
        data = json.load(sys.stdin)
        mode = os.environ.get("MISHKAN_GRAPHIFY_NUDGE", "telemetry")
        if mode == "off" or data.get("hook_event_name") != "PreToolUse":
            return
        if str(data.get("agent_type", "")).lower() not in SCOPE:
            return
        root = os.environ.get("CLAUDE_PROJECT_DIR") or data.get("cwd") or os.getcwd()
        tool = str(data.get("tool_name", ""))
        trigger, target = classify(tool, data.get("tool_input") or {}, root)
        state, built = graph_state(root, target) if trigger else ("", "")
        folder = os.path.join(root, ".mishkan", "naive-telemetry")
        os.makedirs(folder, exist_ok=True)
        session = re.sub(r"[^A-Za-z0-9_-]", "_", str(data.get("session_id", "unknown")))
        record = {"ts": time.time(), "agent": data.get("agent_type"), "tool": tool}
        record.update({"trigger": trigger, "graph": state, "built_at": built})
        with open(os.path.join(folder, session + ".jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        if mode == "advise" and trigger:
            if state == "absent":
                text = "Graphify has not scanned this project yet; Read is the right tool for now."
            elif state == "stale":
                text = (
                    f"The graph was built at {built}, before HEAD; prefer Read for later changes."
                )
            else:
                text = f"The graph may answer this: graphify explain '{os.path.basename(target)}'"
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}
            print(json.dumps(out))
    except Exception:
        pass


if __name__ == "__main__":
    main()
