"""``mishkan routing check``: validate the D-008 routing matrix against a harness.

The matrix (``mishkan_core/data/routing_matrix.json`` or ``--matrix FILE``) is
checked on its own, then cross-checked against whichever harness files are
given. The hook's gate scope and trigger extensions are read from the hook
itself (``graphify_nudge.SCOPE_AGENTS`` and ``TRIGGER_EXTENSIONS``), never
copied. Each violation is one line naming the invariant, the file and the
offending value. Exit 0 clean, 1 violations, 2 unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mishkan_core.routing.check import HookFacts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="routing_command", metavar="ACTION")
    check = sub.add_parser(
        "check",
        help="check the matrix and a harness's files against D-008 and D-009",
        description="Check the D-008 routing matrix and a harness's configuration files "
        "against the D-008 and D-009 invariants. Exit 0 clean, 1 violations, 2 unreadable input.",
    )
    check.add_argument("--matrix", type=Path, help="matrix JSON (default: the packaged one)")
    check.add_argument("--settings", type=Path, help="a .claude/settings.json to check")
    check.add_argument("--mcp", type=Path, help="a .mcp.json to check")
    check.add_argument(
        "--compose-json",
        type=Path,
        help="output of `docker compose config --format json` to check",
    )
    check.add_argument("--agents-dir", type=Path, help="a .claude/agents directory to check")
    check.add_argument(
        "--hook",
        type=Path,
        help="check this copy of graphify_nudge.py instead of the installed module",
    )


def run(args: argparse.Namespace) -> int:
    if getattr(args, "routing_command", None) != "check":
        print(
            "mishkan routing: error: missing action; use `mishkan routing check`", file=sys.stderr
        )
        return 2
    from mishkan_core.routing import check as checks
    from mishkan_core.routing.matrix import MatrixError, load_matrix, read_json

    try:
        matrix, label = load_matrix(args.matrix)
        hook = hook_facts(args.hook)
        settings = read_json(args.settings, "settings") if args.settings else None
        mcp = read_json(args.mcp, "MCP config") if args.mcp else None
        compose = read_json(args.compose_json, "compose JSON") if args.compose_json else None
        if args.agents_dir is not None and not args.agents_dir.is_dir():
            raise MatrixError(f"{args.agents_dir}: agents directory not found")
    except MatrixError as exc:
        print(f"mishkan routing check: {exc}", file=sys.stderr)
        return 2

    violations = checks.check_matrix(matrix, label)
    violations += checks.check_hook(matrix, hook)
    if args.agents_dir is not None:
        violations += checks.check_agents_dir(matrix, args.agents_dir)
    if mcp is not None:
        violations += checks.check_mcp(matrix, mcp, str(args.mcp))
    if compose is not None:
        violations += checks.check_compose(matrix, compose, str(args.compose_json))
    if settings is not None:
        project = checks.project_dir_for(args.settings)
        violations += checks.check_settings(settings, str(args.settings), project)

    for violation in violations:
        print(violation.line())
    checked = ["matrix", "hook"] + [
        name
        for name, given in (
            ("agents-dir", args.agents_dir),
            ("mcp", args.mcp),
            ("compose", args.compose_json),
            ("settings", args.settings),
        )
        if given is not None
    ]
    summary = f"{len(violations)} violation(s)" if violations else "clean"
    print(f"routing check: {summary} ({', '.join(checked)})", file=sys.stderr)
    return 1 if violations else 0


def hook_facts(path: Path | None = None) -> HookFacts:
    """The hook's own scope and trigger constants: from the importable
    ``graphify_nudge`` module, or from a copy of the file when ``path`` is given."""
    import importlib.util

    from mishkan_core.routing.check import HookFacts
    from mishkan_core.routing.matrix import MatrixError

    if path is None:
        try:
            import graphify_nudge as module
        except Exception as exc:  # the hook is part of this distribution
            raise MatrixError(f"graphify_nudge: cannot import the hook: {exc}") from None
        label = str(getattr(module, "__file__", "graphify_nudge"))
    else:
        if not path.is_file():
            raise MatrixError(f"{path}: hook file not found")
        spec = importlib.util.spec_from_file_location("_mishkan_checked_hook", path)
        if spec is None or spec.loader is None:
            raise MatrixError(f"{path}: cannot load the hook")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            raise MatrixError(f"{path}: cannot load the hook: {exc}") from None
        label = str(path)
    scope = getattr(module, "SCOPE_AGENTS", None)
    triggers = getattr(module, "TRIGGER_EXTENSIONS", None)
    if not isinstance(scope, (set, frozenset)) or not isinstance(triggers, (set, frozenset)):
        raise MatrixError(f"{label}: the hook lacks SCOPE_AGENTS or TRIGGER_EXTENSIONS")
    return HookFacts(
        file=label, scope_agents=frozenset(scope), trigger_extensions=frozenset(triggers)
    )
