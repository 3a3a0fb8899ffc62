"""The Claude Code hook chain, as ``mishkan install`` writes it and ``mishkan
routing check`` reads it: one model, one definition of "ours".

A hook chain is the ``hooks`` mapping of a settings file (or of an agent
file's frontmatter): event -> list of matcher groups -> list of handlers. This
module knows, for Claude Code CLI 2.1.69 to 2.1.332 (docs/versions.md):

* **who is who** (:func:`role_of`): our graphify-nudge hook, the harness's
  security and model-route hooks, and graphify's own Claude hooks
  (``graphify claude install`` registers ``graphify hook-guard``);
* **the registered command** (:func:`hook_command`, :func:`parse_command`):
  ``mode=<mode> hooks="$CLAUDE_PROJECT_DIR/<hooks dir>"; command .
  "$hooks/graphify-nudge.sh" 2>/dev/null || true``, the same line on every
  machine (the shim picks this machine's interpreter:
  :mod:`mishkan_core.machine_config`), and the forms earlier installs wrote;
* **which tool calls a matcher selects** (:func:`matcher_matches`), the way the
  CLI does it, aliases included;
* **the settings scopes** Claude Code merges (:func:`settings_scopes`) and the
  order it merges them in;
* **how to insert and remove ours** (:func:`install_hooks`,
  :func:`uninstall_hooks`), PreToolUse placed after security and model-route.

Nothing here prints, exits or writes a file.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphify_nudge
from mishkan_core import claude_cli, json_text, safe_files

#: where install puts the hook in a project (D-009: ``payload/mishkan/hooks``)
DEFAULT_HOOKS_DIR = "payload/mishkan/hooks"
HOOK_MODULE = "graphify_nudge"
HOOK_FILE = "graphify_nudge.py"
#: the hook's index builder, which install puts beside it (graphify_nudge.INDEX_BUILDER)
BUILDER_MODULE = "graphify_nudge_index"
BUILDER_FILE = "graphify_nudge_index.py"
#: the POSIX sh shim install registers, beside the hook (mishkan_core/data/)
SHIM_FILE = "graphify-nudge.sh"
ENV_KEY = "MISHKAN_GRAPHIFY_NUDGE"
#: the hook's modes (graphify_nudge: anything else means telemetry)
MODES = ("telemetry", "advise", "off")
TIMEOUT = 10
#: The Python the shim runs: the hook loaded from its file by path, never by
#: name through sys.path (a `graphify_nudge/` package, a `.so` or a `json.py`
#: beside it would run instead), its bytecode from the directory after the
#: hooks dir in argv (graphify_nudge.load_code), then run.
IMPORT_CODE = graphify_nudge.load_code(HOOK_MODULE) + "module.main()\n"
#: what follows the shim on the registered command: its failures (no
#: interpreter, a broken hook file, the shim itself missing or cut) reach
#: Claude Code as exit 0 with nothing on stderr. ``command .`` makes a missing
#: or unparsable file an error rather than the end of Claude Code's shell.
FAIL_OPEN = "2>/dev/null || true"

#: the events the hook handles (docs/hook.md): PostToolUseFailure is what
#: CLI 2.1.197 fires when a lookup exits non-zero
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart")
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
#: the tool results the hook reads: Bash (``graphify query|explain|path ...``)
#: and graphify's MCP tools (``mcp__<server with graphify in its name>__*``).
#: Anchored: the CLI searches an unanchored regex in the tool name *and* in
#: its legacy aliases, so ``Bash|mcp__.*`` would also start the hook after
#: every ``TaskOutput`` (alias ``BashOutput``) and ``TaskStop`` (``KillBash``).
LOOKUP_MATCHER = "^(Bash|mcp__.*[Gg]raphify.*)$"
#: PreToolUse sees every call (the metrics need the denominator)
MATCHERS: dict[str, str | None] = {
    "PreToolUse": "*",
    "PostToolUse": LOOKUP_MATCHER,
    "PostToolUseFailure": LOOKUP_MATCHER,
    "SessionStart": None,
}

# -- the registration install writes: one table -------------------------------
#
# CLI 2.1.85 added a handler's ``if`` (permission-rule syntax): a call that does
# not match it starts no process. After a call, the hook reads only a lookup's
# result, so the Bash half of the lookup matcher gets ``if: Bash(graphify *)``,
# which the CLI matches against every subcommand (``cd src && graphify ...``,
# ``X=1 graphify ...``): a ``git status`` or a test run no longer starts an
# interpreter when it returns. The MCP half needs no ``if``, and cannot share
# the handler (an ``if`` naming Bash skips every MCP call), so it is a group of
# its own. CLIs before 2.1.85 ignore the field and run the handler as before
# (measured, docs/versions.md): the same registration is right for the whole
# supported range. PreToolUse keeps ``*`` without ``if``: the metrics count an
# agent's every call, and ``if`` cannot tell an in-scope agent's calls apart.

#: the ``if`` of the Bash lookup group
LOOKUP_IF = "Bash(graphify *)"
#: graphify's MCP tools, anchored (the Bash half is a group of its own)
MCP_LOOKUP_MATCHER = "^mcp__.*[Gg]raphify.*$"
#: event -> the (matcher, if) of each group install writes, in order
GROUPS: dict[str, tuple[tuple[str | None, str | None], ...]] = {
    "PreToolUse": (("*", None),),
    "PostToolUse": (("Bash", LOOKUP_IF), (MCP_LOOKUP_MATCHER, None)),
    "PostToolUseFailure": (("Bash", LOOKUP_IF), (MCP_LOOKUP_MATCHER, None)),
    "SessionStart": ((None, None),),
}

# -- roles -------------------------------------------------------------------

NUDGE = "graphify-nudge"
SECURITY = "security"
MODEL_ROUTE = "model-route"
GRAPHIFY_GUARD = "graphify-guard"
#: D-009 Integration: PreToolUse runs security, then model-route, then the nudge
CHAIN = (SECURITY, MODEL_ROUTE, NUDGE)
_OURS_MARKERS = ("graphify_nudge", "graphify-nudge")
_ROLE_MARKERS = ((SECURITY, ("pre-tool-security",)), (MODEL_ROUTE, ("model-route",)))
#: graphify 0.9.96 install.py `_is_graphify_hook_command`: its subcommands, or
#: the output dir its pre-#522 inline bash guard tested
_GRAPHIFY_SUBCOMMANDS = ("hook-guard", "hook-check")
_GRAPHIFY_LEGACY_MARKER = "graphify-out/"


def is_ours(command: object) -> bool:
    """The graphify-nudge hook, in any registration form (import, script path,
    a legacy ``graphify-nudge`` wrapper). The one definition of "ours"."""
    return isinstance(command, str) and any(m in command for m in _OURS_MARKERS)


def is_graphify_guard(command: object) -> bool:
    """A hook graphify itself installed (``graphify claude install``)."""
    if not isinstance(command, str):
        return False
    lowered = command.lower()
    if "graphify" not in lowered:
        return False
    return any(s in lowered for s in _GRAPHIFY_SUBCOMMANDS) or _GRAPHIFY_LEGACY_MARKER in lowered


def role_of(command: object) -> str | None:
    if is_ours(command):
        return NUDGE
    if is_graphify_guard(command):
        return GRAPHIFY_GUARD
    if isinstance(command, str):
        for role, markers in _ROLE_MARKERS:
            if any(m in command for m in markers):
                return role
    return None


# -- the chain as data -------------------------------------------------------


@dataclass(frozen=True)
class Handler:
    """One handler of a hook chain, where it sits, and what it runs."""

    event: str
    group: int
    index: int
    matcher: str | None
    command: str | None  # None for a non-command handler (prompt, http, ...)
    condition: str | None = None  # its ``if`` (CLI 2.1.85+), when it has one

    @property
    def path(self) -> str:
        """Its JSON path in the file: ``hooks.PreToolUse[2].hooks[0]``."""
        return f"hooks.{self.event}[{self.group}].hooks[{self.index}]"

    @property
    def role(self) -> str | None:
        return role_of(self.command)


def handlers(hooks: Any, events: tuple[str, ...] | None = None) -> Iterator[Handler]:
    """Every handler of a ``hooks`` mapping, in file order; malformed parts are
    skipped (:func:`shape_problem` reports them)."""
    if not isinstance(hooks, dict):
        return
    for event, groups in hooks.items():
        if (events is not None and event not in events) or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher")
            items = group.get("hooks")
            if not isinstance(items, list):
                continue
            for i, item in enumerate(items):
                if not isinstance(item, dict):
                    continue
                command = item.get("command") if item.get("type", "command") == "command" else None
                condition = item.get("if")
                yield Handler(
                    event,
                    g,
                    i,
                    matcher if isinstance(matcher, str) else None,
                    command if isinstance(command, str) else None,
                    condition if isinstance(condition, str) else None,
                )


def ours(hooks: Any) -> list[Handler]:
    return [h for h in handlers(hooks) if is_ours(h.command)]


def shape_problem(doc: Any) -> str | None:
    """Why ``doc`` is not a settings document install can edit, or ``None``."""
    if not isinstance(doc, dict):
        return "expected a JSON object at the top level"
    hooks = doc.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        return "'hooks' is not an object"
    for event in EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        if groups is None:
            continue
        if not isinstance(groups, list):
            return f"'hooks.{event}' is not a list"
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                return f"'hooks.{event}[{i}]' is not a matcher group"
    env = doc.get("env")
    if env is not None and not isinstance(env, dict):
        return "'env' is not an object"
    return None


# -- the registered command --------------------------------------------------

_PROJECT_VAR = re.compile(r"\$(\{CLAUDE_PROJECT_DIR\}|CLAUDE_PROJECT_DIR\b)")
#: in a plugin's hooks/hooks.json, the plugin's directory (the CLI exports it
#: to the hook's shell; CLI 2.1.197 replaces the text itself only for PowerShell)
_PLUGIN_VAR = re.compile(r"\$(\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT\b)")
#: how a registered command names the directory its hooks dir is relative to
PROJECT_DIR_REF = "$CLAUDE_PROJECT_DIR"
PLUGIN_ROOT_REF = "${CLAUDE_PLUGIN_ROOT}"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_SPECIAL = re.compile(r'(["\\$`])')


def _shell_path(path: Path, ref: str, base: Path) -> str | None:
    """``path`` as a double-quoted shell word relative to ``ref`` (a variable
    reference, ``$HOME``, whose value is ``base``), if it is under ``base``."""
    try:
        rel = path.relative_to(base)
    except ValueError:
        return None
    text = rel.as_posix()
    escaped = _SHELL_SPECIAL.sub(r"\\\1", text)
    return f'"{ref}/{escaped}"' if text != "." else f'"{ref}"'


def hook_command(
    hooks_dir: Path, project: Path, mode: str, *, root_ref: str = PROJECT_DIR_REF
) -> str:
    """The command install registers: the mode and the hooks dir as shell
    variables, Claude Code's ``/bin/sh`` reading the shim beside the hook
    (``command .``: no second shell, measured in docs/install.md), and
    :data:`FAIL_OPEN`. A hooks dir inside the project is written relative to
    ``$CLAUDE_PROJECT_DIR`` (a plugin's, ``project`` being then the plugin,
    relative to ``root_ref`` :data:`PLUGIN_ROOT_REF`), so the line names no path
    of one machine and is the same for every teammate; the interpreter and the
    bytecode directory are this machine's (:mod:`mishkan_core.machine_config`)."""
    where = _shell_path(hooks_dir, root_ref, project) or shlex.quote(str(hooks_dir))
    return f'mode={mode} hooks={where}; command . "$hooks/{SHIM_FILE}" {FAIL_OPEN}'


