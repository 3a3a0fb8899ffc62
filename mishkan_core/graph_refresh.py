"""Keeping the graph fresh: graphify's own git hooks, and where the graph is.

D-008 asks for a post-commit re-extraction that a human installs. graphify
0.9.96 ships it: ``graphify hook install`` writes post-commit, post-checkout,
post-merge and post-rewrite hooks between marker lines into the repository's
effective hooks directory (``git rev-parse --git-path hooks``, which honours
``core.hooksPath``, linked worktrees and a ``.git`` file; with Husky's
``.husky/_`` it writes to ``.husky``). At commit time they rebuild, detached,
into ``$GRAPHIFY_OUT`` of the committing shell, else ``graphify-out/``; they
skip linked worktrees. ``graphify hook install`` also reads ``GRAPHIFY_OUT``
once, for the ``.gitattributes`` line of its graph.json merge driver.

**One graph, one place.** D-008 keeps the graph in ``.graphify/``; graphify
writes ``graphify-out/`` unless the *committing* shell exports
``GRAPHIFY_OUT=.graphify`` (setting it for ``graphify hook install`` does not
carry over). A commit from any other shell rebuilds into ``graphify-out/`` a
graph of the changed files only (4 nodes against 19 on the e2e fixture),
newer than ``.graphify/graph.json``: the hook's newest-wins rule then reads a
"fresh" graph that lacks most of the code. The cure is a relative link
``graphify-out -> .graphify`` (:data:`LINKED`): graphify's default and D-008's
place become one directory, so every shell, hook and command writes and reads
the same graph with no environment at all. ``mishkan install`` makes it
(:func:`read_layout` says when it may), ``routing check`` flags a project
without it, and the printed commands then need no ``GRAPHIFY_OUT``.

This module reads that state (never runs graphify, never writes) for
``mishkan install``, which prints the command for the human to run, for
``mishkan routing check``, which reports what would leave the graph stale,
and for ``mishkan sprint-close``. The graph location rule itself is the
hook's (docs/hook.md, "Which graph"), imported from ``graphify_nudge``.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mishkan_core.safe_files import Directory

#: graphify 0.9.96 hooks.py: the marker pair of each git hook it installs
GRAPHIFY_HOOKS = {
    "post-commit": ("# graphify-hook-start", "# graphify-hook-end"),
    "post-checkout": ("# graphify-checkout-hook-start", "# graphify-checkout-hook-end"),
    "post-merge": ("# graphify-merge-hook-start", "# graphify-merge-hook-end"),
    "post-rewrite": ("# graphify-rewrite-hook-start", "# graphify-rewrite-hook-end"),
}

DEFAULT_OUT = "graphify-out"  # graphify.paths: GRAPHIFY_OUT unset
D008_OUT = ".graphify"  # where D-008 keeps the graph
#: the gitignore line for the link: git sees a symlink as a file, so the
#: directory pattern ``graphify-out/`` does not match it
LINK_IGNORE = DEFAULT_OUT
_GIT_TIMEOUT = 15


@dataclass
class GitHooks:
    """The repository's hooks, as git would run them."""

    directory: Path | None  # where graphify writes (Husky: the parent of .husky/_)
    builtin: Path | None  # <common git dir>/hooks, where git looks without core.hooksPath
    linked_worktree: bool = False
    problem: str | None = None  # why the directory could not be told
    installed: dict[str, bool] = field(default_factory=dict)  # hook -> markers present
    not_executable: list[str] = field(default_factory=list)


def find_program(name: str, environ: Mapping[str, str]) -> str | None:
    """``name`` on ``PATH``, skipping relative entries (``.``, an empty one,
    ``node_modules/.bin``): they resolve against the working directory, which
    is often the clone, and nothing from the repository runs."""
    import shutil

    entries = [d for d in (environ.get("PATH") or "").split(os.pathsep) if os.path.isabs(d)]
    return shutil.which(name, path=os.pathsep.join(entries)) if entries else None


def _git(project: Path, *args: str) -> str | None:
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
    }
    git = find_program("git", env)
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "-C", str(project), *args],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    if done.returncode != 0 or not out or any(c in out for c in "\n\r\x00"):
        return None
    return out


def _absolute(project: Path, raw: str) -> Path:
    path = Path(raw)
    return Path(os.path.normpath(path if path.is_absolute() else project / path))


def _has_block(path: Path, markers: tuple[str, str]) -> bool:
    from mishkan_core.safe_files import read_regular

    try:
        data = read_regular(path, limit=4 * 1024 * 1024)
    except OSError:
        return False
    if data is None:
        return False
    text = data.decode("utf-8", "replace")
    start, end = text.find(markers[0]), text.find(markers[1])
    return start != -1 and end > start


