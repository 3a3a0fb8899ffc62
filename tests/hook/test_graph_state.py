"""Requirements 3 and 4: finding the graph, and fresh / stale / absent,
against real git repositories of every HEAD shape."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

import graphify_nudge
from graphify_nudge import resolve_head
from tests.hook.conftest import Hook, context_of, git, make_repo, write_graph


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def commit(repo: Path, name: str = "b.py") -> str:
    (repo / "src" / name).write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", f"add {name}")
    return head(repo)


# -- resolving HEAD without spawning git --------------------------------------


def test_loose_ref(repo: Path) -> None:
    assert resolve_head(str(repo)) == head(repo)


def test_packed_refs(repo: Path) -> None:
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert resolve_head(str(repo)) == head(repo)


def test_detached_head(repo: Path) -> None:
    first = head(repo)
    commit(repo)
    git(repo, "checkout", "-q", "--detach", first)
    assert (repo / ".git/HEAD").read_text().strip() == first
    assert resolve_head(str(repo)) == first


def test_worktree(repo: Path, tmp_path: Path) -> None:
    git(repo, "branch", "feature")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "feature")
    assert (worktree / ".git").is_file()  # `gitdir: ...` plus commondir
    sha = commit(worktree, "wt.py")
    assert resolve_head(str(worktree)) == sha
    assert resolve_head(str(repo)) != sha


def test_worktree_with_packed_refs(repo: Path, tmp_path: Path) -> None:
    git(repo, "branch", "feature")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "feature")
    git(repo, "pack-refs", "--all")
    assert resolve_head(str(worktree)) == head(repo)


def test_subdirectory_of_a_repo(repo: Path) -> None:
    assert resolve_head(str(repo / "src")) == head(repo)


def test_no_git_at_all(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert resolve_head(str(tmp_path / "plain")) is None


def test_unborn_branch(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert resolve_head(str(empty)) is None


# -- graph states through the hook --------------------------------------------


def test_fresh_graph_nudges_with_the_head_sha(hook: Hook, fresh_graph: Path) -> None:
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert f"HEAD {head(hook.repo)[:7]}" in text
    call = hook.calls()[0]
    assert (call["graph"], call["stale_by"], call["built_at"]) == (
        "fresh",
        None,
        head(hook.repo)[:7],
    )


@pytest.mark.parametrize("shape", ["loose", "packed", "detached"])
def test_stale_by_commit_names_the_build_sha(hook: Hook, shape: str) -> None:
    built = head(hook.repo)
    write_graph(hook.repo, built)
    now = commit(hook.repo)
    if shape == "packed":
        git(hook.repo, "pack-refs", "--all")
    if shape == "detached":
        git(hook.repo, "checkout", "-q", "--detach", now)
    out = hook.subprocess(json.loads(json.dumps(_grep_input(hook)))).stdout.decode()
    text = context_of(out)
    assert built[:7] in text and now[:7] in text
    call = hook.calls()[0]
    assert (call["graph"], call["stale_by"], call["built_at"]) == ("stale", "commit", built[:7])


def _grep_input(hook: Hook) -> dict[str, object]:
    from tests.hook.conftest import hook_input

    return hook_input(hook.repo, "Grep", {"pattern": "apply_overlay", "path": str(hook.repo)})


def test_stale_in_a_worktree(repo: Path, tmp_path: Path) -> None:
    git(repo, "branch", "feature")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "feature")
    write_graph(worktree, head(worktree))
    hook = Hook(worktree, tmp_path / "tel")
    assert "current" in context_of(hook.subprocess(_grep_input(hook)).stdout.decode())
    commit(worktree, "w2.py")
    hook.env["MISHKAN_TELEMETRY_DIR"] = str(tmp_path / "tel2")
    assert "HEAD is now" in context_of(hook.subprocess(_grep_input(hook)).stdout.decode())


def test_absent_graph_gives_the_not_yet_scanned_advisory(hook: Hook) -> None:
    text = context_of(hook.call())
    assert "not scanned this project yet" in text
    assert "Y4NN" in text and "correct for now" in text
    assert hook.calls()[0]["graph"] == "absent"


def test_graph_without_built_at_uses_the_head_reflog(hook: Hook) -> None:
    """No built_at_commit: HEAD moved (its reflog) after graphify last ran."""
    write_graph(hook.repo, None, mtime=1.0)
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert f"built at an unrecorded commit; HEAD is now {head(hook.repo)[:7]}" in text
    assert (hook.calls()[0]["graph"], hook.calls()[0]["stale_by"]) == ("stale", "head_moved")


def test_graph_without_built_at_uses_head_commit_time(hook: Hook) -> None:
    """... and without a reflog, HEAD's commit time (read from the object, cached)."""
    (hook.repo / ".git" / "logs" / "HEAD").unlink()
    committed = int(git(hook.repo, "show", "-s", "--format=%ct", "HEAD"))
    write_graph(hook.repo, None, mtime=committed - 3600)  # built an hour before HEAD
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert "built at an unrecorded commit; HEAD is now" in text
    assert hook.calls()[0]["stale_by"] == "commit_time"
    cache = json.loads((hook.telemetry / ".state" / ".commit-times.json").read_text())
    graph = hook.repo / ".graphify" / "graph.json"
    key = graphify_nudge._graph_key(None, os.stat(graph))  # a shipped cache never matches
    assert cache == {"graph": key, "times": {head(hook.repo): committed}}


