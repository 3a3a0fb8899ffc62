"""Two trees' hooks and the bare interpreter, interleaved call by call.

bench/cold_start.py times one hook per run against the bare interpreter; a
before/after comparison across two runs mixes in the machine's drift. This
runs the hook of each `--tree` and `python -I -S -c pass` round-robin on one
fixture of bench/_scenarios.py (`fresh`: the index built by each tree's own
builder into its own telemetry directory), a fresh session per call (the
advise path), and prints wall and CPU (user + system, from `wait4`) p50 and
p95 per arm, and each hook's ratio to the bare interpreter in the same run.

    git archive 43bb0be | tar x -C /tmp/base
    python bench/hook_ab.py --tree /tmp/base --tree . --python /usr/bin/python3.9 --path read

Exit codes: 0 done, 2 usage error (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _scenarios as sc
from bench import _stats

#: the trigger each path sends (tool, its arguments)
PATHS: dict[str, tuple[str, Callable[[str], dict[str, Any]]]] = {
    "read": ("Read", sc._read_util),
    "grep": ("Grep", sc._grep_symbol),
    "callers": ("Grep", sc._grep_callers),
    "bash": ("Bash", sc._bash(sc.BASH_TRIGGER, "Find apply_overlay")),
}
_RUN_HOOK = "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()"
_BUILD = (
    "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge_index as b;"
    "b.build_graph_index({b'CLAUDE_PROJECT_DIR':sys.argv[2].encode(),"
    "b'MISHKAN_TELEMETRY_DIR':sys.argv[3].encode()},sys.argv[2])"
)


def _hooks_dir(tree: Path, into: Path, python: str) -> Path:
    into.mkdir()
    for name in ("graphify_nudge.py", "graphify_nudge_index.py"):
        shutil.copy2(tree / name, into / name)
    subprocess.run([python, "-m", "py_compile", str(into / "graphify_nudge.py")], check=True)
    return into


def measure(
    trees: Sequence[Path], python: str, path: str, calls: int
) -> dict[str, list[tuple[float, float]]]:
    """arm -> [(wall ms, cpu ms)] per call."""
    tool, args = PATHS[path]
    with tempfile.TemporaryDirectory(prefix="hook-ab-") as tmp:
        base = Path(tmp)
        fixture = sc.build_fixture("fresh", base)
        root = str(fixture.root)
        arms: dict[str, tuple[list[str], str]] = {}
        for k, tree in enumerate(trees):
            hooks = _hooks_dir(tree, base / f"hooks{k}", python)
            telemetry = str(base / f"telemetry{k}")
            subprocess.run([python, "-I", "-S", "-c", _BUILD, str(hooks), root, telemetry],
                           check=True, capture_output=True)  # fmt: skip
            argv = [python, "-I", "-S", "-c", _RUN_HOOK, str(hooks), "--mode=advise"]
            arms[f"[{k}] {tree}"] = (argv, telemetry)
        arms["bare"] = ([python, "-I", "-S", "-c", "pass"], str(base / "unused"))
        out: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
        stdin = base / "stdin"
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            for _ in range(calls):
                for name, (argv, telemetry) in arms.items():
                    data = sc.encode(sc.tool_input(
                        "PreToolUse", root, sc.new_session_id(), tool, args(root),
                        agent_type=sc.IN_SCOPE_AGENT, agent_id=sc.new_agent_id(),
                        tool_use_id="toolu_ab",
                    ))  # fmt: skip
                    stdin.write_bytes(data)
                    fd = os.open(stdin, os.O_RDONLY)
                    env = {"CLAUDE_PROJECT_DIR": root, "MISHKAN_TELEMETRY_DIR": telemetry}
                    started = time.perf_counter_ns()
                    pid = os.posix_spawn(argv[0], argv, env, file_actions=[
                        (os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                        (os.POSIX_SPAWN_DUP2, devnull, 2),
                    ])  # fmt: skip
                    _, _, usage = os.wait4(pid, 0)
                    wall = (time.perf_counter_ns() - started) / 1e6
                    os.close(fd)
                    out[name].append((wall, (usage.ru_utime + usage.ru_stime) * 1e3))
        finally:
            os.close(devnull)
        return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--path", choices=sorted(PATHS), default="read")
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args(argv)
    trees = [tree.resolve() for tree in args.tree]
    missing = [t for t in trees if not (t / "graphify_nudge_index.py").is_file()]
    if missing:
        print(f"hook_ab: {missing[0]}: no graphify_nudge_index.py", file=sys.stderr)
        return 2
    results = measure(trees, args.python, args.path, max(1, args.calls))
    with open("/proc/loadavg") as load:
        loadavg = load.read().split()[:3]
    print(f"{args.path}, {args.python}, {args.calls} calls per arm; load {loadavg}")
    bare = results["bare"]
    bare_p95 = _stats.percentile([w for w, _ in bare], 95)
    bare_cpu = _stats.percentile([c for _, c in bare], 95)
    for name, samples in results.items():
        wall, cpu = [w for w, _ in samples], [c for _, c in samples]
        p50, p95 = _stats.percentile(wall, 50), _stats.percentile(wall, 95)
        cpu95 = _stats.percentile(cpu, 95)
        print(f"{name}: wall p50 {p50:.2f} p95 {p95:.2f} ms ({p95 / bare_p95:.3f}x), "
              f"cpu p95 {cpu95:.2f} ms ({cpu95 / bare_cpu:.3f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
