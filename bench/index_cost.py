"""What the hook's graph index costs to build, and how large it is, per tree.

For each graph (by default: the advice bench's projects in its cache, on
every graphify release found there) and each tree given (a checkout holding
`graphify_nudge.py` and `graphify_nudge_index.py`, e.g. this branch and a
`git archive` of the baseline), build the index `--repeat` times, each in a
fresh process (`python -I -S`, the builder loaded from that tree, as the
detached build runs), into a throwaway telemetry directory, with that
release's `graphify` first on PATH (its dialect decides the explain
arguments). Reported per graph and tree: the index's size in bytes and the
build's CPU time (the child's user + system, from `wait4`; median of the
repeats), and each tree's ratio to the first tree's. CPU time, not wall
clock: the machine is shared (say its load with the figures).

    python bench/index_cost.py --tree /tmp/base --tree . --repeat 3
    python bench/index_cost.py --graph path/to/graph.json --tree .

Exit codes: 0 done, 2 usage error or a build that failed (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

DEFAULT_CACHE = Path(os.environ.get("MISHKAN_ADVICE_CACHE") or ".cache/advice")
#: loads the tree's hook and builder by path (argv[1]) and builds the index of
#: the graph the hook would use in argv[2]; the telemetry dir comes from the env
_BUILD = (
    "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge_index as b;"
    "print(b.build_graph_index(__import__('os').environ,sys.argv[2]))"
)


class UsageError(Exception):
    """A tree, graph or build this bench cannot use (exit 2)."""


def default_graphs(cache: Path, projects: set[str]) -> list[tuple[str, Path, Path | None]]:
    """(label, graph.json, graphify bin dir) for every project graph in the cache
    (of `projects` only, when given)."""
    out = []
    for graph in sorted(cache.glob("projects/*/*/.graphify/graph.json")):
        if projects and graph.parents[1].name not in projects:
            continue
        release = graph.parents[2].name.rpartition("-")[2]
        tools = cache / "tools" / f"graphify-{release}" / "bin"
        out.append((f"{graph.parents[1].name}@{release}", graph, tools if tools.is_dir() else None))
    return out


def build_once(tree: Path, graph: Path, bin_dir: Path | None, python: str) -> tuple[int, int]:
    """(CPU ns, index bytes) of one build in a fresh process."""
    project = graph.parents[1]
    with tempfile.TemporaryDirectory(prefix="index-cost-") as telemetry:
        env = {
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}" if bin_dir else os.environ["PATH"],
            "MISHKAN_TELEMETRY_DIR": telemetry,
            "MISHKAN_GRAPHIFY_GRAPH": str(graph),
            "HOME": os.environ.get("HOME", "/"),
        }
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            pid = os.posix_spawn(
                python,
                [python, "-I", "-S", "-c", _BUILD, str(tree), str(project)],
                env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, devnull, 0),
                    (os.POSIX_SPAWN_DUP2, devnull, 1),
                    (os.POSIX_SPAWN_DUP2, devnull, 2),
                ],
            )
            _, status, usage = os.wait4(pid, 0)
        finally:
            os.close(devnull)
        if os.waitstatus_to_exitcode(status) != 0:
            raise UsageError(f"the build of {graph} with {tree} failed")
        built = list(Path(telemetry, ".index").glob("*.idx"))
        if len(built) != 1:
            raise UsageError(f"the build of {graph} with {tree} wrote no index")
        cpu = int((usage.ru_utime + usage.ru_stime) * 1e9)
        return cpu, built[0].stat().st_size


def measure(
    trees: Sequence[Path],
    graphs: Sequence[tuple[str, Path, Path | None]],
    repeat: int,
    python: str,
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for label, graph, bin_dir in graphs:
        row: dict[str, object] = {"graph": label, "graph_bytes": graph.stat().st_size}
        cpu: dict[str, list[int]] = {str(t): [] for t in trees}
        size: dict[str, int] = {}
        for _ in range(repeat):  # interleaved, so a drift in machine speed hits every tree
            for tree in trees:
                ns, nbytes = build_once(tree, graph, bin_dir, python)
                cpu[str(tree)].append(ns)
                size[str(tree)] = nbytes
        row["trees"] = [
            {
                "tree": str(tree),
                "index_bytes": size[str(tree)],
                "cpu_ms_median": round(statistics.median(cpu[str(tree)]) / 1e6, 1),
            }
            for tree in trees
        ]
        rows.append(row)
    return rows


def table(rows: list[dict[str, object]], trees: Sequence[Path]) -> str:
    head = ["graph", "graph KB"]
    for i in range(len(trees)):
        head += [f"idx KB [{i}]", f"cpu ms [{i}]"]
        if i:
            head += [f"size x [{i}]", f"cpu x [{i}]"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        cells = [str(row["graph"]), f"{int(row['graph_bytes']) / 1024:.0f}"]  # type: ignore[call-overload]
        per = row["trees"]
        assert isinstance(per, list)
        base = per[0]
        for i, item in enumerate(per):
            cells += [f"{item['index_bytes'] / 1024:.0f}", f"{item['cpu_ms_median']:.0f}"]
            if i:
                cells += [
                    f"{item['index_bytes'] / base['index_bytes']:.2f}",
                    f"{item['cpu_ms_median'] / base['cpu_ms_median']:.2f}",
                ]
        lines.append("| " + " | ".join(cells) + " |")
    legend = [f"[{i}] {tree}" for i, tree in enumerate(trees)]
    return "\n".join([*lines, "", *legend])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, required=True,
                        help="a checkout with the hook; the first: the baseline")  # fmt: skip
    parser.add_argument("--graph", action="append", type=Path, default=[],
                        help="a graph.json (default: every project graph in --cache)")  # fmt: skip
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--projects", default="", help="comma-separated project names")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    trees = [tree.resolve() for tree in args.tree]
    try:
        for tree in trees:
            if not (tree / "graphify_nudge_index.py").is_file():
                raise UsageError(f"{tree}: no graphify_nudge_index.py")
        graphs = [(str(g), g.resolve(), None) for g in args.graph] or default_graphs(
            args.cache, {name for name in args.projects.split(",") if name}
        )
        if not graphs:
            raise UsageError(f"no graph given and none under {args.cache}/projects")
        rows = measure(trees, graphs, max(1, args.repeat), args.python)
    except UsageError as exc:
        print(f"index_cost: {exc}", file=sys.stderr)
        return 2
    with open("/proc/loadavg") as load:
        print(f"load: {load.read().split()[:3]}")
    print(table(rows, trees))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
