"""A harness read the way Claude Code CLI 2.1.197 reads it.

Claude Code merges settings from four scopes (user ``~/.claude/settings.json``,
project ``.claude/settings.json``, local ``.claude/settings.local.json``,
managed ``/etc/claude-code/managed-settings.json`` plus
``managed-settings.d/*.json`` on Linux; ``claude --settings`` adds one more),
loads agents from ``.claude/agents/``, from ``~/.claude/agents/`` and from
every enabled plugin's ``agents/`` (a plugin's agent is named
``<plugin>:<name>``), and runs hooks from the settings, from every loaded
plugin's ``hooks/hooks.json`` (after all the settings' groups, with
``CLAUDE_PLUGIN_ROOT`` set to the plugin's directory) and from each project
or user agent's frontmatter. Plugin agents' frontmatter ``hooks`` are ignored
(the CLI logs "sets hooks, which is ignored for plugin agents").

:func:`load` gathers all of that for :mod:`mishkan_core.routing.registration`
and :mod:`mishkan_core.routing.refresh`. Reading never blocks (a FIFO is
reported, not opened for a blocking read) and never runs anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mishkan_core import agent_file, hook_chain, json_text
from mishkan_core.hook_chain import Scope
from mishkan_core.safe_files import LimitExceeded, read_regular, walk_files

_MAX_AGENT = 1024 * 1024


@dataclass
class Agent:
    """One agent definition Claude Code would load."""

    agent_type: str  # what the hook receives: "hizkiah", or "mishkan:hizkiah" from a plugin
    path: Path
    source: str  # "project", "user" or "plugin <name>"
    hooks: dict[str, Any] | None = None  # frontmatter hooks, when readable
    error: str | None = None

    @property
    def name(self) -> str:
        """The bare name, the part the hook's scope test looks at."""
        return self.agent_type.rpartition(":")[2].lower()

    @property
    def runs_frontmatter_hooks(self) -> bool:
        return not self.source.startswith("plugin")


@dataclass
class PluginHooks(Scope):
    """A loaded plugin's ``hooks/hooks.json``: a ``hooks`` mapping like a
    settings scope's, whose commands see ``CLAUDE_PLUGIN_ROOT`` (``root``).
    It is not a settings scope: its ``env`` and switches mean nothing to the CLI."""

    root: Path = field(default_factory=Path)
    plugin: str = ""

    def env(self) -> dict[str, Any]:
        return {}


@dataclass
class Harness:
    project: Path
    scopes: list[Scope]
    agents: list[Agent]
    plugins: list[str] = field(default_factory=list)  # "<name> (<path>)", for messages
    environ: Mapping[str, str] = field(default_factory=dict)
    #: every loaded plugin's hooks.json, in load order (the CLI runs them after settings)
    plugin_hooks: list[PluginHooks] = field(default_factory=list)

    def label(self, path: Path) -> str:
        """A path as the user knows it: project-relative, or ``~``-relative."""
        try:
            return path.relative_to(self.project).as_posix()
        except ValueError:
            pass
        home = self.environ.get("HOME")
        if home:
            try:
                return "~/" + path.relative_to(home).as_posix()
            except ValueError:
                pass
        return str(path)

    def scope_label(self, scope: Scope) -> str:
        if isinstance(scope, PluginHooks):
            return f"{self.label(scope.path)} [plugin {scope.plugin}]"
        return f"{self.label(scope.path)} [{scope.name}]"

    def hook_scopes(self) -> list[Scope]:
        """Every file whose ``hooks`` the CLI runs for all agents, in the order
        it runs their groups: the settings in merge order, then the plugins."""
        return [*hook_chain.in_merge_order(self.scopes), *self.plugin_hooks]

    def enabled_plugins(self) -> dict[str, bool]:
        """``enabledPlugins`` merged across scopes (a later scope's key wins)."""
        merged: dict[str, bool] = {}
        for scope in hook_chain.in_merge_order(self.scopes):
            value = scope.doc.get("enabledPlugins") if isinstance(scope.doc, dict) else None
            if isinstance(value, dict):
                merged.update({k: v is True for k, v in value.items() if isinstance(k, str)})
        return merged


def _read_agent(path: Path, agent_type: str, source: str) -> Agent:
    agent = Agent(agent_type, path, source)
    try:
        data = read_regular(path, limit=_MAX_AGENT)
    except OSError as exc:
        agent.error = str(exc).split(": ", 1)[-1] if not exc.strerror else exc.strerror
        return agent
    text = (data or b"").decode("utf-8", "replace")
    namespace, colon, stem = agent_type.rpartition(":")
    try:
        agent.agent_type = namespace + colon + agent_file.agent_type_of(stem, text)
        agent.hooks = agent_file.read_hooks(text)
    except agent_file.FrontmatterError as exc:
        agent.error = f"frontmatter hooks: {exc}"
    except LimitExceeded as exc:  # crafted past a bound: unusable input, exit 2
        raise LimitExceeded(f"{path}: frontmatter: {exc}") from None
    return agent


