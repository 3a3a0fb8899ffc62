"""``mishkan install``: put the graphify-nudge hook into a project.

What it does, in order:

1. Finds the hook source without importing it
   (``importlib.util.find_spec("graphify_nudge").origin``) and copies it to
   ``<project>/<hooks-dir>/graphify_nudge.py``, with its index builder
   ``graphify_nudge_index.py`` beside it (the hook spawns it to build its
   graph index; without it the hook works as it does without an index) and
   the shim ``graphify-nudge.sh`` that the registered command runs.
2. Records this machine's choices outside the repository
   (:mod:`mishkan_core.machine_config`: the interpreter, never a shim, and the
   bytecode directory) and precompiles both modules with that interpreter, as
   checked hash-based ``.pyc`` files, into the user's cache
   (``~/.cache/mishkan/pycache``), never into the hooks directory: the shim
   loads them from there and never compiles at run time. Bytecode in the
   hooks directory, which a clone or a PR can ship, is never loaded; install
   removes what an earlier install wrote there and names anything else.
3. Registers the hook (the chain model is :mod:`mishkan_core.hook_chain`):

   * ``--scope project`` (default): in ``.claude/settings.json``, PreToolUse
     (matcher ``*``, after the security and model-route hooks), PostToolUse
     and PostToolUseFailure (only Bash and graphify's MCP tools: the results
     the hook reads) and SessionStart;
   * ``--scope agents``: PreToolUse, PostToolUse and PostToolUseFailure in the
     frontmatter ``hooks:`` of the five in-scope agents' files, so no other
     agent's call starts an interpreter; SessionStart stays in settings, so a
     session with the hook off is still recorded.

   The command is ``mode=<mode> hooks="$CLAUDE_PROJECT_DIR/<dir>"; command .
   "$hooks/graphify-nudge.sh" 2>/dev/null || true``, the same bytes on every
   machine: the mode is a default an exported MISHKAN_GRAPHIFY_NUDGE overrides. Settings
   ``env`` would override the user's shell, so install writes none (and
   removes the one earlier versions wrote).
4. Makes the graph one directory: links ``graphify-out -> .graphify``
   (relative) when the project follows D-008 (``.graphify/`` is a real
   directory, or neither name exists: then it creates the empty ``.graphify/``
   too, so the link never dangles). graphify's hooks rebuild into
   ``$GRAPHIFY_OUT`` of the *committing* shell, else ``graphify-out/``; without
   the link a commit from a shell lacking ``GRAPHIFY_OUT=.graphify`` writes a
   partial graph there (only the changed files) that the hook reads as fresh.
   A graph only in a real ``graphify-out/`` (graphify's default) and two real
   directories are left alone (the latter with what to do): install never
   moves or deletes a graph. See :mod:`mishkan_core.graph_refresh`.
5. Adds ``.graphify/``, ``.mishkan/`` and, with the link, ``graphify-out``
   to ``.gitignore`` (D-008; without a trailing slash, since git sees the link
   as a file and ``graphify-out/`` would not match it), and the hook's three
   files (and D-008's two directories, for graphify before 0.8.42, which reads
   ``.graphifyignore`` instead of ``.gitignore``) to ``.graphifyignore``, so
   graphify never puts the hook into the project's graph.
6. Prints, never runs, what comes next (D-008: a human runs graphify): the
   command that builds the first graph of the project's code, unless a graph
   already covers it, then ``graphify hook install``, which keeps it fresh;
   with the link neither needs ``GRAPHIFY_OUT``.

Idempotent (a second run writes nothing), preserving (every other byte of the
settings and agent files stays; :mod:`mishkan_core.json_text`,
:mod:`mishkan_core.agent_file`), atomic, and safe in a hostile clone (every
file is written without following links: :mod:`mishkan_core.safe_files`).
Before the first change it keeps the settings as they were in
``settings.json.mishkan-backup``, and records what it wrote outside the
project (:mod:`mishkan_core.install_record`: a clone can plant any file in
it), so ``--uninstall`` removes only what it can prove it wrote and, when
nothing else changed, gives every file back byte for byte; without a record
it edits out exactly the entries and lines install writes.
``--dry-run`` prints the diff of every file, by scope, and writes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mishkan_core import (
    agent_file,
    graph_coverage,
    graph_refresh,
    hook_chain,
    ignore_lines,
    install_record,
    json_text,
    machine_config,
    safe_files,
)
from mishkan_core.hook_chain import BUILDER_MODULE, ENV_KEY, HOOK_MODULE, SHIM_FILE, is_shim
from mishkan_core.safe_files import Directory, LimitExceeded, UnsafeFile

DEFAULT_HOOKS_DIR = hook_chain.DEFAULT_HOOKS_DIR
#: a plugin's hooks live in ``<plugin>/hooks/``, next to the ``hooks.json`` the CLI reads
PLUGIN_HOOKS_DIR = "hooks"
PLUGIN_MANIFEST = (".claude-plugin", "plugin.json")
SCOPES = ("project", "agents", "plugin")
BACKUP_SUFFIX = ".mishkan-backup"
#: where installs before issue 31 kept their record: inside the project, so
#: never read again (a clone can plant it); install_record keeps it outside
LEGACY_RECORD = (".mishkan", "install.json")
GITIGNORE_LINES = (".graphify/", ".mishkan/")
#: every line install may add (and so remove): the link's only with the link
GITIGNORE_ALL = (*GITIGNORE_LINES, graph_refresh.LINK_IGNORE)
GRAPHIFYIGNORE = ".graphifyignore"
GRAPHIFYIGNORE_HEADER = (
    "# mishkan install: the graphify-nudge hook's files are not this project's code"
)
#: checked hash-based: the header carries the source's hash, so the interpreter
#: runs this bytecode only for that very source, whatever its mtime (a tarball
#: sets mtimes), and two installs of one source write the same header
COMPILE_CODE = (
    "import py_compile,sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True, "
    "invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)"
)
PROBE_CODE = (
    "import os,sys;print(os.path.realpath(sys.executable));"
    "print('%d.%d' % sys.version_info[:2]);print(sys.implementation.cache_tag)"
)
MIN_PYTHON = (3, 9)
#: the modules install copies into the hooks dir and precompiles: the hook,
#: and the index builder the hook spawns from its own directory
MODULES = (HOOK_MODULE, BUILDER_MODULE)
#: every file install copies into the hooks dir: the modules and the shim
SHIPPED = (*(f"{m}.py" for m in MODULES), SHIM_FILE)
PYC_HEADER = 16  # magic, flags, source mtime and size, or the source's hash (PEP 552)


@dataclass(frozen=True)
class Registration:
    """The JSON file that carries the registration: the project's
    ``.claude/settings.json``, or a plugin's ``hooks/hooks.json`` (the same
    ``hooks`` mapping, which the CLI reads from every loaded plugin)."""

    scope: str  # the FileChange scope of the file: "project" or "plugin"
    parts: tuple[str, ...]  # its directory, under the Plan's root
    name: str

    @property
    def label(self) -> str:
        return "/".join((*self.parts, self.name))

    @property
    def backup(self) -> str:
        """Its pre-install copy, beside it."""
        return self.name + BACKUP_SUFFIX

    @property
    def backup_label(self) -> str:
        return "/".join((*self.parts, self.backup))


SETTINGS = Registration("project", (".claude",), "settings.json")
PLUGIN_HOOKS = Registration("plugin", (PLUGIN_HOOKS_DIR,), "hooks.json")


class InstallError(Exception):
    """Unusable input or environment: one line, exit 2."""


# ---------------------------------------------------------------------------
# The interpreter


@dataclass(frozen=True)
class Python:
    path: str
    version: tuple[int, int]
    cache_tag: str  # "cpython-311": names the .pyc


def _outside_any_project() -> str:
    """Where an interpreter is probed: the user's home (their own global
    version files), never the project. A shim (pyenv, asdf, mise) picks what
    it runs from the version files of its working directory and its parents,
    and mise's ``path:`` versions can name a file in the clone itself: run
    in the clone, the clone would choose the interpreter registered to run at
    every tool call."""
    home = os.path.expanduser("~")
    return home if os.path.isabs(home) and os.path.isdir(home) else os.sep


def _probe(python: str) -> tuple[str, tuple[int, int], str]:
    try:
        proc = subprocess.run(
            [python, "-I", "-S", "-c", PROBE_CODE],
            cwd=_outside_any_project(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallError(f"cannot run {python}: {exc}") from None
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) != 3:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise InstallError(f"{python} is not a usable Python interpreter: {detail}")
    major, minor = (int(p) for p in lines[1].split("."))
    return lines[0], (major, minor), lines[2]


def resolve_python(explicit: str | None) -> tuple[Python, list[str]]:
    """The absolute interpreter to register, and notes for the user.

    Default: ``os.path.realpath(sys.executable)``, refused if it is a shim.
    ``--python``: taken as given (made absolute, found on PATH if bare); a
    shim is resolved to the interpreter it runs *outside the project* (from
    the user's home: :func:`_outside_any_project`), and that path is
    registered, so a clone's version files never choose it.
    """
    notes: list[str] = []
    if explicit is None:
        if not sys.executable:
            raise InstallError("cannot tell which Python runs mishkan; pass --python /abs/python3")
        python = os.path.realpath(sys.executable)
        if is_shim(python):
            raise InstallError(
                f"{python} is a shim (a shell script: ~50 ms per call, version chosen per "
                "directory); pass --python with the real interpreter, e.g. "
                "$(pyenv which python3)"
            )
    else:
        python = explicit
        if os.sep not in python:
            found = shutil.which(python)
            if found is None:
                raise InstallError(f"--python {explicit}: not found on PATH")
            python = found
        python = os.path.abspath(python)
        if not os.path.isfile(python) or not os.access(python, os.X_OK):
            raise InstallError(f"--python {explicit}: not an executable file")
        if is_shim(python):
            real, _version, _tag = _probe(python)
            notes.append(
                f"{python} is a shim; registering the interpreter it runs outside the project "
                f"(the project's version files do not choose it): {real}"
            )
            python = real
    _real, version, tag = _probe(python)
    if version < MIN_PYTHON:
        raise InstallError(
            f"{python} is Python {version[0]}.{version[1]}; the hook needs 3.9 or newer"
        )
    return Python(python, version, tag), notes


# ---------------------------------------------------------------------------
# The hook's files and their compiled cache


def shipped_source(name: str) -> Path:
    """Where a file of :data:`SHIPPED` comes from: a module, found without
    importing it, or the shim, this package's data."""
    if name == SHIM_FILE:
        return Path(__file__).resolve().parent / "data" / SHIM_FILE
    return source_of(name[: -len(".py")])


def source_of(module: str = HOOK_MODULE) -> Path:
    """Where a shipped module's source is, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise InstallError(f"cannot find {module}.py: is mishkan-core installed?")
    return Path(spec.origin)


def compile_pyc(python: Python, module: str, source: bytes) -> bytes:
    """The checked hash-based ``.pyc`` the target interpreter makes of
    ``source``, built in a private temporary directory: py_compile follows
    links, so it never writes into the project itself."""
    with tempfile.TemporaryDirectory(prefix="mishkan-install-") as tmp:
        src = Path(tmp) / f"{module}.py"
        out = Path(tmp) / "out.pyc"
        src.write_bytes(source)
        proc = subprocess.run(
            [python.path, "-I", "-S", "-c", COMPILE_CODE, str(src), str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise InstallError(f"{python.path} cannot compile {module}.py: {detail}")
        return out.read_bytes()


def pyc_name(python: Python, module: str = HOOK_MODULE) -> str:
    return f"{module}.{python.cache_tag}.pyc"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------
# What install will change: one FileChange per file


@dataclass
class FileChange:
    """A file install (or uninstall) would write, with its old and new bytes."""

    scope: str  # "project", "agent hizkiah", "gitignore", ...
    label: str  # the path shown to the user
    parts: tuple[str, ...]  # directory components under ``base``
    name: str
    base: Directory
    old: bytes | None
    new: bytes | None  # None: remove the file
    mode: int | None = None

    @property
    def changed(self) -> bool:
        return self.old != self.new


@dataclass
class Plan:
    project: Path  # the project; with --scope plugin, the plugin's directory
    root: Directory  # the project, opened without following links
    hooks_dir: Path
    hooks_base: Directory  # the hooks dir's anchor
    hooks_parts: tuple[str, ...]
    pycache: Path  # this machine's bytecode directory for the hook: outside the project
    #: the prefix (or its deepest existing ancestor), opened; None for a
    #: plugin, whose hook writes its own bytecode there on each machine it runs on
    cache_base: Directory | None
    cache_parts: tuple[str, ...]  # from there to the hooks' bytecode directory
    machine: MachineFile  # this machine's config (machine_config), outside the project
    registration: Registration = SETTINGS

    @property
    def plugin(self) -> bool:
        return self.registration is PLUGIN_HOOKS

    @property
    def cache_dir(self) -> Path:
        """Where the hooks' bytecode goes: the hooks dir's absolute path under the
        prefix, as Python's cache_from_source lays it out under sys.pycache_prefix."""
        return self.pycache.joinpath(*self.hooks_dir.parts[1:])

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.project).as_posix()
        except ValueError:
            return str(path)

    def read(self, base: Directory, parts: tuple[str, ...], name: str) -> bytes | None:
        where = base.find(parts)
        if where is None:
            return None
        with where:
            return where.read(name)

    def close(self) -> None:
        self.root.close()
        if self.hooks_base is not self.root:
            self.hooks_base.close()
        if self.cache_base is not None:
            self.cache_base.close()
        self.machine.base.close()


