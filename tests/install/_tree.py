"""What a directory holds, for before/after comparisons in install's tests."""

from __future__ import annotations

import os
from pathlib import Path


def tree(root: Path) -> dict[str, bytes | str]:
    """Everything under ``root``: files by content, links by target,
    directories and anything else (a FIFO) by kind."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_bytes()
            else:
                out[rel] = "dir" if path.is_dir() else "other"
    return out


def fan_out(top: Path, levels: int = 40) -> Path:
    """``L0`` .. ``L<levels>`` under ``top``, each ``L_i/a`` and ``L_i/b`` a
    relative link to ``../L_{i+1}``: 2^levels paths to one real tree. Returns
    the last level, where a caller puts the one real file."""
    for i in range(levels + 1):
        (top / f"L{i}").mkdir()
    for i in range(levels):
        (top / f"L{i}" / "a").symlink_to(f"../L{i + 1}")
        (top / f"L{i}" / "b").symlink_to(f"../L{i + 1}")
    return top / f"L{levels}"