def git_hooks(project: Path) -> GitHooks:
    """Ask git where its hooks are (it alone resolves ``core.hooksPath``,
    includes, worktrees and a ``.git`` file), then read graphify's markers."""
    git_dir = _git(project, "rev-parse", "--git-dir")
    if git_dir is None:
        return GitHooks(None, None, problem="not a git repository, or git is not on PATH")
    raw = _git(project, "rev-parse", "--git-path", "hooks")
    if raw is None:
        return GitHooks(None, None, problem="git cannot resolve the hooks directory")
    effective = _absolute(project, raw)
    common = _git(project, "rev-parse", "--git-common-dir")
    builtin = _absolute(project, common) / "hooks" if common else None
    linked = bool(git_dir and common and _absolute(project, git_dir) != _absolute(project, common))
    directory = effective.parent if effective.name == "_" else effective  # Husky 9
    hooks = GitHooks(directory, builtin, linked_worktree=linked)
    for name, markers in GRAPHIFY_HOOKS.items():
        path = directory / name
        present = _has_block(path, markers)
        hooks.installed[name] = present
        if present and not os.access(path, os.X_OK):
            hooks.not_executable.append(name)
    return hooks


def markers_in(directory: Path) -> list[str]:
    """The graphify hooks whose marker block is in ``directory``."""
    return [
        name for name, markers in GRAPHIFY_HOOKS.items() if _has_block(directory / name, markers)
    ]


def merge_attr_out(project: Path) -> str | None:
    """The output dir ``graphify hook install`` recorded in ``.gitattributes``
    (``<out>/graph.json merge=graphify``), i.e. its GRAPHIFY_OUT at install time."""
    from mishkan_core.safe_files import read_regular

    try:
        data = read_regular(project / ".gitattributes", limit=1024 * 1024)
    except OSError:
        return None
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        fields = line.split()
        if (
            fields
            and not fields[0].startswith("#")
            and fields[0].endswith("graph.json")
            and "merge=graphify" in fields[1:]
        ):
            return fields[0][: -len("graph.json")].rstrip("/") or "."
    return None


# ---------------------------------------------------------------------------
# Which graphify: its release decides the commands printed (docs/versions.md)


@dataclass(frozen=True)
class Graphify:
    """The graphify a human's or an agent's ``graphify ...`` runs, and its
    release, read from its distribution's metadata (never by running it)."""

    script: str | None
    version: str | None  # None: not found, or its release cannot be told

    @property
    def accepts(self) -> frozenset[str]:
        """What it accepts: the one table, graphify_nudge_index's section 5
        (an unknown release is taken to be the newest supported)."""
        import graphify_nudge_index as gi

        return gi.capabilities(self.version)

    @property
    def hooks(self) -> tuple[str, ...]:
        """The git hooks its ``graphify hook install`` installs."""
        import graphify_nudge_index as gi

        later = {"post-merge": gi.HOOK_POST_MERGE, "post-rewrite": gi.HOOK_POST_REWRITE}
        return tuple(
            name for name in GRAPHIFY_HOOKS if name not in later or later[name] in self.accepts
        )

    def describe(self) -> str:
        """``graphify 0.9.96 (/path/to/graphify)``, or why it is unknown."""
        if self.script is None:
            return "graphify not found on PATH"
        return f"graphify {self.version or '(release unknown)'} ({self.script})"


def graphify_on_path(environ: Mapping[str, str]) -> Graphify:
    """The first ``graphify`` on ``environ``'s PATH and its release."""
    import graphify_nudge_index as gi

    script, version = gi.graphify_release(environ.get("PATH"))
    return Graphify(script, version)


def graphify_at(script: str | None) -> Graphify:
    """A given ``graphify`` executable (``--graphify``) and its release."""
    import graphify_nudge_index as gi

    return Graphify(script, gi.graphify_version_of(script) if script else None)


# ---------------------------------------------------------------------------
# Where the graph is (the hook's rule)


def graph_candidates(environ: Mapping[str, str], project: Path) -> list[Path]:
    """The hook's candidate graph paths for ``project`` under ``environ``,
    from ``graphify_nudge`` itself."""
    import graphify_nudge

    return [Path(p) for p in graphify_nudge.graph_candidates(environ, str(project))]


def hook_graph(environ: Mapping[str, str], project: Path) -> Path | None:
    """The graph.json the hook reads for ``project`` (None: there is none), by
    the hook's own function."""
    import graphify_nudge

    found = graphify_nudge.find_graph(environ, str(project)).path
    return Path(found) if found else None


