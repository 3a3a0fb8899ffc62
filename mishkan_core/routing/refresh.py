"""D-008: does the project's graph have a refresh trigger, and does the
trigger write where the hook reads?

The trigger is graphify's own git hooks (:mod:`mishkan_core.graph_refresh`);
the graph location rule is the hook's (docs/hook.md, "Which graph"). The environment the
hook would see is the checking shell's, overlaid with the settings ``env``
Claude Code applies; the committing shell is taken to be the checking one.

One graph, one place: a ``.graphify/`` graph needs ``graphify-out`` linked
to it (``mishkan install`` makes the link), or absent while this shell
exports ``GRAPHIFY_OUT=.graphify``. Anything else lets a commit from another
shell rebuild a second, partial graph (only the changed files) that the hook
reads as the fresh one; the finding names the fix. Two names for one file are
one graph, never "two graphs".
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path

from mishkan_core import graph_refresh as gr
from mishkan_core import hook_chain
from mishkan_core.routing.check import Violation
from mishkan_core.routing.harness import Harness

RULE = "graph-refresh"


def hook_environ(harness: Harness) -> dict[str, str]:
    """The environment the hook runs with: the shell's, then settings ``env``."""
    env = dict(harness.environ)
    for key, (value, _scope) in hook_chain.merged_env(harness.scopes).items():
        if isinstance(value, (str, int, float)):
            env[key] = str(value)
    return env


def check(harness: Harness) -> list[Violation]:
    return list(_release(harness)) + list(_trigger(harness)) + list(_graphs(harness))


def graphify_of(harness: Harness) -> gr.Graphify:
    """The graphify this shell's ``graphify ...`` runs: the commands printed are
    in its dialect (docs/versions.md)."""
    return gr.graphify_on_path(harness.environ)


def _release(harness: Harness) -> Iterator[Violation]:
    """The graphify release against the supported range: outside it, the
    printed commands and the hook's advice are not proven to run."""
    import graphify_nudge_index as gi

    graphify = graphify_of(harness)
    if graphify.script is None:
        return  # not installed here (a CI runner): the summary line says so
    span = f"{gi.GRAPHIFY_OLDEST} to {gi.GRAPHIFY_NEWEST}"
    pin = f"pip install 'graphifyy>={gi.GRAPHIFY_OLDEST},<={gi.GRAPHIFY_NEWEST}'"
    where = harness.label(Path(graphify.script))
    if graphify.version is None:
        yield Violation(
            "D-008",
            "graphify-version",
            where,
            "cannot tell this graphify's release (no graphifyy dist-info beside it or its "
            f"interpreter): the hook's advice and the commands printed assume {gi.GRAPHIFY_NEWEST}",
            fix=f"install graphify from PyPI: {pin}",
        )
        return
    supported = gi.is_supported(graphify.version)
    if supported:
        return
    older = (gi.version_tuple(graphify.version) or ()) < (
        gi.version_tuple(gi.GRAPHIFY_OLDEST) or ()
    )
    yield Violation(
        "D-008",
        "graphify-version",
        where,
        f"graphify {graphify.version} is "
        + (
            f"older than the oldest supported release, {gi.GRAPHIFY_OLDEST} (D-008's)"
            if older
            else f"newer than the newest proven one, {gi.GRAPHIFY_NEWEST}: its commands are "
            "taken to be the newest's"
        )
        + f"; the advice and every command printed are proven on {span} (docs/versions.md)",
        fix=pin + ("" if older else ', or prove it: docs/versions.md, "A new graphify release"'),
    )


def _trigger(harness: Harness) -> Iterator[Violation]:
    project = harness.project
    hooks = gr.git_hooks(project)
    install = gr.hook_install_line(project, gr.out_dir_for(project, hook_environ(harness)))
    graphify = graphify_of(harness)
    if hooks.directory is None:
        yield Violation(
            "D-008",
            RULE,
            harness.label(project),
            f"cannot find the git hooks directory ({hooks.problem}): nothing refreshes the graph",
            fix="run the check inside the project's git repository",
        )
        return
    shown = harness.label(hooks.directory)
    if hooks.linked_worktree:
        yield Violation(
            "D-008",
            RULE,
            harness.label(project),
            "this checkout is a linked worktree: graphify's hooks skip rebuilds here (they "
            "refresh the primary checkout only), so this graph goes stale",
            fix="run `graphify update .` here after commits, or point MISHKAN_GRAPHIFY_GRAPH "
            "at the primary checkout's graph",
        )
    # only the hooks this release's `graphify hook install` installs (0.8.31:
    # post-commit and post-checkout): the fix printed must be able to install them
    missing = [
        name for name, present in hooks.installed.items() if not present and name in graphify.hooks
    ]
    if "post-commit" in missing:
        elsewhere = (
            gr.markers_in(hooks.builtin)
            if hooks.builtin is not None and hooks.builtin != hooks.directory
            else []
        )
        if elsewhere:
            builtin = harness.label(hooks.builtin or project)
            yield Violation(
                "D-008",
                RULE,
                builtin,
                f"graphify's hooks ({', '.join(elsewhere)}) are in {builtin}, but "
                f"core.hooksPath makes git run {shown}: they never fire",
                fix=f"`git config --unset core.hooksPath`, or reinstall them: {install}",
            )
        else:
            yield Violation(
                "D-008",
                RULE,
                shown,
                "the graph has no refresh trigger: graphify's post-commit hook is not "
                "installed, so every commit leaves the graph staler",
                fix=f"{install} (D-008: a human runs it)",
            )
    elif missing:
        yield Violation(
            "D-008",
            RULE,
            shown,
            f"graphify's {', '.join(missing)} hook(s) are missing: branch switches, merges or "
            "rebases leave the graph stale",
            fix=install,
        )
    for name in hooks.not_executable:
        yield Violation(
            "D-008",
            RULE,
            f"{shown}/{name}",
            "graphify's hook is not executable: git skips it",
            fix=f"chmod +x {shlex.quote(str(hooks.directory / name))}",
        )