@dataclass
class MachineFile:
    """Where this machine's config goes (:func:`machine_config.config_path`):
    its deepest existing ancestor, opened (the user's own directories: links
    there are theirs to make), and the parts below it."""

    path: Path
    base: Directory
    parts: tuple[str, ...]

    @classmethod
    def at(cls, path: Path, project: Path) -> MachineFile:
        what = "this machine's hook config"
        anchor, lead = _outside(path.parent, project, what, "XDG_CONFIG_HOME")
        return cls(path, Directory.anchor(anchor), lead)


def _in_registration_dir(
    plan: Plan, scope: str, name: str, old: bytes | None, new: bytes | None
) -> FileChange:
    """A change to a file beside the registration (``.claude/``, or a plugin's ``hooks/``)."""
    parts = plan.registration.parts
    return FileChange(scope, "/".join((*parts, name)), parts, name, plan.root, old, new)


def _plan(args: argparse.Namespace) -> Plan:
    plugin_dir = getattr(args, "plugin_dir", None)
    scope = getattr(args, "scope", None) or ("plugin" if plugin_dir is not None else "project")
    if scope == "plugin":
        return _plugin_plan(args, plugin_dir)
    if plugin_dir is not None:
        raise InstallError(f"--plugin-dir goes with --scope plugin, not --scope {scope}")
    args.scope = scope
    project = Path(os.path.abspath(args.project))
    if not project.is_dir():
        raise InstallError(f"--project {args.project}: not a directory")
    project = Path(os.path.realpath(project))
    prefix = Path(os.path.normpath(machine_config.pycache_dir()))
    anchor, lead = _outside(prefix, project, "the bytecode directory", "XDG_CACHE_HOME")
    machine = MachineFile.at(machine_config.config_path(), project)
    root = Directory.anchor(project)
    where = Path(args.hooks_dir or DEFAULT_HOOKS_DIR).expanduser()
    hooks_dir = Path(os.path.normpath(project / where))
    base, parts = safe_files.locate(project, root, hooks_dir)
    cache_base = Directory.anchor(anchor)  # the user's own cache: links are theirs to make
    return Plan(project, root, hooks_dir, base, parts, prefix, cache_base,
                (*lead, *hooks_dir.parts[1:]), machine)  # fmt: skip


