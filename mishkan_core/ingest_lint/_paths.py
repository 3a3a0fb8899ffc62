"""Turn the command's PATH arguments into files to lint: a walk that cannot
crash, loop, explode or leave the tree it was given.

The walk is :func:`mishkan_core.safe_files.walk_files`: iterative (1,100
nested directories crashed the recursive one), each real directory and file
once by (device, inode) (40 levels of ``L_i/a, L_i/b -> ../L_{i+1}`` made the
old walk visit 2^40 paths), and a symlink whose target resolves outside the
directory named on the command line is not followed unless the caller asks
(``--follow-outside``): it is reported, IL906, and its content stays unread.
Limits on the whole run (``--max-files``, ``--max-total-bytes``, and the
entries one walk looks at) stop it with :class:`LimitExceeded`, one line and
exit 2: a tree that big is not a corpus to gate file by file.
"""

from __future__ import annotations

import os
import stat

from mishkan_core.ingest_lint._model import Finding
from mishkan_core.ingest_lint._reader import E_SYMLINK_LOOP, SKIP_DIRS, TEXT_SUFFIXES, os_error

#: a symlink under a walked directory that leads outside it (not followed)
E_OUTSIDE = "IL906"
#: files one run lints at most (explicit files included)
DEFAULT_MAX_FILES = 100_000
#: bytes of the files one run lints at most (each file counts up to --max-bytes)
DEFAULT_MAX_TOTAL_BYTES = 1 << 30

TYPE_CHECKING = False
if TYPE_CHECKING:  # (collections costs a one-file pre-commit run its import)
    from collections.abc import Iterator

    from mishkan_core.safe_files import Found, LimitExceeded

#: (LimitExceeded among them: ``__getattr__`` below gives it)
__all__ = [
    "DEFAULT_MAX_FILES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "E_OUTSIDE",
    "LimitExceeded",
    "iter_files",
]

# safe_files (dataclasses, pathlib, secrets, contextlib: three times a bare interpreter's
# start) is imported when a directory is walked or a limit is passed, never for the files
# a pre-commit run names one by one (issue 24's start-up bar)


def __getattr__(name: str) -> type[LimitExceeded]:
    """``LimitExceeded``, imported on first use: the command's ``except`` names it, and
    Python evaluates that only when an exception reaches it."""
    if name == "LimitExceeded":
        from mishkan_core.safe_files import LimitExceeded

        return LimitExceeded
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _enter(name: str) -> bool:
    return not name.startswith(".") and name not in SKIP_DIRS


def _wanted(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in TEXT_SUFFIXES


def _problem(found: Found, top: str) -> Finding:
    path = found.path
    if found.problem == "loop":
        message = f"symlink loop: {path} leads back to {os.path.realpath(path)}"
        return Finding(path, E_SYMLINK_LOOP, 1, 1, message, error=True)
    if found.problem == "outside":
        message = (
            f"not linted: a symlink to {os.path.realpath(path)}, outside {top} "
            "(--follow-outside lints what links lead to)"
        )
        return Finding(path, E_OUTSIDE, 1, 1, message, error=True)
    assert found.error is not None
    return os_error(path, found.error, found.doing)


class _Budget:
    """The run's file and byte limits."""

    def __init__(self, max_files: int, max_total_bytes: int, max_bytes: int) -> None:
        self.files_left = max_files
        self.bytes_left = max_total_bytes
        self.max_files, self.max_total_bytes, self.max_bytes = (
            max_files,
            max_total_bytes,
            max_bytes,
        )

    def spend(self, size: int) -> None:
        self.files_left -= 1
        self.bytes_left -= min(size, self.max_bytes)  # a bigger file is stat-ed, not read
        if self.files_left >= 0 and self.bytes_left >= 0:
            return
        from mishkan_core.safe_files import LimitExceeded

        if self.files_left < 0:
            raise LimitExceeded(
                f"more than {self.max_files} files to lint; name fewer paths, or raise --max-files"
            )
        if self.bytes_left < 0:
            raise LimitExceeded(
                f"more than {self.max_total_bytes} bytes to lint; name fewer paths, or raise "
                "--max-total-bytes"
            )


def iter_files(
    paths: list[str],
    *,
    follow_outside: bool = False,
    max_files: int = DEFAULT_MAX_FILES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    max_bytes: int = 2 * 1024 * 1024,
) -> Iterator[tuple[str, Finding | None]]:
    """Yield ``(path, None)`` for each file to lint, ``(path, error)`` for each path
    that cannot be used. Explicit files are always yielded (once each); directories
    are walked for text files, skipping hidden directories and dependency folders.
    Raises :class:`LimitExceeded` past a limit."""
    seen: set[str] = set()
    seen_files: set[tuple[int, int]] = set()
    budget = _Budget(max_files, max_total_bytes, max_bytes)
    for path in paths:
        try:
            info = os.stat(path)
        except OSError as exc:
            yield path, os_error(path, exc, "stat")
            continue
        if not stat.S_ISDIR(info.st_mode):
            if path not in seen:
                seen.add(path)
                seen_files.add((info.st_dev, info.st_ino))
                budget.spend(info.st_size)
                yield path, None
            continue
        from mishkan_core.safe_files import walk_files

        inside = None if follow_outside else path
        for found in walk_files(path, _wanted, enter=_enter, inside=inside):
            if found.info is None:
                yield found.path, _problem(found, path)
                continue
            key = (found.info.st_dev, found.info.st_ino)
            if key in seen_files or found.path in seen:
                continue  # one real file, reached again from another PATH
            seen_files.add(key)
            seen.add(found.path)
            budget.spend(found.info.st_size)
            yield found.path, None
