"""Benchmark: what a pre-commit user feels, ``mishkan ingest-lint one-small-file.md``,
against a bare interpreter start in the same run.

    python bench/ingest_lint_startup.py [--rounds N] [--baseline-rev REV] [--file FILE]

The checkout (and, with ``--baseline-rev``, that commit) is installed the way a user
gets it (``pip install --no-deps``, a built wheel, not editable, by this interpreter's
pip) into a throwaway virtualenv of this interpreter. Each round runs, interleaved so
that all see the same load: the venv's ``python -c pass`` (the bare start, with
``site``, as the console script has it), ``python -m __hello__``, the console script
``mishkan ingest-lint FILE`` and ``python -m mishkan_core.ingest_lint FILE``. The file
is a small accepted ADR (front matter, a heading, three paragraphs, a short snippet)
unless ``--file`` names another. Reported: the median and p95 wall time of each, and
the ratio of medians to the bare start (issue 24's bar: 1.5x, for the console script,
what pre-commit runs) and to a bare ``python -m`` of a frozen module (runpy's own cost,
which every ``-m`` arm pays first). Timings belong to the machine; the ratio is the
figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BAR = 1.5
SMALL = """---
mishkan: ingest
kind: adr
---
# ADR 12: keep the ingest store small

## Context

The work store is read by every agent at the start of a task. Each document that is
not a decision, a rationale or a learning costs every reader time, and structure
that the code graph already holds goes stale there within a sprint.

## Decision

We accept only curated prose into the store: decisions, their reasons, reports and
learnings. Listings, dumps and pasted source stay in the graph, which rebuilds them
on every commit. The gate runs in pre-commit and in CI:

```sh
mishkan ingest-lint docs/decisions/
```

## Consequences

Authors summarise what a listing shows instead of pasting it. A listing that is the
decision itself is allowed with a reason in the front matter.
"""


def _install(source: Path, venv: Path) -> Path:
    """A venv without pip, the package installed into it by this interpreter's pip
    (``--python``): the console script is the one a current pip writes (pip 26 imports
    no ``re`` in it; the pip that ``venv`` bundles with 3.11, 23.2, did)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    return venv


def _checkout(rev: str, into: Path) -> Path:
    archive = into / "src.tar"
    subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), rev], check=True)
    root = into / "src"
    root.mkdir()
    subprocess.run(["tar", "xf", str(archive), "-C", str(root)], check=True)
    return root


def _time(command: list[str], cwd: Path) -> float:
    """Wall time of one run, from ``cwd`` (not the checkout: ``python -m`` would import
    the package from the current directory instead of the venv's); it must pass."""
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=cwd
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}")
    return elapsed


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--baseline-rev", default=None)
    parser.add_argument("--file", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        target = Path(args.file) if args.file else work / "adr-12.md"
        if not args.file:
            target.write_text(SMALL, encoding="utf-8")
        venvs = {"this checkout": _install(REPO, work / "venv")}
        if args.baseline_rev:
            source = _checkout(args.baseline_rev, work)
            venvs[f"baseline {args.baseline_rev}"] = _install(source, work / "base")
        arms: dict[str, list[str]] = {}
        for label, venv in venvs.items():
            python = str(venv / "bin" / "python")
            arms.setdefault("bare python -c pass", [python, "-c", "pass"])
            # what any "python -m" pays before the module runs (runpy, importlib.util,
            # contextlib, collections): the floor of the -m arms
            arms.setdefault("bare python -m __hello__", [python, "-m", "__hello__"])
            arms[f"{label}: mishkan ingest-lint"] = [
                str(venv / "bin" / "mishkan"),
                "ingest-lint",
                str(target),
            ]
            arms[f"{label}: python -m"] = [python, "-m", "mishkan_core.ingest_lint", str(target)]
        for command in arms.values():  # warm: .pyc files written, pages cached
            _time(command, work)
        times: dict[str, list[float]] = {name: [] for name in arms}
        for _ in range(args.rounds):
            for name, command in arms.items():
                times[name].append(_time(command, work))
    bare = statistics.median(times["bare python -c pass"])
    bare_m = statistics.median(times["bare python -m __hello__"])
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f}, Python {platform.python_version()}; {args.rounds} rounds"
    )
    print(f"{'arm':45s} {'median ms':>10s} {'p95 ms':>8s} {'x bare':>7s} {'x bare -m':>9s}")
    worst = 0.0
    for name, values in times.items():
        ratio = statistics.median(values) / bare
        ratio_m = statistics.median(values) / bare_m
        if name == "this checkout: mishkan ingest-lint":
            worst = max(worst, ratio)
        print(
            f"{name:45s} {1000 * statistics.median(values):10.1f} {1000 * _p95(values):8.1f} "
            f"{ratio:7.2f} {ratio_m:9.2f}"
        )
    verdict = "met" if worst <= BAR else "NOT met"
    print(f"bar: the console script within {BAR}x of the bare start: {verdict}")
    return 0 if worst <= BAR else 1


if __name__ == "__main__":
    raise SystemExit(main())
