"""Benchmark: mishkan ingest-lint over the labelled corpus, on one core.

    python bench/ingest_lint_speed.py [--corpus DIR] [--repeat N]

Prints the corpus size, the best wall and CPU time of a full pass (read from
disk, parse, detect, decide), and the throughput in MB/s, for the whole corpus
and for its prose (accept) half. Not run by the unit tests: timings belong to
the machine. The bar: the whole corpus well under a second, >= 20 MB/s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mishkan_core.ingest_lint._engine import lint_file  # noqa: E402

BAR_MB_S = 20.0


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md") if p.name != "README.md")


def _pass(files: list[Path]) -> tuple[float, float, int]:
    wall = time.perf_counter()
    cpu = time.process_time()
    rejected = sum(lint_file(str(path)).rejected for path in files)
    return time.perf_counter() - wall, time.process_time() - cpu, rejected


def measure(files: list[Path], repeat: int) -> tuple[float, float, int]:
    _pass(files)  # warm: imports, regex compilation, page cache
    best_wall = best_cpu = float("inf")
    rejected = 0
    for _ in range(repeat):
        wall, cpu, rejected = _pass(files)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu, rejected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("MISHKAN_INGEST_CORPUS") or str(
        REPO.parent / "shared" / "corpus" / "ingest"
    )
    parser.add_argument("--corpus", default=default)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    root = Path(args.corpus)
    files = _files(root)
    if not files:
        print(f"no corpus at {root} (set MISHKAN_INGEST_CORPUS)", file=sys.stderr)
        return 2
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    ok = True
    for label, subset in (
        ("whole corpus", files),
        ("prose (accept/)", [f for f in files if f.parent.name == "accept"]),
    ):
        size = sum(path.stat().st_size for path in subset)
        wall, cpu, rejected = measure(subset, args.repeat)
        rate_wall = size / wall / 1e6
        rate_cpu = size / cpu / 1e6 if cpu > 0 else float("inf")
        print(
            f"{label:16s} {len(subset):4d} files {size / 1e6:6.2f} MB  "
            f"wall {wall * 1000:7.1f} ms ({rate_wall:6.1f} MB/s)  "
            f"cpu {cpu * 1000:7.1f} ms ({rate_cpu:6.1f} MB/s)  rejected {rejected}"
        )
        ok = ok and rate_cpu >= BAR_MB_S and wall < 1.0
    print(
        f"bar: >= {BAR_MB_S:.0f} MB/s on one core, whole corpus < 1 s: {'met' if ok else 'NOT met'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
