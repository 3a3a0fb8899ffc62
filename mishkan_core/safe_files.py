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

**The one no-write-outside rule** (docs/threat_model.md, "The mishkan
commands"): every command that writes, and every program a command starts to
write (graphify), reaches its target through :func:`parent_of` or
:func:`check_writable_tree`. Below the project root nothing is followed: not
a directory link, not a link, FIFO or device where the file is, not a second
hard link to it. A path outside the project is the user's choice, anchored as
above.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: larger than any configuration file these commands read
MAX_READ = 32 * 1024 * 1024

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFile(OSError):
    """A path that is not what it must be (a link, a FIFO, too large): one line."""


class LimitExceeded(ValueError):
    """Input past one of the documented bounds (nesting, digits, files, bytes):
    one line for the user, exit 2; never a traceback, never "findings"."""


def kind_of(mode: int) -> str:
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
        what = kind_of(info.st_mode)
        raise UnsafeFile(f"{label}: {what}, not a regular file; refusing to read it")
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


def _open_named_file(path: Path | str) -> int:
    """A read descriptor for the regular file at ``path`` (links followed: a
    path the user or a settings file named). It is ``stat``-ed first, so a
    device is never opened (opening one can act: a tape rewinds), opened
    ``O_NONBLOCK`` (a FIFO swapped in meanwhile never blocks) and must still
    be that file. Raises :class:`UnsafeFile`, or ``OSError`` (``ENOENT``...)."""
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise UnsafeFile(
            f"{path}: {kind_of(before.st_mode)}, not a regular file; refusing to read it"
        )
    try:
        fd = os.open(path, _READ_FLAGS)
    except IsADirectoryError:
        raise UnsafeFile(f"{path} changed while it was opened; refusing to read it") from None
    return _still(fd, before, str(path))


def _still(fd: int, before: os.stat_result, label: str) -> int:
    """``fd`` when it is still the regular file ``before`` described (nothing
    was swapped in between the check and the open); else closed, refused."""
    try:
        after = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (
        before.st_dev,
        before.st_ino,
    ):
        os.close(fd)
        raise UnsafeFile(f"{label} changed while it was opened; refusing to read it")
    return fd


def read_regular(path: Path | str, limit: int = MAX_READ) -> bytes | None:
    """The bytes of a regular file, ``None`` if nothing is there.

    Raises :class:`UnsafeFile` for a FIFO, device, directory or socket (never
    opened) and for a file over ``limit`` bytes; other ``OSError``s
    (permissions, a dangling link's ``ENOENT`` aside) propagate."""
    try:
        fd = _open_named_file(path)
    except FileNotFoundError:
        return None
    try:
        return _read_fd(fd, str(path), limit)
    finally:
        os.close(fd)


def read_head(path: Path | str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (fewer if it is shorter).

    Raises :class:`UnsafeFile` for a FIFO, device, directory or socket (never
    opened); other ``OSError``s (a missing file) propagate."""
    fd = _open_named_file(path)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def open_named(path: Path | str) -> int:
    """A descriptor for the directory the user named (``--project``, a
    telemetry directory): a link to one is the user's choice and is followed.

    Raises ``OSError`` (``NotADirectoryError`` when it is not a directory)."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def open_dir_at(dir_fd: int, name: str, label: str) -> int | None:
    """The subdirectory ``name`` of ``dir_fd``, never through a link: ``None``
    when nothing is there, :class:`UnsafeFile` when it is a link or not a
    directory (``label`` names it in the message)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeFile(_refusal(label, _lmode(dir_fd, name))) from None
        raise


def _refusal(label: str, mode: int) -> str:
    what = kind_of(mode) if mode else "not a directory"
    return (
        f"{label} is {what}; refusing to follow it "
        "(only real directories and files are written through; replace it with one)"
    )


def open_regular_at(dir_fd: int, name: str, label: str) -> int | None:
    """A read descriptor for the regular file ``name`` of ``dir_fd``: ``None``
    when nothing is there, :class:`UnsafeFile` for anything else.

    The name is ``lstat``-ed first, so a device is never opened (opening one
    can act: a tape rewinds); the open is ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO
    swapped in meanwhile neither blocks nor is followed) and the descriptor
    must still be that regular file."""
    try:
        before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(before.st_mode):
        raise UnsafeFile(f"{label} is {kind_of(before.st_mode)}; refusing to read it")
    try:
        fd = os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise UnsafeFile(f"{label} changed while it was opened; refusing to read it") from None
        raise
    return _still(fd, before, label)


def read_regular_at(dir_fd: int, name: str, label: str, limit: int = MAX_READ) -> bytes | None:
    """:func:`open_regular_at`, read whole: ``None`` when nothing is there;
    :class:`UnsafeFile` for anything but a regular file of at most ``limit``
    bytes."""
    fd = open_regular_at(dir_fd, name, label)
    if fd is None:
        return None
    try:
        return _read_fd(fd, label, limit)
    finally:
        os.close(fd)


def _lmode(dir_fd: int, name: str) -> int:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return 0


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
            fd = open_named(real)
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
        fd = open_dir_at(self.fd, name, str(self.path / name))
        if fd is None:
            if not create:
                return None
            try:
                self.mkdir(name)
            except FileExistsError:
                pass  # a concurrent install made it: open it below, still without links
            fd = open_dir_at(self.fd, name, str(self.path / name))
            if fd is None:
                raise FileNotFoundError(errno.ENOENT, "removed while opened", str(self.path / name))
        return Directory(fd, self.path / name)

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
            where._refuse_unless_regular(name)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- files -----------------------------------------------------------------

    def lstat(self, name: str) -> os.stat_result | None:
        _check_name(name)
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def _refuse_unless_regular(self, name: str) -> os.stat_result | None:
        """``name``'s lstat when it is a regular file or missing; else refuse."""
        info = self.lstat(name)
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(
                f"{self.path / name} is {kind_of(info.st_mode)}; refusing to write through it "
                "(remove it, or replace it with a regular file)"
            )
        return info

    def exists(self, name: str) -> bool:
        return self.lstat(name) is not None

    def read(self, name: str, limit: int = MAX_READ) -> bytes | None:
        """A regular file's bytes, ``None`` if missing; a symlink, FIFO or device
        raises :class:`UnsafeFile` (without opening it)."""
        _check_name(name)
        return read_regular_at(self.fd, name, str(self.path / name), limit)

    def write(self, name: str, data: bytes, mode: int | None = None) -> None:
        """Replace ``name`` atomically with ``data``: a temporary file created
        with ``O_EXCL | O_NOFOLLOW`` here, fsynced, then renamed over it. A
        target that exists and is not a regular file is refused."""
        info = self._refuse_unless_regular(name)
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

    # -- links -----------------------------------------------------------------

    def readlink(self, name: str) -> str | None:
        """The target of the symlink ``name``; ``None`` when ``name`` is not one."""
        _check_name(name)
        try:
            return os.readlink(name, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.EINVAL):  # nothing there, or not a link
                return None
            raise

    def symlink(self, target: str, name: str) -> None:
        """Create the link ``name -> target``; ``FileExistsError`` when anything
        is there already (never replaced, so nothing is written through)."""
        _check_name(name)
        os.symlink(target, name, dir_fd=self.fd)

    def mkdir(self, name: str) -> None:
        """Create the directory ``name``; ``FileExistsError`` when anything is there."""
        _check_name(name)
        os.mkdir(name, 0o755, dir_fd=self.fd)


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise ValueError(f"not a single path component: {name!r}")


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _split_at_project(top: str, target: Path) -> tuple[str, tuple[str, ...]]:
    """Resolve ``target`` one component at a time, following links only while
    outside the real project directory ``top``: ``(where, rest)``, ``where``
    the real path reached (inside ``top``, or the deepest existing ancestor
    outside it) and ``rest`` the components still to walk from there."""
    parts = Path(os.path.normpath(os.path.abspath(target))).parts
    current = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        if _within(current, top):
            return current, parts[i:]
        step = os.path.join(current, part)
        if not os.path.lexists(step):
            return current, parts[i:]
        current = os.path.realpath(step)
    return current, ()


def locate(project: Path, root: Directory, target: Path) -> tuple[Directory, tuple[str, ...]]:
    """Where to open the directory ``target`` from, and the components left:
    the one no-write-outside rule.

    Links are followed only while the path is outside the project (a user's
    home may be a link, and so may the way they named the project); from the
    first component inside ``project`` (already opened as ``root``) every
    step is taken from ``root`` without following a link the project holds (a
    clone commits those), however the path got there. Outside: the deepest
    existing ancestor, opened as :meth:`Directory.anchor` does, and the rest,
    created link-free when written. The caller closes the returned directory
    unless it is ``root``."""
    top = os.path.realpath(root.path)
    where, rest = _split_at_project(top, target)
    if _within(where, top):
        inner = Path(where).relative_to(top).parts
        return root, (*inner, *rest)
    return Directory.anchor(Path(where)), rest


# ---------------------------------------------------------------------------
# The one no-write-outside rule, for every command that writes


@contextmanager
def parent_of(path: Path, project: Path | None = None, create: bool = True) -> Iterator[Directory]:
    """The directory that holds ``path``, opened by the one rule
    (:func:`locate`): below ``project`` (default: the current directory,
    where a relative path lands) no link is followed, so a committed
    ``docs -> /etc`` is refused; outside it the path is the user's choice.
    Missing directories are created link-free when ``create``. Write the file
    with :meth:`Directory.write`, which refuses a link, FIFO or device there
    and replaces a hard-linked file instead of writing through it."""
    top = Path(os.path.realpath(project if project is not None else os.getcwd()))
    with Directory.anchor(top) as root:
        base, parts = locate(top, root, Path(os.path.abspath(path)).parent)
        try:
            with base.walk(parts, create=create) as where:
                yield where
        finally:
            if base is not root:
                base.close()


def write_file(path: Path, data: bytes, project: Path | None = None, mode: int = 0o644) -> None:
    """Write ``path`` atomically by the one rule (:func:`parent_of`): what a
    command's ``--out``/``--output`` names goes through here."""
    with parent_of(path, project) as where:
        where.write(Path(path).name, data, mode)


#: entries an external writer's output tree may hold before it is refused
MAX_TREE_ENTRIES = 1_000_000


def check_writable_tree(project: Path, target: Path) -> None:
    """Refuse, before a program that follows links (graphify) writes into the
    directory ``target``, anything that would carry its writes out of the
    project: a link at any component of ``target`` below ``project``, and
    anywhere inside ``target`` a link, FIFO, device or socket, or a file with
    a second hard link. A missing ``target`` (or missing tail of it) is fine:
    the writer creates it, and what is not there cannot be followed. A
    ``target`` outside the project is the user's and is not inspected.
    Raises :class:`UnsafeFile` (one line) or :class:`LimitExceeded`."""
    top = Path(os.path.realpath(project))
    with Directory.anchor(top) as root:
        base, parts = locate(top, root, target)
        if base is not root:
            base.close()
            return
        current = Directory(os.dup(root.fd), root.path)
        try:
            for part in parts:
                nxt = current.child(part)
                if nxt is None:
                    return
                current.close()
                current = nxt
            _check_subtree(current)
        finally:
            current.close()


def _check_subtree(top: Directory) -> None:
    """Every entry below ``top`` is a real directory or a regular file with
    one link; iterative (a clone may nest thousands of directories), each
    directory opened relative to its parent without following links."""
    pending = [(os.dup(top.fd), top.path)]
    seen = 0
    try:
        while pending:
            fd, where = pending.pop()
            try:
                for name in os.listdir(fd):
                    seen += 1
                    if seen > MAX_TREE_ENTRIES:
                        raise LimitExceeded(
                            f"{top.path} holds more than {MAX_TREE_ENTRIES} entries; "
                            "refusing to check it entry by entry"
                        )
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        child = open_dir_at(fd, name, str(where / name))
                        if child is not None:
                            pending.append((child, where / name))
                    elif not stat.S_ISREG(info.st_mode):
                        raise UnsafeFile(
                            f"{where / name} is {kind_of(info.st_mode)}; refusing to let a "
                            "program write through it (remove it)"
                        )
                    elif info.st_nlink > 1:
                        raise UnsafeFile(
                            f"{where / name} has {info.st_nlink} hard links; refusing to let "
                            "a program write through them (copy it to a file of its own)"
                        )
            finally:
                os.close(fd)
    finally:
        for fd, _where in pending:
            os.close(fd)


# ---------------------------------------------------------------------------
# Walking a tree that may be hostile: iterative, each real directory and file
# once, bounded

#: directory entries one walk looks at before it stops
MAX_WALK_ENTRIES = 1_000_000


@dataclass(frozen=True)
class Found:
    """One thing a walk met: a file (``info`` set) or a problem with a path.

    ``problem``: ``"error"`` (``error`` says what failed while ``doing``),
    ``"loop"`` (a link back to a directory above it), ``"outside"`` (a link
    that leaves the tree the walk stays in)."""

    path: str
    info: os.stat_result | None = None
    problem: str | None = None
    error: OSError | None = None
    doing: str = ""


def _entries(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as listing:
        return sorted(listing, key=lambda entry: entry.name)


def walk_files(
    top: str,
    want: Callable[[str], bool],
    *,
    enter: Callable[[str], bool] = lambda _name: True,
    follow_dir_links: bool = True,
    inside: str | None = None,
    limit: int = MAX_WALK_ENTRIES,
) -> Iterator[Found]:
    """The files under ``top`` whose name ``want`` accepts, depth first in
    name order, without recursion (a clone nests 1,100 directories to crash
    a recursive walk).

    Each real directory is entered once and each real file yielded once, by
    (device, inode), so 40 levels of ``L_i/a, L_i/b -> ../L_{i+1}`` cost 40
    directories, not 2^40 paths; a link back to an ancestor is a ``"loop"``.
    Directories whose name ``enter`` refuses are skipped, and linked ones too
    unless ``follow_dir_links``. With ``inside``, a link whose target resolves
    outside that directory is reported ``"outside"`` and not followed. More
    than ``limit`` entries raise :class:`LimitExceeded`."""
    boundary = os.path.realpath(inside) if inside is not None else None
    try:
        info = os.stat(top)
        listing = _entries(top)
    except OSError as exc:
        yield Found(top, problem="error", error=exc, doing="list directory")
        return
    top_key = (info.st_dev, info.st_ino)
    dirs_seen = {top_key}
    files_seen: set[tuple[int, int]] = set()
    ancestors = {top_key}
    # each level: its entries, where we are in them, and its own key
    stack: list[tuple[list[os.DirEntry[str]], list[int], tuple[int, int]]] = [
        (listing, [0], top_key)
    ]
    count = 0
    while stack:
        entries, at, key = stack[-1]
        if at[0] == len(entries):
            stack.pop()
            ancestors.discard(key)
            continue
        entry = entries[at[0]]
        at[0] += 1
        count += 1
        if count > limit:
            raise LimitExceeded(
                f"{top}: more than {limit} entries to walk; refusing to go on (name a smaller tree)"
            )
        path = entry.path
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError as exc:
            yield Found(path, problem="error", error=exc, doing="stat")
            continue
        if is_dir:
            if not enter(entry.name) or (is_link and not follow_dir_links):
                continue
            if is_link and boundary is not None and not _within(os.path.realpath(path), boundary):
                yield Found(path, problem="outside")
                continue
            try:
                sub = os.stat(path)
            except OSError as exc:
                yield Found(path, problem="error", error=exc, doing="stat")
                continue
            sub_key = (sub.st_dev, sub.st_ino)
            if sub_key in ancestors:
                yield Found(path, problem="loop")
                continue
            if sub_key in dirs_seen:
                continue  # reached before by another path: walked once
            dirs_seen.add(sub_key)
            try:
                children = _entries(path)
            except OSError as exc:
                yield Found(path, problem="error", error=exc, doing="list directory")
                continue
            ancestors.add(sub_key)
            stack.append((children, [0], sub_key))
            continue
        if not want(entry.name):
            continue
        try:
            found = os.stat(path) if is_link else entry.stat(follow_symlinks=False)
        except OSError as exc:  # a dangling link, a link loop
            yield Found(path, problem="error", error=exc, doing="stat")
            continue
        if is_link and boundary is not None and not _within(os.path.realpath(path), boundary):
            yield Found(path, problem="outside")
            continue
        file_key = (found.st_dev, found.st_ino)
        if file_key in files_seen:
            continue
        files_seen.add(file_key)
        yield Found(path, info=found)
