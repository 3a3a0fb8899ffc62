"""This machine's choices for the graphify-nudge hook, kept outside every repository.

The registered command is the same line on every machine and for every
teammate (``mode=... hooks="$CLAUDE_PROJECT_DIR/<hooks dir>"; command .
"$hooks/graphify-nudge.sh" ...``, :func:`mishkan_core.hook_chain.hook_command`).
What differs per machine lives in a small file that ``mishkan install`` writes
on each machine and the shim (``mishkan_core/data/graphify-nudge.sh``) reads
at every call:

    ${XDG_CONFIG_HOME:-~/.config}/mishkan/graphify-nudge.conf
    python=/abs/path/to/python3.X    which interpreter runs the hook
    pycache=/abs/path                where its bytecode is (outside every repository)

Without it the shim takes the first ``python3`` on PATH that is not a shim and
:func:`pycache_dir`. :func:`parse` reads the file by the shim's rules, so
``routing check`` sees what the hook will run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CONFIG_PARTS = ("mishkan", "graphify-nudge.conf")
#: where, under the user's cache directory, the hook's bytecode goes
PYCACHE_PARTS = ("mishkan", "pycache")
#: the file is three short lines; a larger one is not ours
MAX_BYTES = 64 * 1024
HEADER = "# mishkan install: this machine's Python and bytecode directory for graphify-nudge"


@dataclass(frozen=True)
class MachineConfig:
    """What the shim will use on this machine (None: its fallback)."""

    python: str | None
    pycache: str | None


def _base(environ: Mapping[str, str], variable: str, default: str) -> Path:
    """``$variable`` when it is absolute (the XDG rule), else ``$HOME/<default>``,
    as the shim reads them."""
    value = environ.get(variable, "")
    if os.path.isabs(value):
        return Path(value)
    return Path(environ.get("HOME") or os.path.expanduser("~")) / default


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/mishkan/graphify-nudge.conf``, else under ``~/.config``."""
    return _base(os.environ if environ is None else environ, "XDG_CONFIG_HOME", ".config").joinpath(
        *CONFIG_PARTS
    )


def pycache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where install writes the hook's bytecode and the hook loads it from:
    ``$XDG_CACHE_HOME/mishkan/pycache``, else ``~/.cache/mishkan/pycache``.
    Outside every repository: bytecode in the hooks directory, which a clone
    or a PR can ship, is never loaded."""
    return _base(os.environ if environ is None else environ, "XDG_CACHE_HOME", ".cache").joinpath(
        *PYCACHE_PARTS
    )


def render(python: str, pycache: Path) -> bytes:
    """The file install writes."""
    return f"{HEADER}\npython={python}\npycache={pycache}\n".encode()


def parse(data: bytes) -> MachineConfig:
    """The shim's reading: newline-terminated ``python=/...`` and
    ``pycache=/...`` lines, the last of each wins, anything else is ignored."""
    python = pycache = None
    for raw in data.split(b"\n")[:-1]:
        line = raw.decode("utf-8", "surrogateescape")
        if line.startswith("python=/"):
            python = line[len("python=") :]
        elif line.startswith("pycache=/"):
            pycache = line[len("pycache=") :]
    return MachineConfig(python, pycache)


def read(environ: Mapping[str, str] | None = None) -> MachineConfig | None:
    """This machine's file, or None when there is none (or it cannot be read:
    the shim then falls back too). A FIFO or device there is never opened."""
    from mishkan_core import safe_files

    try:
        data = safe_files.read_regular(config_path(environ), limit=MAX_BYTES)
    except OSError:
        return None
    return parse(data) if data is not None else None


@contextmanager
def elsewhere(root: Path) -> Iterator[None]:
    """This machine's config and bytecode under ``root`` while the block runs
    (``$XDG_CONFIG_HOME`` and ``$XDG_CACHE_HOME`` in this process's
    environment, and so in every command it starts): a throwaway install, as
    the demo's and the session bench's, leaves the user's own untouched."""
    names = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME")
    before = {name: os.environ.get(name) for name in names}
    os.environ["XDG_CONFIG_HOME"] = str(root / "config")
    os.environ["XDG_CACHE_HOME"] = str(root / "cache")
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