def _outside(path: Path, project: Path, what: str, variable: str) -> tuple[Path, tuple[str, ...]]:
    """``path``'s deepest existing ancestor and the parts below it, refused
    when it is inside the project: a clone could ship what is read there
    (bytecode that runs, a config that names the interpreter)."""
    path = Path(os.path.normpath(path))
    anchor, lead = _deepest_existing(path)
    real = Path(os.path.realpath(anchor)).joinpath(*lead)
    if real == project or project in real.parents:
        raise InstallError(
            f"{what} {path} is inside the project, where a clone could ship it: set {variable} "
            "to a directory outside it"
        )
    return anchor, lead


def _deepest_existing(path: Path) -> tuple[Path, tuple[str, ...]]:
    """``path``'s deepest existing ancestor (or itself), and the parts below it."""
    base, missing = path, []
    while not base.exists() and base != base.parent:
        missing.append(base.name)
        base = base.parent
    return base, tuple(reversed(missing))


def _plugin_plan(args: argparse.Namespace, plugin_dir: Path | None) -> Plan:
    """``--scope plugin``: everything happens inside the plugin's directory,
    which is the Plan's root. The hooks directory must be inside it (it ships
    with the plugin and is registered as ``${CLAUDE_PLUGIN_ROOT}/...``)."""
    if plugin_dir is None:
        raise InstallError("--scope plugin needs --plugin-dir DIR (the plugin's root directory)")
    args.scope = "plugin"
    plugin = Path(os.path.abspath(plugin_dir))
    if not plugin.is_dir():
        raise InstallError(f"--plugin-dir {plugin_dir}: not a directory")
    plugin = Path(os.path.realpath(plugin))
    root = Directory.anchor(plugin)
    try:
        manifest = root.find(PLUGIN_MANIFEST[:-1])
        found = manifest is not None and manifest.lstat(PLUGIN_MANIFEST[-1]) is not None
        if manifest is not None:
            manifest.close()
        if not found:
            raise InstallError(
                f"--plugin-dir {plugin_dir}: not a Claude Code plugin, no "
                f"{'/'.join(PLUGIN_MANIFEST)} (the CLI and `claude plugin validate` need one)"
            )
        hooks_dir = Path(os.path.normpath(plugin / (args.hooks_dir or PLUGIN_HOOKS_DIR)))
        try:
            parts = hooks_dir.relative_to(plugin).parts
        except ValueError:
            raise InstallError(
                f"--hooks-dir {args.hooks_dir}: outside the plugin {plugin}; a plugin's hooks "
                "ship inside it"
            ) from None
    except BaseException:
        root.close()
        raise
    try:  # this machine's choices, as for a project; its bytecode is the hook's to write
        machine = MachineFile.at(machine_config.config_path(), plugin)
    except BaseException:
        root.close()
        raise
    pycache = Path(os.path.normpath(machine_config.pycache_dir()))
    return Plan(plugin, root, hooks_dir, root, parts, pycache, None, (), machine,
                registration=PLUGIN_HOOKS)  # fmt: skip


# -- install's record: what it wrote, so uninstall removes only that ---------------


def _read_record(plan: Plan) -> dict[str, Any]:
    """What this machine's install recorded for the project (outside it:
    :mod:`mishkan_core.install_record`); ``{}`` when nothing was."""
    allowed = {"gitignore": GITIGNORE_ALL, "graphifyignore": _graphifyignore_lines(plan)}
    return install_record.read(plan.project, plan.root, allowed)


def _legacy_record_note(plan: Plan) -> str | None:
    """A record inside the project (installs before issue 31 wrote one there;
    a clone can plant one) is never read: say so, once, when there is one."""
    where = plan.root.find(LEGACY_RECORD[:-1])
    if where is None:
        return None
    with where:
        if not where.exists(LEGACY_RECORD[-1]):
            return None
    return (
        f"{'/'.join(LEGACY_RECORD)} is not read: install's record is kept outside the project "
        f"now ({install_record.directory()}), since a clone can plant one; delete it"
    )


# -- settings.json --------------------------------------------------------------


def _parse_settings(data: bytes, label: str) -> tuple[dict[str, Any], json_text.Style]:
    if not data.decode("utf-8", "replace").strip():
        return {}, json_text.Style()
    try:
        doc = json_text.parse(data)
    except json_text.JsonError as exc:
        raise InstallError(f"{label}: {exc}; fix it first") from None
    problem = hook_chain.shape_problem(doc)
    if problem is not None:
        raise InstallError(f"{label}: {problem}")
    return doc, json_text.detect_style(data.decode("utf-8-sig"))


def _settings_events(scope: str) -> tuple[str, ...]:
    return ("SessionStart",) if scope == "agents" else hook_chain.EVENTS


def _installed_mode(hooks_maps: list[Any], env: Any) -> str | None:
    """The mode a previous install chose: ``--mode=`` on our command, else the
    settings ``env`` value an earlier version pinned."""
    for hooks in hooks_maps:
        for handler in hook_chain.ours(hooks):
            try:
                mode = hook_chain.parse_command(handler.command or "").mode
            except ValueError:
                continue
            if mode in hook_chain.MODES:
                return mode
    value = env.get(ENV_KEY) if isinstance(env, dict) else None
    if isinstance(value, str) and value.strip().lower() in hook_chain.MODES:
        return value.strip().lower()
    return None


# -- agent files ----------------------------------------------------------------


def scope_agents() -> tuple[str, ...]:
    import graphify_nudge

    return tuple(sorted(graphify_nudge.SCOPE_AGENTS))


@contextmanager
def _bounded(label: str) -> Iterator[None]:
    """A file crafted past a bound (a 5,000-digit name, 100,000 nested ``[``)
    is one line naming it, exit 2."""
    try:
        yield
    except LimitExceeded as exc:
        raise InstallError(f"{label}: {exc}") from None


def _agent_files(plan: Plan, unsafe: dict[str, str] | None = None) -> dict[str, tuple[str, bytes]]:
    """agent name -> (file name in .claude/agents, its bytes), the agent being
    the one the CLI sees (:func:`agent_file.agent_type_of`); each file is read
    once. A link, FIFO or device where an agent file should be is never read;
    it lands in ``unsafe`` (agent -> why)."""
    agents = plan.root.find((".claude", "agents"))
    if agents is None:
        return {}
    found: dict[str, tuple[str, bytes]] = {}
    in_scope = scope_agents()
    with agents:
        for name in agents.names():
            if not name.endswith(".md"):
                continue
            try:
                data = agents.read(name, limit=1024 * 1024)
            except UnsafeFile as exc:
                if unsafe is not None and name[:-3].lower() in in_scope:
                    unsafe[name[:-3].lower()] = str(exc)
                continue
            if data is None:  # gone since the listing
                continue
            with _bounded(f".claude/agents/{name}"):
                agent = agent_file.agent_type_of(name[:-3], data.decode("utf-8", "replace"))
                agent = agent.lower()
            if agent in in_scope:
                found.setdefault(agent, (name, data))
    return found


