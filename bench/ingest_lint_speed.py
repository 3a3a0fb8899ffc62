"""Benchmark: mishkan ingest-lint over the labelled corpus, on one core, against a
baseline measured in the same run.

    python bench/ingest_lint_speed.py [--corpus DIR] [--rounds N] [--repeat N]
                                      [--baseline-rev REV | --no-baseline]
                                      [--by-family | --instructions]

``--by-family`` (issue 24) measures MB/s on one core per family of every labelled
document (the shared corpus, the wider corpus, the shape fixtures; rejects by D-008
family, accepts as one), against the baseline in the same run; the bar is 15 MB/s on
the slowest family. ``--baseline-rev`` may be given more than once there: every
baseline alternates with this checkout in each round, and each gets its columns.
``--instructions`` counts, per family, the instructions one pass executes under
valgrind's callgrind, for this checkout and each baseline: a count that the machine's
other work does not change, beside the CPU time that it does. ``--budget`` measures,
per family and in the same run, what this checkout's lint costs in parts: whole, with
the format-agnostic backstop (IL601) off (the format detectors alone, their findings'
shape properties included), and with every detector off (read, split, front matter,
blocks, gate): what is left for the rest of the lint under the bar.

Rejects are grouped by their D-008 family; a shape fixture that the backstop rejects
has none (its rule's family is "backstop"), so it gets its own row, outside the bar:
two small hand-written files, whose MB/s is a few lints' fixed cost, not throughput.

Each measurement is a fresh worker process pinned to one core that lints the
whole corpus ``--repeat`` times (read from disk, parse, detect, decide) and keeps
its best CPU time. Rounds alternate the checkout under test with the baseline
(by default the commit before issue 12's work, ``git archive``-d into a temporary
directory), so both see the same machine load; the report gives MB/s for each
(median over rounds) and the ratio, median and p95 of the per-round ratios. On a
shared machine the ratio is the figure to trust. Not run by the unit tests:
timings belong to the machine. The bar: >= 20 MB/s on one core for the whole
corpus on a quiet machine (issue 12: the baseline measured 15.7 there).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BAR_MB_S = 20.0
#: issue 24: on every family of the labelled corpus, the slowest being the figure
FAMILY_BAR_MB_S = 15.0
#: the commit before issue 12's work: main when the branch was cut
BASELINE_REV = "47db6e0"
#: the rows the family bar is read on: the accepts and D-008's five families
BARRED = frozenset(
    ("accept", "graph-dump", "parse-tree", "symbol-table", "call-graph", "bulk-source")
)
#: --budget's arms: what each switches off (every detector: "all")
BUDGET = (("whole lint", ""), ("without IL601", "IL601"), ("no detector", "all"))


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md") if p.name != "README.md")


def family_files(corpus: Path) -> dict[str, list[str]]:
    """Every labelled document by family: the D-008 family of a reject, "accept" for
    the accepts (borderline ones are left out): the shared corpus when present, the
    wider corpus (every split) and the shape fixtures."""
    sys.path.insert(0, str(REPO))
    from tests.ingest_lint.corpus import shape_documents, shared_documents, wide_documents
    from tests.ingest_lint.test_shape_fixtures import EXPECTED

    docs = wide_documents() + shape_documents(EXPECTED)
    if (corpus / "LABELS.tsv").is_file():
        docs += shared_documents(corpus)
    groups: dict[str, list[str]] = {}
    for doc in docs:
        if doc.label in ("reject", "accept"):
            groups.setdefault(doc.family or "accept", []).append(str(doc.path))
    return {family: sorted(paths) for family, paths in sorted(groups.items())}


def family_worker(package_root: str, listing: str, repeat: int, disable: str = "") -> None:
    """Lint each family's files ``repeat`` times with the package under
    ``package_root``, the rule codes in ``disable`` (comma-separated, or "all") off;
    print JSON: per family, best CPU seconds and bytes."""
    sys.path.insert(0, package_root)
    from functools import partial

    from mishkan_core.ingest_lint._engine import lint_file

    lint = lint_file
    if disable:  # (this checkout's engine: a baseline's may have no all_rules, no disabled)
        from mishkan_core.ingest_lint._engine import all_rules

        off = {r.code for r in all_rules()} if disable == "all" else set(disable.split(","))
        lint = partial(lint_file, disabled=frozenset(off))

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    groups: dict[str, list[str]] = json.loads(Path(listing).read_text(encoding="utf-8"))
    out = {}
    for family, files in groups.items():
        for path in files:  # warm
            lint(path)
        best = float("inf")
        for _ in range(repeat):
            cpu = time.process_time()
            for path in files:
                lint(path)
            best = min(best, time.process_time() - cpu)
        out[family] = {"cpu": best, "bytes": sum(os.path.getsize(p) for p in files)}
    print(json.dumps(out))


def _family_command(root: Path, listing: Path, repeat: int, disable: str = "") -> list[str]:
    """The command line of a family worker for the package under ``root``."""
    return [
        sys.executable,
        __file__,
        "--family-worker",
        str(root),
        "--listing",
        str(listing),
        "--repeat",
        str(repeat),
        "--disable",
        disable,
    ]


def by_family(args: argparse.Namespace, corpus: Path) -> int:
    """MB/s per family, this checkout against the baselines (or, with ``--budget``, its
    lint in parts), alternating (see main)."""
    groups = family_files(corpus)
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "families.json"
        listing.write_text(json.dumps(groups), encoding="utf-8")
        if args.budget:
            arms = [(name, REPO, off) for name, off in BUDGET]
        else:
            arms = [(arm, root, "") for arm, root in _arms(args, Path(tmp))]
        runs: dict[str, list[dict[str, dict[str, float]]]] = {arm: [] for arm, _, _ in arms}
        for _ in range(args.rounds):
            for arm, root, off in arms:
                done = subprocess.run(
                    _family_command(root, listing, args.repeat, off),
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[arm].append(json.loads(done.stdout))
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
        f"Python {platform.python_version()}; {args.rounds} rounds, best of {args.repeat} "
        "passes each, one core, CPU time"
    )
    this, *bases = [arm for arm, _, _ in arms]
    head = "".join(f" {arm[:13]:>13s} {'ratio':>6s}" for arm in bases)
    print(f"{'family':14s} {'files':>5s} {'MB':>6s} {'MB/s':>7s} {'p95 low':>8s}{head}")
    if args.budget:
        print(
            "(each part: its median MB/s, then the whole lint's over it: the share of the "
            "lint's time the part still costs)"
        )
    elif bases:
        print("(each baseline: its median MB/s, then this checkout's median MB/s over it)")
    slowest = float("inf")
    for family, files in groups.items():
        size = runs[this][0][family]["bytes"]
        rates = [size / run[family]["cpu"] / 1e6 for run in runs[this]]
        rate = statistics.median(rates)
        low = sorted(rates)[max(0, int(0.05 * len(rates)))]
        if family in BARRED:
            slowest = min(slowest, rate)
        columns = ""
        for arm in bases:
            base_rate = statistics.median(size / run[family]["cpu"] / 1e6 for run in runs[arm])
            columns += f" {base_rate:13.1f} {rate / base_rate:6.2f}"
        note = "" if family in BARRED else "  (no D-008 family: not barred)"
        print(
            f"{family:14s} {len(files):5d} {size / 1e6:6.2f} {rate:7.1f} {low:8.1f}{columns}{note}"
        )
    ok = slowest >= FAMILY_BAR_MB_S
    print(
        f"slowest family: {slowest:.1f} MB/s; bar >= {FAMILY_BAR_MB_S:.0f} MB/s on every family: "
        f"{'met' if ok else 'NOT met'} here"
    )
    return 0 if ok else 1


def _arms(args: argparse.Namespace, tmp: Path) -> list[tuple[str, Path]]:
    """This checkout, then each baseline asked for, unpacked under ``tmp``."""
    arms: list[tuple[str, Path]] = [("this", REPO)]
    for k, rev in enumerate([] if args.no_baseline else _revs(args)):
        (tmp / f"rev{k}").mkdir()
        root = package_at(rev, tmp / f"rev{k}")
        if root is not None:
            arms.append((rev, root))
    return arms


def _instructions_of(valgrind: str, root: Path, listing: Path, repeat: int) -> int:
    """Instructions a family worker executes (callgrind's count: the imports, a warm
    pass, then ``repeat`` passes)."""
    done = subprocess.run(
        [
            valgrind,
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            *_family_command(root, listing, repeat),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind: {done.stderr[-300:]}")
    return int(found.group(1))


def instructions(args: argparse.Namespace, corpus: Path) -> int:
    """Instructions per pass over each family, this checkout and the baselines, counted
    by valgrind's callgrind: one pass is what a worker with one pass more executes. The
    count does not depend on what else the machine runs, so on a shared machine it is
    the steadier figure beside the CPU time (slower to take: each arm runs some 50
    times slower under callgrind)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("--instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    groups = family_files(corpus)
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        arms = _arms(args, Path(tmp))
        for family, files in groups.items():
            listing = Path(tmp) / f"{family}.json"
            listing.write_text(json.dumps({family: files}), encoding="utf-8")
            for arm, root in arms:
                base, more = (_instructions_of(valgrind, root, listing, n) for n in (0, 1))
                counts.setdefault(arm, {})[family] = more - base
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; instructions "
        "per pass (callgrind), millions; ratio: the baseline's count over this checkout's"
    )
    bases = [arm for arm, _ in arms[1:]]
    head = "".join(f" {rev[:9]:>9s} {'ratio':>6s}" for rev in bases)
    print(f"{'family':14s} {'files':>5s} {'MB':>6s} {'M instr':>8s} {'per MB':>7s}{head}")
    for family, files in groups.items():
        size = sum(os.path.getsize(path) for path in files) / 1e6
        this = counts["this"][family]
        columns = "".join(
            f" {counts[rev][family] / 1e6:9.0f} {counts[rev][family] / this:6.2f}" for rev in bases
        )
        print(
            f"{family:14s} {len(files):5d} {size:6.2f} {this / 1e6:8.0f} {this / 1e6 / size:7.0f}"
            f"{columns}"
        )
    return 0


