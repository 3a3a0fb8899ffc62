"""D-009: is graphify-nudge registered so that it runs, once, fast, for the
right calls, and can be turned off? Checked across every settings scope and
agent file of a :class:`~mishkan_core.routing.harness.Harness`.

Every finding names the file and its scope, the JSON path inside it, and the
fix. The chain model (what is ours, roles, matchers, the command) is
:mod:`mishkan_core.hook_chain`; nothing here re-derives it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mishkan_core import hook_chain as hc
from mishkan_core.hook_chain import Handler, Scope
from mishkan_core.routing.check import Violation
from mishkan_core.routing.harness import Agent, Harness, PluginHooks

INSTALL = "rerun `mishkan install`"


def _install(options: str) -> str:
    return f"rerun `mishkan install {options}`"


#: the tools whose PreToolUse the hook classifies, and one graphify MCP tool
TRIGGER_TOOLS = ("Read", "Grep", "Bash")
LOOKUP_TOOLS = ("Bash", "mcp__graphify__query_graph")
#: graphify 0.9.96 `claude install`: the section it writes into CLAUDE.md
GRAPHIFY_CLAUDE_MD = re.compile(
    r"^## graphify\s*\n+This project has a knowledge graph", re.MULTILINE
)


#: "`mishkan install" where a fix names the command (the plugin's gets its scope)
_INSTALL_CALL = re.compile(r"`mishkan install(?=[` ])")


@dataclass(frozen=True)
class Site:
    """Where a handler is registered: a settings scope or an agent file."""

    file: str  # "<path> [scope]" or "<path> [agent hizkiah]"
    handler: Handler
    scope: Scope | None = None
    agent: Agent | None = None

    def violation(self, invariant: str, rule: str, value: str, fix: str) -> Violation:
        where = self.handler.path if self.agent is None else f"frontmatter {self.handler.path}"
        if self.plugin_root is not None:  # the install that wrote it is the plugin's
            scope = f"--scope plugin --plugin-dir {shlex.quote(str(self.plugin_root))}"
            fix = _INSTALL_CALL.sub(lambda m: f"{m.group(0)} {scope}", fix)
        return Violation(invariant, rule, self.file, value, where, fix)

    @property
    def plugin_root(self) -> Path | None:
        """``${CLAUDE_PLUGIN_ROOT}`` for this handler: set only for a plugin's hooks."""
        return self.scope.root if isinstance(self.scope, PluginHooks) else None

    def expand(self, word: str, project: Path) -> str:
        return hc.expand(word, project, self.plugin_root)


def _sites(harness: Harness) -> Iterator[Site]:
    for scope in [*harness.scopes, *harness.plugin_hooks]:
        for handler in hc.handlers(scope.hooks()):
            yield Site(harness.scope_label(scope), handler, scope=scope)
    for agent in harness.agents:
        kind = "agent" if agent.runs_frontmatter_hooks else f"{agent.source} agent"
        for handler in hc.handlers(agent.hooks):
            yield Site(
                f"{harness.label(agent.path)} [{kind} {agent.agent_type}]", handler, agent=agent
            )


def check(harness: Harness, expected_agents: tuple[str, ...]) -> list[Violation]:
    sites = list(_sites(harness))
    out: list[Violation] = []
    out += _scopes_unreadable(harness)
    out += _hooks_switched_off(harness, sites)
    out += _registration(harness, sites, expected_agents)
    out += _matchers(sites)
    out += _duplicates(sites)
    out += _modes(harness, sites)
    out += _interpreters(harness, sites)
    out += _chain_order(harness)
    out += _chain_files(harness, sites)
    out += _index_builder(harness, sites)
    out += _foreign_bytecode(harness, sites)
    out += _graphify_hooks(harness, sites)
    return out


def _ours(sites: list[Site]) -> list[Site]:
    return [s for s in sites if hc.is_ours(s.handler.command)]