# ---------------------------------------------------------------------------
# CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", type=Path, default=Path("."), help="project root (default .)")
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        help="register in .claude/settings.json (project, default), in the five agents' "
        "frontmatter (agents; SessionStart stays in settings), or in a plugin's "
        "hooks/hooks.json (plugin, with --plugin-dir)",
    )
    parser.add_argument(
        "--plugin-dir",
        type=Path,
        metavar="DIR",
        help="with --scope plugin: the plugin's root (the directory holding "
        ".claude-plugin/plugin.json); --project is then not used",
    )
    parser.add_argument(
        "--hooks-dir",
        help=f"where the hook file goes, relative to the project (default {DEFAULT_HOOKS_DIR}) "
        f"or to the plugin (default {PLUGIN_HOOKS_DIR})",
    )
    parser.add_argument(
        "--mode",
        choices=hook_chain.MODES,
        help="the installed default (an exported MISHKAN_GRAPHIFY_NUDGE wins over it); "
        "default: the mode already installed, else telemetry",
    )
    parser.add_argument(
        "--python",
        help="interpreter to register (default: the real path of the one running mishkan)",
    )
    parser.add_argument("--uninstall", action="store_true", help="remove what install added")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the diff of every file; write nothing"
    )


def run(args: argparse.Namespace) -> int:
    plan: Plan | None = None
    try:
        plan = _plan(args)
        if args.uninstall:
            return _uninstall(plan, args.dry_run)
        return _install(plan, args)
    except (InstallError, install_record.RecordError, OSError, RecursionError) as exc:
        message = str(exc) if not isinstance(exc, RecursionError) else "input nests too deeply"
        if isinstance(exc, OSError) and not isinstance(exc, UnsafeFile) and exc.strerror:
            message = f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
        print(f"mishkan install: {message}", file=sys.stderr)
        return 2
    finally:
        if plan is not None:
            plan.close()


def _show(changes: list[FileChange]) -> None:
    """The dry run: a unified diff per file, each headed by its scope."""
    for change in changes:
        if not change.changed:
            continue
        if change.scope == "backup":
            what = "save the previous settings as" if change.new is not None else "remove"
            print(f"would {what} {change.label}", file=sys.stderr)
            continue
        sys.stdout.write(f"# scope: {change.scope}\n")
        sys.stdout.write(json_text.unified_diff(change.label, change.old, change.new))


def _apply(plan: Plan, changes: list[FileChange]) -> None:
    for change in changes:
        if not change.changed:
            continue
        if change.new is None:
            where = change.base.find(change.parts)
            if where is not None:
                with where:
                    if where.exists(change.name):
                        where.unlink(change.name)
            continue
        with change.base.walk(change.parts, create=True) as where:
            where.write(change.name, change.new, change.mode)


@dataclass
class _Settings:
    """The project's settings file as found: bytes, document, style, backup."""

    old: bytes | None
    doc: dict[str, Any]
    style: json_text.Style
    backup: bytes | None


def _read_settings(plan: Plan) -> _Settings:
    """The registration file (settings, or the plugin's hooks.json) and its backup."""
    reg = plan.registration
    old = plan.read(plan.root, reg.parts, reg.name)
    doc, style = _parse_settings(old, reg.label) if old is not None else ({}, json_text.Style())
    return _Settings(old, doc, style, plan.read(plan.root, reg.parts, reg.backup))


def _read_agents(plan: Plan, scope: str) -> dict[str, tuple[str, bytes, Any]]:
    """agent -> (file name, bytes, frontmatter hooks) for the in-scope agents
    that have a file; with ``--scope agents`` all five must have one."""
    unsafe: dict[str, str] = {}
    found: dict[str, tuple[str, bytes, Any]] = {}
    for agent, (name, data) in sorted(_agent_files(plan, unsafe).items()):
        try:
            with _bounded(f".claude/agents/{name}"):
                hooks = agent_file.read_hooks(data.decode("utf-8"))
        except (agent_file.FrontmatterError, UnicodeDecodeError) as exc:
            if scope == "agents" or agent_file.registers_nudge(data.decode("utf-8", "replace")):
                raise InstallError(f".claude/agents/{name}: {exc}") from None
            hooks = None
        found[agent] = (name, data, hooks)
    if scope == "agents":
        for agent in scope_agents():
            if agent not in found and agent in unsafe:
                raise UnsafeFile(unsafe[agent])
        missing = [a for a in scope_agents() if a not in found]
        if missing:
            raise InstallError(
                f"--scope agents: no agent file in .claude/agents for {', '.join(missing)} "
                f"(expected {missing[0]}.md, or a file whose frontmatter says name: {missing[0]}); "
                "create them, or register in settings with --scope project (plugin agents "
                "ignore frontmatter hooks)"
            )
    return found


def _settings_changes(
    plan: Plan,
    settings: _Settings,
    command: str,
    scope: str,
    notes: list[str],
    *,
    recorded_backup: str | None = None,
) -> list[FileChange]:
    """The settings file with our registration, and the backup before the first
    change: kept while it is the copy this machine's install made (its
    SHA-256 in the record), else made now (a committed or planted one is
    not install's own)."""
    doc = settings.doc
    reg = plan.registration
    new_doc = hook_chain.install_doc(doc, command, _settings_events(scope))
    if ENV_KEY in (doc.get("env") or {}):
        notes.append(
            f"removed env.{ENV_KEY}={doc['env'][ENV_KEY]!r} from {reg.label}: settings "
            "env overrides the user's exported off switch; the mode is now --mode= on the command"
        )
    old = settings.old
    new = (
        json_text.render(old, doc, new_doc, settings.style)
        if old is None or not json_text.same(doc, new_doc)
        else old
    )
    changes = []
    kept = settings.backup is not None and _sha(settings.backup) == recorded_backup
    if old is not None and new != old and (not hook_chain.has_ours(doc) or not kept):
        changes.append(_in_registration_dir(plan, "backup", reg.backup, settings.backup, old))
    changes.append(_in_registration_dir(plan, reg.scope, reg.name, old, new))
    return changes


def _agent_changes(
    plan: Plan,
    agents: dict[str, tuple[str, bytes, Any]],
    command: str,
    scope: str,
    record: dict[str, Any],
) -> list[FileChange]:
    """Our frontmatter lines in (``--scope agents``) or out (``--scope project``)
    of each agent file; ``record`` keeps each file's text before install: the
    recorded one while the file is still what this machine's install wrote,
    else the file without our lines (never text with a registration in it)."""
    changes = []
    for agent, (name, data, _hooks) in agents.items():
        label = f".claude/agents/{name}"
        text = data.decode("utf-8")
        try:
            if scope == "agents":
                new = agent_file.install(text, command, hook_chain.TOOL_EVENTS).encode("utf-8")
            else:
                new = agent_file.uninstall(text).encode("utf-8")
            if new != data and scope == "agents":
                kept = record.get(label)
                ours = kept is not None and kept.get("after") == _sha(data)
                before = kept["before"] if kept is not None and ours else agent_file.uninstall(text)
                record[label] = {"before": before, "after": _sha(new)}
        except agent_file.FrontmatterError as exc:
            raise InstallError(f"{label}: {exc}") from None
        if new != data and scope != "agents":
            record.pop(label, None)
        changes.append(
            FileChange(f"agent {agent}", label, (".claude", "agents"), name, plan.root, data, new)
        )
    return changes


