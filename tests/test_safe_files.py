"""``mishkan_core.safe_files``: the one home for opening a user's files when
they may be hostile (install, sprint-close and metrics all open through it)."""

from __future__ import annotations

import os
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