def _revs(args: argparse.Namespace) -> list[str]:
    """The baselines asked for (``--baseline-rev`` repeated), else the default one."""
    return list(args.baseline_rev or [BASELINE_REV])


def worker(package_root: str, corpus: str, repeat: int) -> None:
    """Lint the corpus ``repeat`` times with the package under ``package_root``; print
    JSON: best CPU and wall seconds, bytes, rejected count."""
    sys.path.insert(0, package_root)
    from mishkan_core.ingest_lint._engine import lint_file

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    files = [str(path) for path in _files(Path(corpus))]
    size = sum(os.path.getsize(path) for path in files)
    rejected = sum(lint_file(path).rejected for path in files)  # warm: imports, caches
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for path in files:
            lint_file(path)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    print(json.dumps({"cpu": best_cpu, "wall": best_wall, "bytes": size, "rejected": rejected}))


def _measure(package_root: Path, corpus: Path, repeat: int) -> dict[str, float]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            str(package_root),
            "--corpus",
            str(corpus),
            "--repeat",
            str(repeat),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def package_at(rev: str, into: Path) -> Path | None:
    """The package at ``rev``, unpacked under ``into`` (None when git cannot give it)."""
    archive = into / "baseline.tar"
    done = subprocess.run(
        ["git", "-C", str(REPO), "archive", "-o", str(archive), rev, "mishkan_core"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"no baseline: git archive {rev} failed: {done.stderr.strip()}", file=sys.stderr)
        return None
    root = into / "baseline"
    with tarfile.open(archive) as tar:
        # the "data" filter where Python has it (3.12+, backported): 3.14 makes it the default
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(root, **safe)  # type: ignore[arg-type]
    return root


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("MISHKAN_INGEST_CORPUS") or str(
        REPO.parent / "shared" / "corpus" / "ingest"
    )
    parser.add_argument("--corpus", default=default)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--baseline-rev",
        action="append",
        help=f"a commit to compare with (default {BASELINE_REV}); "
        "with --by-family, repeat it for several",
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--by-family", action="store_true", help="MB/s per family (issue 24)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instructions per pass per family, counted by valgrind (steady on a busy machine)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--family-worker", help=argparse.SUPPRESS)
    parser.add_argument("--listing", help=argparse.SUPPRESS)
    parser.add_argument("--disable", default="", help=argparse.SUPPRESS)
    parser.add_argument(
        "--budget",
        action="store_true",
        help="with --by-family: the lint whole, without IL601 and without any detector",
    )
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if args.worker:
        worker(args.worker, str(corpus), args.repeat)
        return 0
    if args.family_worker:
        family_worker(args.family_worker, args.listing, args.repeat, args.disable)
        return 0
    if args.instructions:
        return instructions(args, corpus)
    if args.by_family:
        return by_family(args, corpus)
    if not _files(corpus):
        print(f"no corpus at {corpus} (set MISHKAN_INGEST_CORPUS)", file=sys.stderr)
        return 2
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; {args.rounds} rounds, best of {args.repeat} passes each"
    )
    with tempfile.TemporaryDirectory() as tmp:
        baseline_rev = _revs(args)[0]
        baseline = None if args.no_baseline else package_at(baseline_rev, Path(tmp))
        current: list[dict[str, float]] = []
        base: list[dict[str, float]] = []
        for _ in range(args.rounds):
            current.append(_measure(REPO, corpus, args.repeat))
            if baseline is not None:
                base.append(_measure(baseline, corpus, args.repeat))
    size = current[0]["bytes"]

    def rate(runs: list[dict[str, float]]) -> float:
        return statistics.median(size / run["cpu"] / 1e6 for run in runs)

    print(
        f"this checkout : {rate(current):6.1f} MB/s  ({size / 1e6:.2f} MB, "
        f"rejected {current[0]['rejected']:.0f})"
    )
    ok = rate(current) >= BAR_MB_S
    if base:
        ratios = [b["cpu"] / c["cpu"] for b, c in zip(base, current)]
        print(
            f"baseline {baseline_rev}: {rate(base):6.1f} MB/s  (rejected {base[0]['rejected']:.0f})"
        )
        print(
            f"speed-up over the baseline: median {statistics.median(ratios):.2f}x, "
            f"p95 {_p95(ratios):.2f}x, worst {min(ratios):.2f}x; quiet-machine estimate "
            f"{15.7 * statistics.median(ratios):.1f} MB/s (the baseline measured 15.7 there)"
        )
    print(f"bar: >= {BAR_MB_S:.0f} MB/s on one core: {'met' if ok else 'NOT met'} here")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