def _ignore_change(
    plan: Plan, name: str, entries: tuple[str, ...], record: dict[str, Any]
) -> FileChange:
    """The ignore file ``name`` at the project's root with ``entries`` (those
    no line already covers); ``record`` keeps what was added."""
    old = plan.read(plan.root, (), name)
    new, added, terminated = ignore_lines.add(old, entries)
    if added:
        record["added"] = sorted(set(record.get("added") or []) | set(added))
        record.setdefault("created", old is None)
        record["terminated"] = bool(record.get("terminated")) or terminated
    scope = name.lstrip(".")
    return FileChange(scope, name, (), name, plan.root, old, new)


def _graphifyignore_lines(plan: Plan) -> tuple[str, ...]:
    """What ``.graphifyignore`` gets: a line per file install copies into the
    hooks dir, so graphify never puts the hook into the project's graph (on
    every supported release, extract, update and the commit hooks alike), and
    D-008's two directories: graphify before 0.8.42 reads ``.graphifyignore``
    *instead of* ``.gitignore`` (graphify #1363), and would then extract the
    hook's session state under ``.mishkan/`` (measured with 0.8.31)."""
    if plan.plugin:
        return ()
    try:
        rel = plan.hooks_dir.relative_to(plan.project).as_posix()
    except ValueError:
        return ()  # a hooks dir outside the project is not in its graph
    lines = [ignore_lines.anchored(f"{rel}/{name}" if rel != "." else name) for name in SHIPPED]
    if None in lines:
        return ()  # a path no ignore line spells exactly: _graphifyignore_notes says so
    return (GRAPHIFYIGNORE_HEADER, *(line for line in lines if line), *GITIGNORE_LINES)


def _graphifyignore_notes(plan: Plan, change: FileChange) -> list[str]:
    """Why ``.graphifyignore`` cannot keep the hook out of the graph, or what
    writing it costs with the graphify release this shell runs (docs/install.md)."""
    import graphify_nudge_index as gi

    if plan.plugin:
        return []
    if not _graphifyignore_lines(plan) and plan.project in plan.hooks_dir.parents:
        return [
            f"{plan.rel(plan.hooks_dir)}: no .graphifyignore line spells this path exactly "
            "(a backslash, a newline, a space at either end); graphify will put the hook's "
            "files into the project's graph"
        ]
    graphify = graph_refresh.graphify_on_path(os.environ)
    if not change.changed or graphify.script is None or gi.GRAPHIFYIGNORE_ADDS in graphify.accepts:
        return []
    return [
        f"graphify {graphify.version} reads .graphifyignore instead of .gitignore (until "
        f"{gi.GRAPHIFY_SINCE[gi.GRAPHIFYIGNORE_ADDS]}): copy into .graphifyignore the .gitignore "
        "lines that keep code out of the graph (generated or vendored sources), or upgrade graphify"
    ]


def _machine_change(plan: Plan, python: Python) -> FileChange:
    """This machine's config with the interpreter install resolved and the
    bytecode directory it compiles into (:mod:`mishkan_core.machine_config`)."""
    machine = plan.machine
    where = machine.base.find(machine.parts)
    old = None
    if where is not None:
        with where:
            old = where.read(machine.path.name)
    new = machine_config.render(python.path, plan.pycache)
    label = _home_label(machine.path)
    return FileChange("machine", label, machine.parts, machine.path.name, machine.base, old, new,
                      0o644)  # fmt: skip


def _preflight(plan: Plan, python: Python, changes: list[FileChange]) -> None:
    """Check every target before the first write: a link or a FIFO planted
    anywhere fails the whole install, never half of it."""
    for name in SHIPPED:
        plan.hooks_base.check_target(plan.hooks_parts, name)
    for module in MODULES:
        if plan.cache_base is not None:
            plan.cache_base.check_target(plan.cache_parts, pyc_name(python, module))
    install_record.check(plan.project)
    for change in changes:
        if change.changed:
            change.base.check_target(change.parts, change.name)


def _copy(plan: Plan, name: str, source: Path, source_bytes: bytes) -> None:
    """Copy a shipped file into the hooks dir, when it differs."""
    with plan.hooks_base.walk(plan.hooks_parts, create=True) as hooks:
        if hooks.read(name) != source_bytes:
            hooks.write(name, source_bytes, 0o644)
            print(f"copied {source} -> {plan.rel(plan.hooks_dir / name)}")


def _compile(plan: Plan, python: Python, module: str, source_bytes: bytes) -> bytes | None:
    """Write a module's .pyc into the bytecode directory (outside the
    project); returns the .pyc on disk. A plugin gets none: its bytecode
    would be this machine's, under this machine's paths; the hook writes its
    own on first use wherever the plugin runs (docs/threat_model.md)."""
    target = plan.rel(plan.hooks_dir / f"{module}.py")
    if plan.cache_base is None:
        return None
    pyc = compile_pyc(python, module, source_bytes)
    with plan.cache_base.walk(plan.cache_parts, create=True) as cache:
        # A checked hash-based .pyc's 16-byte header (magic, flags, source hash)
        # decides; the body of two compiles of one source can differ (frozenset
        # order under -I's random hash seed), so a second install writes nothing.
        existing = cache.read(pyc_name(python, module))
        if existing is None or existing[:PYC_HEADER] != pyc[:PYC_HEADER]:
            cache.write(pyc_name(python, module), pyc, 0o644)
        else:
            pyc = existing  # what is on disk is what the record keeps
    print(f"compiled {target} with {python.path}")
    return pyc


def _old_bytecode(plan: Plan, recorded: dict[str, str]) -> tuple[list[FileChange], list[str]]:
    """Bytecode of the hook's modules in the hooks directory: what an earlier
    install wrote there (in its record) is removed; anything else is
    named. The registered command never loads either (its bytecode is under
    the pycache prefix), but a hook run any other way would."""
    cache_parts = (*plan.hooks_parts, "__pycache__")
    try:
        cache = plan.hooks_base.find(cache_parts)
    except OSError:  # a link or a FIFO there: nothing install wrote, never followed
        return [], []
    if cache is None:
        return [], []
    removals, foreign = [], []
    with cache:
        for entry in cache.names():
            if not any(entry.startswith(f"{m}.") and entry.endswith(".pyc") for m in MODULES):
                continue
            label = plan.rel(plan.hooks_dir / "__pycache__" / entry)
            pyc = cache.read(entry) if _is_regular(cache, entry) else None
            if pyc is not None and _sha(pyc) == recorded.get(label):
                removals.append(
                    FileChange("hook", label, cache_parts, entry, plan.hooks_base, pyc, None)
                )
            else:
                foreign.append(label)
    return removals, foreign