def existing_graphs(environ: Mapping[str, str], project: Path) -> list[tuple[Path, float]]:
    """The candidates that exist, newest first (ties keep the rule's order).
    Two paths to one file (``graphify-out -> .graphify``) are one graph."""
    found: list[tuple[Path, float]] = []
    seen: set[tuple[int, int]] = set()
    for path in graph_candidates(environ, project):
        try:
            info = path.stat()
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        found.append((path, info.st_mtime))
    return sorted(found, key=lambda item: -item[1])


# ---------------------------------------------------------------------------
# The layout: .graphify/ and graphify-out/ as one directory

LINKED = "linked"  # graphify-out and .graphify are one directory (the link)
LINKABLE = "linkable"  # .graphify/ alone: install links graphify-out to it
EMPTY = "empty"  # neither: install creates .graphify/ and the link
DANGLING = "dangling"  # the link without .graphify/: graphify cannot write (install mkdirs)
DEFAULT = "default"  # graphify-out/ alone: graphify's default, left as it is
TWO = "two"  # two real directories: two graphs; nothing is moved
OTHER = "other"  # something else at one of the names: left alone


@dataclass(frozen=True)
class Layout:
    """``.graphify`` and ``graphify-out`` in the project root, as found."""

    kind: str
    d008: str  # "absent", "a directory", "a symlink", "a FIFO", ...
    default: str
    link: str | None  # what graphify-out links to, when it is a symlink

    def describe(self) -> str:
        """One phrase: what is at the two names."""
        if self.kind == LINKED:
            return f"{DEFAULT_OUT} -> {self.link or D008_OUT} (one directory)"
        default = f"{self.default} to {self.link}" if self.link is not None else self.default
        return f"{D008_OUT}: {self.d008}; {DEFAULT_OUT}: {default}"


#: the layouts ``mishkan install`` makes LINKED (it creates what is missing,
#: never replaces what is there)
INSTALL_LINKS = frozenset({LINKABLE, EMPTY, DANGLING})


def after_install(layout: Layout | None) -> Layout | None:
    """The layout once ``mishkan install`` has run in it."""
    if layout is not None and layout.kind in INSTALL_LINKS:
        return Layout(LINKED, "a directory", "a symlink", D008_OUT)
    return layout


def _entry(root: Directory, name: str) -> str:
    from mishkan_core.safe_files import kind_of

    info = root.lstat(name)
    return "absent" if info is None else kind_of(info.st_mode)


