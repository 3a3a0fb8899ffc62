"""Install's record of what it wrote into a project, kept outside the project.

``mishkan install`` records what it wrote (the SHA-256 of the hook, its
builder and their bytecode, of the settings backup it made, each agent file's
text before it, the ``.gitignore`` lines it added, the graph link and
directory it created) so ``--uninstall`` removes exactly that and gives files
back byte for byte. A clone, a tarball or a PR controls every byte under the
project, so the record never lives there (issue 31: a planted
``.mishkan/install.json`` made uninstall write an attacker's agent file with
its own frontmatter ``hooks:``). It lives in the user's cache, beside the
hook's bytecode:
``${XDG_CACHE_HOME:-~/.cache}/mishkan/installs/<first 32 hex of SHA-256 of
the project's real path>.json``, and it names the project's real path, device
and inode: a record written for another directory at that path (a fresh clone)
is not this project's and is never used.

Without a record (a teammate's clone, a cleared cache, a project moved)
uninstall still removes every entry and line install writes, recomputed, and
leaves whatever it cannot prove this machine's install added: it never writes
text it did not write (docs/install.md, "Uninstall removes only what install
can prove it wrote").
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mishkan_core import json_text, machine_config
from mishkan_core.safe_files import Directory, UnsafeFile

VERSION = 2
#: beside the bytecode directory (``machine_config.pycache_dir``): the user's own cache
RECORDS = "installs"
#: the most a record holds: five agent files of at most 1 MiB each, and the rest
MAX_RECORD = 8 * 1024 * 1024
#: the ignore files install adds lines to, by record key
IGNORE_KEYS = ("gitignore", "graphifyignore")
_KEYS = ("files", "backup", "agents", *IGNORE_KEYS, "layout")


class RecordError(Exception):
    """The record's directory is unusable (inside the project): one line, exit 2."""


def directory(environ: dict[str, str] | None = None) -> Path:
    """Where records live: ``<the bytecode directory's parent>/installs``."""
    return machine_config.pycache_dir(environ).parent / RECORDS


def name_for(project: Path) -> str:
    """The record's file name for a project's real path."""
    return hashlib.sha256(os.fsencode(str(project))).hexdigest()[:32] + ".json"


def path_for(project: Path) -> Path:
    return directory() / name_for(project)


def _identity(root: Directory) -> tuple[int, int]:
    info = os.fstat(root.fd)
    return info.st_dev, info.st_ino


def _checked_directory(project: Path) -> Path:
    where = directory()
    anchor = where
    while not anchor.exists() and anchor != anchor.parent:
        anchor = anchor.parent
    real = Path(os.path.realpath(anchor)).joinpath(*where.parts[len(anchor.parts) :])
    if real == project or project in real.parents:
        raise RecordError(
            f"install's record directory {where} is inside the project, where a clone could "
            "plant it: set XDG_CACHE_HOME to a directory outside it"
        )
    return where


def read(project: Path, root: Directory, allowed: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """This machine's record for the project opened as ``root``, its shape
    checked (``allowed``: the lines install may add, per ignore file's record
    key); ``{}`` when there is none, or it is another directory's."""
    where = _checked_directory(project)
    try:
        with Directory.anchor(where) as records:
            data = records.read(name_for(project), limit=MAX_RECORD)
    except FileNotFoundError:
        return {}
    except UnsafeFile:
        return {}  # a link or a FIFO in the user's own cache: no record, never followed
    try:
        value = json_text.parse(data) if data is not None else None
    except json_text.JsonError:
        return {}
    device, inode = _identity(root)
    if (
        not isinstance(value, dict)
        or value.get("v") != VERSION
        or value.get("project") != str(project)
        or value.get("device") != device
        or value.get("inode") != inode
    ):
        return {}
    return _shaped(value, allowed)


def _shaped(value: dict[str, Any], allowed: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Only the fields and types install writes: a damaged record is partly no record."""
    files, backup, agents = value.get("files"), value.get("backup"), value.get("agents")
    layout = value.get("layout")
    return {
        "files": {k: v for k, v in files.items() if isinstance(v, str)}
        if isinstance(files, dict)
        else {},
        "backup": backup if isinstance(backup, str) else None,
        "agents": {
            k: v
            for k, v in agents.items()
            if isinstance(v, dict) and isinstance(v.get("before"), str)
        }
        if isinstance(agents, dict)
        else {},
        **{key: _ignore_record(value.get(key), allowed.get(key, ())) for key in IGNORE_KEYS},
        "layout": {k: layout.get(k) is True for k in ("link", "directory")}
        if isinstance(layout, dict)
        else {},
    }


def _ignore_record(record: object, allowed: tuple[str, ...]) -> dict[str, Any]:
    """An ignore file's record: the lines install added (only lines it could
    have added: uninstall removes them), whether it created the file, and
    whether it had to end the old last line first."""
    added = record.get("added") if isinstance(record, dict) else None
    if not isinstance(record, dict) or not isinstance(added, list):
        return {}
    return {
        "added": [x for x in added if x in allowed],
        "created": record.get("created") is True,
        "terminated": record.get("terminated") is True,
    }


def encode(project: Path, root: Directory, record: dict[str, Any]) -> bytes:
    device, inode = _identity(root)
    doc = {"v": VERSION, "project": str(project), "device": device, "inode": inode}
    doc.update({key: record.get(key) for key in _KEYS})
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")


def check(project: Path) -> None:
    """Refuse now what :func:`write` would refuse later (before install's first write)."""
    where = _checked_directory(project)
    try:
        with Directory.anchor(where) as records:
            records.check_target((), name_for(project))
    except FileNotFoundError:
        return


def write(project: Path, root: Directory, record: dict[str, Any]) -> None:
    with Directory.anchor(_checked_directory(project), create=True) as records:
        records.write(name_for(project), encode(project, root, record), 0o600)


def remove(project: Path) -> None:
    """Drop the project's record (this project's, or a stale one for its path)."""
    try:
        with Directory.anchor(_checked_directory(project)) as records:
            if records.exists(name_for(project)):
                records.unlink(name_for(project))
    except FileNotFoundError:
        return