def _scopes_unreadable(harness: Harness) -> Iterator[Violation]:
    for agent in harness.agents:
        if agent.error:
            yield Violation(
                "D-009",
                "hook-registration",
                harness.label(agent.path),
                f"cannot read this agent file: {agent.error}",
                fix="write hooks: as block YAML, or register in settings with "
                "`mishkan install --scope project`",
            )


def _hooks_switched_off(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    managed_only = any(
        s.name == "managed"
        and isinstance(s.doc, dict)
        and s.doc.get("allowManagedHooksOnly") is True
        for s in harness.scopes
    )
    for scope in harness.scopes:
        if isinstance(scope.doc, dict) and scope.doc.get("disableAllHooks") is True:
            who = "every hook" if scope.name == "managed" else "every hook outside managed settings"
            yield Violation(
                "D-009",
                "hook-registration",
                harness.scope_label(scope),
                f"disableAllHooks is true: {who}, graphify-nudge included, never runs",
                "disableAllHooks",
                "remove disableAllHooks; to turn only the nudge off, export "
                "MISHKAN_GRAPHIFY_NUDGE=off",
            )
    if managed_only and not any(
        s.scope is not None and s.scope.name == "managed" for s in _ours(sites)
    ):
        yield Violation(
            "D-009",
            "hook-registration",
            "managed settings",
            "allowManagedHooksOnly is true and graphify-nudge is not in managed settings: "
            "Claude Code ignores every other registration",
            "allowManagedHooksOnly",
            "register the hook in managed settings, or drop allowManagedHooksOnly",
        )


def _registration(
    harness: Harness, sites: list[Site], expected: tuple[str, ...]
) -> Iterator[Violation]:
    ours = _ours(sites)
    in_settings = {s.handler.event for s in ours if s.scope is not None}
    if not ours:
        present = {s.handler.role for s in sites if s.scope is not None} & {
            hc.SECURITY,
            hc.MODEL_ROUTE,
        }
        missing = [r for r in (hc.SECURITY, hc.MODEL_ROUTE) if r not in present]
        chain = f"; nor are {' and '.join(missing)}" if missing else ""
        files = (
            ", ".join(harness.scope_label(s) for s in harness.scopes if s.exists)
            or "no settings file"
        )
        yield Violation(
            "D-009",
            "hook-registration",
            files,
            f"graphify-nudge is not registered in any settings scope or agent file{chain}: "
            "the D-009 gate checks nothing",
            fix="run `mishkan install` (or `mishkan install --scope agents`)",
        )
        return
    if "SessionStart" not in in_settings:
        yield Violation(
            "D-009",
            "hook-registration",
            _project_label(harness),
            "no SessionStart registration in settings: sessions with the hook off go unrecorded",
            "hooks.SessionStart",
            INSTALL,
        )
    agents = {a.name: a for a in harness.agents if a.runs_frontmatter_hooks}
    for event in hc.TOOL_EVENTS:
        if event in in_settings:
            for site in ours:
                if (
                    site.agent is not None
                    and site.agent.runs_frontmatter_hooks
                    and site.handler.event == event
                ):
                    yield site.violation(
                        "D-009",
                        "hook-registration",
                        f"{event} is registered both in settings and in this agent's "
                        "frontmatter: each of its calls starts the hook twice",
                        "keep one: `mishkan install --scope project` or `--scope agents`",
                    )
            continue
        lacking = [
            name
            for name in expected
            if not any(
                s.agent is not None and s.agent.name == name and s.handler.event == event
                for s in ours
            )
        ]
        if len(lacking) == len(expected):
            yield Violation(
                "D-009",
                "hook-registration",
                _project_label(harness),
                f"graphify-nudge has no {event} registration in settings or in any in-scope "
                f"agent's frontmatter{_why(event)}",
                f"hooks.{event}",
                INSTALL,
            )
            continue
        for name in lacking:
            agent = agents.get(name)
            yield Violation(
                "D-009",
                "hook-registration",
                harness.label(agent.path) if agent else f".claude/agents/{name}.md",
                f"in-scope agent {name!r} lacks {event} in its frontmatter hooks{_why(event)}",
                f"frontmatter hooks.{event}",
                "rerun `mishkan install --scope agents`",
            )
    for site in ours:
        if site.agent is not None and not site.agent.runs_frontmatter_hooks:
            yield site.violation(
                "D-009",
                "hook-registration",
                "Claude Code ignores hooks in a plugin agent's frontmatter (CLI 2.1.197: "
                "'sets hooks, which is ignored for plugin agents'): this never runs",
                "register in settings: `mishkan install --scope project`",
            )


def _why(event: str) -> str:
    return {
        "PreToolUse": ": no call is ever classified or nudged",
        "PostToolUse": ": the hook never learns what a lookup named, and re-nudges after it",
        "PostToolUseFailure": ": a lookup that exits non-zero (an ambiguous name) is never "
        "recorded, and the agent is nudged again right after complying",
    }.get(event, "")


def _project_label(harness: Harness) -> str:
    project = next((s for s in harness.scopes if s.name in ("project", "settings")), None)
    return harness.scope_label(project) if project else str(harness.project)


#: a canonical lookup, as the agent's Bash runs it: a Post ``if`` must let it through
_LOOKUP_CALL = {"command": "graphify explain 'src/app.py::main' --graph .graphify/graph.json"}
#: tools that two of our groups must never both start for (a call would run the hook twice)
_PROBE_TOOLS = ("Read", "Grep", "Bash", "Edit", "Agent", "TaskOutput", "mcp__graphify__query_graph")


def _place(site: Site) -> str:
    return (
        "settings"
        if site.scope is not None
        else f"agent {site.agent.agent_type if site.agent else ''}"
    )


def _matchers(sites: list[Site]) -> Iterator[Violation]:
    from mishkan_core.bounded_regex import MatcherError

    ours = _ours(sites)
    for site in ours:
        event, matcher = site.handler.event, site.handler.matcher
        wanted = f"matcher {hc.MATCHERS.get(event)!r} ({INSTALL})"
        try:  # a pathological matcher is itself the finding
            problem = hc.matcher_problem(matcher) or _misfit(site, ours)
        except MatcherError as exc:
            problem = hc.matcher_trouble(exc)
        if problem == _SKIPS_STARTUP:
            wanted = f"no matcher ({INSTALL})"
        if problem is not None:
            yield site.violation(
                "D-009", "hook-registration", f"{event} matcher {matcher!r} {problem}", wanted
            )


_SKIPS_STARTUP = "skips new sessions ('startup')"


def _misfit(site: Site, ours: list[Site]) -> str | None:
    """What the matcher (and ``if``) of ``site`` gets wrong for its event's
    registration, if anything; ``ours``: every site of the hook."""
    event, matcher = site.handler.event, site.handler.matcher
    if event == "PreToolUse":
        missed = [t for t in TRIGGER_TOOLS if not hc.matcher_matches(matcher, t)]
        if missed:
            return f"misses {', '.join(missed)} calls, the ones the hook advises on"
        if matcher not in (None, "", "*", ".*"):
            return "hides calls from the conformance metrics, which count every call"
        if site.handler.condition is not None:
            return (
                f"has if {site.handler.condition!r}: it hides calls from the conformance "
                "metrics, which count every call"
            )
    elif event in ("PostToolUse", "PostToolUseFailure"):
        # install splits the lookups over two groups (hook_chain.GROUPS): what
        # counts is every lookup tool reaching one of ours in the same place
        peers = [o.handler for o in ours if o.handler.event == event and _place(o) == _place(site)]
        inputs = {"Bash": _LOOKUP_CALL}
        missed = [
            t for t in LOOKUP_TOOLS if not any(hc.starts(h, t, inputs.get(t, {})) for h in peers)
        ]
        if missed:
            return f"misses {', '.join(missed)}: lookups' results never reach the hook"
        if hc.matcher_matches(matcher, "Read") or hc.matcher_matches(matcher, "TaskOutput"):
            return (
                "starts an interpreter after every such call; the hook reads only Bash "
                "and graphify MCP results"
            )
    elif event == "SessionStart" and not hc.matcher_matches(matcher, "startup"):
        return _SKIPS_STARTUP
    return None


def _overlap(a: Handler, b: Handler) -> bool:
    """Whether one tool call could start both handlers (``if`` aside, unless
    both have the same one): the hook would then run twice for it."""
    if a.condition != b.condition and a.condition is not None and b.condition is not None:
        return False
    if a.event == "SessionStart":
        return True
    return any(
        hc.matcher_matches(a.matcher, t) and hc.matcher_matches(b.matcher, t) for t in _PROBE_TOOLS
    )


def _duplicates(sites: list[Site]) -> Iterator[Violation]:
    by_place: dict[tuple[str, str], list[Site]] = {}
    for site in _ours(sites):
        by_place.setdefault((site.handler.event, _place(site)), []).append(site)
    for (event, _where), found in by_place.items():
        for i, extra in enumerate(found):
            first = next((f for f in found[:i] if _overlap(f.handler, extra.handler)), None)
            if first is None:
                continue
            same = extra.handler.command == first.handler.command
            effect = (
                "Claude Code runs identical commands once, but the copies drift apart on "
                "the next install"
                if same
                else "a different command: the hook runs twice per call, two nudges, two "
                "telemetry lines"
            )
            yield extra.violation(
                "D-009",
                "hook-registration",
                f"graphify-nudge is registered for {event} again (first at "
                f"{first.file} {first.handler.path}); {effect}",
                "delete this entry; install writes exactly one",
            )


# -- the mode ----------------------------------------------------------------


def _modes(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    for scope in harness.scopes:
        value = scope.env().get(hc.ENV_KEY)
        if value is None:
            continue
        where = f"env.{hc.ENV_KEY}"
        if not isinstance(value, str) or value.strip().lower() not in hc.MODES:
            yield Violation(
                "D-009",
                "hook-mode",
                harness.scope_label(scope),
                f"{value!r} is not a mode ({', '.join(hc.MODES)}); the hook runs as telemetry",
                where,
                "use one of " + ", ".join(hc.MODES),
            )
        if scope.name in ("project", "managed", "settings"):
            yield Violation(
                "D-009",
                "hook-mode",
                harness.scope_label(scope),
                f"pins the mode to {value!r} for everyone: settings env overrides the "
                "shell, so an exported MISHKAN_GRAPHIFY_NUDGE=off can no longer turn the "
                "hook off (the ADR's session off switch)",
                where,
                "delete it and set the default with `mishkan install --mode <mode>` "
                "(it goes on the command as --mode=)",
            )
    exported = harness.environ.get(hc.ENV_KEY)
    if exported and exported.strip().lower() not in hc.MODES:
        yield Violation(
            "D-009",
            "hook-mode",
            "the environment",
            f"exported {hc.ENV_KEY}={exported!r} is not a mode; the hook runs as telemetry, "
            "whatever install chose",
            fix=f"export {hc.ENV_KEY}=off (or unset it)",
        )
    for site in _first_per_command(sites):
        try:
            mode = hc.parse_command(site.handler.command or "").mode
        except ValueError:
            continue
        if mode is not None and mode not in hc.MODES:
            yield site.violation(
                "D-009",
                "hook-mode",
                f"--mode={mode} is not a mode ({', '.join(hc.MODES)}); the hook runs as telemetry",
                "`mishkan install --mode <mode>`",
            )


# -- the interpreter ---------------------------------------------------------


def _first_per_command(sites: list[Site]) -> list[Site]:
    """One site per distinct command in each file: a bad interpreter is one
    mistake, however many events repeat it."""
    seen: set[tuple[str, str | None]] = set()
    out = []
    for site in _ours(sites):
        key = (site.file, site.handler.command)
        if key not in seen:
            seen.add(key)
            out.append(site)
    return out


def _interpreters(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    for site in _first_per_command(sites):
        text = site.handler.command or ""
        try:
            command = hc.parse_command(text)
        except ValueError as exc:
            yield site.violation(
                "D-009", "hook-interpreter", f"cannot parse the command: {exc}", INSTALL
            )
            continue
        if command.form == "script":
            yield site.violation(
                "D-009",
                "hook-interpreter",
                f"runs the hook as a script ({command.script}): no cached bytecode, 2.2-2.5x "
                "a bare interpreter start on every call",
                f"{INSTALL} (the shim loads the precompiled .pyc)",
            )
            continue
        if command.form == "shim":
            yield from _machine(harness, site, command)
            continue
        if command.form == "import":
            yield site.violation(
                "D-009",
                "hook-interpreter",
                f"a {len(text)}-character program naming {command.program}, this machine's "
                "interpreter: every teammate's install rewrites it, and on a machine without "
                "that path every tool call fails",
                f"{INSTALL} (it registers graphify-nudge.sh, the same line on every machine)",
            )
        else:
            yield site.violation(
                "D-009",
                "hook-interpreter",
                "does not run the hook the way install registers it",
                INSTALL,
            )
            continue
        program = site.expand(command.program, harness.project)
        if not os.path.isabs(program):
            yield site.violation(
                "D-009",
                "hook-interpreter",
                f"interpreter {command.program!r} is not an absolute path: a PATH lookup that "
                "may land on a shim (~50 ms a call, the whole D-009 budget) or another Python",
                _install("--python /abs/path/to/python3"),
            )
        elif hc.is_shim(program):
            yield site.violation(
                "D-009",
                "hook-interpreter",
                f"interpreter {command.program} is a shim (a shell script: ~50 ms a call, "
                "the version chosen per directory)",
                _install('--python "$(pyenv which python3)"'),
            )
        else:
            yield from _compiled_for(harness, site, command, program)
        if not command.isolated:
            yield site.violation(
                "D-009",
                "hook-interpreter",
                "runs without -I -S: site-packages and .pth files load on every call",
                INSTALL,
            )


def _machine(harness: Harness, site: Site, command: hc.Command) -> Iterator[Violation]:
    """The shim runs what this machine's config names (mishkan_core.machine_config):
    checked like a registered interpreter. A machine without the file (a CI
    runner) is no finding: the shim falls back to the first python3 on PATH
    that is not a shim."""
    from mishkan_core import machine_config

    config = machine_config.read(harness.environ)
    if config is None:
        return
    where = machine_config.config_path(harness.environ)
    label = harness.label(where)
    program = config.python or ""
    if not program or not os.access(program, os.X_OK):
        yield site.violation(
            "D-009",
            "hook-interpreter",
            f"{label} names no interpreter that exists here ({program or 'no python= line'}): "
            "the shim falls back to the first python3 on PATH",
            _install("--python /abs/path/to/python3"),
        )
        return
    if hc.is_shim(program):
        yield site.violation(
            "D-009",
            "hook-interpreter",
            f"{label} names a shim ({program}: a shell script, ~50 ms a call, the version "
            "chosen per directory)",
            _install('--python "$(pyenv which python3)"'),
        )
        return
    pycache = config.pycache or str(machine_config.pycache_dir(harness.environ))
    yield from _compiled_for(harness, site, command, program, pycache=pycache, named_by=label)


def _compiled_for(
    harness: Harness,
    site: Site,
    command: hc.Command,
    program: str,
    *,
    pycache: str | None = None,
    named_by: str | None = None,
) -> Iterator[Violation]:
    if command.hooks_dir is None:
        return
    # relative to the project, as the hook's shell runs it (absolute stays absolute)
    hooks = harness.project / site.expand(command.hooks_dir, harness.project)
    if pycache is not None:
        cache = Path(pycache).joinpath(*Path(os.path.normpath(hooks)).parts[1:])
    elif command.pycache_prefix is None:
        yield site.violation(
            "D-009",
            "hook-bytecode",
            "registered without a bytecode directory outside the project: the interpreter "
            f"loads the hook's bytecode from {harness.label(hooks / '__pycache__')}, which a "
            "clone or a PR can ship (an unchecked .pyc there runs instead of the reviewed source)",
            f"{INSTALL} (its bytecode goes outside the project, the command loads it from there)",
        )
        cache = hooks / "__pycache__"
    else:
        prefix = Path(site.expand(command.pycache_prefix, harness.project))
        cache = prefix.joinpath(*Path(os.path.normpath(hooks)).parts[1:])
    try:
        tags = sorted(
            p.name.split(".")[1]
            for p in cache.iterdir()
            if p.name.startswith(f"{hc.HOOK_MODULE}.") and p.name.endswith(".pyc")
        )
    except OSError:
        tags = []
    version = hc.python_version_of(program)
    # a plugin's bytecode is never install's: its hook writes its own there
    # on its first call on each machine (graphify_nudge.load_code)
    if version is None or site.plugin_root is not None or not (hooks / hc.HOOK_FILE).exists():
        return
    wanted = f"cpython-{version[0]}{version[1]}"
    if wanted not in tags:
        compiled = ", ".join(tags) or "nothing"
        yield site.violation(
            "D-009",
            "hook-interpreter",
            f"{f'{named_by}: ' if named_by else ''}"
            f"interpreter is Python {version[0]}.{version[1]} but install compiled "
            f"{compiled} in {harness.label(cache)}: the hook's first call compiles it "
            "(about 2.5 interpreter starts) and writes it there; install for that interpreter",
            _install(f"--python {shlex.quote(program)}"),
        )


# -- bytecode beside the hook -------------------------------------------------------


def _foreign_bytecode(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    """What the import system would load instead of the hook's reviewed source,
    found beside it: bytecode in its `__pycache__` (install writes the hook's
    bytecode outside the project, never there), a `.pyc`, a `.so`, or a
    package named like the hook or its builder. The registered command loads
    the source by path with bytecode from its pycache prefix, so none of these
    runs under it; any other way of running the hook (an older registration,
    `import graphify_nudge` with that directory on sys.path) would run them."""
    for site, hooks in _hooks_dirs(harness, sites):
        for path, why in _shadows(hooks):
            yield site.violation(
                "D-009",
                "hook-bytecode",
                f"{harness.label(path)}: {why} beside the hook that install did not write: a "
                "registration importing the hook by name from there runs it instead of the "
                "reviewed source (the registered command loads the source by path)",
                f"remove it, then {INSTALL}",
            )


def _shadows(hooks: Path) -> Iterator[tuple[Path, str]]:
    modules = (hc.HOOK_MODULE, hc.BUILDER_MODULE)
    for folder in (hooks, hooks / "__pycache__"):
        try:
            names = sorted(p.name for p in folder.iterdir())
        except OSError:
            continue
        for name in names:
            stem = name.split(".", 1)[0]
            if stem not in modules:
                continue
            path = folder / name
            if name.endswith(".pyc"):
                yield path, _bytecode_kind(path, hooks / f"{stem}.py")
            elif name.endswith(".so") and folder == hooks:
                yield path, "an extension module (imported before any .py)"
            elif name == stem and folder == hooks:
                yield path, "a package of that name (imported before the .py)"


def _bytecode_kind(pyc: Path, source: Path) -> str:
    """How the interpreter would take this .pyc: its flags and, for one that
    is checked against its source, whether its header matches the source."""
    from mishkan_core.safe_files import read_head

    try:
        header = read_head(pyc, 16)
        info = source.stat()
    except OSError:
        return "bytecode"
    flags = int.from_bytes(header[4:8], "little") if len(header) == 16 else -1
    if flags == 1:
        return "unchecked hash-based bytecode (run whatever the source says)"
    if flags == 3:
        return "hash-based bytecode (its body is not checked, only its header)"
    if flags == 0:
        mtime, size = (int.from_bytes(header[i : i + 4], "little") for i in (8, 12))
        if (mtime, size) == (int(info.st_mtime) & 0xFFFFFFFF, info.st_size & 0xFFFFFFFF):
            return "bytecode whose header matches the source's mtime and size (a tarball sets both)"
        return "stale bytecode that does not match its source"
    return "a file that is not bytecode"


# -- the chain ---------------------------------------------------------------


def _chain_order(harness: Harness) -> Iterator[Violation]:
    """D-009 Integration: security -> model-route -> graphify-nudge, over the
    PreToolUse groups in the order Claude Code merges the scopes."""
    order: list[tuple[str, str]] = []
    for scope in harness.hook_scopes():
        for handler in hc.handlers(scope.hooks(), ("PreToolUse",)):
            role = handler.role
            if role in hc.CHAIN and role not in (r for r, _ in order):
                order.append((role, f"{harness.scope_label(scope)} {handler.path}"))
    roles = [r for r, _ in order]
    expected = [r for r in hc.CHAIN if r in roles]
    if roles != expected:
        yield Violation(
            "D-009",
            "hook-chain",
            _project_label(harness),
            f"PreToolUse order is {' -> '.join(roles)}; expected {' -> '.join(expected)} "
            f"({', '.join(f'{r} at {loc}' for r, loc in order)})",
            fix="run `mishkan install` (it places the nudge after security and model-route)",
        )


_INTERPRETER = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|bash|sh|dash|zsh|node|nodejs|bun|deno|ruby|perl|uv)$"
)


def command_files(command: str, project: Path, plugin_root: Path | None = None) -> list[str]:
    """The files a hook command needs: its program (when given as a path) and
    its script (``plugin_root``: a plugin's hook, which has ``${CLAUDE_PLUGIN_ROOT}``).
    Raises ValueError when the command cannot be split."""
    words = [hc.expand(w, project, plugin_root) for w in hc.command_words(command)]
    if not words:
        return []
    parsed = hc.parse_command(command)
    if parsed.form == "shim" and parsed.script and parsed.hooks_dir:
        # what the shim runs: itself, and the hook beside it
        shim = hc.expand(parsed.script, project, plugin_root)
        return [shim, os.path.join(os.path.dirname(shim), hc.HOOK_FILE)]
    program, rest = words[0], words[1:]
    files: list[str] = []
    if "/" in program:
        files.append(program)
    if "-c" in rest:
        code_at = rest.index("-c") + 1
        code = rest[code_at] if code_at < len(rest) else ""
        operands = [w for w in rest[code_at + 1 :] if not w.startswith("--mode=")]
        if hc.HOOK_MODULE in code and operands:
            files.append(os.path.join(operands[0], hc.HOOK_FILE))
        return files
    if _INTERPRETER.match(os.path.basename(program)):
        for word in rest:
            if word == "-m":
                break
            if word.startswith("-"):
                continue
            files.append(word)
            break
    return files


def _chain_files(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    for site in sites:
        role = site.handler.role
        if role not in hc.CHAIN or (site.handler.event != "PreToolUse" and role != hc.NUDGE):
            continue
        if site.plugin_root is None and hc.names_plugin_root(site.handler.command or ""):
            yield site.violation(
                "D-009",
                "hook-chain",
                "uses ${CLAUDE_PLUGIN_ROOT}, which only a plugin's hooks/hooks.json has: the CLI "
                "refuses to run it ('the hook is not associated with a plugin')",
                "register it in the plugin (`mishkan install --scope plugin --plugin-dir DIR`), "
                "or name the directory with $CLAUDE_PROJECT_DIR",
            )
            continue
        try:
            files = command_files(site.handler.command or "", harness.project, site.plugin_root)
        except ValueError as exc:
            yield site.violation(
                "D-009", "hook-chain", f"cannot parse command: {exc}", "fix its shell quoting"
            )
            continue
        for path in files:
            candidate = Path(path) if os.path.isabs(path) else harness.project / path
            if not candidate.exists():
                yield site.violation(
                    "D-009",
                    "hook-chain",
                    f"no such file {path}",
                    f"restore it, or {INSTALL}" if role == hc.NUDGE else "restore it",
                )


# -- the index builder beside the hook -----------------------------------------


def hook_directories(harness: Harness) -> list[Path]:
    """Every directory a registered graphify-nudge hook runs from."""
    return [hooks for _site, hooks in _hooks_dirs(harness, list(_sites(harness)))]


def _hooks_dirs(harness: Harness, sites: list[Site]) -> Iterator[tuple[Site, Path]]:
    """Each directory a registered hook runs from, once, with its first site:
    once per directory, not per spelling (``a/../hooks``, a link to it), or
    N spellings in the settings times M files in it were N x M findings."""
    seen: set[object] = set()
    for site in _first_per_command(sites):
        try:
            command = hc.parse_command(site.handler.command or "")
        except ValueError:
            continue  # a hook-interpreter finding already
        where = command.hooks_dir if command.form in ("import", "shim") else None
        if command.form == "script" and command.script:
            where = os.path.dirname(command.script) or "."
        if where is None:
            continue
        hooks = harness.project / site.expand(where, harness.project)  # absolute stays absolute
        try:
            info = os.stat(hooks)
            identity: object = (info.st_dev, info.st_ino)
        except (OSError, ValueError):
            identity = hooks
        if identity not in seen:
            seen.add(identity)
            yield site, hooks


def _index_builder(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    """The hook builds its graph index by spawning graphify_nudge_index.py from
    its own directory. Without it the hook still works, as without an index;
    a harness that runs so on purpose says it: MISHKAN_GRAPHIFY_INDEX=off."""
    from mishkan_core.routing.refresh import hook_environ
    from mishkan_core.safe_files import read_regular

    if hook_environ(harness).get("MISHKAN_GRAPHIFY_INDEX", "").strip().lower() == "off":
        return
    for site, hooks in _hooks_dirs(harness, sites):
        try:  # a FIFO planted there never blocks the check
            hook = read_regular(hooks / hc.HOOK_FILE, limit=8 * 1024 * 1024)
        except OSError:
            continue
        # no hook there is a hook-chain finding; a hook from before the builder
        # moved beside it builds its index itself
        if hook is None or hc.BUILDER_MODULE.encode() not in hook:
            continue
        if not (hooks / hc.BUILDER_FILE).is_file():
            yield site.violation(
                "D-009",
                "hook-index-builder",
                f"no {hc.BUILDER_FILE} beside the hook in {harness.label(hooks)}: the hook "
                "cannot build or rebuild its graph index, so whenever the graph is rebuilt it "
                "says nothing until `mishkan graph-index` runs",
                f"{INSTALL} (it copies {hc.BUILDER_FILE} beside the hook), or set "
                "MISHKAN_GRAPHIFY_INDEX=off to run it silent on purpose",
            )


# -- graphify's own Claude integration ----------------------------------------


def _graphify_hooks(harness: Harness, sites: list[Site]) -> Iterator[Violation]:
    for site in sites:
        if site.handler.role == hc.GRAPHIFY_GUARD:
            in_project = site.scope is not None and site.scope.name in ("project", "local")
            yield site.violation(
                "D-009",
                "graphify-hooks",
                f"graphify's own hook ({site.handler.command}) nudges every agent, not D-009's "
                "five, and its hook-guard costs 7-8x a bare interpreter start per call",
                "`graphify claude uninstall` in the project"
                if in_project
                else "delete this entry (`graphify claude uninstall` cleans only a project)",
            )
    from mishkan_core.safe_files import read_regular

    for path in (harness.project / "CLAUDE.md", harness.project / ".claude" / "CLAUDE.md"):
        try:
            data = read_regular(path, limit=8 * 1024 * 1024)
        except OSError:
            continue
        text = (data or b"").decode("utf-8", "replace")
        found = GRAPHIFY_CLAUDE_MD.search(text)
        if found:
            line = text.count("\n", 0, found.start()) + 1
            yield Violation(
                "D-009",
                "graphify-hooks",
                harness.label(path),
                "graphify's CLAUDE.md section tells every agent, the main thread included, "
                "to consult the graph: D-009 scopes that advice to five agents",
                f"line {line}",
                "remove the '## graphify' section (`graphify claude uninstall`)",
            )