def test_graph_without_built_at_newer_than_head_is_fresh(hook: Hook) -> None:
    write_graph(hook.repo, None)  # written now, after the commit
    os.utime(hook.repo / ".graphify/graph.json", (time.time() + 60, time.time() + 60))
    hook.call("Grep", {"pattern": "apply_overlay"})
    assert hook.calls()[0]["graph"] == "fresh"


def test_commit_time_is_cached_per_head_sha(hook: Hook) -> None:
    write_graph(hook.repo, None, mtime=1.0)
    (hook.repo / ".git" / "logs" / "HEAD").unlink()  # no reflog: the commit time decides
    for path in (hook.repo / "src").iterdir():
        os.utime(path, (0.5, 0.5))  # older than the graph: no cited file changed
    cache_dir = hook.telemetry / ".state"
    cache_dir.mkdir(parents=True)
    # A cached (deliberately wrong) time is used without looking at git again.
    key = graphify_nudge._graph_key(None, os.stat(hook.repo / ".graphify" / "graph.json"))
    cached = {"graph": key, "times": {head(hook.repo): 0.5}}
    (cache_dir / ".commit-times.json").write_text(json.dumps(cached))
    hook.call("Grep", {"pattern": "apply_overlay"})
    assert hook.calls()[0]["graph"] == "fresh"
    # A new HEAD is a cache miss: computed from the object, then cached.
    sha = commit(hook.repo)
    (hook.repo / ".git" / "logs" / "HEAD").unlink()
    hook.call("Grep", {"pattern": "other"}, agent_id="second")
    assert hook.calls()[1]["graph"] == "stale"
    assert sha in json.loads((cache_dir / ".commit-times.json").read_text())["times"]


def test_commit_time_is_read_from_a_packed_object(hook: Hook) -> None:
    write_graph(hook.repo, None, mtime=1.0)
    git(hook.repo, "gc", "-q")  # packs the commit object: no loose object left
    assert graphify_nudge._commit_time(str(hook.repo), head(hook.repo)) == float(
        git(hook.repo, "show", "-s", "--format=%ct", "HEAD")
    )


def test_file_newer_than_graph_is_stale_for_that_file(hook: Hook, fresh_graph: Path) -> None:
    os.utime(fresh_graph, (time.time() - 100, time.time() - 100))
    (hook.repo / "src" / "app.py").write_text("def apply_overlay(x):\n    return 2\n")
    text = context_of(hook.call())
    assert 'Changed since the graph was built: "src/app.py"' in text
    assert f"(current at HEAD {head(hook.repo)[:7]})" in text  # the graph itself is at HEAD
    assert (hook.calls()[0]["stale_by"], hook.calls()[0]["changed"]) == ("file_newer", 2)


