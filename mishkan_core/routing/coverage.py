"""D-008: is the graph the hook reads a graph of the project's code?

Freshness says when the graph was built, not what it holds. Two graphs pass
every freshness check and still mislead (issue 29): one that graphify's
commit hook built before any full build, which holds only the files of that
commit, and one built before ``.graphifyignore`` kept the hook's own files
out, which the hook then advises about. The measure is
:mod:`mishkan_core.graph_coverage`, against the files git tracks (read from
the index, never by running git). No graph is no finding: D-008 does not
commit the graph, so a CI checkout has none.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path

from mishkan_core import graph_coverage, graph_refresh, hook_chain
from mishkan_core.routing.check import Violation
from mishkan_core.routing.harness import Harness
from mishkan_core.routing.refresh import hook_environ
from mishkan_core.routing.registration import hook_directories

RULE = "graph-coverage"


def check(harness: Harness) -> list[Violation]:
    return list(_coverage(harness))


def _hooks_dirs(harness: Harness) -> list[str]:
    """The hook's directories relative to the project: every registered one,
    and install's default (a hook not registered yet is still in the tree)."""
    found = {hook_chain.DEFAULT_HOOKS_DIR}
    for directory in hook_directories(harness):
        try:
            found.add(Path(os.path.normpath(directory)).relative_to(harness.project).as_posix())
        except ValueError:
            continue  # outside the project: never in its graph
    return sorted(found)


def _coverage(harness: Harness) -> Iterator[Violation]:
    env = hook_environ(harness)
    project = harness.project
    graph = graph_refresh.hook_graph(env, project)
    if graph is None:
        return
    coverage = graph_coverage.measure(project, graph, _hooks_dirs(harness))
    if coverage is None:
        return  # no git index to measure against, or an unreadable graph
    out = graph_refresh.out_dir_for(project, env)
    rebuild = f"cd {shlex.quote(str(project))} && {graph_refresh.first_build_command(out)}"
    where = harness.label(graph)
    if coverage.hook_files:
        shown = ", ".join(coverage.hook_files[:3])
        yield Violation(
            "D-008",
            RULE,
            where,
            f"the graph holds the graphify-nudge hook's own files ({shown}): the hook then "
            "advises about them, not about the project's code",
            fix=f"`mishkan install` (it lists them in .graphifyignore), then `{rebuild}`",
        )
    if coverage.partial:
        yield Violation(
            "D-008",
            RULE,
            where,
            f"the graph {coverage.describe()}, less than "
            f"{int(graph_coverage.MIN_SHARE * 100)}%: a partial graph (graphify's commit hook, "
            "run before any full build, builds only the committed files); the hook advises on "
            "what it holds and is silent about the rest",
            fix=rebuild,
        )