def agents_in(directory: Path, source: str, namespace: str = "") -> list[Agent]:
    """Every ``*.md`` under ``directory`` (a plugin's subdirectories add to
    its agents' names, as the CLI does: ``<plugin>:<subdir>:<name>``), as
    ``rglob`` found them (linked directories not entered, linked files read)
    but without recursion: 1,100 nested directories crashed ``rglob`` on 3.11."""
    found: list[Agent] = []
    if not directory.is_dir():
        return found
    walk = walk_files(str(directory), lambda name: name.endswith(".md"), follow_dir_links=False)
    # a FIFO or device is read (without blocking) and reported; an unlistable
    # subdirectory is skipped, as rglob skipped it
    entries = sorted(Path(f.path) for f in walk if f.problem is None or f.doing == "stat")
    for path in entries:
        if namespace:
            parts = path.relative_to(directory).with_suffix("").parts
            agent_type = ":".join((namespace, *parts))
        else:
            agent_type = path.stem
        found.append(_read_agent(path, agent_type, source))
    return found


def _plugin_name(root: Path, fallback: str) -> str:
    try:
        data = read_regular(root / ".claude-plugin" / "plugin.json", limit=1024 * 1024)
        manifest = json_text.parse(data) if data else None
    except (OSError, json_text.JsonError):
        manifest = None
    name = manifest.get("name") if isinstance(manifest, dict) else None
    return name if isinstance(name, str) and name else fallback


def installed_plugins(user_dir: Path, environ: Mapping[str, str]) -> dict[str, list[Path]]:
    """plugin id ("name@marketplace") -> install paths, from the CLI's
    ``<plugins dir>/installed_plugins.json`` (version 2)."""
    cache = environ.get("CLAUDE_CODE_PLUGIN_CACHE_DIR")
    plugins_dir = Path(cache) if cache else user_dir / "plugins"
    try:
        data = read_regular(plugins_dir / "installed_plugins.json", limit=8 * 1024 * 1024)
        doc = json_text.parse(data) if data else None
    except (OSError, json_text.JsonError):
        return {}
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    out: dict[str, list[Path]] = {}
    for plugin_id, installs in (plugins or {}).items():
        entries = installs if isinstance(installs, list) else [installs]
        for entry in entries:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(path, str) and path:
                out.setdefault(plugin_id, []).append(Path(path))
    return out


def plugin_hooks(root: Path, name: str) -> PluginHooks:
    """``<root>/hooks/hooks.json``, read as a scope is (missing: empty)."""
    read = hook_chain.read_scope("plugin", root / "hooks" / "hooks.json")
    return PluginHooks(read.name, read.path, read.doc, read.error, root=root, plugin=name)


def add_plugin(harness: Harness, root: Path, fallback: str) -> None:
    """A plugin the CLI loads: its agents and its hooks."""
    name = _plugin_name(root, fallback)
    harness.plugins.append(f"{name} ({harness.label(root)})")
    harness.agents += agents_in(root / "agents", f"plugin {name}", namespace=name)
    harness.plugin_hooks.append(plugin_hooks(root, name))


def load(
    project: Path,
    user_dir: Path,
    managed_dir: Path = hook_chain.MANAGED_DIR,
    *,
    plugin_dirs: tuple[Path, ...] = (),
    flag_settings: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Harness:
    environ = dict(os.environ if environ is None else environ)
    scopes = hook_chain.settings_scopes(project, user_dir, managed_dir)
    if flag_settings is not None:
        scopes.insert(3, hook_chain.read_scope("flag", flag_settings))
    harness = Harness(project, scopes, [], environ=environ)
    harness.agents += agents_in(project / ".claude" / "agents", "project")
    harness.agents += agents_in(user_dir / "agents", "user")
    roots: list[tuple[str, Path]] = []
    installed = installed_plugins(user_dir, environ)
    for plugin_id, enabled in sorted(harness.enabled_plugins().items()):
        if enabled:
            roots += [(plugin_id.partition("@")[0], path) for path in installed.get(plugin_id, [])]
    roots += [(path.name, path) for path in plugin_dirs]
    for fallback, root in roots:
        add_plugin(harness, root, fallback)
    return harness
