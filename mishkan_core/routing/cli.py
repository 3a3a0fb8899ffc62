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
        "--claude",
        type=Path,
        help="the Claude Code CLI to check against the supported range (default: `claude` "
        "on PATH); its version is read from its install, never by running it",
    )
    check.add_argument(
        "--plugin-dir",
        type=Path,
        action="append",
        default=[],
        help="a plugin loaded with `claude --plugin-dir` (repeatable): its agents and its "
        "hooks/hooks.json; alone, checks just the plugin",
    )


def run(args: argparse.Namespace) -> int:
    if getattr(args, "routing_command", None) != "check":
        print(
            "mishkan routing: error: missing action; use `mishkan routing check`", file=sys.stderr
        )
        return 2
    from mishkan_core.safe_files import LimitExceeded

    try:
        return _check(args)
    except LimitExceeded as exc:  # a file crafted past a bound: unusable input
        print(f"mishkan routing check: {exc}", file=sys.stderr)
        return 2


def _check(args: argparse.Namespace) -> int:
    from mishkan_core.routing import check as checks
    from mishkan_core.routing import coverage, refresh, registration
    from mishkan_core.routing.matrix import MatrixError, load_matrix, read_json

    checked = ["matrix", "hook"]
    noted: list[str] = []  # what was found, e.g. graphify's release
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
        settings = "+".join(s.name for s in harness.scopes if s.exists)
        if settings or not harness.plugin_hooks:
            checked.append(f"settings {settings}")
        hooks_json = [p.plugin for p in harness.plugin_hooks if p.exists]
        if hooks_json:
            checked.append(f"plugin hooks {'+'.join(hooks_json)}")
        if args.project is not None or args.agents_dir is not None or args.plugin_dir:
            where = ", ".join(
                [".claude/agents", "~/.claude/agents"] + [f"plugin {p}" for p in harness.plugins]
                if args.project is not None
                else [str(a) for a in (args.agents_dir,) if a is not None]
                + [f"plugin {p}" for p in harness.plugins]
            )
            violations += checks.check_agents(matrix, harness.agents, where)
            checked.append("agents")
        if args.project is not None:
            violations += refresh.check(harness)
            checked.append("graph refresh")
            violations += coverage.check(harness)
            checked.append("graph coverage")
            noted.append(refresh.graphify_of(harness).describe())
    elif args.agents_dir is not None:
        from mishkan_core.routing.harness import agents_in

        agents = agents_in(args.agents_dir, "project")
        violations += checks.check_agents(matrix, agents, str(args.agents_dir))
        checked.append("agents")

    from mishkan_core.routing import client

    found, client_line = client.check(os.environ, args.claude)
    violations += found
    checked.append("claude")
    for violation in violations:
        print(violation.line())
    print(f"routing check: {client_line}", file=sys.stderr)
    summary = f"{len(violations)} finding(s)" if violations else "clean"
    notes = "".join(f"; {note}" for note in noted)
    print(f"routing check: {summary} ({', '.join(checked)}){notes}", file=sys.stderr)
    return 1 if violations else 0


def _harness(args: argparse.Namespace) -> Harness | None:
    """The harness to check: everything under --project, or one --settings file."""
    from mishkan_core import hook_chain
    from mishkan_core.routing import harness as loader
    from mishkan_core.routing.matrix import MatrixError

    if args.project is None and args.settings is None and not args.plugin_dir:
        return None
    for plugin in args.plugin_dir:
        if not plugin.is_dir():
            raise MatrixError(f"{plugin}: plugin directory not found")
    if args.project is None and args.settings is None:
        # the plugin alone, as its author checks it before publishing: the
        # hooks and agents it ships, with no project around it
        harness = loader.Harness(Path(os.path.realpath(".")), [], [], environ=dict(os.environ))
        for plugin in args.plugin_dir:
            loader.add_plugin(harness, plugin, plugin.name)
        if args.agents_dir is not None:
            harness.agents += loader.agents_in(args.agents_dir, "project")
        return _readable(harness)
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
        for plugin in args.plugin_dir:
            loader.add_plugin(harness, plugin, plugin.name)
    if args.agents_dir is not None:
        harness.agents = [a for a in harness.agents if a.source != "project"]
        harness.agents += loader.agents_in(args.agents_dir, "project")
    return _readable(harness)


def _readable(harness: Harness) -> Harness:
    """The harness, unless a settings file or a plugin's hooks.json is unusable (exit 2)."""
    from mishkan_core.routing.matrix import MatrixError

    for scope in [*harness.scopes, *harness.plugin_hooks]:
        if scope.error is not None:
            raise MatrixError(scope.error)
    return harness