@dataclass(frozen=True)
class Command:
    """A registered command, taken apart the way ``/bin/sh`` would."""

    text: str
    program: str  # as written: an absolute path, a bare name, ...
    #: "shim" (what install writes: ``command . "$hooks/graphify-nudge.sh"``), "import"
    #: (installs before issue 29: a one-line program naming an interpreter),
    #: "script" (runs the hook file by path), "other"
    form: str
    hooks_dir: str | None  # the hooks directory, as written (shim and import forms)
    script: str | None  # the file the shell reads or the interpreter runs, as written
    mode: str | None  # the value of --mode=, if any
    isolated: bool  # -I and -S both given
    pycache_prefix: str | None = None  # where its bytecode is: the operand after hooks_dir


def command_words(text: str) -> list[str]:
    """The command's shell words from its program on: leading ``NAME=value``
    assignments and ``env`` dropped. Raises ``ValueError`` when the text does
    not split as shell words."""
    return _assignments(shlex.split(text))[1]


def _assignments(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """The leading ``NAME=value`` words (and ``env``), as a mapping (a word
    ending the assignments with ``;`` loses it), and the words after them."""
    assigned: dict[str, str] = {}
    while words and (_ASSIGNMENT.match(words[0]) or words[0] == "env"):
        name, _eq, value = words.pop(0).partition("=")
        if _eq:
            assigned[name] = value[:-1] if value.endswith(";") else value
    return assigned, words


def parse_command(text: str) -> Command:
    """Raises ``ValueError`` when the text does not split as shell words."""
    assigned, words = _assignments(shlex.split(text))
    if not words:
        raise ValueError("empty command")
    program, rest = words[0], words[1:]
    if program == "command" and rest[:1] == ["."] and rest[1:2] == [f"$hooks/{SHIM_FILE}"]:
        hooks_dir = assigned.get("hooks")
        script = f"{hooks_dir}/{SHIM_FILE}" if hooks_dir is not None else None
        return Command(text, ".", "shim", hooks_dir, script, assigned.get("mode"), True)
    mode = next((w[len("--mode=") :] for w in rest if w.startswith("--mode=")), None)
    flags = {w for w in rest if w.startswith("-") and not w.startswith("--")}
    isolated = any("I" in f for f in flags) and any("S" in f for f in flags)
    script = next((w for w in rest if not w.startswith("-")), None)
    if "-c" in rest:
        at = rest.index("-c") + 1
        code = rest[at] if at < len(rest) else ""
        operands = [w for w in rest[at + 1 :] if not w.startswith("--mode=")]
        if HOOK_MODULE in code:
            prefix = operands[1] if len(operands) > 1 and "pycache_prefix" in code else None
            return Command(
                text, program, "import", operands[0] if operands else None, None, mode, isolated,
                prefix,
            )  # fmt: skip
        return Command(text, program, "other", None, None, mode, isolated)
    if script is not None and (
        script.endswith(HOOK_FILE) or "graphify-nudge" in os.path.basename(script)
    ):
        return Command(text, program, "script", None, script, mode, isolated)
    if is_ours(program):  # the hook file run directly through its shebang
        return Command(text, program, "script", None, program, mode, isolated)
    return Command(text, program, "other", None, None, mode, isolated)


_HOME_VAR = re.compile(r"\$(\{HOME\}|HOME\b)")


def expand(word: str, project: Path, plugin_root: Path | None = None) -> str:
    """``$CLAUDE_PROJECT_DIR``, ``$HOME``, ``~`` and, for a plugin's hook,
    ``${CLAUDE_PLUGIN_ROOT}`` as the hook's shell would expand them."""
    if plugin_root is not None:
        word = _PLUGIN_VAR.sub(lambda _m: str(plugin_root), word)
    word = _HOME_VAR.sub(lambda _m: os.path.expanduser("~"), word)
    return os.path.expanduser(_PROJECT_VAR.sub(lambda _m: str(project), word))


def names_plugin_root(command: str) -> bool:
    """The command uses ``${CLAUDE_PLUGIN_ROOT}``, which only a plugin's hooks have."""
    return _PLUGIN_VAR.search(command) is not None


def is_shim(path: str) -> bool:
    """A version-manager shim: under a ``shims`` directory, or a ``#!`` script
    rather than an interpreter binary (~50 ms per call, version per directory)."""
    if "shims" in Path(path).parts:
        return True
    try:  # any settings scope names the path: a FIFO there must not block
        return safe_files.read_head(path, 2) == b"#!"
    except OSError:
        return False


def python_version_of(path: str) -> tuple[int, int] | None:
    """The X.Y of an interpreter binary, read from its (resolved) name or its
    ``lib/pythonX.Y`` directory, without running it: a gate never executes a
    program named in a file it checks."""
    real = os.path.realpath(path)
    for name in (os.path.basename(real), os.path.basename(path)):
        found = re.match(r"^python(\d)\.(\d+)$", name)
        if found:
            return int(found.group(1)), int(found.group(2))
    lib = Path(real).parent.parent / "lib"
    try:
        versions = [
            m for m in (re.match(r"^python(\d)\.(\d+)$", p.name) for p in lib.iterdir()) if m
        ]
    except OSError:
        return None
    if len(versions) == 1:
        return int(versions[0].group(1)), int(versions[0].group(2))
    return None


# -- matchers, as CLI 2.1.197 applies them -----------------------------------

#: the CLI's legacy tool names (old -> current); a regex matcher is tried on
#: the tool's name and on each of its old names
LEGACY_TOOL_NAMES: Mapping[str, str] = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "AgentOutputTool": "TaskOutput",
    "BashOutputTool": "TaskOutput",
    "AgentOutput": "TaskOutput",
    "BashOutput": "TaskOutput",
    "ListPeers": "ListAgents",
    "Brief": "SendUserMessage",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
    "ReadMcpResourceDir": "ReadMcpResourceDirTool",
}
_NAME_LIST = re.compile(r"^[a-zA-Z0-9_|, -]+$")
#: before comma lists (``claude_cli`` feature ``matcher_comma_list``): ``|`` only
_PIPE_LIST = re.compile(r"^[a-zA-Z0-9_|]+$")


