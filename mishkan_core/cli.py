"""Argument parsing and dispatch, nothing else.

Each subcommand is one module that exposes ``add_arguments(parser)`` and
``run(args) -> int``: ``<package>/cli.py`` for a package (metrics,
ingest_lint, routing), the module itself for a single-module command. This
file alone builds parsers (every ``__main__`` delegates to :func:`main`) and
holds no logic of its own. Only the chosen subcommand's module is imported, so one command's
import error cannot break the others.

Exit codes shared by every subcommand: 0 success/clean, 1 findings or
violations, 2 usage error or unusable input.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType

# subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "metrics": ("mishkan_core.metrics.cli", "D-009 conformance report from hook telemetry"),
    "ingest-lint": (
        "mishkan_core.ingest_lint.cli",
        "reject AST-shaped content bound for Cognee work",
    ),
    "routing": ("mishkan_core.routing.cli", "validate the D-008 routing matrix against a harness"),
    "route": ("mishkan_core.routing.route", "say which store answers a question"),
    "install": ("mishkan_core.install", "install the graphify-nudge hook into a project"),
    "demo": ("mishkan_core.demo", "run the hook and the report on a built-in example"),
    "sprint-close": (
        "mishkan_core.sprint_close",
        "D-009 sprint close: re-extract the graph, write the conformance report artifact",
    ),
    "graph-index": ("mishkan_core.graph_index", "build the hook's index of the code graph now"),
}


_PARSER: list[type[argparse.ArgumentParser]] = []


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse that exits 2 with one line, never a usage dump plus traceback (made on
    first use: ``mishkan ingest-lint PATH...`` runs without importing argparse)."""
    if _PARSER:
        return _PARSER[0]
    import argparse

    class _ArgumentParser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            self.exit(2, f"{self.prog}: error: {message}\n")

    _PARSER.append(_ArgumentParser)
    return _ArgumentParser


def __getattr__(name: str) -> type[argparse.ArgumentParser]:
    if name == "_ArgumentParser":
        return _parser_class()
    raise AttributeError(name)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that subcommand's arguments are loaded."""
    from mishkan_core import __version__

    parser_class = _parser_class()
    parser = parser_class(
        prog="mishkan", description="D-008/D-009 tooling for the MISHKAN harness."
    )
    parser.add_argument("--version", action="version", version=f"mishkan {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(_module=module)
        if only is None or only == name:
            _load(module).add_arguments(sub_parser)
    return parser


def _load(module: str) -> ModuleType:
    import importlib

    return importlib.import_module(module)


def main(argv: Sequence[str] | None = None) -> int:
    """Every command's output goes through :mod:`mishkan_core.terminal`: the
    repository's text (hook commands, session ids, file names, diffs) never
    reaches the terminal as control sequences."""
    from mishkan_core.terminal import EscapingStream

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(out), EscapingStream(err)
    try:
        return _dispatch(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _dispatch(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ingest-lint"]:  # pre-commit's call: paths only, no parser to build
        from mishkan_core.ingest_lint.cli import run_paths

        done = run_paths(argv[1:])
        if done is not None:
            return done
    chosen = next((arg for arg in argv if not arg.startswith("-")), "")
    parser = build_parser(only=chosen)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(_load(args._module).run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
