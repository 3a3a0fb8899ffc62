"""The files git tracks in a checkout, read from its index without running git.

The repository is untrusted: its ``.git/config`` can make git run programs
(``core.fsmonitor``, for one), so ``routing check`` and ``install`` never ask
git which files are tracked. They read ``<git dir>/index`` (the format of
git's Documentation/gitformat-index.txt, versions 2 to 4, SHA-1 or SHA-256
object names) as data: a regular file only (a FIFO or device is never
opened), at most :data:`MAX_BYTES`, every length checked against what is
left, no recursion. An index this reader does not take apart (a split index,
an unknown version, a torn file) gives ``None``: "not known", never a guess.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: the Linux kernel's index is ~10 MB for 90,000 files; this is ten times that
MAX_BYTES = 128 * 1024 * 1024
#: how far up from the project a ``.git`` is looked for
MAX_DEPTH = 64
_STAT_BYTES = 40  # ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size
_NAME_MASK = 0x0FFF
_EXTENDED = 0x4000
_STAGE = 0x3000
_REGULAR = 0o100000


@dataclass(frozen=True)
class Entry:
    """One tracked file: its path from the worktree root, and its size."""

    path: str
    size: int


def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(worktree root, git dir) of the repository holding ``start``: a
    ``.git`` directory, or a ``.git`` file's ``gitdir:`` (a linked worktree,
    a submodule). None outside a repository."""
    from mishkan_core import safe_files

    here = Path(os.path.abspath(start))
    for _ in range(MAX_DEPTH):
        dot_git = here / ".git"
        try:
            info = os.stat(dot_git)
        except OSError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            return here, dot_git
        if info is not None and stat.S_ISREG(info.st_mode):
            try:
                text = (safe_files.read_regular(dot_git, limit=4096) or b"").decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            target = Path(text[len("gitdir:") :].strip())
            return here, target if target.is_absolute() else Path(os.path.normpath(here / target))
        if here.parent == here:
            return None
        here = here.parent
    return None


def read_entries(data: bytes) -> list[Entry] | None:
    """The regular files (stage 0, or one entry per path in a conflict) of an
    index; None when ``data`` is not an index this reader takes apart whole."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    for hash_size in (20, 32):  # SHA-1, then SHA-256: the one whose layout adds up
        entries = _entries(data, version, count, hash_size)
        if entries is not None:
            return entries
    return None


def _entries(data: bytes, version: int, count: int, hash_size: int) -> list[Entry] | None:
    fixed = _STAT_BYTES + hash_size + 2
    if count > (len(data) - 12) // fixed:
        return None
    at, previous = 12, b""
    out: list[Entry] = []
    seen: set[bytes] = set()
    for _ in range(count):
        if at + fixed > len(data):
            return None
        mode = int.from_bytes(data[at + 24 : at + 28], "big")
        size = int.from_bytes(data[at + 36 : at + 40], "big")
        flags = int.from_bytes(data[at + fixed - 2 : at + fixed], "big")
        start = at + fixed
        if flags & _EXTENDED:
            if version < 3:
                return None
            start += 2
        if version == 4:
            strip, start = _varint(data, start)
            end = data.find(b"\0", start)
            if strip is None or end < 0 or strip > len(previous):
                return None
            name = previous[: len(previous) - strip] + data[start:end]
            at = end + 1
        else:
            length = flags & _NAME_MASK
            end = start + length if length < _NAME_MASK else data.find(b"\0", start)
            if end < 0 or end >= len(data) or data[end] != 0:
                return None
            name = data[start:end]
            at += ((end - at) // 8 + 1) * 8  # NUL-padded to a multiple of 8
        previous = name
        if mode & 0o170000 == _REGULAR and (flags & _STAGE == 0 or name not in seen):
            seen.add(name)
            out.append(Entry(os.fsdecode(name), size))
    return out if _extensions_end(data, at, hash_size) else None


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    """git's offset encoding (varint.c): 7 bits a byte, +1 per continuation."""
    value = -1
    for step in range(10):
        if at >= len(data):
            return None, at
        byte = data[at]
        at += 1
        value = (byte & 0x7F) if step == 0 else ((value + 1) << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at
    return None, at


def _extensions_end(data: bytes, at: int, hash_size: int) -> bool:
    """The extensions after the entries end exactly at the checksum; a split
    index (``link``) holds only changes to a shared index, so it is refused."""
    while at < len(data) - hash_size:
        if at + 8 > len(data) - hash_size or data[at : at + 4] == b"link":
            return False
        at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    return at == len(data) - hash_size


def tracked_files(project: Path) -> list[Entry] | None:
    """The files git tracks under ``project``, as paths relative to it; None
    when there is no repository or its index cannot be read whole."""
    from mishkan_core import safe_files

    found = find_git_dir(project)
    if found is None:
        return None
    root, git_dir = found
    if not git_dir.is_dir():
        return None  # a `gitdir:` that leads nowhere
    try:
        data = safe_files.read_regular(git_dir / "index", limit=MAX_BYTES)
    except OSError:
        return None
    if data is None:
        return []  # a repository with nothing added yet
    entries = read_entries(data)
    if entries is None:
        return None
    try:
        prefix = Path(os.path.abspath(project)).relative_to(root).as_posix()
    except ValueError:
        return None
    if prefix == ".":
        return entries
    lead = prefix + "/"
    return [Entry(e.path[len(lead) :], e.size) for e in entries if e.path.startswith(lead)]