def matcher_matches(matcher: str | None, tool: str, cli: str | None = None) -> bool:
    """Whether a tool-event matcher group runs for ``tool``.

    CLI 2.1.197: no matcher, ``""`` or ``"*"`` match everything. A matcher made
    only of letters, digits, ``_``, ``|``, ``,``, space and ``-`` is a list of
    exact names (old names map to the current ones). Anything else is a
    JavaScript regular expression, searched (not anchored) in the tool name and
    in each of its old names; an invalid one matches nothing.

    A settings file is the repository's, so the expression never runs on
    Python's ``re`` (``(\\w|\\w|\\w)*!`` took 3^26 steps there): it is searched
    by :mod:`mishkan_core.bounded_regex`, with JavaScript's semantics and a
    step budget. Raises :class:`~mishkan_core.bounded_regex.MatcherError`
    (``TooCostly``, ``Unsupported``) when it cannot say in that budget.
    ``cli``: the CLI version, when it is one that predates comma lists (then
    ``Read, Grep`` is a regular expression, docs/versions.md)."""
    from mishkan_core import bounded_regex

    if not matcher or matcher == "*":
        return True
    name_list = _NAME_LIST
    if cli is not None and claude_cli.parse(cli) and not claude_cli.has(cli, "matcher_comma_list"):
        name_list = _PIPE_LIST
    if name_list.match(matcher):
        names = {n.strip() for n in re.split(r"[|,]", matcher) if n.strip()}
        return tool in {LEGACY_TOOL_NAMES.get(n, n) for n in names}
    old_names = [old for old, new in LEGACY_TOOL_NAMES.items() if new == tool]
    try:
        return any(bounded_regex.search(matcher, name) for name in (tool, *old_names))
    except bounded_regex.InvalidPattern:
        return False


