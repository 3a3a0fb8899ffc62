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

This module reads that state (never runs graphify, never writes) for
``mishkan install``, which prints the command for the human to run, and for
``mishkan routing check``, which reports what would leave the graph stale.
The graph location rule itself is the hook's (CONTRACTS.md #4), imported from
``graphify_nudge``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: graphify 0.9.96 hooks.py: the marker pair of each git hook it installs
GRAPHIFY_HOOKS = {
    "post-commit": ("# graphify-hook-start", "# graphify-hook-end"),
    "post-checkout": ("# graphify-checkout-hook-start", "# graphify-checkout-hook-end"),
    "post-merge": ("# graphify-merge-hook-start", "# graphify-merge-hook-end"),
    "post-rewrite": ("# graphify-rewrite-hook-start", "# graphify-rewrite-hook-end"),
}
DEFAULT_OUT = "graphify-out"  # graphify.paths: GRAPHIFY_OUT unset
D008_OUT = ".graphify"  # where D-008 keeps the graph
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


def _git(project: Path, *args: str) -> str | None:
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
    }
    try:
        done = subprocess.run(
            ["git", "-C", str(project), *args],
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
    if _git(project, "rev-parse", "--git-dir") is None:
        return GitHooks(None, None, problem="not a git repository, or git is not on PATH")
    raw = _git(project, "rev-parse", "--git-path", "hooks")
    if raw is None:
        return GitHooks(None, None, problem="git cannot resolve the hooks directory")
    effective = _absolute(project, raw)
    git_dir = _git(project, "rev-parse", "--git-dir")
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
# Where the graph is (the hook's rule)


def graph_candidates(environ: Mapping[str, str], project: Path) -> list[Path]:
    """The hook's candidate graph paths for ``project`` under ``environ``,
    from ``graphify_nudge`` itself (CONTRACTS.md #4)."""
    import graphify_nudge

    encoded = {k.encode(): v.encode("utf-8", "surrogateescape") for k, v in environ.items()}
    settings = graphify_nudge._Settings(encoded)
    return [Path(p) for p in graphify_nudge._graph_candidates(settings, str(project))]


def existing_graphs(environ: Mapping[str, str], project: Path) -> list[tuple[Path, float]]:
    """The candidates that exist, newest first (ties keep the rule's order)."""
    found: list[tuple[Path, float]] = []
    seen: set[str] = set()
    for path in graph_candidates(environ, project):
        key = os.path.normpath(str(path))
        if key in seen:
            continue
        seen.add(key)
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        found.append((path, mtime))
    return sorted(found, key=lambda item: -item[1])


def out_dir_for(project: Path, environ: Mapping[str, str]) -> str:
    """The GRAPHIFY_OUT the project's refresh hooks should write to: where the
    graph the hook would read already is, else ``.graphify`` (D-008)."""
    pinned = environ.get("MISHKAN_GRAPHIFY_GRAPH")
    if pinned:
        graph = Path(pinned) if os.path.isabs(pinned) else project / pinned
        return _relative_out(project, graph.parent)
    configured = (environ.get("GRAPHIFY_OUT") or "").strip()
    if configured:
        return configured.rstrip("/")
    graphs = existing_graphs(environ, project)
    if graphs:
        return _relative_out(project, graphs[0][0].parent)
    return D008_OUT


def _relative_out(project: Path, directory: Path) -> str:
    try:
        return directory.relative_to(project).as_posix() or "."
    except ValueError:
        return str(directory)


def hook_install_command(out: str) -> str:
    """The exact command a human runs, in the project, to install graphify's
    refresh hooks. ``GRAPHIFY_OUT`` is only needed when the graph is not in
    graphify's default ``graphify-out/``; ``graphify hook install`` reads it for
    its merge driver's ``.gitattributes`` line (the hooks themselves read it
    again at every commit)."""
    env = "" if out == DEFAULT_OUT else f"GRAPHIFY_OUT={shlex.quote(out)} "
    return f"{env}graphify hook install"


def hook_install_line(project: Path, out: str) -> str:
    """:func:`hook_install_command`, run from ``project``."""
    return f"cd {shlex.quote(str(project))} && {hook_install_command(out)}"
