"""``mishkan ingest-lint``: arguments, the run over all paths, the exit code."""

from __future__ import annotations

import sys

from mishkan_core.ingest_lint import _paths, _reader
from mishkan_core.ingest_lint._engine import all_rules, lint_file
from mishkan_core.ingest_lint._formats import FORMATS, Report, render
from mishkan_core.ingest_lint._model import Finding
from mishkan_core.ingest_lint._paths import iter_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

#: nothing rejected: clean, or nothing to check (every file named or found lacks the
#: marker: such a file never enters Cognee work, and pre-commit names every staged
#: Markdown file; each named one is said to be skipped, and the summary never says
#: "passed" then: docs/ingest_lint.md, "Usage")
EXIT_CLEAN = 0
EXIT_REJECTED = 1
EXIT_ERROR = 2


def _positive_int(value: str) -> int:
    import argparse

    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {value!r}")
    return number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories; directories are walked for .md/.markdown/.mdx/.txt files",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="include_all",
        help="lint every file given or found, not only those whose front matter has "
        "'mishkan: ingest'",
    )
    parser.add_argument(
        "--max-bytes",
        type=_positive_int,
        default=_reader.DEFAULT_MAX_BYTES,
        metavar="N",
        help="files larger than this are reported, not read "
        f"(default: {_reader.DEFAULT_MAX_BYTES})",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE, not stdout"
    )
    # the walk's bounds (issue 22): _paths.py says why
    parser.add_argument(
        "--follow-outside",
        action="store_true",
        help="follow symlinks that lead outside the directory walked (default: IL906, not read)",
    )
    parser.add_argument(
        "--max-files",
        type=_positive_int,
        default=_paths.DEFAULT_MAX_FILES,
        metavar="N",
        help=f"stop with exit 2 past N files (default: {_paths.DEFAULT_MAX_FILES})",
    )
    parser.add_argument(
        "--max-total-bytes",
        type=_positive_int,
        default=_paths.DEFAULT_MAX_TOTAL_BYTES,
        metavar="N",
        help=f"stop with exit 2 past N bytes in all (default: {_paths.DEFAULT_MAX_TOTAL_BYTES})",
    )
    parser.add_argument("--list-rules", action="store_true", help="print the rule codes and exit")


class _Defaults:
    """The arguments of ``mishkan ingest-lint PATH...`` with nothing else given."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.format = "text"
        self.include_all = False
        self.max_bytes = _reader.DEFAULT_MAX_BYTES
        self.output: str | None = None
        self.follow_outside = False
        self.max_files = _paths.DEFAULT_MAX_FILES
        self.max_total_bytes = _paths.DEFAULT_MAX_TOTAL_BYTES
        self.list_rules = False


def run_paths(argv: Sequence[str]) -> int | None:
    """``mishkan ingest-lint PATH...`` when every argument is a path (what pre-commit
    runs): linted without argparse, which a one-file run would pay a third of its time
    to import. None when an option is given; the caller parses them then."""
    if not argv or any(arg.startswith("-") for arg in argv):
        return None
    return run(_Defaults(list(argv)))  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        for rule in all_rules():
            sys.stdout.write(f"{rule.code}  {rule.name:<24} {rule.family:<13} {rule.summary}\n")
        return EXIT_CLEAN
    if not args.paths:
        sys.stderr.write("mishkan ingest-lint: error: no PATH given\n")
        return EXIT_ERROR
    findings: list[Finding] = []
    files = artifacts = 0
    named = set(args.paths)  # a file named, not found by a walk: a skip is said, per file
    skipped: list[str] = []
    walk = iter_files(
        list(args.paths),
        follow_outside=args.follow_outside,
        max_files=args.max_files,
        max_total_bytes=args.max_total_bytes,
        max_bytes=args.max_bytes,
    )
    try:
        for path, error in walk:
            if error is not None:
                findings.append(error)
                continue
            files += 1
            result = lint_file(path, include_all=args.include_all, max_bytes=args.max_bytes)
            checked = result.artifact or (args.include_all and not result.errored)
            artifacts += checked
            if not checked and not result.errored and path in named:
                skipped.append(path)
            findings.extend(result.findings)
    except _paths.LimitExceeded as exc:  # (imported only when something is raised)
        sys.stderr.write(f"mishkan ingest-lint: error: {exc}\n")
        return EXIT_ERROR
    # the text report names no rule: the detectors' list is loaded for the other formats
    rules = all_rules() if args.format != "text" else []
    report = Report(findings, rules, files, artifacts, skipped)
    out, err = render(report, args.format)
    if args.output:
        from pathlib import Path

        from mishkan_core import safe_files

        try:  # never through a link the tree holds (issue 22): the one rule
            safe_files.write_file(Path(args.output), out.encode("utf-8"))
        except OSError as exc:
            unsafe = isinstance(exc, safe_files.UnsafeFile)
            reason = exc.strerror if exc.strerror and not unsafe else exc
            sys.stderr.write(f"mishkan ingest-lint: error: cannot write {args.output}: {reason}\n")
            return EXIT_ERROR
    else:
        sys.stdout.write(out)
    if err:
        sys.stderr.write(err)
    if report.errors:
        return EXIT_ERROR
    return EXIT_REJECTED if report.active else EXIT_CLEAN
