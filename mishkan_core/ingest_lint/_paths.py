"""Turn the command's PATH arguments into files to lint, without following loops."""

from __future__ import annotations

import os
import stat

from mishkan_core.ingest_lint._model import Finding
from mishkan_core.ingest_lint._reader import E_SYMLINK_LOOP, SKIP_DIRS, TEXT_SUFFIXES, os_error

TYPE_CHECKING = False
if TYPE_CHECKING:  # (collections costs a one-file pre-commit run its import)
    from collections.abc import Iterator


def iter_files(paths: list[str]) -> Iterator[tuple[str, Finding | None]]:
    """Yield ``(path, None)`` for each file to lint, ``(path, error)`` for each path
    that cannot be used. Explicit files are always yielded; directories are walked
    for text files, skipping hidden directories and dependency folders."""
    seen: set[str] = set()
    for path in paths:
        try:
            info = os.stat(path)
        except OSError as exc:
            yield path, os_error(path, exc, "stat")
            continue
        if stat.S_ISDIR(info.st_mode):
            yield from _walk(path, frozenset({(info.st_dev, info.st_ino)}), seen)
        elif path not in seen:
            seen.add(path)
            yield path, None


def _walk(
    directory: str, ancestors: frozenset[tuple[int, int]], seen: set[str]
) -> Iterator[tuple[str, Finding | None]]:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError as exc:
        yield directory, os_error(directory, exc, "list directory")
        return
    for entry in entries:
        path = entry.path
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError as exc:
            yield path, os_error(path, exc, "stat")
            continue
        if is_dir:
            if entry.name.startswith(".") or entry.name in SKIP_DIRS:
                continue
            try:
                info = os.stat(path)
            except OSError as exc:
                yield path, os_error(path, exc, "stat")
                continue
            key = (info.st_dev, info.st_ino)
            if key in ancestors:
                yield (
                    path,
                    Finding(
                        path,
                        E_SYMLINK_LOOP,
                        1,
                        1,
                        f"symlink loop: {path} leads back to {os.path.realpath(path)}",
                        error=True,
                    ),
                )
                continue
            yield from _walk(path, ancestors | {key}, seen)
            continue
        if os.path.splitext(entry.name)[1].lower() not in TEXT_SUFFIXES:
            continue
        if entry.is_symlink() and not os.path.exists(path):
            try:
                os.stat(path)
            except OSError as exc:
                yield path, os_error(path, exc, "stat")
            else:  # pragma: no cover - raced into existence
                yield path, None
            continue
        if path not in seen:
            seen.add(path)
            yield path, None