def _install(plan: Plan, args: argparse.Namespace) -> int:
    sources = {name: shipped_source(name) for name in SHIPPED}
    source_bytes = {name: path.read_bytes() for name, path in sources.items()}
    python, notes = resolve_python(args.python)
    record = _read_record(plan)
    settings = _read_settings(plan)
    # a plugin's own agents ignore frontmatter hooks, and the project's are not the plugin's
    agents = {} if plan.plugin else _read_agents(plan, args.scope)
    mode = (
        args.mode
        or _installed_mode(
            [settings.doc.get("hooks"), *(hooks for _n, _d, hooks in agents.values())],
            settings.doc.get("env"),
        )
        or "telemetry"
    )
    command = hook_chain.hook_command(
        plan.hooks_dir,
        plan.project,
        mode,
        root_ref=hook_chain.PLUGIN_ROOT_REF if plan.plugin else hook_chain.PROJECT_DIR_REF,
    )
    new_record: dict[str, Any] = {
        "files": dict(record.get("files") or {}),
        "backup": record.get("backup"),
        "agents": dict(record.get("agents") or {}),
        "gitignore": dict(record.get("gitignore") or {}),
        "graphifyignore": dict(record.get("graphifyignore") or {}),
        "layout": dict(record.get("layout") or {}),
    }
    layout = None if plan.plugin else _layout_step(plan)
    changes = _settings_changes(
        plan, settings, command, args.scope, notes, recorded_backup=record.get("backup")
    )
    changes += _agent_changes(plan, agents, command, args.scope, new_record["agents"])
    if layout is not None:  # the graph is the project's; a plugin has none
        gitignore = GITIGNORE_ALL if layout.linked else GITIGNORE_LINES
        changes.append(_ignore_change(plan, ".gitignore", gitignore, new_record["gitignore"]))
        graphifyignore = _ignore_change(
            plan, GRAPHIFYIGNORE, _graphifyignore_lines(plan), new_record["graphifyignore"]
        )
        changes.append(graphifyignore)
        notes += _graphifyignore_notes(plan, graphifyignore)
    changes.append(_machine_change(plan, python))
    _preflight(plan, python, changes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)

    if args.dry_run:
        for name, source in sources.items():
            target = plan.rel(plan.hooks_dir / name)
            if plan.read(plan.hooks_base, plan.hooks_parts, name) != source_bytes[name]:
                print(f"would copy {source} -> {target}", file=sys.stderr)
            if name != SHIM_FILE:
                print(f"would compile {target} with {python.path}", file=sys.stderr)
        _show(changes)
        if not any(c.changed for c in changes):
            print(f"{plan.registration.label}: already up to date", file=sys.stderr)
        if layout is not None:
            _print_layout(plan, layout, done=False)
            _print_next(plan, sys.stderr, layout.planned())
        return 0

    if layout is not None:  # first: a race here writes nothing else
        _apply_layout(plan, layout, new_record["layout"])
    for name, source in sources.items():
        _copy(plan, name, source, source_bytes[name])
        new_record["files"][plan.rel(plan.hooks_dir / name)] = _sha(source_bytes[name])
    for module in MODULES:
        pyc = _compile(plan, python, module, source_bytes[f"{module}.py"])
        if pyc is not None:
            new_record["files"][str(plan.cache_dir / pyc_name(python, module))] = _sha(pyc)
    old_bytecode, foreign = _old_bytecode(plan, new_record["files"])
    for change in old_bytecode:
        _apply(plan, [change])
        del new_record["files"][change.label]
        print(f"removed {change.label} (the hook's bytecode is now in {plan.cache_dir})")
    _remove_empty(plan.hooks_base, (*plan.hooks_parts, "__pycache__"))
    for label in foreign:
        print(
            f"note: {label} is bytecode install did not write: the registered command never "
            "loads it, but a hook run any other way would; remove it",
            file=sys.stderr,
        )
    if any(c.scope == "backup" and c.changed for c in changes):
        print(f"saved the previous {plan.registration.name} as {plan.registration.backup_label}")
    _apply(plan, changes)
    for change in changes:
        if change.scope == "backup" and change.changed and change.new is not None:
            new_record["backup"] = _sha(change.new)  # the copy uninstall may give back
    if new_record != record:
        install_record.write(plan.project, plan.root, new_record)
    for change in changes:
        if change.scope != "backup" and change.changed:
            print(f"updated {change.label}: {_what(change, args.scope, mode)}")
        elif change.scope == plan.registration.scope:
            print(f"{change.label}: already up to date")
    if layout is None:
        _print_plugin(plan)
        return 0
    _print_layout(plan, layout, done=True)
    _print_next(plan, sys.stdout, layout.planned())
    return 0


def _print_plugin(plan: Plan) -> None:
    """What a plugin author does next: check it, load it, ship it."""
    where = shlex.quote(str(plan.project))
    print(
        f"plugin: check it with `claude plugin validate {where}`; load it for one session "
        f"with `claude --plugin-dir {where}`, or publish it in a marketplace"
    )
    print(
        "plugin: on each machine the hook runs the Python `mishkan install` recorded there "
        f"({_home_label(plan.machine.path)}), else the first python3 on PATH that is not a shim"
    )


def _home_label(path: Path) -> str:
    """``path`` with the home directory written ``~``."""
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + os.sep) else text


def _what(change: FileChange, scope: str, mode: str) -> str:
    if change.scope in (SETTINGS.scope, PLUGIN_HOOKS.scope):
        return f"{', '.join(_settings_events(scope))} (mode {mode})"
    if change.scope == "machine":
        python = machine_config.parse(change.new or b"").python
        return f"this machine's Python for the hook is {python}"
    if change.scope == "graphifyignore":
        return "graphify leaves the hook's files out of the project's graph"
    if change.scope == "gitignore":
        before = set((change.old or b"").decode("utf-8", "surrogateescape").splitlines())
        after = (change.new or b"").decode("utf-8", "surrogateescape").splitlines()
        return ", ".join(line for line in after if line not in before)
    if change.scope.startswith("agent") and scope == "agents":
        return f"frontmatter hooks {', '.join(hook_chain.TOOL_EVENTS)} (mode {mode})"
    return "removed the graphify-nudge hooks"


# -- the graph's layout: graphify-out -> .graphify -----------------------------------

LINK_TEXT = graph_refresh.D008_OUT  # relative: the project may move
D_OUT = graph_refresh.DEFAULT_OUT


@dataclass
class LayoutStep:
    """What install does about the graph's directories (nothing is moved)."""

    layout: graph_refresh.Layout
    make_dir: bool  # create the empty .graphify/ (so the link never dangles)
    make_link: bool  # create graphify-out -> .graphify

    def planned(self) -> graph_refresh.Layout:
        """The layout once install has run."""
        return graph_refresh.after_install(self.layout) or self.layout

    @property
    def linked(self) -> bool:
        """The link is there once install has run."""
        return self.planned().kind == graph_refresh.LINKED

    def describe(self, project: Path, done: bool) -> list[str]:
        """``graph layout:`` lines for stdout, and notes for stderr."""
        verb = "linked" if done else "would link"
        made = " (and created the empty .graphify/)" if done else " (and create .graphify/)"
        one = "graphify writes where the hook reads, from any shell, without GRAPHIFY_OUT"
        kind = self.layout.kind
        if self.make_link:
            return [
                f"graph layout: {verb} {D_OUT} -> {LINK_TEXT}{made if self.make_dir else ''}: {one}"
            ]
        if self.make_dir:
            what = "created" if done else "would create"
            return [f"graph layout: {what} .graphify/, which {D_OUT} links to: {one}"]
        if kind == graph_refresh.LINKED:
            return [f"graph layout: {self.layout.describe()}: already one directory"]
        if kind == graph_refresh.DEFAULT:
            return [
                f"graph layout: the graph is in {D_OUT}/ (graphify's default, where every "
                "graphify command and hook writes); left as it is"
            ]
        if kind == graph_refresh.TWO:
            cd = f"cd {shlex.quote(str(project))}"
            # in the dialect of the graphify this shell runs (docs/versions.md)
            rebuild = graph_refresh.extract_command(
                D_OUT, graph_refresh.graphify_on_path(os.environ)
            )
            return [
                f"note: .graphify/ and {D_OUT}/ are both real directories: two graphs, and "
                f"graphify rebuilds {D_OUT}/ from every shell without GRAPHIFY_OUT=.graphify; "
                f"install moves nothing. To keep D-008's: `{cd} && mv {D_OUT} {D_OUT}.old`, run "
                f"install again (it links {D_OUT} -> .graphify), `{rebuild}`, then delete "
                f"{D_OUT}.old"
            ]
        return [
            f"note: graph layout left alone: {self.layout.describe()} (install links "
            f"{D_OUT} -> .graphify only where nothing is, beside a real .graphify/)"
        ]


