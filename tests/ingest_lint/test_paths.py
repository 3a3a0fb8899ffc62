"""Walking directories: text files only, hidden and dependency folders skipped, no loops."""

from __future__ import annotations

from pathlib import Path

from mishkan_core.ingest_lint._paths import iter_files


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
