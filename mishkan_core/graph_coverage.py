"""How much of the project's code the graph holds, and whether it holds the hook.

The graph a newcomer gets can be the wrong one in two ways that no freshness
check sees (issue 29): graphify's post-commit rebuild, run before any full
build, holds only the files of that commit (354 nodes, all of them the hook's
own files, none of the project's); and a graph built before install wrote
``.graphifyignore`` holds the hook's files, which then become the subject of
advice. Both are measured against the files git tracks
(:mod:`mishkan_core.git_index`, read without running git):

* **source files**: tracked, non-empty, with an extension the hook advises on
  (``graphify_nudge.TRIGGER_EXTENSIONS``), not the hook's own files, and
  outside the directories every supported graphify skips
  (:data:`GRAPHIFY_SKIPS`);
* **covered**: those the graph names as a node's ``source_file``.

A graph covering less than :data:`MIN_SHARE` of the source files is partial.
The bar is low on purpose: ``graphify update .`` covered 82% to 100% of the
source files of eight pinned projects in eight languages on graphify 0.8.31
and 0.9.96 (0.8.31 extracts no ``.cjs``), a commit's partial rebuild a few
percent (docs/routing_check.md, "A graph of the project's code"); between,
a graph built from a subdirectory covers what it was asked to.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: below this share of the tracked source files, a graph is partial
MIN_SHARE = 0.5
#: directory names graphify 0.8.31 and 0.9.96 both skip wherever they are
#: (graphify/detect.py `_SKIP_DIRS`, the entries the two releases share
#: unconditionally): a tracked file under one is never in any graph
GRAPHIFY_SKIPS = frozenset(
    {
        ".git", ".graphify", ".tox", ".venv", "__pycache__", "build", "dist",
        "graphify-out", "node_modules", "site-packages", "target", "venv",
    }
)  # fmt: skip
#: the largest graph.json read (the index builder's own input limit)
MAX_GRAPH_BYTES = 512 * 1024 * 1024
#: a node's ``source_file`` key, with its JSON string value
_SOURCE_FILE = re.compile(rb'"source_file"\s*:\s*("(?:[^"\\]|\\.)*")')


@dataclass
class Coverage:
    """The graph against the tracked source files."""

    graph: Path
    total: int  # tracked source files
    covered: int  # of which the graph holds
    hook_files: list[str] = field(default_factory=list)  # hook files the graph holds

    @property
    def share(self) -> float:
        return self.covered / self.total if self.total else 1.0

    @property
    def partial(self) -> bool:
        return self.total > 0 and self.share < MIN_SHARE

    def describe(self) -> str:
        """``covers 12 of 140 tracked source files (9%)``."""
        return (
            f"covers {self.covered} of {self.total} tracked source files ({int(self.share * 100)}%)"
        )


def is_source(path: str) -> bool:
    """A tracked path graphify extracts and the hook advises on: a trigger
    extension, outside :data:`GRAPHIFY_SKIPS`."""
    import graphify_nudge

    parts = path.split("/")
    if any(part in GRAPHIFY_SKIPS or part.endswith(".egg-info") for part in parts[:-1]):
        return False
    return os.path.splitext(parts[-1])[1] in graphify_nudge.TRIGGER_EXTENSIONS


def hook_paths(hooks_dirs: Iterable[str]) -> frozenset[str]:
    """The hook's own files (the two modules and the shim install copies) in
    each of ``hooks_dirs`` (relative to the project, ``/``-separated)."""
    from mishkan_core import hook_chain

    names = (hook_chain.HOOK_FILE, hook_chain.BUILDER_FILE, hook_chain.SHIM_FILE)
    return frozenset(
        os.path.normpath(f"{d}/{name}").replace(os.sep, "/") for d in hooks_dirs for name in names
    )


def graph_files(graph: Path, project: Path) -> set[str] | None:
    """Every ``source_file`` of ``graph``, relative to ``project`` (graphify
    writes them relative; an absolute one under the project is made so).
    Read as bytes and scanned, never parsed whole: linear, and bounded by
    :data:`MAX_GRAPH_BYTES`. None when the file cannot be read."""
    from mishkan_core import safe_files

    try:
        data = safe_files.read_regular(graph, limit=MAX_GRAPH_BYTES)
    except OSError:
        return None
    if data is None:
        return None
    root = os.path.abspath(project)
    found: set[str] = set()
    for match in _SOURCE_FILE.finditer(data):
        try:
            value = json.loads(match.group(1))
        except ValueError:
            continue
        if not isinstance(value, str) or not value:
            continue
        if os.path.isabs(value):
            value = os.path.relpath(value, root) if value.startswith(root + os.sep) else ""
        value = os.path.normpath(value).replace(os.sep, "/") if value else ""
        if value and not value.startswith("../"):
            found.add(value)
    return found


def measure(project: Path, graph: Path, hooks_dirs: Iterable[str]) -> Coverage | None:
    """The coverage of ``graph`` over ``project``'s tracked source files
    (``hooks_dirs``: the hook's directories, relative to the project). None
    when the tracked files or the graph cannot be read."""
    from mishkan_core import git_index

    ours = hook_paths(hooks_dirs)
    tracked = git_index.tracked_files(project)
    files = graph_files(graph, project)
    if tracked is None or files is None:
        return None
    sources = {e.path for e in tracked if e.size > 0 and e.path not in ours and is_source(e.path)}
    return Coverage(graph, len(sources), len(sources & files), sorted(files & ours))