def _layout_step(plan: Plan) -> LayoutStep:
    layout = graph_refresh.read_layout(plan.root)
    creates = graph_refresh.INSTALL_LINKS
    return LayoutStep(
        layout,
        make_dir=layout.kind in creates and layout.d008 == "absent",
        make_link=layout.kind in creates and layout.default == "absent",
    )


def _apply_layout(plan: Plan, step: LayoutStep, record: dict[str, Any]) -> None:
    """Create what ``step`` says, relative to the project's descriptor: mkdir
    and symlink fail on anything already there, so nothing is replaced or
    written through even if the tree changed since it was read."""
    if step.make_dir:
        plan.root.mkdir(graph_refresh.D008_OUT)
    if step.make_link:
        plan.root.symlink(LINK_TEXT, D_OUT)
    if step.make_dir or step.make_link:
        record["directory"] = bool(record.get("directory")) or step.make_dir
        record["link"] = bool(record.get("link")) or step.make_link


def _print_layout(plan: Plan, step: LayoutStep, done: bool) -> None:
    for line in step.describe(plan.project, done):
        print(line, file=sys.stderr if line.startswith("note:") or not done else sys.stdout)


def _layout_removal(plan: Plan, record: dict[str, Any], dry_run: bool) -> None:
    """Take back what install made: the link, if it still points at .graphify;
    .graphify/, if it is still an empty real directory. Anything else stays."""
    verb, stream = ("would remove", sys.stderr) if dry_run else ("removed", sys.stdout)
    link = plan.root.readlink(D_OUT)
    if record.get("link") and graph_refresh.points_at_d008(link, plan.project):
        if not dry_run:
            plan.root.unlink(D_OUT)
        print(f"{verb} the link {D_OUT} -> {link}", file=stream)
    info = plan.root.lstat(graph_refresh.D008_OUT)
    if not record.get("directory") or info is None or not stat.S_ISDIR(info.st_mode):
        return
    with plan.root.walk((graph_refresh.D008_OUT,)) as graph_dir:
        empty = not graph_dir.names()
    if empty and (dry_run or plan.root.rmdir_if_empty(graph_refresh.D008_OUT)):
        print(f"{verb} .graphify/ (empty; install had created it)", file=stream)


# -- what the human runs next (printed, never run) -----------------------------------


def next_steps(
    project: Path,
    environ: Mapping[str, str],
    layout: graph_refresh.Layout | None = None,
    hooks_dirs: tuple[str, ...] = (),
) -> list[str]:
    """What takes the project from here to a graph of its code that every
    commit refreshes (D-008: a human runs graphify; install prints the exact
    commands and never runs them): the build, unless the graph already covers
    the project's code (:mod:`mishkan_core.graph_coverage`), then graphify's
    git hooks, unless they are in place. In that order: graphify's commit
    hook, run before any full build, builds a graph of the committed files
    only. ``layout``: the graph's layout once install has run (default: as
    found); ``hooks_dirs``: the hook's directories, relative to the project."""
    out = graph_refresh.out_dir_for(project, environ, layout)
    lines: list[str] = []
    steps: list[tuple[str, str]] = []
    graph = graph_refresh.hook_graph(environ, project)
    coverage = graph_coverage.measure(project, graph, hooks_dirs) if graph else None
    if graph is None:
        steps.append(("build the graph of your code", graph_refresh.first_build_command(out)))
    elif coverage is not None and (coverage.partial or coverage.hook_files):
        why = "it holds the hook's own files" if coverage.hook_files else coverage.describe()
        steps.append((f"rebuild the graph ({why})", graph_refresh.first_build_command(out)))
    elif coverage is not None:
        shown = graph.relative_to(project) if project in graph.parents else graph
        lines.append(f"graph: {shown} {coverage.describe()}")
    hooks = graph_refresh.git_hooks(project)
    if hooks.installed.get("post-commit") and hooks.directory is not None:
        lines.append(f"graph refresh: graphify's git hooks are installed in {hooks.directory}")
    else:
        steps.append(("refresh it at every commit", graph_refresh.hook_install_command(out)))
    if steps:
        cd = f"cd {shlex.quote(str(project))} && "
        lines.append("next (D-008: you run these; install never does):")
        for n, (what, command) in enumerate(steps, 1):
            lines += [f"  {n}. {what}:", f"     {cd}{command}"]  # a line to paste as it is
    if out != graph_refresh.DEFAULT_OUT:
        lines.append(
            f"  and commit from shells that export GRAPHIFY_OUT={out}: graphify's hooks rebuild "
            f"into $GRAPHIFY_OUT at commit time, else into {graph_refresh.DEFAULT_OUT}/"
        )
    return lines


def _print_next(plan: Plan, stream: TextIO, layout: graph_refresh.Layout) -> None:
    hooks = plan.rel(plan.hooks_dir)
    for line in next_steps(plan.project, os.environ, layout, (hooks,)):
        print(line, file=stream)


# ---------------------------------------------------------------------------
# Uninstall


def _settings_removal(
    plan: Plan, recorded_backup: str | None, notes: list[str]
) -> tuple[list[FileChange], bool]:
    """The settings without our entries: the backup's bytes when nothing else
    changed since install (then True), else the entries edited out. The
    backup is the project's file, so it is read only when it is the very copy
    this machine's install made (its SHA-256 in the record): a planted one
    could carry a hook that looks like ours, or an env pin."""
    settings = _read_settings(plan)
    reg = plan.registration
    old, doc, style, found = settings.old, settings.doc, settings.style, settings.backup
    backup = found if found is not None and _sha(found) == recorded_backup else None
    if found is not None and backup is None:
        notes.append(
            f"{reg.backup_label} is not the copy this machine's install made (no record of "
            "it, or changed since): not read, left in place"
        )
    original: dict[str, Any] | None = None
    if backup is not None:
        try:
            original = _parse_settings(backup, reg.backup_label)[0]
        except InstallError:
            original = None
    new: bytes | None = old
    exact = False
    ours_before = False
    if old is not None:
        ours_before = hook_chain.has_ours(doc)
        pristine = original if original is not None and not hook_chain.has_ours(original) else None
        new_doc = hook_chain.uninstall_doc(doc, pristine)
        if not ours_before and ENV_KEY not in (doc.get("env") or {}):
            new = old
        elif original is not None and json_text.same(
            hook_chain.core(doc), hook_chain.core(original)
        ):
            new, exact = backup, True  # nothing but our entries changed since install
        elif not new_doc and found is None:
            new = None  # install created the file (it backs up any it changes); nothing else
        else:
            new = json_text.render(old, doc, new_doc, style)
    changes = [_in_registration_dir(plan, reg.scope, reg.name, old, new)]
    if backup is not None and (exact or not ours_before):
        changes.append(_in_registration_dir(plan, "backup", reg.backup, backup, None))
    elif backup is not None and old is not None and new != old:
        notes.append(
            f"{reg.label} changed since install; the pre-install copy stays at {reg.backup_label}"
        )
    return changes, exact