def test_a_comment_only_commit_graphify_left_untouched_is_not_stale(
    hook: Hook, fresh_graph: Path
) -> None:
    """Issue 29 item 5: graphify answers a commit that changes no structure with
    "No code-graph topology changes detected; outputs left untouched": graph.json
    keeps the old built_at_commit, but graphify rewrote its manifest.json after
    HEAD moved. Not stale; only a file edited after that run is marked."""
    built = head(hook.repo)
    past = time.time() - 100
    os.utime(fresh_graph, (past, past))
    for path in (hook.repo / "src").iterdir():
        os.utime(path, (past - 10, past - 10))
    now = commit(hook.repo, "c.py")  # the commit: HEAD's reflog moves
    (fresh_graph.parent / "manifest.json").write_text("{}")  # graphify's run after it
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert f"(current at HEAD {now[:7]}, no structural change since {built[:7]})" in text
    assert "Changed since" not in text and "stale" not in text
    assert (hook.calls()[0]["graph"], hook.calls()[0]["stale_by"]) == ("fresh", None)
    (hook.repo / "src" / "app.py").write_text("def apply_overlay(x):\n    return 3\n")
    text = context_of(hook.call("Read", {"file_path": str(hook.repo / "src" / "app.py")}))
    assert 'Changed since the graph was built: "src/app.py".' in text


def test_graphify_0_8_keeps_its_manifest_in_graphify_out(hook: Hook, fresh_graph: Path) -> None:
    """graphify 0.8.31 writes manifest.json to graphify-out/ whatever GRAPHIFY_OUT says."""
    built = head(hook.repo)
    os.utime(fresh_graph, (time.time() - 100, time.time() - 100))
    now = commit(hook.repo, "c.py")
    (hook.repo / "graphify-out").mkdir()
    (hook.repo / "graphify-out" / "manifest.json").write_text("{}")
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert f"(current at HEAD {now[:7]}, no structural change since {built[:7]})" in text


def test_an_unreadable_head_is_unknown_never_current(hook: Hook, fresh_graph: Path) -> None:
    (hook.repo / ".git" / "HEAD").write_text("ref: refs/heads/gone\n")
    text = context_of(hook.call("Grep", {"pattern": "apply_overlay"}))
    assert f"(built at {head_of_graph(fresh_graph)}; HEAD unknown)" in text
    assert "current" not in text


def head_of_graph(graph: Path) -> str:
    return str(graphify_nudge.built_at_commit(str(graph)))[:7]


def test_graph_location_rule(hook: Hook, tmp_path: Path) -> None:
    """docs/hook.md, "Which graph": MISHKAN_GRAPHIFY_GRAPH alone, else the newest of
    $GRAPHIFY_OUT/graph.json, .graphify/graph.json, graphify-out/graph.json;
    `--graph` only where graphify's own default would read another file."""
    sha = head(hook.repo)
    write_graph(hook.repo, sha, "graphify-out/graph.json", mtime=1000)
    out = context_of(hook.call("Grep", {"pattern": "a1"}, agent_id="a"))
    assert "--graph" not in out  # graphify's own default needs no flag
    write_graph(hook.repo, sha, ".graphify/graph.json", mtime=2000)  # newer: wins
    assert "--graph '.graphify/graph.json'" in context_of(
        hook.call("Grep", {"pattern": "a2"}, agent_id="b")
    )
    write_graph(hook.repo, sha, "custom-out/graph.json", mtime=3000)
    hook.env["GRAPHIFY_OUT"] = "custom-out"  # graphify reads it too: no flag
    assert "--graph" not in context_of(hook.call("Grep", {"pattern": "a3"}, agent_id="c"))
    explicit = write_graph(tmp_path / "elsewhere", sha, "g.json", mtime=1)  # oldest, but alone
    hook.env["MISHKAN_GRAPHIFY_GRAPH"] = str(explicit)
    assert f"--graph '{explicit}'" in context_of(hook.call("Grep", {"pattern": "a4"}, agent_id="d"))
    hook.env["MISHKAN_GRAPHIFY_GRAPH"] = str(tmp_path / "missing.json")  # alone, even missing
    assert "not scanned" in context_of(hook.call("Grep", {"pattern": "a5"}, agent_id="e"))


