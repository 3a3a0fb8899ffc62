"""``mishkan_core.safe_files``: the one home for opening a user's files when
they may be hostile (install, sprint-close and metrics all open through it)."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from mishkan_core import safe_files
from mishkan_core.safe_files import Directory, UnsafeFile


@pytest.fixture
def top(tmp_path: Path) -> Iterator[Directory]:
    with Directory.anchor(tmp_path) as directory:
        yield directory


def test_a_name_that_is_not_a_regular_file_is_never_opened(
    tmp_path: Path, top: Directory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lstat first: opening a device can act (a tape rewinds), so nothing but a
    regular file reaches open(2)."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("/dev/null")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    opened: list[str] = []
    real_open = os.open

    def spy(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        opened.append(path)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", spy)
    try:
        for name, kind in (("fifo", "a FIFO"), ("dir", "a directory"), ("link", "a symlink"),
                           ("sock", "a socket")):  # fmt: skip
            with pytest.raises(UnsafeFile, match=f"is {kind}; refusing to read it"):
                safe_files.open_regular_at(top.fd, name, name)
    finally:
        sock.close()
    assert opened == []
    assert safe_files.open_regular_at(top.fd, "missing", "missing") is None


def test_a_file_swapped_between_the_check_and_the_open_is_refused(
    tmp_path: Path, top: Directory, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    other = os.stat(tmp_path / "b")
    monkeypatch.setattr(os, "fstat", lambda fd: other)
    with pytest.raises(UnsafeFile, match="changed while it was opened"):
        safe_files.open_regular_at(top.fd, "a", "a")


def test_read_is_bounded(tmp_path: Path, top: Directory) -> None:
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert safe_files.read_regular_at(top.fd, "f", "f", limit=10) == b"x" * 10
    with pytest.raises(UnsafeFile, match="larger than 9 bytes"):
        safe_files.read_regular_at(top.fd, "f", "f", limit=9)


def test_a_directory_is_opened_only_when_it_is_a_real_one(tmp_path: Path, top: Directory) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "outside")
    fd = safe_files.open_dir_at(top.fd, "real", "real")
    assert fd is not None
    os.close(fd)
    assert safe_files.open_dir_at(top.fd, "missing", "missing") is None
    with pytest.raises(UnsafeFile, match="link is a symlink; refusing to follow it"):
        safe_files.open_dir_at(top.fd, "link", "link")


@pytest.mark.parametrize("planted", ["link", "dangling", "fifo", "file"])
def test_symlink_and_mkdir_never_replace_what_is_there(
    tmp_path: Path, top: Directory, planted: str
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    path = tmp_path / "name"
    if planted == "link":
        path.symlink_to(victim)
    elif planted == "dangling":
        path.symlink_to(tmp_path / "nowhere")
    elif planted == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("mine")
    with pytest.raises(FileExistsError):
        top.symlink(".graphify", "name")
    with pytest.raises(FileExistsError):
        top.mkdir("name")
    assert list(victim.iterdir()) == [] and not (tmp_path / "nowhere").exists()


def test_readlink_says_none_for_what_is_not_a_link(tmp_path: Path, top: Directory) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "link").symlink_to(".graphify")
    assert top.readlink("link") == ".graphify"
    assert top.readlink("file") is None and top.readlink("missing") is None


def test_locate_walks_inside_the_project_and_anchors_outside(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "docs").mkdir(parents=True)
    with Directory.anchor(project) as root:
        base, parts = safe_files.locate(project, root, project / "docs" / "reports")
        assert base is root and parts == ("docs", "reports")
        outside = tmp_path / "shared" / "deep"
        base, parts = safe_files.locate(project, root, outside)
        with base:
            assert base.path == Path(os.path.realpath(tmp_path)) and parts == ("shared", "deep")
    (project / "docs" / "reports").symlink_to(tmp_path)  # committed by a clone
    with Directory.anchor(project) as root:
        base, parts = safe_files.locate(project, root, project / "docs" / "reports")
        with pytest.raises(UnsafeFile, match="is a symlink; refusing to follow it"):
            base.walk(parts, create=True)


# -- issue 22: the one no-write-outside rule, reads that never open a device,
#    and the walk


def test_a_device_or_fifo_named_by_path_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``is_shim`` reads an interpreter named in settings: ``stat`` comes
    before ``open``, so ``/dev/st0`` (opening rewinds a tape) is never opened."""
    os.mkfifo(tmp_path / "fifo")
    opened: list[str] = []
    real_open = os.open

    def spy(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        opened.append(str(path))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", spy)
    for path in ("/dev/null", str(tmp_path / "fifo"), str(tmp_path)):
        with pytest.raises(UnsafeFile, match="not a regular file; refusing to read it"):
            safe_files.read_head(path, 2)
        with pytest.raises(UnsafeFile, match="not a regular file; refusing to read it"):
            safe_files.read_regular(path)
    assert opened == []


def test_locate_follows_links_only_outside_the_project(tmp_path: Path) -> None:
    """A path that reaches the project through the user's own link still may
    not follow a link the project holds."""
    project = tmp_path / "p"
    (project / "docs").mkdir(parents=True)
    (tmp_path / "victim").mkdir()
    (tmp_path / "alias").symlink_to(project)  # the user's
    (project / "reports").symlink_to(tmp_path / "victim")  # the clone's
    with Directory.anchor(project) as root:
        base, parts = safe_files.locate(project, root, tmp_path / "alias" / "docs" / "x")
        assert base is root and parts == ("docs", "x")
        base, parts = safe_files.locate(project, root, tmp_path / "alias" / "reports")
        assert base is root and parts == ("reports",)
        with pytest.raises(UnsafeFile, match="reports is a symlink"):
            base.walk(parts, create=True)


def test_parent_of_and_write_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (tmp_path / "victim").write_text("VICTIM")
    (project / "linked").symlink_to(tmp_path)
    (project / "report.txt").symlink_to(tmp_path / "victim")
    monkeypatch.chdir(project)
    safe_files.write_file(Path("out/new.txt"), b"new")  # relative: the current directory
    assert (project / "out" / "new.txt").read_bytes() == b"new"
    with pytest.raises(UnsafeFile, match="linked is a symlink"):
        safe_files.write_file(Path("linked/x.txt"), b"x")
    with pytest.raises(UnsafeFile, match=r"report\.txt is a symlink"):
        safe_files.write_file(Path("report.txt"), b"x")
    os.link(tmp_path / "victim", project / "hard.txt")
    safe_files.write_file(Path("hard.txt"), b"replaced")  # replaced, not written through
    assert (tmp_path / "victim").read_text() == "VICTIM"
    safe_files.write_file(tmp_path / "elsewhere" / "r.txt", b"r")  # outside: the user's
    assert (tmp_path / "elsewhere" / "r.txt").read_bytes() == b"r"


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        ("out-link", "out is a symlink"),
        ("file-link", "graph.json is a symlink"),
        ("deep-link", "cache/ast/x.json is a symlink"),
        ("fifo", "cache/ast/x.json is a FIFO"),
        ("hard-link", "graph.json has 2 hard links"),
    ],
)
def test_check_writable_tree_refuses_what_a_writer_would_follow(
    tmp_path: Path, plant: str, message: str
) -> None:
    project = tmp_path / "p"
    out = project / "out"
    (out / "cache" / "ast").mkdir(parents=True)
    (out / "graph.json").write_text("{}")
    if plant == "out-link":
        for child in sorted(out.rglob("*"), reverse=True):
            child.unlink() if not child.is_dir() else child.rmdir()
        out.rmdir()
        out.symlink_to(tmp_path)
    elif plant == "file-link":
        (out / "graph.json").unlink()
        (out / "graph.json").symlink_to(tmp_path / "victim")
    elif plant == "deep-link":
        (out / "cache" / "ast" / "x.json").symlink_to(tmp_path / "victim")
    elif plant == "fifo":
        os.mkfifo(out / "cache" / "ast" / "x.json")
    else:
        os.link(out / "graph.json", tmp_path / "outside.json")
    with pytest.raises(UnsafeFile, match=re.escape(message)):
        safe_files.check_writable_tree(project, out)


