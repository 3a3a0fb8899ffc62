"""Issue 13, "Done when": the D-008/D-009 loop with real graphify and the real CLI.

On the e2e fixture project, whose graph is where D-008 keeps it
(``.graphify/``), in order:

1. ``mishkan install`` links ``graphify-out -> .graphify`` and prints the
   refresh command, which needs no ``GRAPHIFY_OUT``; that printed command
   installs graphify's refresh hooks;
2. a source commit is made, from a shell without ``GRAPHIFY_OUT`` (the trap
   of issue 13, item 2: without the link graphify's hook rebuilds a partial
   graph of the changed files into ``graphify-out/``) and from one with
   ``GRAPHIFY_OUT=.graphify``;
3. graphify's detached background rebuild finishes (polled, with a deadline,
   and timed);
4. the nudge hook, as installed and run by the real Claude Code CLI, reports
   ``fresh`` at the new HEAD, and the graph it read is complete: every node
   of the previous graph plus the committed function; no second graph exists;
5. ``mishkan routing check --project`` passes;
6. ``mishkan sprint-close`` re-extracts the graph and writes a report that
   passes ``mishkan ingest-lint``.

Each runs on every release of the graphify axis (tests/e2e/graphify_axis.py:
0.8.31 and 0.9.96 by default), with the commands in that release's dialect:
``update . --force`` where ``extract --code-only`` needs an LLM key, and
only the git hooks its ``hook install`` installs.

The measured timings are printed on one line each (``freshness timing: ...``)
for docs/sprint_close.md.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge_index as gi
from mishkan_core import graph_refresh
from tests.e2e.graphify_axis import Release
from tests.e2e.harness import (
    Claude,
    Project,
    ScenarioRun,
    base_path,
    build_graph,
    commit_change,
    head_sha,
    install_hook,
    make_project,
    mishkan_command,
    run,
    run_scenario,
)

pytestmark = pytest.mark.e2e

#: the detached rebuild of the fixture takes about a second; a loaded machine more
REBUILD_DEADLINE = 120.0
NEW_FUNCTION = "shout()"  # what commit_change adds to src/overlay/util.py


def _timing(capsys: pytest.CaptureFixture[str], what: str, seconds: float) -> None:
    with capsys.disabled():
        print(f"\nfreshness timing: {what}: {seconds:.2f} s")


def _shell_env(project: Project, **extra: str) -> dict[str, str]:
    """The engineer's shell: graphify on PATH, HOME in the project's root, and
    no GRAPHIFY_OUT unless given."""
    return {"PATH": base_path(), "HOME": str(project.root), "LANG": "C.UTF-8", **extra}


def _graph(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _built_at(graph: Path) -> str | None:
    try:
        value = _graph(graph).get("built_at_commit")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _the_other_agents(project: Project) -> None:
    """The fixture defines hizkiah; a MISHKAN project has all five in-scope
    agents, and ``routing check`` (D-009 gate-scope) asks for each."""
    agents = project.repo / ".claude" / "agents"
    for name in ("salma", "oholiab", "nathan", "zadok"):
        (agents / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: {name} of the e2e fixture.\ntools: Read, Grep\n"
            f"---\nYou are {name.capitalize()}.\n",
            encoding="utf-8",
        )


def _install(project: Project, capsys: pytest.CaptureFixture[str]) -> str:
    """``mishkan install`` as the harness runs it, in telemetry mode; its output.
    Then the harness's evidence hook, telemetry directory and cap."""
    argv = [*mishkan_command(), "install", "--project", str(project.repo), "--mode",
            "telemetry", "--python", sys.executable]  # fmt: skip
    started = time.monotonic()
    proc = run(argv, cwd=project.root, env=_shell_env(project))
    _timing(capsys, "mishkan install", time.monotonic() - started)
    install_hook(project, None, cap=10)  # None: graphify_nudge is installed above
    return proc.stdout + proc.stderr


