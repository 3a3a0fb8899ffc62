"""``mishkan install``: one graph in one place, ``graphify-out -> .graphify``.

graphify's refresh hooks rebuild into ``$GRAPHIFY_OUT`` of the committing
shell, else ``graphify-out/``; D-008 keeps the graph in ``.graphify/``. The
link makes them one directory (the measured cure, docs/install.md). Install
makes it only where the project follows D-008, records it, and takes back
only what it made; it never writes through, moves or deletes anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mishkan_core import graph_refresh
from mishkan_core.safe_files import Directory
from tests.install._record import record_of
from tests.install._tree import tree as _tree
from tests.routing._cli import run_cli

PYTHON = os.path.realpath(sys.executable)
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(autouse=True)
def _no_graph_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GRAPHIFY_OUT", "MISHKAN_GRAPHIFY_GRAPH"):
        monkeypatch.delenv(name, raising=False)


def _run(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    argv = ["--project", str(root), *extra]
    if "--uninstall" not in extra:
        argv += ["--python", PYTHON]
    return run_cli("mishkan_core.install", argv, capsys)


def _git(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(root), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=False,
    )


def _manifest(root: Path) -> dict[str, object]:
    return record_of(root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    project.mkdir()
    assert _git(project, "init", "-q").returncode == 0
    return project


# ---------------------------------------------------------------------------
# the layouts install links, and what it prints


def test_a_new_project_gets_the_directory_and_the_link(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(root, capsys)
    assert code == 0, err
    assert os.readlink(root / "graphify-out") == ".graphify"  # relative: the project may move
    assert (root / ".graphify").is_dir() and not (root / ".graphify").is_symlink()
    assert list((root / ".graphify").iterdir()) == []
    assert _manifest(root)["layout"] == {"link": True, "directory": True}
    assert (
        "graph layout: linked graphify-out -> .graphify (and created the empty .graphify/): "
        "graphify writes where the hook reads, from any shell, without GRAPHIFY_OUT\n"
    ) in out
    # the printed commands need no environment, and no shell advice follows them
    assert out.endswith(
        "next (D-008: you run these; install never does):\n"
        "  1. build the graph of your code:\n"
        f"     cd {root} && graphify update .\n"
        "  2. refresh it at every commit:\n"
        f"     cd {root} && graphify hook install\n"
    )


def test_a_d008_graph_is_linked_and_kept(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / ".graphify").mkdir()
    (root / ".graphify" / "graph.json").write_text('{"nodes": []}')
    assert _run(root, capsys)[0] == 0
    assert os.readlink(root / "graphify-out") == ".graphify"
    assert (root / "graphify-out" / "graph.json").read_text() == '{"nodes": []}'
    assert _manifest(root)["layout"] == {"link": True, "directory": False}
    code, out, _err = _run(root, capsys, "--uninstall")
    assert code == 0 and "removed the link graphify-out -> .graphify" in out
    assert not os.path.lexists(root / "graphify-out")
    assert (root / ".graphify" / "graph.json").read_text() == '{"nodes": []}'


def test_install_is_idempotent_and_uninstall_gives_the_tree_back(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree(root)
    assert _run(root, capsys)[0] == 0
    installed = _tree(root)
    link_mtime = os.lstat(root / "graphify-out").st_mtime_ns
    code, out, _err = _run(root, capsys)
    assert code == 0
    assert "graph layout: graphify-out -> .graphify (one directory): already one directory" in out
    layout = (".gitignore", ".graphify", "graphify-out")
    assert {k: v for k, v in _tree(root).items() if k in layout} == {
        k: v for k, v in installed.items() if k in layout
    }
    assert os.lstat(root / "graphify-out").st_mtime_ns == link_mtime
    code, out, _err = _run(root, capsys, "--uninstall")
    assert code == 0
    assert "removed .graphify/ (empty; install had created it)" in out
    assert _tree(root) == before


def test_a_link_the_user_made_is_theirs(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / ".graphify").mkdir()
    (root / "graphify-out").symlink_to(".graphify")
    assert _run(root, capsys)[0] == 0
    assert _manifest(root)["layout"] == {}
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert os.readlink(root / "graphify-out") == ".graphify"


def test_an_absolute_link_to_graphify_counts_as_the_link(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / ".graphify").mkdir()
    (root / "graphify-out").symlink_to(root / ".graphify")
    code, out, _err = _run(root, capsys)
    assert code == 0 and "already one directory" in out
    assert f"     cd {root} && graphify hook install\n" in out


def test_a_dangling_link_gets_its_directory(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """graphify 0.9.96 crashes on a dangling graphify-out (FileExistsError in
    mkdir): `rm -r .graphify` to rebuild leaves exactly that."""
    (root / "graphify-out").symlink_to(".graphify")
    code, out, _err = _run(root, capsys)
    assert code == 0
    assert "graph layout: created .graphify/, which graphify-out links to" in out
    assert (root / ".graphify").is_dir()
    assert _manifest(root)["layout"] == {"link": False, "directory": True}
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert not (root / ".graphify").exists()
    assert os.readlink(root / "graphify-out") == ".graphify"  # the user's link stays


def test_the_dry_run_shows_the_link_and_writes_nothing(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree(root)
    code, out, err = _run(root, capsys, "--dry-run")
    assert code == 0
    assert "graph layout: would link graphify-out -> .graphify (and create .graphify/)" in err
    assert "+graphify-out\n" in out  # the .gitignore diff
    assert f"     cd {root} && graphify hook install\n" in err  # as it will be after install
    assert _tree(root) == before
    assert _run(root, capsys)[0] == 0
    code, _out, err = _run(root, capsys, "--uninstall", "--dry-run")
    assert code == 0
    assert "would remove the link graphify-out -> .graphify" in err
    assert "would remove .graphify/ (empty; install had created it)" in err
    assert os.path.islink(root / "graphify-out")


@pytest.mark.parametrize(
    ("shell_out", "printed"),
    [
        (".graphify", "graphify hook install"),
        ("graphify-out/", "graphify hook install"),
        ("build/graphs", "GRAPHIFY_OUT=build/graphs graphify hook install"),
    ],
)
def test_the_printed_command_with_graphify_out_in_the_shell(
    root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    shell_out: str,
    printed: str,
) -> None:
    monkeypatch.setenv("GRAPHIFY_OUT", shell_out)
    code, out, _err = _run(root, capsys)
    assert code == 0
    assert f"     cd {root} && {printed}\n" in out


# ---------------------------------------------------------------------------
# the layouts install leaves alone


def test_graphify_s_default_layout_is_left_alone(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / "graphify-out").mkdir()
    (root / "graphify-out" / "graph.json").write_text("{}")
    code, out, _err = _run(root, capsys)
    assert code == 0
    assert not (root / ".graphify").exists()
    assert "graph layout: the graph is in graphify-out/ (graphify's default" in out
    assert f"     cd {root} && graphify hook install\n" in out
    assert "graphify-out" not in (root / ".gitignore").read_text().splitlines()
    assert _manifest(root)["layout"] == {}


def test_two_real_directories_are_reported_and_kept(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (".graphify", "graphify-out"):
        (root / name).mkdir()
        (root / name / "graph.json").write_text(name)
    before = _tree(root)
    code, out, err = _run(root, capsys)
    assert code == 0
    assert (
        "note: .graphify/ and graphify-out/ are both real directories: two graphs" in err
        and f"`cd {root} && mv graphify-out graphify-out.old`" in err
    )
    assert "graph layout" not in out
    after = _tree(root)
    assert {k: v for k, v in after.items() if k in before} == before  # both graphs kept
    assert (root / "graphify-out").is_dir() and not (root / "graphify-out").is_symlink()


# ---------------------------------------------------------------------------
# hostile: nothing is written through a planted link, FIFO or file


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    outside = tmp_path / "victim_dir"
    outside.mkdir()
    return outside


@pytest.mark.parametrize("name", [".graphify", "graphify-out"])
@pytest.mark.parametrize("kind", ["link-to-victim", "dangling-outside", "fifo", "file"])
def test_a_planted_entry_is_left_alone(
    root: Path,
    victim: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    kind: str,
) -> None:
    path = root / name
    if kind == "link-to-victim":
        path.symlink_to(victim)
    elif kind == "dangling-outside":
        path.symlink_to(victim.parent / "created_outside")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("x")
    code, _out, err = _run(root, capsys)  # in process: a blocking open would hang the test
    assert code == 0, err
    assert "note: graph layout left alone" in err
    assert list(victim.iterdir()) == []
    assert not (victim.parent / "created_outside").exists()
    other = root / ({".graphify", "graphify-out"} - {name}).pop()
    assert not os.path.lexists(other)  # no link, no directory next to it
    assert _manifest(root)["layout"] == {}
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert os.path.lexists(path)


def test_an_entry_planted_after_the_check_fails_the_install_cleanly(
    root: Path, victim: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """mkdir and symlink relative to the project's descriptor fail on anything
    already there: a link raced in is never replaced, and nothing else is written."""
    real = graph_refresh.read_layout

    def racing(directory: Directory) -> graph_refresh.Layout:
        layout = real(directory)
        (root / "graphify-out").symlink_to(victim)
        return layout

    monkeypatch.setattr(graph_refresh, "read_layout", racing)
    code, out, err = _run(root, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert os.readlink(root / "graphify-out") == str(victim)
    assert list(victim.iterdir()) == []
    assert not (root / ".claude").exists() and not (root / ".gitignore").exists()


def test_uninstall_keeps_what_changed_since(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(root, capsys)[0] == 0
    (root / ".graphify" / "graph.json").write_text("{}")  # graphify wrote the graph
    (root / "graphify-out").unlink()
    (root / "graphify-out").symlink_to("elsewhere")  # the user repointed the link
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert (root / ".graphify" / "graph.json").exists()
    assert os.readlink(root / "graphify-out") == "elsewhere"


def test_a_committed_manifest_cannot_make_uninstall_remove_a_link_elsewhere(
    root: Path, victim: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / ".mishkan").mkdir()
    (root / ".mishkan" / "install.json").write_text(
        '{"v": 1, "layout": {"link": true, "directory": true}}'
    )
    (root / "graphify-out").symlink_to(victim)
    (root / ".graphify").symlink_to(victim)
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert os.path.islink(root / "graphify-out") and os.path.islink(root / ".graphify")
    assert victim.is_dir()


# ---------------------------------------------------------------------------
# git ignores the link (a trailing slash would not)


def test_git_ignores_the_link_install_made(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / ".gitignore").write_text("graphify-out/\n")  # what a user would write: no match
    assert _git(root, "check-ignore", "-q", "--no-index", "graphify-out").returncode == 1
    assert _run(root, capsys)[0] == 0
    assert _git(root, "check-ignore", "-q", "graphify-out").returncode == 0
    status = _git(root, "status", "--porcelain", "--untracked-files=all").stdout
    untracked = status.splitlines()
    assert "?? graphify-out" not in untracked and "?? .graphify/" not in untracked
    assert ".gitignore" in status  # what install changed, and nothing else of the layout
    assert ".graphifyignore" in status  # the hook's files out of the graph (issue 29)