def test_check_writable_tree_accepts_a_plain_missing_or_outside_target(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "out" / "cache").mkdir(parents=True)
    (project / "out" / "graph.json").write_text("{}")
    safe_files.check_writable_tree(project, project / "out")
    safe_files.check_writable_tree(project, project / "missing" / "deeper")
    (tmp_path / "shared").symlink_to(tmp_path)  # outside the project: the user's
    safe_files.check_writable_tree(project, tmp_path / "shared")


def _names(found: list[safe_files.Found], top: Path) -> list[tuple[str, str | None]]:
    return [(os.path.relpath(f.path, top), f.problem) for f in found]


def test_walk_files_order_loops_and_the_boundary(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.md").write_text("z")
    (tmp_path / "a.md").write_text("a")
    (tmp_path / "c.md").symlink_to("a.md")  # a second name for one file: once
    (tmp_path / "b" / "up").symlink_to("..")  # a loop
    (tmp_path / "b" / "again").symlink_to("../b")  # a loop too: b is an ancestor
    (tmp_path.parent / "outside.md").write_text("o")
    (tmp_path / "out.md").symlink_to(tmp_path.parent / "outside.md")
    found = list(safe_files.walk_files(str(tmp_path), lambda n: n.endswith(".md"),
                                       inside=str(tmp_path)))  # fmt: skip
    assert _names(found, tmp_path) == [
        ("a.md", None), ("b/again", "loop"), ("b/up", "loop"), ("b/z.md", None),
        ("out.md", "outside"),
    ]  # fmt: skip


def test_walk_files_is_iterative_and_bounded(tmp_path: Path) -> None:
    here = tmp_path
    for _ in range(1100):  # beyond the recursion limit
        here = here / "d"
        here.mkdir()
    (here / "deep.md").write_text("x")
    try:
        found = list(safe_files.walk_files(str(tmp_path), lambda n: n.endswith(".md")))
        assert [f.path.endswith("deep.md") for f in found] == [True]
        with pytest.raises(safe_files.LimitExceeded, match="more than 100 entries"):
            list(safe_files.walk_files(str(tmp_path), lambda n: True, limit=100))
    finally:
        while here != tmp_path:
            for child in here.iterdir():
                child.unlink()
            here.rmdir()
            here = here.parent