#: tool names a matcher is tried on before it is trusted: a pattern that
#: backtracks catastrophically shows on a long MCP name, and the CLI tries
#: every matcher on every tool name of a session
PROBE_TOOL_NAMES = (
    "mcp__graphify__query_graph",
    "mcp__plugin_marketplace_knowledge_server__search_project_documents_by_topic",
)


def matcher_problem(matcher: str | None) -> str | None:
    """Why the CLI cannot run ``matcher`` cheaply, or ``None``: a pattern that
    needs more than the step budget on a plausible tool name (catastrophic
    backtracking, paid at every tool call) or one this check cannot evaluate."""
    from mishkan_core import bounded_regex

    try:
        for name in PROBE_TOOL_NAMES:
            matcher_matches(matcher, name)
    except bounded_regex.MatcherError as exc:
        return matcher_trouble(exc)
    return None


def matcher_trouble(exc: Exception) -> str:
    """A :class:`~mishkan_core.bounded_regex.MatcherError` as a finding's words."""
    from mishkan_core import bounded_regex

    if isinstance(exc, bounded_regex.TooCostly):
        return f"backtracks catastrophically: {exc}, which the CLI pays at every tool call"
    return f"uses {exc}, which routing check cannot evaluate in bounded time"


_RULE = re.compile(r"^([A-Za-z0-9_]+)(?:\((.*)\))?$", re.DOTALL)
_SUBCOMMAND_SPLIT = re.compile(r"&&|\|\||[;|\n]")


