"""Walking directories: text files only, hidden and dependency folders skipped, no loops."""

from __future__ import annotations

from pathlib import Path

import pytest

from mishkan_core.ingest_lint._paths import iter_files
from mishkan_core.safe_files import LimitExceeded
from tests.install._tree import fan_out


def test_walk_picks_text_files_and_skips_hidden(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x")
    (tmp_path / "docs" / "b.txt").write_text("x")
    (tmp_path / "docs" / "c.png").write_bytes(b"\x89PNG")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "d.md").write_text("x")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "e.md").write_text("x")
    found = [(Path(p).name, e) for p, e in iter_files([str(tmp_path)])]
    assert found == [("a.md", None), ("b.txt", None)]


def test_directory_symlink_loop_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("x")
    (tmp_path / "sub" / "back").symlink_to(tmp_path, target_is_directory=True)
    results = list(iter_files([str(tmp_path)]))
    errors = [e for _, e in results if e is not None]
    assert [e.rule for e in errors] == ["IL905"]
    assert [Path(p).name for p, e in results if e is None] == ["a.md"]


def test_looping_file_symlink_in_a_directory(tmp_path: Path) -> None:
    (tmp_path / "self.md").symlink_to(tmp_path / "self.md")
    results = list(iter_files([str(tmp_path)]))
    assert [(Path(p).name, e.rule if e else None) for p, e in results] == [("self.md", "IL905")]


def test_explicit_files_are_always_used_once(tmp_path: Path) -> None:
    target = tmp_path / "notes.weird"
    target.write_text("x")
    assert list(iter_files([str(target), str(target)])) == [(str(target), None)]
    missing = list(iter_files([str(tmp_path / "missing.md")]))
    assert missing[0][1] is not None and missing[0][1].rule == "IL901"


def test_a_symlink_fan_out_is_walked_once(tmp_path: Path) -> None:
    """40 levels of ``L_i/a, L_i/b -> ../L_{i+1}``: 2^40 paths, one real tree."""
    (fan_out(tmp_path) / "x.md").write_text("x")
    found = [p for p, e in iter_files([str(tmp_path)]) if e is None]
    assert len(found) == 1 and found[0].endswith("/x.md")


def test_links_out_of_the_tree_are_reported_not_followed(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "o.md").write_text("o")
    (top / "dir").symlink_to("../out")
    (top / "file.md").symlink_to("../out/o.md")
    (top / "inside.md").write_text("i")
    (top / "again.md").symlink_to("inside.md")  # inside: followed, and one real file
    results = [(Path(p).name, e.rule if e else None) for p, e in iter_files([str(top)])]
    assert results == [("again.md", None), ("dir", "IL906"), ("file.md", "IL906")]
    told = [Path(p).name for p, e in iter_files([str(top)], follow_outside=True) if e is None]
    assert told == ["again.md", "o.md"]  # dir/o.md and file.md: one file, linted once


def test_the_limits(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"{i}.md").write_text("x" * 10)
    with pytest.raises(LimitExceeded, match="more than 2 files"):
        list(iter_files([str(tmp_path)], max_files=2))
    with pytest.raises(LimitExceeded, match="more than 25 bytes"):
        list(iter_files([str(tmp_path)], max_total_bytes=25))
    assert len(list(iter_files([str(tmp_path)], max_files=3, max_total_bytes=30))) == 3