def test_a_refresh_into_graphify_out_beats_an_old_dot_graphify(hook: Hook) -> None:
    """Issue 13: graphify's hooks write graphify-out/ when the committing shell
    lacks GRAPHIFY_OUT; the newer graph there is the one in use, not the old
    .graphify/ one (which would report `stale` forever)."""
    later = time.time() + 100  # both after the project's files: none is marked changed
    old = write_graph(hook.repo, "0" * 40, ".graphify/graph.json", mtime=later)
    write_graph(hook.repo, head(hook.repo), "graphify-out/graph.json", mtime=later + 100)
    hook.call("Grep", {"pattern": "apply_overlay"})
    assert hook.calls()[-1]["graph"] == "fresh"
    graph = graphify_nudge.find_graph({"CLAUDE_PROJECT_DIR": str(hook.repo)}, str(hook.repo))
    assert graph.path == str(hook.repo / "graphify-out" / "graph.json")
    assert graphify_nudge.graph_candidates({}, str(hook.repo)) == [
        str(old),
        str(hook.repo / "graphify-out" / "graph.json"),
    ]


def test_root_is_claude_project_dir_else_cwd(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "p")
    write_graph(project, head(project))
    hook = Hook(project, tmp_path / "tel")
    del hook.env["CLAUDE_PROJECT_DIR"]
    from tests.hook.conftest import hook_input

    data = hook_input(project, "Grep", {"pattern": "apply_overlay"})
    assert "current" in context_of(hook(data))
    data["cwd"] = str(tmp_path)  # not a project: no graph there
    hook.env["MISHKAN_TELEMETRY_DIR"] = str(tmp_path / "tel2")
    assert "not scanned" in context_of(hook(data))
    hook.env["CLAUDE_PROJECT_DIR"] = str(project)  # wins over cwd
    hook.env["MISHKAN_TELEMETRY_DIR"] = str(tmp_path / "tel3")
    assert "current" in context_of(hook(data))


def test_only_the_tail_of_graph_json_is_read(hook: Hook) -> None:
    # A body that is not JSON at all still yields the sha: the hook never
    # parses the graph (it can be tens of MB), it reads the last bytes.
    graph = hook.repo / ".graphify" / "graph.json"
    graph.parent.mkdir()
    graph.write_bytes(
        b"{" + b"x" * 5_000_000 + b',"built_at_commit":"' + head(hook.repo).encode() + b'"}'
    )
    hook.call("Grep", {"pattern": "apply_overlay"})
    assert hook.calls()[0]["graph"] == "fresh"


def test_files_in_the_graph_dir_are_not_triggers(hook: Hook, fresh_graph: Path) -> None:
    out = hook.call("Read", {"file_path": str(hook.repo / ".graphify" / "cache" / "x.py")})
    assert out == ""
    assert hook.calls()[0]["trigger"] is False


def test_unreadable_graph_is_fail_open(hook: Hook) -> None:
    (hook.repo / ".graphify" / "graph.json").mkdir(parents=True)  # a directory, not a file
    out = hook.call("Grep", {"pattern": "apply_overlay"})
    assert out == "" or context_of(out)


def test_missing_git_binary_is_fail_open(hook: Hook, tmp_path: Path) -> None:
    write_graph(hook.repo, None, mtime=1.0)
    git(hook.repo, "gc", "-q")
    shutil.rmtree(hook.repo / ".git" / "refs" / "heads", ignore_errors=True)
    hook.env["PATH"] = str(tmp_path / "nowhere")
    result = hook.subprocess(_grep_input(hook))
    assert (result.returncode, result.stderr) == (0, b"")
