"""Opening and reading input files as hostile input demands (issue 11).

Opening is :mod:`mishkan_core.safe_files`' (one home for it): the directory
the user named may be a link (their choice); below it every directory and
file is opened relative to its parent's descriptor with ``O_NOFOLLOW``, a
name is ``lstat``-ed before it is opened, so a FIFO, socket or device is
never opened, and the descriptor must still be that regular file. The helpers
here only give it the metrics' reading: what is not a regular file is not an
error but *foreign* input, counted and skipped (``None``).

What is the metrics' own is reading telemetry and transcripts line by line:

* **A huge line** (a sparse file, one character repeated a million times).
  :class:`Lines` reads fixed-size chunks and never holds more than ``limit``
  bytes of a line: a longer line is skipped to its end and counted in
  ``oversized``. While skipping, the holes of a sparse file are jumped over
  with ``SEEK_DATA`` (a hole holds no newline), so ``truncate -s 1G`` costs
  milliseconds, not a gigabyte of reads.
* **A torn file** (a writer killed mid-append): the last bytes without a
  newline are kept apart in ``Lines.tail`` for the caller to judge.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

from mishkan_core import safe_files
from mishkan_core.safe_files import UnsafeFile

#: bytes read per ``read(2)``: below glibc's mmap threshold (128 KiB), so each
#: buffer comes from the heap, not from a fresh mapping (1.3x faster reads)
CHUNK = 1 << 16

_SEEK_DATA: int | None = getattr(os, "SEEK_DATA", None)

#: a descriptor for the directory the user named (a link to one is fine)
open_top = safe_files.open_named


def open_subdir(name: str, dir_fd: int) -> int | None:
    """A descriptor for the directory ``name`` inside ``dir_fd``, never through a
    link; None when it is not a real directory or cannot be opened."""
    try:
        return safe_files.open_dir_at(dir_fd, name, name)
    except OSError:
        return None


def open_regular(name: str, dir_fd: int) -> int | None:
    """A read descriptor for the regular file ``name`` inside ``dir_fd``.

    None when ``name`` is anything else (a link, FIFO, socket, device,
    directory); ``FileNotFoundError`` when there is nothing by that name;
    another ``OSError`` when it is a file that cannot be read.
    """
    try:
        fd = safe_files.open_regular_at(dir_fd, name, name)
    except UnsafeFile:
        return None
    if fd is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", name)
    return fd


def read_small(name: str, dir_fd: int, limit: int) -> bytes | None:
    """The whole regular file ``name`` when it holds at most ``limit`` bytes,
    else None (also for anything that is not a readable regular file)."""
    try:
        return safe_files.read_regular_at(dir_fd, name, name, limit)
    except OSError:
        return None


class Lines:
    """The complete lines of a descriptor, without their newline; closes it.

    Never holds more than ``limit`` bytes of one line. After iteration:
    ``oversized`` counts the lines longer than ``limit`` (skipped), ``tail`` is
    a last line that has no newline (``b""`` when there is none; None when
    that line was over-long and counted instead), ``error`` is the ``OSError``
    that ended the read early, if any.
    """

    __slots__ = ("error", "fd", "limit", "oversized", "tail")

    def __init__(self, fd: int, limit: int) -> None:
        self.fd = fd
        self.limit = limit
        self.oversized = 0
        self.tail: bytes | None = b""
        self.error: OSError | None = None

    def __iter__(self) -> Iterator[bytes]:
        fd, limit = self.fd, self.limit
        held: list[bytes] = []  # the start of the current line, from earlier chunks
        held_len = 0
        skipping = False  # inside a line already known to be over-long
        seek_data = _SEEK_DATA
        try:
            while True:
                if skipping and seek_data is not None:
                    try:  # jump over a hole: it holds no newline
                        os.lseek(fd, os.lseek(fd, 0, os.SEEK_CUR), seek_data)
                    except OSError as exc:
                        if exc.errno == errno.ENXIO:  # no data after this point
                            break
                        seek_data = None  # not supported here: read through
                chunk = os.read(fd, CHUNK)
                if not chunk:
                    break
                if b"\n" not in chunk:
                    if not skipping:
                        held.append(chunk)
                        held_len += len(chunk)
                        if held_len > limit:
                            held, held_len, skipping = [], 0, True
                    continue
                pieces = chunk.split(b"\n")
                rest = pieces.pop()
                if skipping:  # this chunk ends the over-long line
                    skipping = False
                    self.oversized += 1
                    del pieces[0]
                elif held:
                    pieces[0] = b"".join(held) + pieces[0]
                    held, held_len = [], 0
                for line in pieces:
                    if len(line) > limit:
                        self.oversized += 1
                    else:
                        yield line
                if rest:
                    held, held_len = [rest], len(rest)
                    if held_len > limit:
                        held, held_len, skipping = [], 0, True
        except OSError as exc:
            self.error = exc
        finally:
            os.close(fd)
        if skipping:
            self.oversized += 1
            self.tail = None
        elif held:
            self.tail = b"".join(held)
