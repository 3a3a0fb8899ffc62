"""Reading and writing a user's files when the files may be hostile.

A cloned repository controls every path below its root: it can commit a
symlink where install keeps a backup (and so make install overwrite the
user's global settings), a dangling link where settings.json should be, or a
FIFO that blocks whoever opens it. Two rules close that class:

* **Reads** open with ``O_NONBLOCK`` and ``O_NOCTTY`` and then check ``fstat``
  for a regular file, so a FIFO or a device never blocks and never becomes
  input. :func:`read_regular` follows symlinks: reading through a link is what
  a user who links their own settings expects, and it writes nothing.
* **Writes** go through a :class:`Directory`: every directory on the way is
  opened relative to its parent with ``O_NOFOLLOW``, every file is created
  with ``O_EXCL | O_NOFOLLOW`` under a temporary name in that directory and
  renamed over the target with directory file descriptors, and a target that
  is a symlink (or anything but a regular file) is refused, never followed.

The anchor of a :class:`Directory` is a path the user named on the command
line (``--project``, an absolute ``--hooks-dir``); its own ancestors may be
links, as a user's home often is. POSIX only, like the hook.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

#: larger than any configuration file these commands read
MAX_READ = 32 * 1024 * 1024

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFile(OSError):
    """A path that is not what it must be (a link, a FIFO, too large): one line."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _read_fd(fd: int, label: str, limit: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"{label}: {_kind(info.st_mode)}, not a regular file; refusing to read it")
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise UnsafeFile(f"{label}: larger than {limit} bytes; refusing to read it")
        chunks.append(chunk)


def read_regular(path: Path | str, limit: int = MAX_READ) -> bytes | None:
    """The bytes of a regular file, ``None`` if nothing is there.

    Raises :class:`UnsafeFile` for a FIFO, device, directory or socket (without
    blocking on it) and for a file over ``limit`` bytes; other ``OSError``s
    (permissions, a dangling link's ``ENOENT`` aside) propagate."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UnsafeFile(f"{path}: a directory, not a regular file; refusing to read it") from None
    try:
        return _read_fd(fd, str(path), limit)
    finally:
        os.close(fd)


class Directory:
    """A directory opened without following links; files in it are read,
    written and removed relative to its descriptor."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path  # for messages only: every operation uses ``fd``

    # -- opening -------------------------------------------------------------

    @classmethod
    def anchor(cls, path: Path, create: bool = False) -> Directory:
        """The directory the user named. The deepest existing ancestor is
        resolved (links the user chose), the rest is walked without links."""
        path = Path(os.path.abspath(path))
        missing: list[str] = []
        base = path
        while not base.exists() and base != base.parent:
            missing.append(base.name)
            base = base.parent
        if missing and not create:
            raise FileNotFoundError(errno.ENOENT, "no such directory", str(path))
        real = Path(os.path.realpath(base))
        try:
            fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except NotADirectoryError:
            raise UnsafeFile(f"{base}: not a directory") from None
        top = cls(fd, real)
        if not missing:
            return top
        try:
            return top.walk(reversed(missing), create=True)
        finally:
            top.close()

    def child(self, name: str, create: bool = False) -> Directory | None:
        """The subdirectory ``name``: ``None`` when missing (unless ``create``);
        :class:`UnsafeFile` when it is a symlink or not a directory."""
        _check_name(name)
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=self.fd)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(name, 0o755, dir_fd=self.fd)
            except FileExistsError:
                pass  # a concurrent install made it: open it below, still without links
            fd = self._open_dir_or_refuse(name)
        except (OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeFile(self._refusal(name)) from None
            raise
        return Directory(fd, self.path / name)

    def _open_dir_or_refuse(self, name: str) -> int:
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeFile(self._refusal(name)) from None
            raise

    def walk(self, parts: Iterable[str], create: bool = False) -> Directory:
        """The descendant at ``parts``, each step without following links.
        Raises ``FileNotFoundError`` when a step is missing and not ``create``."""
        current = Directory(os.dup(self.fd), self.path)
        for part in parts:
            try:
                nxt = current.child(part, create=create)
            finally:
                current.close()
            if nxt is None:
                raise FileNotFoundError(errno.ENOENT, "no such directory", str(current.path / part))
            current = nxt
        return current

    def find(self, parts: Iterable[str]) -> Directory | None:
        """Like :meth:`walk`, but ``None`` when a step is missing."""
        try:
            return self.walk(parts)
        except FileNotFoundError:
            return None

    def check_target(self, parts: tuple[str, ...], name: str) -> None:
        """Refuse now what :meth:`write` (after :meth:`walk` with ``create``)
        would refuse later, so a command can check every target before it
        writes the first one."""
        where = self.find(parts)
        if where is None:
            return
        with where:
            info = where.lstat(name)
            if info is not None and not stat.S_ISREG(info.st_mode):
                raise UnsafeFile(
                    f"{where.path / name} is {_kind(info.st_mode)}; refusing to write through it "
                    "(remove it, or replace it with a regular file)"
                )

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- files -----------------------------------------------------------------

    def _refusal(self, name: str) -> str:
        try:
            what = _kind(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode)
        except OSError:
            what = "not a directory"
        return (
            f"{self.path / name} is {what}; refusing to follow it "
            "(install writes only through real directories and files; replace it with one)"
        )

    def lstat(self, name: str) -> os.stat_result | None:
        _check_name(name)
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def exists(self, name: str) -> bool:
        return self.lstat(name) is not None

    def read(self, name: str, limit: int = MAX_READ) -> bytes | None:
        """A regular file's bytes, ``None`` if missing; a symlink, FIFO or device
        raises :class:`UnsafeFile` (without blocking)."""
        _check_name(name)
        try:
            fd = os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EISDIR):
                raise UnsafeFile(
                    f"{self.path / name} is {_kind(self._mode(name))}; refusing to read it"
                ) from None
            raise
        try:
            return _read_fd(fd, str(self.path / name), limit)
        finally:
            os.close(fd)

    def _mode(self, name: str) -> int:
        info = self.lstat(name)
        return info.st_mode if info is not None else 0

    def write(self, name: str, data: bytes, mode: int | None = None) -> None:
        """Replace ``name`` atomically with ``data``: a temporary file created
        with ``O_EXCL | O_NOFOLLOW`` here, fsynced, then renamed over it. A
        target that exists and is not a regular file is refused."""
        _check_name(name)
        info = self.lstat(name)
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(
                f"{self.path / name} is {_kind(info.st_mode)}; refusing to write through it "
                "(remove it, or replace it with a regular file)"
            )
        if mode is None:
            mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
            dir_fd=self.fd,
        )
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=self.fd)
            except OSError:
                pass
            raise
        try:
            os.fsync(self.fd)
        except OSError:
            pass  # some filesystems refuse fsync on a directory; the rename stands

    def unlink(self, name: str) -> None:
        _check_name(name)
        os.unlink(name, dir_fd=self.fd)

    def rmdir_if_empty(self, name: str) -> bool:
        _check_name(name)
        try:
            os.rmdir(name, dir_fd=self.fd)
        except OSError:
            return False
        return True

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd))


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise ValueError(f"not a single path component: {name!r}")