def _out_of_the_way(project: Project) -> None:
    """graphify 0.8.31 writes graphify-out/manifest.json whatever GRAPHIFY_OUT
    says (its detect.py), so a harness that built D-008's .graphify/ with it also
    has a real graphify-out/, and install, which never moves anything, cannot
    link it. Then the way out install prints is taken, as printed."""
    default = project.repo / "graphify-out"
    if default.is_symlink() or not default.is_dir():
        return
    assert not (default / "graph.json").exists(), sorted(p.name for p in default.iterdir())
    argv = [*mishkan_command(), "install", "--project", str(project.repo), "--mode",
            "telemetry", "--python", sys.executable]  # fmt: skip
    done = run(argv, cwd=project.root, env=_shell_env(project))
    note = done.stdout + done.stderr
    assert "are both real directories" in note, note
    step = note.split("To keep D-008's: `", 1)[1].split("`", 1)[0]
    assert step == f"cd {project.repo} && mv graphify-out graphify-out.old", note
    run(["/bin/sh", "-c", step], cwd=project.root, env=_shell_env(project))
    shutil.rmtree(project.repo / "graphify-out.old")  # the note's last step: only a manifest


def install_refresh_hook(project: Project, install_output: str) -> str:
    """Step 1: run the ``graphify hook install`` line ``mishkan install`` printed,
    exactly as printed (``cd <project> && graphify hook install``)."""
    printed = [
        line.strip() for line in install_output.splitlines() if "graphify hook install" in line
    ]
    assert printed == [f"cd {project.repo} && graphify hook install"], install_output
    run(["/bin/sh", "-c", printed[0]], cwd=project.root, env=_shell_env(project))
    status = run(["graphify", "hook", "status"], cwd=project.repo, env=_shell_env(project))
    assert "post-commit: installed" in status.stdout, status.stdout
    return printed[0]


def wait_for_rebuild(project: Project, graph: Path, sha: str, started: float) -> float:
    """Step 3: poll until ``graph`` is built at ``sha``; the seconds since ``started``."""
    log = project.root / ".cache" / "graphify-rebuild.log"
    deadline = started + REBUILD_DEADLINE
    while time.monotonic() < deadline:
        if _built_at(graph) == sha:
            return time.monotonic() - started
        if log.exists() and "Rebuild failed" in log.read_text(encoding="utf-8", errors="replace"):
            break
        time.sleep(0.05)
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else "(no log)"
    raise AssertionError(
        f"{graph} not rebuilt at {sha} within {REBUILD_DEADLINE:.0f} s "
        f"(built at {_built_at(graph)})\nrebuild log:\n{text[-3000:]}"
    )


def _not_fresh_at(scenario: ScenarioRun, sha: str) -> list[dict[str, Any]]:
    triggers = [e for e in scenario.telemetry_calls() if e.get("trigger")]
    assert triggers, scenario.diagnostics()
    return [e for e in triggers if e.get("graph") != "fresh" or e.get("built_at") != sha[:7]]


def _one_graph(project: Project) -> Path:
    """No second graph: both candidate names are the one file in .graphify/."""
    repo = project.repo
    assert os.readlink(repo / "graphify-out") == ".graphify"
    graphs = graph_refresh.existing_graphs({}, repo)
    assert [path for path, _ in graphs] == [repo / ".graphify" / "graph.json"], graphs
    assert not (repo / "graphify-out.old").exists()
    return graphs[0][0]