def _graphs(harness: Harness) -> Iterator[Violation]:
    env = hook_environ(harness)
    project = harness.project
    graphs = gr.existing_graphs(env, project)  # two names for one file are one graph
    split = _split(harness, graphify_of(harness))
    if len(graphs) > 1:
        newest, mtime = graphs[0]
        others = ", ".join(f"{harness.label(p)} ({_age(m, mtime)} older)" for p, m in graphs[1:])
        yield Violation(
            "D-008",
            RULE,
            harness.label(project),
            f"two graphs at once: the hook reads the newest, {harness.label(newest)}, and "
            f"ignores {others}; one writer per store (D-008) means one graph",
            fix=split[1]
            if split is not None
            else "delete the stale one, and commit from shells that export the GRAPHIFY_OUT "
            "of the one you keep",
        )
    elif split is not None:
        yield Violation("D-008", RULE, harness.label(project), split[0], fix=split[1])
    # where graphify's hooks write: $GRAPHIFY_OUT of the committing shell (this one),
    # and what `graphify hook install` recorded for its merge driver
    outs = {(harness.environ.get("GRAPHIFY_OUT") or "").strip() or gr.DEFAULT_OUT}
    recorded = gr.merge_attr_out(project)
    if recorded:
        outs.add(recorded)
    # by real path: through graphify-out -> .graphify, both names are one file
    candidates = gr.graph_candidates(env, project)
    read = {os.path.realpath(p) for p in candidates}
    for out in sorted(outs):
        target = Path(out) if os.path.isabs(out) else project / out
        written = os.path.normpath(str(target / "graph.json"))
        if os.path.realpath(written) not in read:
            pinned = env.get("MISHKAN_GRAPHIFY_GRAPH")
            why = (
                f"MISHKAN_GRAPHIFY_GRAPH={pinned} makes it the hook's only graph"
                if pinned
                else "it is not one of the hook's candidates"
            )
            yield Violation(
                "D-008",
                RULE,
                harness.label(project),
                f"graphify's refresh hooks write {harness.label(Path(written))} but the hook "
                f"reads {', '.join(harness.label(p) for p in candidates)} ({why}): "
                "refreshed graphs are never seen",
                fix="give the hook and the committing shell the same GRAPHIFY_OUT, or unset "
                "MISHKAN_GRAPHIFY_GRAPH",
            )


def _split(harness: Harness, graphify: gr.Graphify) -> tuple[str, str] | None:
    """(problem, fix) when D-008's ``.graphify/`` and graphify's default
    ``graphify-out`` are not one directory, so a graphify run or refresh hook
    from a shell without ``GRAPHIFY_OUT=.graphify`` writes a graph the hook
    may read instead (a commit's rebuild holds only the changed files)."""
    project = harness.project
    layout = gr.layout_of(project)
    if layout is None or layout.kind == gr.LINKED:
        return None
    cd = f"cd {shlex.quote(str(project))}"
    link = f"ln -s {gr.D008_OUT} {gr.DEFAULT_OUT}"
    if layout.kind == gr.DANGLING:
        return (
            f"{gr.DEFAULT_OUT} links to {gr.D008_OUT}, which does not exist: graphify cannot "
            "write its graph (0.9.96 stops with FileExistsError) and the hook finds none",
            f"`mkdir {shlex.quote(str(project / gr.D008_OUT))}` (or `mishkan install`, which "
            "creates it)",
        )
    d008 = project / gr.D008_OUT
    if not d008.is_dir():
        return None  # no D-008 graph: graphify's default alone is one place
    partial = (
        f"graphify's refresh hooks and CLI write {gr.DEFAULT_OUT}/ from every shell without "
        f"GRAPHIFY_OUT={gr.D008_OUT}, and a commit's rebuild there holds only the changed files"
    )
    if layout.default == "absent":
        if gr.out_names(project, harness.environ.get("GRAPHIFY_OUT"), (gr.D008_OUT,)):
            return None  # this shell exports it; install's link would make it unneeded
        return (
            f"{gr.DEFAULT_OUT} is not linked to {gr.D008_OUT}/: {partial} (a partial graph "
            "the hook reads as the newer, fresh one)",
            f"`mishkan install --project {shlex.quote(str(project))}` links {gr.DEFAULT_OUT} -> "
            f"{gr.D008_OUT}; by hand: `{cd} && {link} && echo {gr.LINK_IGNORE} >> .gitignore`",
        )
    moved = f"{gr.DEFAULT_OUT}.old"
    rebuild = gr.extract_command(gr.DEFAULT_OUT, graphify)  # through the link: no GRAPHIFY_OUT
    if layout.default == "a directory":
        what = f"{gr.DEFAULT_OUT}/ is a second real directory beside {gr.D008_OUT}/"
    elif layout.link is not None:
        what = f"{gr.DEFAULT_OUT} links to {layout.link}, not to {gr.D008_OUT}"
    else:
        what = f"{gr.DEFAULT_OUT} is {layout.default}, not a link to {gr.D008_OUT}"
    return (
        f"{what}: {partial}",
        f"`{cd} && mv {gr.DEFAULT_OUT} {moved} && {link} && {rebuild}`, then delete {moved} "
        f"(`mishkan install` adds {gr.LINK_IGNORE} to .gitignore)",
    )


def _age(mtime: float, newest: float) -> str:
    seconds = max(0.0, newest - mtime)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"
