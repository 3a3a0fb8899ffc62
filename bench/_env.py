"""Interpreters, the Graphify peer and the machine description."""

from __future__ import annotations

import glob
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VERSIONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
BENCH_DIR = Path(__file__).resolve().parent
REQUIREMENTS = BENCH_DIR / "requirements.txt"
PEER_DIST = "graphifyy"
PEER_MIN_PYTHON = (3, 10)  # graphifyy 0.9.96: Requires-Python >=3.10


class SetupError(Exception):
    """The benchmark cannot run as asked (exit 2, one line on stderr)."""


@dataclass(frozen=True)
class Interpreter:
    version: str  # "3.11"
    full_version: str  # "3.11.7"
    path: str  # absolute path of the real binary, never a shim

    @property
    def version_tuple(self) -> tuple[int, int]:
        major, minor = self.version.split(".")
        return int(major), int(minor)


_PROBE = "import sys;print(sys.executable);print('%d.%d.%d' % sys.version_info[:3])"


def is_script(path: str) -> bool:
    """A `#!` script (a pyenv shim, a wrapper) rather than a binary."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return True


def probe(candidate: str) -> Interpreter:
    """Ask ``candidate`` for its real executable and version."""
    try:
        out = subprocess.run(
            [candidate, "-I", "-S", "-c", _PROBE],
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=60,
        ).stdout.decode()
    except (OSError, subprocess.SubprocessError) as e:
        raise SetupError(f"cannot run {candidate}: {e}") from None
    exe, full = out.split()
    real = os.path.realpath(exe or candidate)
    if is_script(real):
        raise SetupError(f"{candidate} resolves to a script ({real}), not an interpreter binary")
    return Interpreter(".".join(full.split(".")[:2]), full, real)


def _pyenv_candidates(version: str) -> list[str]:
    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    found: list[str] = []
    for root in filter(None, roots):
        pattern = os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")
        found.extend(sorted(glob.glob(pattern), key=_natural, reverse=True))
    return found


def _natural(s: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def discover(version: str) -> Interpreter:
    """The real binary of python``version``: pyenv's, else python3.X on PATH
    resolved through the interpreter itself (so a shim is never timed)."""
    candidates = _pyenv_candidates(version)
    on_path = shutil.which(f"python{version}")
    if on_path:
        candidates.append(on_path)
    for c in candidates:
        try:
            interp = probe(c)
        except SetupError:
            continue
        if interp.version == version:
            return interp
    raise SetupError(f"no python{version} found (pyenv versions or PATH)")


def resolve_pythons(spec: str, skip_missing: bool = False) -> list[Interpreter]:
    """``spec``: "all", or a comma list of versions ("3.9,3.13") and/or paths."""
    items = list(VERSIONS) if spec in ("", "all") else [x.strip() for x in spec.split(",")]
    out: list[Interpreter] = []
    for item in filter(None, items):
        try:
            if re.fullmatch(r"3\.\d+", item):
                out.append(discover(item))
            else:
                out.append(probe(item))
        except SetupError:
            if skip_missing:
                print(f"bench: skipping missing interpreter {item}", file=sys.stderr)
                continue
            raise
    if not out:
        raise SetupError("no interpreter to benchmark")
    return out


# ---------------------------------------------------------------------------
# The Graphify peer
# ---------------------------------------------------------------------------


def peer_requirement(path: Path = REQUIREMENTS) -> str:
    """The pinned requirement line of graphifyy in bench/requirements.txt."""
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.lower().startswith(PEER_DIST):
            return line
    raise SetupError(f"{path}: no {PEER_DIST} pin")


def _installed_version(python: str) -> str | None:
    try:
        out = subprocess.run(
            [
                python,
                "-c",
                f"import importlib.metadata as m;print(m.version({PEER_DIST!r}))",
            ],
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.decode().strip() or None


def find_graphify(
    interp: Interpreter, peer_dir: Path | None, install: bool
) -> tuple[str | None, str]:
    """The `graphify` console script of the pinned graphifyy on ``interp``.

    Looked up, in order: the running environment (tox installs
    bench/requirements.txt into it), then ``peer_dir/py3.X``, which is created
    and filled with pip when ``install`` is set. Returns (path or None, note).
    """
    requirement = peer_requirement()
    pin = requirement.split("==", 1)[1].strip() if "==" in requirement else None
    if interp.version_tuple < PEER_MIN_PYTHON:
        return None, f"{requirement} requires Python >= 3.10"
    here = Path(sys.prefix) / "bin" / "graphify"
    if sys.version_info[:2] == interp.version_tuple and here.exists():
        if pin is None or _installed_version(sys.executable) == pin:
            return str(here), f"{requirement} in the bench env ({sys.prefix})"
    if peer_dir is None:
        return None, "no peer environment (--peer-dir not given)"
    venv = peer_dir / f"py{interp.version}"
    exe = venv / "bin" / "graphify"
    py = venv / "bin" / "python"
    if exe.exists() and (pin is None or _installed_version(str(py)) == pin):
        return str(exe), f"{requirement} in {venv}"
    if not install:
        return None, f"{requirement} not installed in {venv} (--install-peers to install)"
    print(f"bench: installing {requirement} for Python {interp.full_version} in {venv}", flush=True)
    try:
        subprocess.run([interp.path, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run(
            [str(py), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], check=True
        )
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"installing {requirement} failed: {e}"
    return str(exe), f"{requirement} in {venv}"


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        out = subprocess.run(
            ["lscpu"], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=10
        ).stdout.decode()
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def git_head(path: Path) -> str:
    try:
        return (
            subprocess.run(
                ["git", "log", "-1", "--format=%h %cI", "--", path.name],
                cwd=str(path.parent),
                check=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                timeout=10,
            )
            .stdout.decode()
            .strip()
        )
    except (OSError, subprocess.SubprocessError):
        return ""


def hook_provenance(path: Path) -> dict[str, Any]:
    """Which hook was measured: sha256, last commit, and whether the file differs from it."""
    data = path.read_bytes()
    dirty: bool | None = None
    try:
        dirty = (
            subprocess.run(
                ["git", "diff", "--quiet", "HEAD", "--", path.name],
                cwd=str(path.parent),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
                check=False,
            ).returncode
            != 0
        )
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "path": str(path),
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "commit": git_head(path),
        "uncommitted_changes": dirty,
    }


def machine(interpreters: list[Interpreter]) -> dict[str, Any]:
    load: list[float] | None = None
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "os": os_name(),
        "kernel": platform.release(),
        "pythons": {i.version: {"version": i.full_version, "path": i.path} for i in interpreters},
        "loadavg_at_start": load,
    }