def _routing_check(project: Project) -> None:
    """Step 5: the whole harness as Claude Code reads it, the graph's refresh
    trigger and layout included."""
    argv = [*mishkan_command(), "routing", "check", "--project", str(project.repo),
            "--user-dir", str(project.home / ".claude")]  # fmt: skip
    proc = run(argv, cwd=project.repo, env=_shell_env(project), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _sprint_close(project: Project) -> tuple[Path, float, str]:
    """Step 6: sprint-close with real graphify; the artifact must pass the real lint."""
    reports = project.root / "reports"
    argv = [*mishkan_command(), "sprint-close", "--project", str(project.repo),
            "--telemetry-dir", str(project.telemetry), "--sprint", "e2e", "--out",
            str(reports), "--until", "2030-01-01", "--extract", "run"]  # fmt: skip
    started = time.monotonic()
    proc = run(argv, cwd=project.repo, env=_shell_env(project), check=False)
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    artifact = reports / "e2e.md"
    lint = run([*mishkan_command(), "ingest-lint", str(artifact)], cwd=project.root,
               env=_shell_env(project), check=False)  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr
    return artifact, seconds, proc.stdout


@pytest.mark.parametrize(
    "graphify_out",
    [None, ".graphify"],
    ids=["committing shell without GRAPHIFY_OUT", "committing shell with GRAPHIFY_OUT"],
)
def test_the_graph_stays_fresh_and_whole_through_a_commit_and_sprint_close(
    tmp_path: Path,
    claude_bin: Claude,
    graphify_release: Release,
    capsys: pytest.CaptureFixture[str],
    graphify_out: str | None,
) -> None:
    project = make_project(tmp_path)
    _the_other_agents(project)
    build_graph(project, graphify_release.bin)  # D-008's layout: .graphify/graph.json
    before = _graph(project.graph)
    _out_of_the_way(project)
    install_output = _install(project, capsys)
    assert "graph layout: linked graphify-out -> .graphify" in install_output, install_output

    started = time.monotonic()  # 1
    command = install_refresh_hook(project, install_output)
    _timing(capsys, f"`{command}`", time.monotonic() - started)
    # graphify's merge driver line (0.9.x) names graphify-out/graph.json; git never
    # sees a path under a symlink and D-008 ignores the graph, so no merge uses it
    driver = graph_refresh.merge_attr_out(project.repo)
    assert driver in ("graphify-out", None), driver
    if gi.HOOK_POST_MERGE in graphify_release.accepts:
        assert driver == "graphify-out"
    hooks = graph_refresh.git_hooks(project.repo).installed
    assert [name for name, present in hooks.items() if present] == list(
        graphify_release.graphify.hooks
    )  # the hooks that release's `hook install` writes: routing check asks for no others
    ignored = run(["git", "check-ignore", "graphify-out", ".graphify/graph.json"],
                  cwd=project.repo, env=_shell_env(project))  # fmt: skip
    assert ignored.stdout.split() == ["graphify-out", ".graphify/graph.json"]

    started = time.monotonic()  # 2
    extra = {"GRAPHIFY_OUT": graphify_out} if graphify_out else {}
    new_head = commit_change(project, extra_env=extra)
    _timing(capsys, "git commit returned (post-commit launches the rebuild detached)",
            time.monotonic() - started)  # fmt: skip

    # 3: both shells rebuild the one graph: graphify-out/ *is* .graphify/
    _timing(capsys, "commit to rebuilt .graphify/graph.json",
            wait_for_rebuild(project, project.graph, new_head, started))  # fmt: skip
    assert head_sha(project.repo) == new_head

    # 4: the real CLI drives the hook as installed; every trigger sees a fresh graph ...
    started = time.monotonic()
    scenario = run_scenario("fresh", project, claude_bin, "bypassPermissions")
    _timing(capsys, "one CLI scenario run", time.monotonic() - started)
    not_fresh = _not_fresh_at(scenario, new_head)
    assert not_fresh == [], f"triggers not fresh at {new_head[:7]}: " + json.dumps(
        [(e.get("target"), e.get("graph"), e.get("built_at")) for e in not_fresh]
    )
    # ... and the graph it read is whole: every earlier node, plus the new function
    read = graph_refresh.hook_graph({}, project.repo)
    assert read is not None and read.resolve() == _one_graph(project).resolve()
    after = _graph(read)
    # (0.8.x's reference placeholders, `str` at a referring line, may be renumbered)
    kept = {n["id"] for n in before["nodes"]} - gi._placeholders(before.get("links"))
    missing = kept - {n["id"] for n in after["nodes"]}
    assert missing == set(), f"the graph the hook read lost {sorted(missing)}"
    assert [n["source_file"] for n in after["nodes"] if n["label"] == NEW_FUNCTION] == [
        "src/overlay/util.py"
    ]
    with capsys.disabled():
        print(f"\nfreshness: the graph the hook read has {len(after['nodes'])} nodes at "
              f"{new_head[:7]} ({len(before['nodes'])} before the commit)")  # fmt: skip

    _routing_check(project)  # 5

    artifact, seconds, out = _sprint_close(project)  # 6
    _timing(capsys, "mishkan sprint-close (full re-extract included)", seconds)
    text = artifact.read_text(encoding="utf-8")
    assert text.startswith("---\nmishkan: ingest\n")
    ran = " ".join(graph_refresh.extract_argv(graphify_release.graphify))
    assert f"ran `{ran}`" in out, out  # in the release's dialect, and it ran
    assert "wrote `.graphify/graph.json`" in text and "which is HEAD" in text
    assert "Refresh trigger (graphify's post-commit hook): installed" in text
    assert "graphify hook install" not in out  # installed: nothing left to prepare
    whole = _graph(_one_graph(project))  # still one graph, re-extracted whole at HEAD
    assert whole["built_at_commit"] == new_head
    # every node the hook read (the working tree also holds the installed hook copy)
    kept = {n["id"] for n in after["nodes"]} - gi._placeholders(after.get("links"))
    assert kept <= {n["id"] for n in whole["nodes"]}
    with capsys.disabled():
        print(f"\nfreshness: sprint-close said:\n{out}")


def test_without_the_link_a_commit_writes_a_partial_graph_and_routing_check_names_the_fix(
    tmp_path: Path, graphify_release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trap itself, with real graphify: D-008's ``.graphify/``, graphify's
    hooks installed with ``GRAPHIFY_OUT=.graphify``, a commit from a shell
    without it. The rebuild lands in ``graphify-out/`` and holds only the
    changed file; ``routing check`` flags it, and its fix, run as printed,
    leaves one whole graph."""
    project = make_project(tmp_path)
    build_graph(project, graphify_release.bin)
    before = _graph(project.graph)
    env = _shell_env(project)
    run(["/bin/sh", "-c", "GRAPHIFY_OUT=.graphify graphify hook install"], cwd=project.repo,
        env=env)  # fmt: skip
    started = time.monotonic()
    new_head = commit_change(project)  # no GRAPHIFY_OUT in the committing shell
    partial = project.repo / "graphify-out" / "graph.json"
    wait_for_rebuild(project, partial, new_head, started)
    written = _graph(partial)
    assert _built_at(project.graph) != new_head  # D-008's graph: never refreshed
    assert {n["source_file"] for n in written["nodes"] if n.get("source_file")} == {
        "src/overlay/util.py"
    }
    assert len(written["nodes"]) < len(before["nodes"])
    with capsys.disabled():
        print(f"\nfreshness: without the link, graphify-out/graph.json has "
              f"{len(written['nodes'])} nodes after the commit, .graphify/graph.json "
              f"{len(before['nodes'])} (stale)")  # fmt: skip

    def refresh_findings() -> list[str]:
        argv = [*mishkan_command(), "routing", "check", "--project", str(project.repo),
                "--user-dir", str(project.home / ".claude")]  # fmt: skip
        proc = run(argv, cwd=project.repo, env=env, check=False)
        return [line for line in proc.stdout.splitlines() if "graph-refresh" in line]

    findings = refresh_findings()
    two = [line for line in findings if "two graphs at once" in line]
    assert len(two) == 1, findings
    assert "the hook reads the newest, graphify-out/graph.json" in two[0]
    fix = two[0].split("fix: `", 1)[1].split("`", 1)[0]
    rebuild = graph_refresh.extract_command("graphify-out", graphify_release.graphify)
    assert fix.endswith(f"ln -s .graphify graphify-out && {rebuild}"), fix
    run(["/bin/sh", "-c", fix], cwd=project.root, env=env)
    assert refresh_findings() == []
    whole = _graph(_one_graph_after_fix(project))
    assert whole["built_at_commit"] == new_head
    kept = {n["id"] for n in before["nodes"]} - gi._placeholders(before.get("links"))
    assert kept <= {n["id"] for n in whole["nodes"]}
    assert any(n["label"] == NEW_FUNCTION for n in whole["nodes"])


def _one_graph_after_fix(project: Project) -> Path:
    assert os.readlink(project.repo / "graphify-out") == ".graphify"
    graphs = graph_refresh.existing_graphs({}, project.repo)
    assert [path for path, _ in graphs] == [project.graph], graphs
    return project.graph