def if_matches(
    condition: str | None, tool: str, tool_input: object, cli: str | None = None
) -> bool:
    """Whether a handler's ``if`` lets it run for a call, as the CLI decides
    (2.1.85 and later; an older ``cli`` ignores the field: always True).

    A rule is ``Tool`` or ``Tool(pattern)``. For Bash the pattern is a command
    prefix (``graphify *``, ``graphify:*``) or a whole command, and it is tried
    on each subcommand (split at ``&&``, ``||``, ``;``, ``|``, newlines) after
    ``NAME=value`` prefixes: ``cd src && graphify explain x`` matches
    ``Bash(graphify *)``, ``/usr/bin/graphify explain x`` does not (measured,
    tests/e2e/test_e2e_registration.py). Other patterns are not modelled and
    count as a match, so a check built on this never under-reports a start."""
    if condition is None or (
        cli is not None and claude_cli.parse(cli) and not claude_cli.has(cli, "if_field")
    ):
        return True
    rule = _RULE.match(condition.strip())
    if rule is None:
        return False
    name, pattern = rule.groups()
    if name != tool:
        return False
    if pattern is None or pattern in ("", "*"):
        return True
    if tool != "Bash":
        return True
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return False
    if pattern.endswith((":*", " *")):
        prefix, whole = pattern[:-2], False
    else:
        prefix, whole = pattern, True
    for part in _SUBCOMMAND_SPLIT.split(command):
        words = part.strip().split()
        while words and _ASSIGNMENT.match(words[0]):
            words.pop(0)
        text = " ".join(words)
        if text == prefix or (not whole and text.startswith(prefix + " ")):
            return True
    return False