def _same_directory(root: Directory, a: str, b: str) -> bool:
    """``a`` and ``b`` lead to one directory (links followed: stat only, it
    opens nothing, so a FIFO cannot block it)."""
    try:
        one = os.stat(a, dir_fd=root.fd)
        two = os.stat(b, dir_fd=root.fd)
    except OSError:
        return False
    return stat.S_ISDIR(one.st_mode) and (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def points_at_d008(link: str | None, project: Path) -> bool:
    """The link text names ``.graphify`` in ``project`` (relative or absolute)."""
    if not link:
        return False
    target = os.path.normpath(os.path.join(str(project), link))
    return target == os.path.normpath(str(project / D008_OUT))


def read_layout(root: Directory) -> Layout:
    """Classify the project opened as ``root``; nothing is opened or followed
    but for the ``stat`` that tells whether the two names are one directory."""
    d008, default = _entry(root, D008_OUT), _entry(root, DEFAULT_OUT)
    link = root.readlink(DEFAULT_OUT)
    if _same_directory(root, D008_OUT, DEFAULT_OUT):
        kind = LINKED
    elif d008 == "absent" and points_at_d008(link, root.path):
        kind = DANGLING
    elif default == "absent":
        kind = {"absent": EMPTY, "a directory": LINKABLE}.get(d008, OTHER)
    elif default == "a directory":
        kind = {"absent": DEFAULT, "a directory": TWO}.get(d008, OTHER)
    else:
        kind = OTHER
    return Layout(kind, d008, default, link)


def layout_of(project: Path) -> Layout | None:
    """:func:`read_layout` of ``project``; None when it cannot be opened."""
    from mishkan_core.safe_files import Directory

    try:
        with Directory.anchor(project) as root:
            return read_layout(root)
    except OSError:
        return None


# ---------------------------------------------------------------------------
# Where graphify should write, and the commands a human runs


def out_names(project: Path, out: str | None, names: tuple[str, ...]) -> bool:
    """``out`` (a ``GRAPHIFY_OUT`` value) names one of ``names`` in ``project``:
    by its path, or as the same directory on disk."""
    out = (out or "").strip()
    if not out:
        return False
    target = os.path.normpath(os.path.join(str(project), out))
    if target in {os.path.normpath(str(project / name)) for name in names}:
        return True
    try:
        return any(os.path.samefile(target, project / name) for name in names)
    except OSError:
        return False


LINKED_NAMES = (D008_OUT, DEFAULT_OUT)


def out_dir_for(project: Path, environ: Mapping[str, str], layout: Layout | None = None) -> str:
    """The GRAPHIFY_OUT graphify should write with (``graphify-out``: none
    needed). With the link (``layout``, else read now) that is graphify's
    default, unless GRAPHIFY_OUT names another directory; else where the
    graph the hook would read already is, else ``.graphify`` (D-008)."""
    pinned = environ.get("MISHKAN_GRAPHIFY_GRAPH")
    if pinned:
        graph = Path(pinned) if os.path.isabs(pinned) else project / pinned
        return _relative_out(project, graph.parent)
    configured = (environ.get("GRAPHIFY_OUT") or "").strip().rstrip("/")
    layout = layout if layout is not None else layout_of(project)
    linked = layout is not None and layout.kind == LINKED
    if linked and (not configured or out_names(project, configured, LINKED_NAMES)):
        return DEFAULT_OUT
    if configured:
        return configured
    graphs = existing_graphs(environ, project)
    if graphs:
        return _relative_out(project, graphs[0][0].parent)
    return D008_OUT


def graph_path_for(project: Path, out: str, layout: Layout | None) -> Path:
    """The graph.json graphify writes with ``GRAPHIFY_OUT=out``, by the name
    the hook reads it (``.graphify/graph.json`` through the link)."""
    if layout is not None and layout.kind == LINKED and out_names(project, out, LINKED_NAMES):
        return project / D008_OUT / "graph.json"
    return (Path(out) if os.path.isabs(out) else project / out) / "graph.json"


def _relative_out(project: Path, directory: Path) -> str:
    try:
        return directory.relative_to(project).as_posix() or "."
    except ValueError:
        return str(directory)


def _with_out(out: str, command: str) -> str:
    """``command`` with ``GRAPHIFY_OUT`` set, unless ``out`` is graphify's default."""
    env = "" if out == DEFAULT_OUT else f"GRAPHIFY_OUT={shlex.quote(out)} "
    return env + command


def hook_install_command(out: str) -> str:
    """The exact command a human runs, in the project, to install graphify's
    refresh hooks. ``GRAPHIFY_OUT`` is only needed when the graph is not in
    graphify's default ``graphify-out/`` (which the link makes D-008's
    ``.graphify/``); ``graphify hook install`` reads it for its merge driver's
    ``.gitattributes`` line (the hooks themselves read it again at every
    commit)."""
    return _with_out(out, "graphify hook install")


#: the build that gives a project its graph: typed in the project's root
FIRST_BUILD = "graphify update ."


def first_build_command(out: str) -> str:
    """The command that builds (or rebuilds) the whole graph of the project's
    code, in the project's root: ``graphify update .`` on every supported
    release, whatever the graph holds now. Measured on 0.8.31 and 0.9.96: it
    builds the graph from the AST without an LLM key (0.8.31's ``extract
    --code-only`` asks for one), with or without an earlier graph, and
    writes a graph with fewer nodes than the one before without ``--force``
    (a graph that held the hook's files shrinks to the project's own)."""
    return _with_out(out, FIRST_BUILD)


def hook_install_line(project: Path, out: str) -> str:
    """:func:`hook_install_command`, run from ``project``."""
    return f"cd {shlex.quote(str(project))} && {hook_install_command(out)}"


def extract_command(out: str, graphify: Graphify | None = None) -> str:
    """The full re-extract, typed in the project root: ``extract . --code-only
    --force``, or ``update . --force`` on a release whose extract needs an LLM
    key (0.8.31). ``graphify``: the release that will run it (None: the newest)."""
    return _with_out(out, " ".join(extract_argv(graphify)))


def extract_argv(graphify: Graphify | None = None) -> list[str]:
    """:func:`extract_command`'s words, for running it."""
    return [*build_argv(graphify), "--force"]


def build_argv(graphify: Graphify | None = None) -> list[str]:
    """How a graph is built with ``graphify``'s release (None: the newest):
    ``extract . --code-only``, or ``update .`` where extract needs an LLM key."""
    import graphify_nudge_index as gi

    if graphify is not None and gi.EXTRACT_CODE_ONLY not in graphify.accepts:
        return ["graphify", "update", "."]
    return ["graphify", "extract", ".", "--code-only"]


def trigger_status(project: Path) -> str:
    """``installed``, ``missing`` or ``unknown`` (no git, or no hooks
    directory): is graphify's post-commit hook where git runs hooks from?"""
    hooks = git_hooks(project)
    if hooks.directory is None:
        return "unknown"
    return "installed" if hooks.installed.get("post-commit") else "missing"