def hook_facts(path: Path | None = None) -> HookFacts:
    """The hook's own scope and trigger constants: from the importable
    ``graphify_nudge`` module (this distribution's), or, when ``path`` is
    given, read from that file without running it (:func:`read_constants`):
    a copy in a cloned repository is data, never code."""
    from mishkan_core.routing.check import HookFacts
    from mishkan_core.routing.matrix import MatrixError
    from mishkan_core.safe_files import read_regular

    if path is None:
        try:
            import graphify_nudge as module
        except Exception as exc:  # the hook is part of this distribution
            raise MatrixError(f"graphify_nudge: cannot import the hook: {exc}") from None
        label = str(getattr(module, "__file__", "graphify_nudge"))
        values = {name: getattr(module, name, None) for name in HOOK_CONSTANTS}
    else:
        try:
            source = read_regular(path, limit=MAX_HOOK_BYTES)
        except OSError as exc:
            raise MatrixError(f"{path}: cannot read the hook: {exc.strerror or exc}") from None
        if source is None:
            raise MatrixError(f"{path}: hook file not found")
        label = str(path)
        try:
            values = read_constants(source, HOOK_CONSTANTS)
        except ValueError as exc:
            raise MatrixError(f"{path}: cannot load the hook: {exc}") from None
    scope, triggers = (values.get(name) for name in HOOK_CONSTANTS)
    if not isinstance(scope, (set, frozenset)) or not isinstance(triggers, (set, frozenset)):
        raise MatrixError(f"{label}: the hook lacks SCOPE_AGENTS or TRIGGER_EXTENSIONS")
    if not all(isinstance(v, str) for v in (*scope, *triggers)):
        raise MatrixError(f"{label}: SCOPE_AGENTS and TRIGGER_EXTENSIONS must hold strings")
    return HookFacts(
        file=label, scope_agents=frozenset(scope), trigger_extensions=frozenset(triggers)
    )


HOOK_CONSTANTS = ("SCOPE_AGENTS", "TRIGGER_EXTENSIONS")
#: larger than any hook file; a bigger one is not read
MAX_HOOK_BYTES = 8 * 1024 * 1024
_MAX_NODES = 200_000


def read_constants(source: bytes, names: tuple[str, ...]) -> dict[str, object]:
    """The module-level values of ``names`` in a Python file, by reading its
    syntax tree: nothing in it runs. A definition is understood when it is
    built from literals, names defined so earlier, ``frozenset``/``set``/
    ``tuple``/``list``/``sorted`` of one such value, a dict's ``keys()`` or
    ``values()``, and ``|``, ``&``, ``-``, ``+`` between them; anything else
    (a function call, a comprehension) raises ``ValueError``, as does a file
    that does not parse (nesting too deep for the parser included)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        detail = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
        raise ValueError(f"not Python the hook could be: {detail}") from None
    if sum(1 for _ in ast.walk(tree)) > _MAX_NODES:
        raise ValueError(f"more than {_MAX_NODES} syntax nodes; not read")
    known: dict[str, object] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if not isinstance(target, ast.Name):
            continue
        try:
            known[target.id] = _bounded(_evaluate(value, known))
        except (ValueError, TypeError, RecursionError, MemoryError):
            if target.id in names:
                raise ValueError(
                    f"{target.id} is not defined from literals (line {statement.lineno}); "
                    "routing check reads the hook without running it"
                ) from None
            known.pop(target.id, None)
    return {name: known.get(name) for name in names}


def _bounded(value: object) -> object:
    """A value no bigger than :data:`_MAX_ITEMS`: ``A = B + B`` repeated
    doubles a string per line, so every intermediate result is bounded."""
    if isinstance(value, (str, bytes, tuple, list, set, frozenset, dict)) and (
        len(value) > _MAX_ITEMS
    ):
        raise ValueError(f"more than {_MAX_ITEMS} items")
    return value


_MAX_ITEMS = 100_000
_CONTAINERS: dict[str, type] = {
    "frozenset": frozenset,
    "set": set,
    "tuple": tuple,
    "list": list,
    "sorted": list,
}


def _evaluate(node: object, known: dict[str, object]) -> object:
    """One expression of the subset :func:`read_constants` reads."""
    import ast
    import operator

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_evaluate(e, known) for e in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking")
        return {
            _evaluate(k, known): _evaluate(v, known)
            for k, v in zip(node.keys, node.values)
            if k is not None
        }
    if isinstance(node, ast.Name):
        if node.id not in known:
            raise ValueError(f"unknown name {node.id}")
        return known[node.id]
    if isinstance(node, ast.BinOp):
        ops: dict[type, object] = {
            ast.BitOr: operator.or_,
            ast.BitAnd: operator.and_,
            ast.Sub: operator.sub,
            ast.Add: operator.add,
        }
        op = ops.get(type(node.op))
        if op is None:
            raise ValueError("operator")
        left = _bounded(_evaluate(node.left, known))
        right = _bounded(_evaluate(node.right, known))
        if not all(isinstance(v, (set, frozenset, tuple, list, str)) for v in (left, right)):
            raise ValueError("operands")
        return op(left, right)  # type: ignore[operator]
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _CONTAINERS:
            kind = _CONTAINERS[func.id]
            if not node.args:
                return kind()
            value = _evaluate(node.args[0], known)
            if not isinstance(value, (set, frozenset, tuple, list, dict, str)):
                raise ValueError("argument")
            return sorted(value) if func.id == "sorted" else kind(value)
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("keys", "values")
            and not node.args
            and isinstance(found := _evaluate(func.value, known), dict)
        ):
            return list(found.keys() if func.attr == "keys" else found.values())
    raise ValueError(type(node).__name__)