def starts(handler: Handler, tool: str, tool_input: object, cli: str | None = None) -> bool:
    """Whether a tool call starts ``handler``: its matcher, then its ``if``."""
    return matcher_matches(handler.matcher, tool, cli) and if_matches(
        handler.condition, tool, tool_input, cli
    )


# -- editing a settings document ---------------------------------------------


def _groups(event: str, command: str) -> list[dict[str, Any]]:
    """The matcher groups install writes for ``event`` (:data:`GROUPS`)."""
    out = []
    for matcher, condition in GROUPS[event]:
        group: dict[str, Any] = {}
        if matcher is not None:
            group["matcher"] = matcher
        handler: dict[str, Any] = {"type": "command", "command": command, "timeout": TIMEOUT}
        if condition is not None:
            handler["if"] = condition
        group["hooks"] = [handler]
        out.append(group)
    return out


def _chain_index(groups: list[Any]) -> int:
    """Index of the last group holding the security or model-route hook."""
    last = -1
    for i, group in enumerate(groups):
        items = group.get("hooks", []) if isinstance(group, dict) else []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and role_of(item.get("command")) in (SECURITY, MODEL_ROUTE):
                last = i
    return last


def _remove_ours(groups: list[Any]) -> bool:
    """Remove our handlers, and the groups that held nothing else. True if any."""
    removed = False
    for group in list(groups):
        items = group.get("hooks", []) if isinstance(group, dict) else []
        if not isinstance(items, list):
            continue
        keep = [h for h in items if not (isinstance(h, dict) and is_ours(h.get("command")))]
        if len(keep) != len(items):
            removed = True
            if keep:
                group["hooks"] = keep
            else:
                groups.remove(group)
    return removed


