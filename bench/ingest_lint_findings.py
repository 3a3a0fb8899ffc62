"""Check: a change to ingest-lint changed no finding, against a previous checkout.

    python bench/ingest_lint_findings.py [--baseline-rev REV] [--variants]
                                         [--write FILE | --check FILE]

Lints every document ingest-lint is measured on (the labelled corpus in
``../shared/corpus/ingest``, ``tests/ingest_lint/corpus_wide``,
``tests/ingest_lint/fixtures`` and the seed ADRs) with every detector on and once
with each D-008 family switched off (as the leave-one-family-out bench does), and
records every finding: rule, lines, message, evidence, suppression. It runs the
same in a worker process for this checkout and for ``--baseline-rev`` (``git
archive``-d into a temporary directory) and prints any difference; exit 1 when
there is one. A speed change must leave this empty.

``--variants`` also lints derived documents (prefixes and suffixes of each body,
and the body with its fence markers removed), so the comparison reaches the
thresholds and code paths the whole documents do not. ``--write``/``--check``
keep the findings of this checkout in a file instead (tests/ingest_lint compares
against such a snapshot).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.ingest_lint_speed import package_at  # noqa: E402 (after the path it needs)

#: the implementation to compare with by default: main before the speed work
BASELINE_REV = "a933863"
SHARED = REPO.parent / "shared"


def documents() -> list[tuple[str, str]]:
    """(name, text) of every document, named relative to where it lives."""
    found: list[tuple[str, str]] = []
    roots = [
        ("shared", SHARED / "corpus" / "ingest", "*.md"),
        ("wide", REPO / "tests" / "ingest_lint" / "corpus_wide", "*.fixture"),
        ("fixtures", REPO / "tests" / "ingest_lint" / "fixtures", "*.fixture"),
    ]
    for label, root, pattern in roots:
        for path in sorted(root.rglob(pattern)):
            if path.name != "README.md":
                name = f"{label}:{path.relative_to(root).as_posix()}"
                found.append((name, path.read_text(encoding="utf-8")))
    from tests.ingest_lint.corpus import seed_documents

    for seed in sorted((SHARED / "seeds").glob("*.txt")):
        for name, text in seed_documents(seed):
            # wrapped as tests/ingest_lint/corpus.py lint_seed wraps them
            wrapped = "---\nmishkan: ingest\nkind: adr\n---\n" + text
            found.append((f"seed:{seed.name}:{name}", wrapped))
    return found


def _variants(text: str) -> list[tuple[str, str]]:
    """Derived documents: the same front matter over parts of the body."""
    lines = text.split("\n")
    head = 0
    if lines and lines[0].strip() == "---":
        head = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    front, body = lines[:head], lines[head:]
    out = []
    for share in (4, 2):
        cut = len(body) // share
        out.append((f"prefix/{share}", "\n".join(front + body[:cut])))
        out.append((f"suffix/{share}", "\n".join(front + body[len(body) - cut :])))
    unfenced = [line for line in body if not line.lstrip().startswith(("```", "~~~"))]
    out.append(("unfenced", "\n".join(front + unfenced)))
    return out


def worker(package_root: str, variants: bool) -> None:
    """Print the findings of the package under ``package_root`` as JSON lines."""
    docs = documents()  # imports tests/ from this checkout, before the package
    for name in [m for m in sys.modules if m.startswith("mishkan_core")]:
        del sys.modules[name]
    sys.path.insert(0, package_root)
    from mishkan_core.ingest_lint import _engine
    from mishkan_core.ingest_lint._detectors import detectors
    from mishkan_core.ingest_lint._engine import lint_text

    assert Path(_engine.__file__).is_relative_to(package_root), _engine.__file__
    families = sorted({d.rule.family for d in detectors()} - {"backstop"})
    settings = [("all", frozenset[str]())] + [
        (f"-{family}", frozenset(d.rule.code for d in detectors() if d.rule.family == family))
        for family in families
    ]
    for name, text in docs:
        cases = [("", text)] + (_variants(text) if variants else [])
        for variant, body in cases:
            for setting, disabled in settings:
                result = lint_text(name, body, include_all=True, disabled=disabled)
                row = [
                    [f.rule, f.line, f.end_line, f.message, f.evidence, f.suppressed]
                    for f in result.findings
                ]
                key = f"{name} {variant} {setting}".replace("  ", " ")
                print(json.dumps([key, result.artifact, row], ensure_ascii=False))


def collect(package_root: Path, variants: bool) -> list[str]:
    command = [sys.executable, __file__, "--worker", str(package_root)]
    done = subprocess.run(
        command + (["--variants"] if variants else []),
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
    )
    return done.stdout.splitlines()


def compare(expected: list[str], actual: list[str], what: str) -> int:
    if expected == actual:
        print(f"findings identical to {what}: {len(actual)} lint runs")
        return 0
    old = {json.loads(line)[0]: line for line in expected}
    new = {json.loads(line)[0]: line for line in actual}
    differ = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    for key in differ[:20]:
        print(f"DIFFERS {key}\n  {what}: {old.get(key)}\n  this: {new.get(key)}")
    print(f"{len(differ)} of {len(old)} lint runs differ from {what}")
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--write", type=Path)
    parser.add_argument("--check", type=Path)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.variants)
        return 0
    if not (SHARED / "corpus" / "ingest").is_dir():
        print(f"no shared corpus at {SHARED}", file=sys.stderr)
        return 2
    actual = collect(REPO, args.variants)
    if args.write:
        args.write.write_text("\n".join(actual) + "\n", encoding="utf-8")
        print(f"wrote {len(actual)} lint runs to {args.write}")
        return 0
    if args.check:
        expected = args.check.read_text(encoding="utf-8").splitlines()
        return compare(expected, actual, str(args.check))
    with tempfile.TemporaryDirectory() as tmp:
        baseline = package_at(args.baseline_rev, Path(tmp))
        if baseline is None:
            return 2
        expected = collect(baseline, args.variants)
    return compare(expected, actual, args.baseline_rev)


if __name__ == "__main__":
    raise SystemExit(main())
