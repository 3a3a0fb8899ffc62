"""``mishkan_core.ignore_lines``: what install adds to .gitignore and
.graphifyignore, and takes back exactly (install's own round trips are in
tests/install/test_install.py; graphify honouring the lines, on both ends of
the supported range, is tests/e2e/test_e2e_first_contact.py)."""

from __future__ import annotations

import fnmatch
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mishkan_core import ignore_lines


@pytest.mark.parametrize(
    ("old", "new", "added", "terminated"),
    [
        (None, b"a/\nb\n", ["a/", "b"], False),
        (b"x", b"x\na/\nb\n", ["a/", "b"], True),
        (b"x\r\n", b"x\r\na/\r\nb\r\n", ["a/", "b"], False),
        (b"/a\nb\n", b"/a\nb\n", [], False),  # both already covered
    ],
)
def test_add(old: bytes | None, new: bytes, added: list[str], terminated: bool) -> None:
    assert ignore_lines.add(old, ("a/", "b")) == (new, added, terminated)


@given(st.text(alphabet="ab/#\n\r x", max_size=40))
def test_remove_takes_back_exactly_what_add_added(text: str) -> None:
    old = text.encode()
    new, added, terminated = ignore_lines.add(old, ("# mishkan", "/p/h.py", ".m/"))
    assert ignore_lines.remove(new, added, terminated) == old


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("payload/mishkan/hooks/graphify_nudge.py", "/payload/mishkan/hooks/graphify_nudge.py"),
        ("odd [dir]/a*b?.py", "/odd [[]dir]/a[*]b[?].py"),
        ("#x/!y.py", "/#x/!y.py"),
    ],
)
def test_anchored_lines_match_exactly_that_path_for_git_and_graphify(
    tmp_path: Path, path: str, line: str
) -> None:
    assert ignore_lines.anchored(path) == line
    # graphify (0.8.31 and 0.9.96, detect._is_ignored): fnmatch of the path
    # against the line without its leading slash
    assert fnmatch.fnmatch(path, line[1:])
    assert not fnmatch.fnmatch(path + "x", line[1:])
    # git (wildmatch): check-ignore says the same
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text(line + "\n")
    done = subprocess.run(["git", "-C", str(repo), "check-ignore", "--no-index", "-q", path],
                          check=False)  # fmt: skip
    assert done.returncode == 0


@pytest.mark.parametrize("path", ["", "a\nb", "a\\b", " a", "a ", "dir #x/a.py"])
def test_paths_no_line_spells_exactly_get_none(path: str) -> None:
    assert ignore_lines.anchored(path) is None