def _already_right(groups: list[Any], event: str, command: str) -> bool:
    mine = [
        (i, g)
        for i, g in enumerate(groups)
        if isinstance(g, dict)
        and any(is_ours(h.get("command")) for h in g.get("hooks", []) if isinstance(h, dict))
    ]
    if [g for _i, g in mine] != _groups(event, command):
        return False
    return event != "PreToolUse" or mine[0][0] > _chain_index(groups)


def install_hooks(hooks: dict[str, Any], command: str, events: tuple[str, ...]) -> dict[str, Any]:
    """A copy of a ``hooks`` mapping with ours registered for exactly ``events``
    (and removed from every other event of :data:`EVENTS`). PreToolUse goes
    right after the security and model-route hooks; the rest go last."""
    new = copy.deepcopy(hooks)
    for event in EVENTS:
        if event not in events:
            groups = new.get(event)
            if isinstance(groups, list) and _remove_ours(groups) and not groups:
                del new[event]
            continue
        groups = new.setdefault(event, [])
        if _already_right(groups, event, command):
            continue
        _remove_ours(groups)
        at = _chain_index(groups) + 1 if event == "PreToolUse" else len(groups)
        groups[at or len(groups) : at or len(groups)] = _groups(event, command)
    return new


def uninstall_hooks(hooks: dict[str, Any]) -> dict[str, Any]:
    """A copy of a ``hooks`` mapping without ours; events left empty go too."""
    new = copy.deepcopy(hooks)
    for event in list(new):
        groups = new[event]
        if isinstance(groups, list) and _remove_ours(groups) and not groups:
            del new[event]
    return new


def install_doc(doc: dict[str, Any], command: str, events: tuple[str, ...]) -> dict[str, Any]:
    """A settings document with ours in place. Install no longer writes
    ``env.MISHKAN_GRAPHIFY_NUDGE`` and removes the one earlier versions wrote:
    settings ``env`` overrides the user's shell, so a pinned mode defeated the
    exported off switch (README, "Turning it off"); the mode is ``--mode=`` on the command."""
    new = copy.deepcopy(doc)
    hooks = new.get("hooks")
    new["hooks"] = install_hooks(hooks if isinstance(hooks, dict) else {}, command, events)
    if not new["hooks"] and "hooks" not in doc:
        del new["hooks"]
    _drop_pinned_mode(new)
    return new


def _drop_pinned_mode(doc: dict[str, Any]) -> None:
    """Take ``MISHKAN_GRAPHIFY_NUDGE`` out of ``env``; an ``env`` it leaves
    empty goes too (an earlier install's pin, never the user's other keys)."""
    env = doc.get("env")
    if isinstance(env, dict) and ENV_KEY in env:
        del env[ENV_KEY]
        if not env:
            del doc["env"]


def uninstall_doc(doc: dict[str, Any], original: dict[str, Any] | None = None) -> dict[str, Any]:
    """A settings document without ours. Containers that only held ours go.
    ``original`` (the pre-install settings, if known) gives back an env value
    that an earlier install overwrote or removed."""
    new = copy.deepcopy(doc)
    hooks = new.get("hooks")
    if isinstance(hooks, dict):
        new["hooks"] = uninstall_hooks(hooks)
        if not new["hooks"] and hooks:
            del new["hooks"]
    before = original.get("env") if isinstance(original, dict) else None
    if isinstance(before, dict) and ENV_KEY in before:
        new.setdefault("env", {})[ENV_KEY] = before[ENV_KEY]
    elif original is not None:
        _drop_pinned_mode(new)
    return new


def has_ours(doc: Any) -> bool:
    return bool(ours(doc.get("hooks") if isinstance(doc, dict) else None))


