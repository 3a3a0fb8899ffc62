"""``mishkan routing check``: the command line (the package docstring says
what is checked).

Each finding is one line naming the invariant, the file (and its scope), where
in it, and the fix. Exit 0 clean, 1 findings, 2 unusable input.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mishkan_core.routing.check import HookFacts
    from mishkan_core.routing.harness import Harness


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="routing_command", metavar="ACTION")
    check = sub.add_parser(
        "check",
        help="check the matrix and a harness's files against D-008 and D-009",
        description="Check the D-008 routing matrix and a harness against the D-008 and D-009 "
        "invariants. Exit 0 clean, 1 findings, 2 unusable input.",
    )
    check.add_argument(
        "--project",
        type=Path,
        help="read the whole harness in DIR as Claude Code does: every settings scope, "
        "agents, plugins, .mcp.json, the graph and its refresh hooks",
    )
    check.add_argument("--matrix", type=Path, help="matrix JSON (default: the packaged one)")
    check.add_argument(
        "--settings",
        type=Path,
        help="a settings file: alone, or with --project as `claude --settings` would add it",
    )
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
    check.add_argument(
        "--user-dir",
        type=Path,
        help="the user's Claude directory (default $CLAUDE_CONFIG_DIR, else ~/.claude)",
    )
    check.add_argument(
        "--managed-dir",
        type=Path,
        help="where managed settings live (default /etc/claude-code, as on Linux)",
    )
    check.add_argument(
        "--plugin-dir",
        type=Path,
        action="append",
        default=[],
        help="a plugin loaded with `claude --plugin-dir` (repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    if getattr(args, "routing_command", None) != "check":
        print(
            "mishkan routing: error: missing action; use `mishkan routing check`", file=sys.stderr
        )
        return 2
    from mishkan_core.routing import check as checks
    from mishkan_core.routing import refresh, registration
    from mishkan_core.routing.matrix import MatrixError, load_matrix, read_json

    checked = ["matrix", "hook"]
    found: list[str] = []
    try:
        matrix, label = load_matrix(args.matrix)
        hook = hook_facts(args.hook)
        mcp_path = args.mcp
        if mcp_path is None and args.project is not None and (args.project / ".mcp.json").exists():
            mcp_path = args.project / ".mcp.json"
        mcp = read_json(mcp_path, "MCP config") if mcp_path else None
        compose = read_json(args.compose_json, "compose JSON") if args.compose_json else None
        if args.agents_dir is not None and not args.agents_dir.is_dir():
            raise MatrixError(f"{args.agents_dir}: agents directory not found")
        harness = _harness(args)
    except MatrixError as exc:
        print(f"mishkan routing check: {exc}", file=sys.stderr)
        return 2

    violations = checks.check_matrix(matrix, label)
    violations += checks.check_hook(matrix, hook)
    for doc, path, rule, name in (
        (mcp, mcp_path, checks.check_mcp, "mcp"),
        (compose, args.compose_json, checks.check_compose, "compose"),
    ):
        if doc is None:
            continue
        try:
            violations += rule(matrix, doc, str(path))
        except checks.UnusableInput as exc:
            print(f"mishkan routing check: {path}: {exc}", file=sys.stderr)
            return 2
        checked.append(name)
    if harness is not None:
        expected = checks.expected_agents(matrix)
        violations += registration.check(harness, expected)
        checked.append("settings " + "+".join(s.name for s in harness.scopes if s.exists))
        if args.project is not None or args.agents_dir is not None:
            where = ", ".join(
                [".claude/agents", "~/.claude/agents"] + [f"plugin {p}" for p in harness.plugins]
                if args.project is not None
                else [str(args.agents_dir)]
            )
            violations += checks.check_agents(matrix, harness.agents, where)
            checked.append("agents")
        if args.project is not None:
            violations += refresh.check(harness)
            checked.append("graph refresh")
            found.append(refresh.graphify_of(harness).describe())
    elif args.agents_dir is not None:
        from mishkan_core.routing.harness import agents_in

        agents = agents_in(args.agents_dir, "project")
        violations += checks.check_agents(matrix, agents, str(args.agents_dir))
        checked.append("agents")

    for violation in violations:
        print(violation.line())
    summary = f"{len(violations)} finding(s)" if violations else "clean"
    notes = "".join(f"; {note}" for note in found)  # what was found, e.g. graphify's release
    print(f"routing check: {summary} ({', '.join(checked)}){notes}", file=sys.stderr)
    return 1 if violations else 0


def _harness(args: argparse.Namespace) -> Harness | None:
    """The harness to check: everything under --project, or one --settings file."""
    from mishkan_core import hook_chain
    from mishkan_core.routing import harness as loader
    from mishkan_core.routing.matrix import MatrixError

    if args.project is None and args.settings is None:
        return None
    for plugin in args.plugin_dir:
        if not plugin.is_dir():
            raise MatrixError(f"{plugin}: plugin directory not found")
    if args.project is not None:
        if not args.project.is_dir():
            raise MatrixError(f"{args.project}: project directory not found")
        project = Path(os.path.realpath(args.project))
        if args.settings is not None and not args.settings.exists():
            raise MatrixError(f"{args.settings}: settings not found")
        harness = loader.load(
            project,
            args.user_dir or hook_chain.config_dir(os.environ),
            args.managed_dir or hook_chain.MANAGED_DIR,
            plugin_dirs=tuple(args.plugin_dir),
            flag_settings=args.settings,
        )
    else:
        settings = args.settings
        parent = Path(os.path.realpath(settings)).parent
        project = parent.parent if parent.name == ".claude" else parent
        scope = hook_chain.read_scope("settings", settings)
        if scope.error is None and scope.doc is None:
            raise MatrixError(f"{settings}: settings not found")
        harness = loader.Harness(project, [scope], [], environ=dict(os.environ))
        if args.agents_dir is None:
            harness.agents = loader.agents_in(project / ".claude" / "agents", "project")
    if args.agents_dir is not None:
        harness.agents = [a for a in harness.agents if a.source != "project"]
        harness.agents += loader.agents_in(args.agents_dir, "project")
    for scope in harness.scopes:
        if scope.error is not None:
            raise MatrixError(scope.error)
    return harness


def hook_facts(path: Path | None = None) -> HookFacts:
    """The hook's own scope and trigger constants: from the importable
    ``graphify_nudge`` module, or from a copy of the file when ``path`` is given."""
    import types

    from mishkan_core.routing.check import HookFacts
    from mishkan_core.routing.matrix import MatrixError
    from mishkan_core.safe_files import read_regular

    if path is None:
        try:
            import graphify_nudge as module
        except Exception as exc:  # the hook is part of this distribution
            raise MatrixError(f"graphify_nudge: cannot import the hook: {exc}") from None
        label = str(getattr(module, "__file__", "graphify_nudge"))
    else:
        try:
            source = read_regular(path)
        except OSError as exc:
            raise MatrixError(f"{path}: cannot read the hook: {exc.strerror or exc}") from None
        if source is None:
            raise MatrixError(f"{path}: hook file not found")
        module = types.ModuleType("_mishkan_checked_hook")
        module.__file__ = str(path)
        try:
            exec(compile(source, str(path), "exec"), module.__dict__)
        except BaseException as exc:  # SystemExit(0) too: a hook that exits is no hook
            name = type(exc).__name__
            detail = f"{name}({exc})" if isinstance(exc, SystemExit) else f"{name}: {exc}"
            raise MatrixError(f"{path}: cannot load the hook: {detail}") from None
        label = str(path)
    scope = getattr(module, "SCOPE_AGENTS", None)
    triggers = getattr(module, "TRIGGER_EXTENSIONS", None)
    if not isinstance(scope, (set, frozenset)) or not isinstance(triggers, (set, frozenset)):
        raise MatrixError(f"{label}: the hook lacks SCOPE_AGENTS or TRIGGER_EXTENSIONS")
    return HookFacts(
        file=label, scope_agents=frozenset(scope), trigger_extensions=frozenset(triggers)
    )
