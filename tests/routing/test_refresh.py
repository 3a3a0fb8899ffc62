"""``routing check --project``: the graph's refresh trigger (D-008, issue 13).

The trigger is graphify's own git hooks, found where git runs hooks from:
``core.hooksPath`` (Husky's ``.husky/_`` included), a linked worktree, a
``.git`` file. The graph is where the hook's location rule looks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mishkan_core import graph_refresh
from tests.routing import _harness
from tests.routing._cli import run_cli
from tests.routing._harness import World, git


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return _harness.build(tmp_path, monkeypatch)


def _refresh(world: World, capsys: pytest.CaptureFixture[str]) -> list[str]:
    _code, lines, _err = _harness.check(world, capsys)
    return [line for line in lines if "graph-refresh" in line]


def test_no_refresh_trigger(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    (world.project / ".git" / "hooks" / "post-commit").unlink()
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .git/hooks: the graph has no refresh trigger: graphify's "
        "post-commit hook is not installed, so every commit leaves the graph staler; fix: "
        f"cd {world.project} && graphify hook install (D-008: a human runs it)"
    ]


def test_a_partial_install(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    (world.project / ".git" / "hooks" / "post-rewrite").unlink()
    (world.project / ".git" / "hooks" / "post-checkout").chmod(0o644)
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .git/hooks: graphify's post-rewrite hook(s) are missing: branch "
        "switches, merges or rebases leave the graph stale; fix: "
        f"cd {world.project} && graphify hook install",
        "D-008 graph-refresh: .git/hooks/post-checkout: graphify's hook is not executable: git "
        f"skips it; fix: chmod +x {world.project}/.git/hooks/post-checkout",
    ]


def test_husky_hooks_path(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """Husky 9 sets core.hooksPath=.husky/_; graphify writes to .husky/."""
    for name in graph_refresh.GRAPHIFY_HOOKS:
        (world.project / ".git" / "hooks" / name).unlink()
    git(world.project, "config", "core.hooksPath", ".husky/_")
    (world.project / ".husky" / "_").mkdir(parents=True)
    _harness.graphify_hooks(world.project / ".husky")
    assert _refresh(world, capsys) == []


def test_hooks_path_elsewhere_leaves_graphify_hooks_dead(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    git(world.project, "config", "core.hooksPath", "tools/githooks")
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .git/hooks: graphify's hooks (post-commit, post-checkout, "
        "post-merge, post-rewrite) are in .git/hooks, but core.hooksPath makes git run "
        "tools/githooks: they never fire; fix: `git config --unset core.hooksPath`, or "
        f"reinstall them: cd {world.project} && graphify hook install"
    ]


def test_a_linked_worktree(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """A worktree's `.git` is a file; hooks are shared, but graphify's skip it."""
    ident = ("-c", "user.name=t", "-c", "user.email=t@t")
    git(world.project, *ident, "commit", "-q", "--allow-empty", "-m", "x")
    linked = world.root / "linked"
    git(world.project, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()
    argv = ["check", "--project", str(linked), "--user-dir", str(world.user)]
    code, out, _err = run_cli(
        "mishkan_core.routing.cli", [*argv, "--managed-dir", str(world.managed)], capsys
    )
    refresh = [line for line in out.splitlines() if "graph-refresh" in line]
    assert code == 1
    assert any("this checkout is a linked worktree" in line for line in refresh), refresh
    assert not any("no refresh trigger" in line for line in refresh), refresh


def _unlink(world: World) -> None:
    (world.project / "graphify-out").unlink()


def test_two_graphs(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    _unlink(world)
    (world.project / "graphify-out").mkdir()
    newer = world.project / "graphify-out" / "graph.json"
    newer.write_text("{}")

    older = world.project / ".graphify" / "graph.json"
    os.utime(older, (1_700_000_000, 1_700_000_000))
    os.utime(newer, (1_700_003_600, 1_700_003_600))
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .: two graphs at once: the hook reads the newest, "
        "graphify-out/graph.json, and ignores .graphify/graph.json (60 min older); one writer "
        f"per store (D-008) means one graph; fix: `cd {world.project} && mv graphify-out "
        "graphify-out.old && ln -s .graphify graphify-out && graphify extract . --code-only "
        "--force`, then delete graphify-out.old (`mishkan install` adds graphify-out to "
        ".gitignore)"
    ]


def test_the_link_makes_one_graph_of_two_names(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """The good world: graphify-out -> .graphify; both candidates are one file."""
    assert (world.project / "graphify-out" / "graph.json").samefile(
        world.project / ".graphify" / "graph.json"
    )
    assert _refresh(world, capsys) == []


PARTIAL = (
    "graphify's refresh hooks and CLI write graphify-out/ from every shell without "
    "GRAPHIFY_OUT=.graphify, and a commit's rebuild there holds only the changed files"
)


def test_a_d008_graph_without_the_link(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """The measured trap: a commit from a shell without GRAPHIFY_OUT rebuilds a
    partial graph into graphify-out/ that the hook then reads as fresh."""
    _unlink(world)
    assert _refresh(world, capsys) == [
        f"D-008 graph-refresh: .: graphify-out is not linked to .graphify/: {PARTIAL} (a "
        "partial graph the hook reads as the newer, fresh one); fix: `mishkan install "
        f"--project {world.project}` links graphify-out -> .graphify; by hand: `cd "
        f"{world.project} && ln -s .graphify graphify-out && echo graphify-out >> .gitignore`"
    ]


@pytest.mark.parametrize("value", [".graphify", "./.graphify/"])
def test_a_shell_that_exports_graphify_out_explains_a_missing_link(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    _unlink(world)
    monkeypatch.setenv("GRAPHIFY_OUT", value)
    assert _refresh(world, capsys) == []


def test_a_second_real_directory(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    _unlink(world)
    (world.project / "graphify-out" / "cache").mkdir(parents=True)  # graphify's, no graph yet
    lines = _refresh(world, capsys)
    assert lines == [
        "D-008 graph-refresh: .: graphify-out/ is a second real directory beside .graphify/: "
        f"{PARTIAL}; fix: `cd {world.project} && mv graphify-out graphify-out.old && ln -s "
        ".graphify graphify-out && graphify extract . --code-only --force`, then delete "
        "graphify-out.old (`mishkan install` adds graphify-out to .gitignore)"
    ]


def test_a_link_elsewhere(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    _unlink(world)
    elsewhere = world.root / "elsewhere"
    elsewhere.mkdir()
    (world.project / "graphify-out").symlink_to(elsewhere)
    lines = _refresh(world, capsys)
    assert len(lines) == 1
    assert f"graphify-out links to {elsewhere}, not to .graphify: {PARTIAL}" in lines[0]
    assert list(elsewhere.iterdir()) == []


def test_a_fifo_at_graphify_out(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """stat opens nothing: the check cannot block on it."""
    _unlink(world)
    os.mkfifo(world.project / "graphify-out")
    lines = _refresh(world, capsys)
    assert len(lines) == 1 and "graphify-out is a FIFO, not a link to .graphify" in lines[0]


def test_a_dangling_link(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(world.project / ".graphify")
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .: graphify-out links to .graphify, which does not exist: "
        "graphify cannot write its graph (0.9.96 stops with FileExistsError) and the hook finds "
        f"none; fix: `mkdir {world.project}/.graphify` (or `mishkan install`, which creates it)"
    ]


def test_graphify_s_default_layout_is_one_place(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _unlink(world)
    (world.project / ".graphify").rename(world.project / "graphify-out")
    assert _refresh(world, capsys) == []


def test_a_pinned_graph_the_refresh_never_writes(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Settings pin the hook to a graph of their own; the committing shell has
    no GRAPHIFY_OUT, so graphify's hooks rebuild graphify-out/ (= .graphify/)
    and the hook never sees it."""
    local = world.project / ".claude" / "settings.local.json"
    local.write_text('{"env": {"MISHKAN_GRAPHIFY_GRAPH": "graphs/main.json"}}')
    assert _refresh(world, capsys) == [
        "D-008 graph-refresh: .: graphify's refresh hooks write graphify-out/graph.json but the "
        "hook reads graphs/main.json (MISHKAN_GRAPHIFY_GRAPH=graphs/main.json makes it "
        "the hook's only graph): refreshed graphs are never seen; fix: give the hook and the "
        "committing shell the same GRAPHIFY_OUT, or unset MISHKAN_GRAPHIFY_GRAPH"
    ]


def test_a_graph_pinned_through_the_link_is_the_one_refreshed(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """graphify-out/graph.json and .graphify/graph.json are one file."""
    local = world.project / ".claude" / "settings.local.json"
    local.write_text('{"env": {"MISHKAN_GRAPHIFY_GRAPH": ".graphify/graph.json"}}')
    assert _refresh(world, capsys) == []


def test_an_output_dir_recorded_by_graphify_hook_install(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (world.project / ".gitattributes").write_text("build/graphs/graph.json merge=graphify\n")
    lines = _refresh(world, capsys)
    assert len(lines) == 1 and "write build/graphs/graph.json but the hook reads" in lines[0]
    monkeypatch.setenv("GRAPHIFY_OUT", "build/graphs")  # the hook's shell agrees: it reads it
    assert _refresh(world, capsys) == []


def test_not_a_git_repository(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(world.project / ".git")
    lines = _refresh(world, capsys)
    assert len(lines) == 1 and "cannot find the git hooks directory" in lines[0]
