"""``mishkan_core.git_index``: the tracked files, read from the index as data.

Ground truth is git itself (``git ls-files -s``), on indexes git wrote in every
version and object format this reader takes apart; what it refuses (a split
index, a torn or forged one, a FIFO) is "not known", never a guess."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mishkan_core import git_index

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip


def git(repo: Path, *argv: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True,
                          text=True, env=GIT_ENV)  # fmt: skip
    return done.stdout


def make_repo(root: Path, object_format: str = "sha1") -> Path:
    repo = root / f"repo-{object_format}"
    subprocess.run(["git", "init", "-q", f"--object-format={object_format}", str(repo)],
                   check=True, env=GIT_ENV)  # fmt: skip
    (repo / "src" / "a b").mkdir(parents=True)
    (repo / "src" / "a b" / "one.py").write_text("x = 1\n")
    (repo / "empty.py").write_text("")
    (repo / "é.py").write_text("y = 2\n")
    for i in range(40):  # names that share long prefixes (version 4 compresses them)
        (repo / "src" / f"module_with_a_long_shared_name_{i:02}.py").write_text(f"v = {i}\n")
    (repo / "link").symlink_to("src")
    git(repo, "add", "-A")
    return repo


def regular_files(repo: Path) -> list[str]:
    """git's own list: the regular files of stage 0."""
    out = []
    for line in git(repo, "ls-files", "-s", "-z").split("\0"):
        if line and line.startswith("100"):
            out.append(line.split("\t", 1)[1])
    return sorted(out)


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
@pytest.mark.parametrize("version", [2, 3, 4])
def test_every_index_git_writes_reads_as_git_lists_it(
    tmp_path: Path, object_format: str, version: int
) -> None:
    repo = make_repo(tmp_path, object_format)
    if version == 3:  # an intent-to-add entry carries the extended flags
        (repo / "later.py").write_text("z = 3\n")
        git(repo, "add", "-N", "later.py")
    git(repo, "update-index", f"--index-version={version}")
    data = (repo / ".git" / "index").read_bytes()
    assert int.from_bytes(data[4:8], "big") == version
    entries = git_index.tracked_files(repo)
    assert entries is not None
    assert sorted(e.path for e in entries) == regular_files(repo)
    sizes = {e.path: e.size for e in entries}
    assert sizes["empty.py"] == 0 and sizes["src/a b/one.py"] == 6


def test_a_project_below_the_worktree_root_gets_its_own_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    entries = git_index.tracked_files(repo / "src")
    assert entries is not None
    assert "a b/one.py" in {e.path for e in entries}
    assert all(not e.path.startswith("src/") for e in entries)


def test_a_linked_worktree_reads_its_own_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    git(repo, "commit", "-q", "-m", "one")
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", str(other))
    (other / "new.py").write_text("n = 1\n")
    git(other, "add", "new.py")
    entries = git_index.tracked_files(other)
    assert entries is not None and "new.py" in {e.path for e in entries}
    assert "new.py" not in {e.path for e in git_index.tracked_files(repo) or []}


def test_no_repository_and_no_index_yet(tmp_path: Path) -> None:
    assert git_index.tracked_files(tmp_path) is None
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True, env=GIT_ENV)
    assert git_index.tracked_files(tmp_path / "r") == []


def test_a_split_index_is_not_known(tmp_path: Path) -> None:
    """Its entries are changes to a shared index: reading them alone would
    undercount, so the reader gives up."""
    repo = make_repo(tmp_path)
    git(repo, "update-index", "--split-index")
    assert git_index.tracked_files(repo) is None


@pytest.mark.parametrize(
    "damage",
    ["torn", "count", "version", "signature", "name", "trailing", "varint"],
)
def test_a_damaged_or_forged_index_is_not_known(tmp_path: Path, damage: str) -> None:
    repo = make_repo(tmp_path)
    if damage == "varint":
        git(repo, "update-index", "--index-version=4")
    index = repo / ".git" / "index"
    data = bytearray(index.read_bytes())
    if damage == "torn":
        data = data[: len(data) // 2]
    elif damage == "count":  # more entries than the file can hold
        data[8:12] = (10**9).to_bytes(4, "big")
    elif damage == "version":
        data[4:8] = (5).to_bytes(4, "big")
    elif damage == "signature":
        data[:4] = b"DIRX"
    elif damage == "name":  # the first name's length past the end of the file
        data[12 + 40 + 20 : 12 + 40 + 22] = (0x0FFE).to_bytes(2, "big")
    elif damage == "trailing":
        data += b"\0" * 7
    else:  # the first entry strips more than the previous (empty) name holds
        data[12 + 40 + 20 + 2] = 0x05
    index.write_bytes(bytes(data))
    assert git_index.tracked_files(repo) is None


def test_a_fifo_or_a_huge_file_at_the_index_is_never_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    index = repo / ".git" / "index"
    index.unlink()
    os.mkfifo(index)  # opening it for reading would block
    assert git_index.tracked_files(repo) is None
    index.unlink()
    with index.open("wb") as f:
        f.truncate(git_index.MAX_BYTES + 1)
    assert git_index.tracked_files(repo) is None


def test_a_gitdir_file_that_points_nowhere(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".git").write_text("gitdir: ../nowhere\n")
    assert git_index.tracked_files(project) is None
    (project / ".git").write_text("not a gitdir line\n")
    assert git_index.tracked_files(project) is None