def core(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without anything install adds or removes, and without empty
    containers: what must be unchanged for uninstall to give back the backup."""
    stripped = uninstall_doc(doc)
    hooks = stripped.get("hooks")
    if isinstance(hooks, dict):
        for event in [e for e, groups in hooks.items() if groups == []]:
            del hooks[event]
        if not hooks:
            del stripped["hooks"]
    env = stripped.get("env")
    if isinstance(env, dict):
        env.pop(ENV_KEY, None)
        if not env:
            del stripped["env"]
    return stripped


# -- settings scopes ---------------------------------------------------------

#: CLI 2.1.197 on Linux (and WSL without Windows inheritance): managed settings
#: are /etc/claude-code/managed-settings.json, then managed-settings.d/*.json
#: (names not starting with ".", sorted), merged in that order
MANAGED_DIR = Path("/etc/claude-code")
#: the order the CLI merges scopes in: a later scope's ``env`` key wins, its
#: hook groups are appended after the earlier ones' ("flag": ``claude --settings``)
MERGE_ORDER = ("user", "project", "local", "flag", "managed")


@dataclass
class Scope:
    """One settings file as Claude Code reads it."""

    name: str  # "managed", "user", "project", "local", or "settings" (a file given by hand)
    path: Path
    doc: Any = None  # the parsed document; None when the file does not exist
    error: str | None = None  # why it could not be read

    @property
    def exists(self) -> bool:
        return self.doc is not None

    def hooks(self) -> Any:
        return self.doc.get("hooks") if isinstance(self.doc, dict) else None

    def env(self) -> dict[str, Any]:
        env = self.doc.get("env") if isinstance(self.doc, dict) else None
        return env if isinstance(env, dict) else {}


def config_dir(environ: Mapping[str, str]) -> Path:
    """The user's Claude directory: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    home = environ.get("HOME")
    return (Path(home) if home else Path.home()) / ".claude"


def settings_paths(
    project: Path, user_dir: Path, managed_dir: Path = MANAGED_DIR
) -> list[tuple[str, Path]]:
    """Every settings file Claude Code would read for ``project``, in merge order."""
    paths = [
        ("user", user_dir / "settings.json"),
        ("project", project / ".claude" / "settings.json"),
        ("local", project / ".claude" / "settings.local.json"),
        ("managed", managed_dir / "managed-settings.json"),
    ]
    try:
        dropins = sorted(
            p
            for p in (managed_dir / "managed-settings.d").iterdir()
            if p.name.endswith(".json") and not p.name.startswith(".")
        )
    except OSError:
        dropins = []
    paths.extend(("managed", p) for p in dropins)
    return paths


def read_scope(name: str, path: Path) -> Scope:
    """One scope; a missing file is an empty scope, an unusable one carries
    ``error``. An unreadable managed file (root-owned, mode 600) is skipped:
    managed settings are read "where readable"."""
    scope = Scope(name, path)
    try:
        data = safe_files.read_regular(path)
    except PermissionError:
        if name != "managed":
            scope.error = f"{path}: permission denied"
        return scope
    except OSError as exc:
        scope.error = f"{path}: cannot read: {exc.strerror or exc}"
        return scope
    if data is None:
        return scope
    try:
        doc = json_text.parse(data) if data.strip() else {}
    except json_text.JsonError as exc:
        scope.error = f"{path}: {exc}"
        return scope
    if not isinstance(doc, dict):
        scope.error = f"{path}: settings is not a JSON object"
    else:
        scope.doc = doc
    return scope


def settings_scopes(project: Path, user_dir: Path, managed_dir: Path = MANAGED_DIR) -> list[Scope]:
    return [read_scope(name, path) for name, path in settings_paths(project, user_dir, managed_dir)]


def in_merge_order(scopes: list[Scope]) -> list[Scope]:
    """``scopes`` as Claude Code merges them, the winning scope last
    (:data:`MERGE_ORDER`: ``claude --settings`` below managed, above the rest).
    Any other named file (``routing check --settings FILE``) ranks as a flag."""
    flag = MERGE_ORDER.index("flag")
    return sorted(
        scopes, key=lambda s: MERGE_ORDER.index(s.name) if s.name in MERGE_ORDER else flag
    )


def merged_env(scopes: list[Scope]) -> dict[str, tuple[Any, Scope]]:
    """The ``env`` Claude Code ends up with, and which scope set each key.
    Settings ``env`` is applied over the process environment, so a key set in
    any scope overrides what the user exported."""
    merged: dict[str, tuple[Any, Scope]] = {}
    for scope in in_merge_order(scopes):
        for key, value in scope.env().items():
            merged[key] = (value, scope)
    return merged