def _agent_removals(plan: Plan, records: dict[str, Any], notes: list[str]) -> list[FileChange]:
    """Agent files back to their recorded bytes when untouched since install,
    else with our lines taken out."""
    changes = []
    for agent, (name, data) in sorted(_agent_files(plan).items()):
        label = f".claude/agents/{name}"
        with _bounded(label):
            if not agent_file.registers_nudge(data.decode("utf-8", "replace")):
                continue
        record = records.get(label)
        if record is not None and record.get("after") == _sha(data):
            restored = str(record["before"]).encode("utf-8")
        else:
            try:
                restored = agent_file.uninstall(data.decode("utf-8")).encode("utf-8")
            except (agent_file.FrontmatterError, UnicodeDecodeError) as exc:
                raise InstallError(f"{label}: {exc}") from None
            if agent_file.registers_nudge(restored.decode("utf-8")):
                notes.append(f"{label}: a graphify-nudge hook install did not write stays")
        changes.append(
            FileChange(
                f"agent {agent}", label, (".claude", "agents"), name, plan.root, data, restored
            )
        )
    return changes


def _ignore_removal(
    plan: Plan, name: str, allowed: tuple[str, ...], record: dict[str, Any], notes: list[str]
) -> list[FileChange]:
    """Only the lines this machine's install recorded adding to the ignore file
    ``name``; the file too when it created it and nothing else is left in it.
    Lines install would add (``allowed``) but has no record of stay, with a note."""
    added = record.get("added") or []
    old = plan.read(plan.root, (), name)
    if old is None:
        return []
    present = {line.strip() for line in old.decode("utf-8", "surrogateescape").splitlines()}
    unrecorded = [e for e in allowed if e not in added and e in present and not e.startswith("#")]
    if unrecorded:
        notes.append(
            f"{name}: {', '.join(unrecorded)} stay{'s' if len(unrecorded) == 1 else ''}: "
            "no record that this machine's install added them"
        )
    if not added:
        return []
    kept = ignore_lines.remove(old, added, bool(record.get("terminated")))
    new = None if record.get("created") and not kept.strip() else kept
    return [FileChange(name.lstrip("."), name, (), name, plan.root, old, new)]


def _hook_removals(plan: Plan, recorded: dict[str, str], notes: list[str]) -> list[FileChange]:
    """The hook's files and their .pyc, when install can prove it wrote them:
    the recorded hash, or the very file this mishkan ships."""
    return [change for name in SHIPPED for change in _removals(plan, name, recorded, notes)]


def _removals(
    plan: Plan, name: str, recorded: dict[str, str], notes: list[str]
) -> list[FileChange]:
    module = name[: -len(".py")] if name.endswith(".py") else None
    target = plan.rel(plan.hooks_dir / name)
    data = plan.read(plan.hooks_base, plan.hooks_parts, name)
    if data is None:
        return []
    ours = _sha(data) == recorded.get(target) or data == _shipped(name)
    removals = []
    if ours:
        removals.append(
            FileChange("hook", target, plan.hooks_parts, name, plan.hooks_base, data, None)
        )
    else:
        notes.append(
            f"{target} is not the file install wrote (edited since, or never installed); "
            "left in place"
        )
    if module is None:  # the shim: no bytecode
        return removals
    # its bytecode: under the pycache prefix, and in the hooks dir's __pycache__
    # where installs before issue 20 wrote it
    for base, parts, where in (
        (plan.cache_base, plan.cache_parts, plan.cache_dir),
        (plan.hooks_base, (*plan.hooks_parts, "__pycache__"), plan.hooks_dir / "__pycache__"),
    ):
        if base is None:
            continue
        cache = base.find(parts)
        if cache is None:
            continue
        with cache:
            for entry in cache.names():
                if not (entry.startswith(f"{module}.") and entry.endswith(".pyc")):
                    continue
                pyc = cache.read(entry) if _is_regular(cache, entry) else None
                label = plan.rel(where / entry)
                if pyc is not None and (ours or _sha(pyc) == recorded.get(label)):
                    removals.append(FileChange("hook", label, parts, entry, base, pyc, None))
    return removals


def _uninstall(plan: Plan, dry_run: bool) -> int:
    record = _read_record(plan)
    notes: list[str] = []
    reg = plan.registration
    changes, exact = _settings_removal(plan, record.get("backup"), notes)
    if not plan.plugin:  # a plugin install writes no agent file, .gitignore or graph layout
        changes += _agent_removals(plan, record.get("agents") or {}, notes)
        changes += _ignore_removal(
            plan, ".gitignore", GITIGNORE_ALL, record.get("gitignore") or {}, notes
        )
        changes += _ignore_removal(
            plan,
            GRAPHIFYIGNORE,
            _graphifyignore_lines(plan),
            record.get("graphifyignore") or {},
            notes,
        )
        notes += _unrecorded_layout(plan, record.get("layout") or {})
    removals = _hook_removals(plan, record.get("files") or {}, notes)
    legacy = _legacy_record_note(plan)
    for note in [*notes, *([legacy] if legacy else [])]:
        print(f"note: {note}", file=sys.stderr)
    if dry_run:
        for change in removals:
            print(f"would remove {change.label}", file=sys.stderr)
        if not plan.plugin:
            _layout_removal(plan, record.get("layout") or {}, dry_run=True)
        _show(changes)
        if not any(c.changed for c in changes):
            print(f"{reg.label}: nothing to remove", file=sys.stderr)
        return 0

    for change in removals:
        _apply(plan, [change])
        print(f"removed {change.label}")
    _remove_empty(plan.hooks_base, (*plan.hooks_parts, "__pycache__"))
    _remove_empty(plan.hooks_base, plan.hooks_parts)
    if plan.cache_base is not None:
        _remove_empty(plan.cache_base, plan.cache_parts)
    if not plan.plugin:
        _layout_removal(plan, record.get("layout") or {}, dry_run=False)
    _apply(plan, changes)
    for change in changes:
        if not change.changed or change.scope == "backup":
            continue
        if change.new is None:
            print(f"removed {change.label} (install had created it)")
        elif change.scope == reg.scope:
            how = "restored byte for byte" if exact else "removed the graphify-nudge entries"
            print(f"updated {change.label}: {how}")
        else:
            print(f"updated {change.label}: removed what install added")
    if not changes[0].changed:
        print(f"{reg.label}: nothing to remove")
    install_record.remove(plan.project)
    _remove_empty(plan.root, reg.parts)
    return 0


def _unrecorded_layout(plan: Plan, record: dict[str, Any]) -> list[str]:
    """The graph link, when this machine's install has no record of making it: it stays."""
    link = plan.root.readlink(D_OUT)
    if record.get("link") or not graph_refresh.points_at_d008(link, plan.project):
        return []
    return [f"the link {D_OUT} -> {link} stays: no record that this machine's install made it"]


def _is_regular(directory: Directory, name: str) -> bool:
    info = directory.lstat(name)
    return info is not None and stat.S_ISREG(info.st_mode)


def _shipped(name: str) -> bytes | None:
    try:
        return shipped_source(name).read_bytes()
    except (InstallError, OSError):
        return None


def _remove_empty(base: Directory, parts: tuple[str, ...]) -> None:
    """Remove ``parts`` and then its parents while they are empty (never ``base``)."""
    for depth in range(len(parts), 0, -1):
        parent = base.find(parts[: depth - 1])
        if parent is None:
            return
        with parent:
            if not parent.rmdir_if_empty(parts[depth - 1]):
                return
