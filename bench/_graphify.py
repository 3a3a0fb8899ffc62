"""graphifyy from PyPI, one virtualenv per version under a cache directory.

Used by the advice bench (`--graphify-versions`), the version probe
(bench/graphify_versions.py) and the e2e run's graphify axis
(tests/e2e/graphify_axis.py): each asks for a version and gets the
`graphify` console script of a venv that holds exactly that release,
created once with pip and reused while its version is right.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

DIST = "graphifyy"
MIN_PYTHON = (3, 10)  # graphifyy 0.8.31 and 0.9.96: Requires-Python >=3.10
PIP_TIMEOUT = 900


class GraphifyInstallError(Exception):
    """pip could not give a venv with the asked version (one line: the tool's error)."""


def python_for_graphify() -> str:
    """An interpreter graphifyy installs on: this one when new enough, else one on PATH."""
    if sys.version_info >= MIN_PYTHON:
        return sys.executable
    for version in ("3.11", "3.12", "3.13", "3.10"):
        found = shutil.which(f"python{version}")
        if found:
            return found
    raise GraphifyInstallError(f"{DIST} needs Python >= 3.10 and none was found on PATH")


def installed_version(graphify: Path) -> str | None:
    """The graphifyy version of the venv a `graphify` console script belongs to."""
    python = graphify.parent / "python"
    code = f"import importlib.metadata as m;print(m.version({DIST!r}))"
    try:
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def venv_dir(venvs: Path, version: str) -> Path:
    return venvs / f"graphify-{version}"


def ensure(version: str, venvs: Path, who: str = "bench") -> Path:
    """The `graphify` script of graphifyy==`version` in `venvs/graphify-<version>`,
    installed with pip on first use. Raises GraphifyInstallError with pip's last line."""
    venv = venv_dir(venvs, version)
    exe = venv / "bin" / "graphify"
    if exe.is_file() and installed_version(exe) == version:
        return exe
    print(f"{who}: installing {DIST}=={version} into {venv}", file=sys.stderr, flush=True)
    venvs.mkdir(parents=True, exist_ok=True)
    for argv in (
        [python_for_graphify(), "-m", "venv", "--clear", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{DIST}=={version}"],
    ):
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise GraphifyInstallError(f"`{' '.join(argv[:4])} ...`: {exc}") from None
        if done.returncode != 0:
            lines = [
                line
                for line in (done.stderr + done.stdout).splitlines()
                if line.strip() and "is ignored" not in line
            ]
            tail = lines[-1] if lines else "no output"
            raise GraphifyInstallError(
                f"`{' '.join(argv[:4])} ...` exited {done.returncode}: {tail}"
            )
    got = installed_version(exe)
    if got != version:
        raise GraphifyInstallError(f"{venv}: {DIST} {got} installed, not {version}")
    return exe


def remove(version: str, venvs: Path) -> None:
    shutil.rmtree(venv_dir(venvs, version), ignore_errors=True)


#: run in a release's own interpreter: what its `graphify explain ARG` answers for
#: every argument of an index (`_resolve_single_node` where it exists, else the
#: first of `_find_node`, as 0.8.31's explain does); prints the wrong ones
RESOLVE = """
import json, sys
from graphify import serve
from networkx.readwrite import json_graph

def answer(g, arg):
    if hasattr(serve, "_resolve_single_node"):
        return serve._resolve_single_node(g, arg)[0]
    found = serve._find_node(g, arg)
    return found[0] if found else None

raw = json.loads(open(sys.argv[1]).read())
try:
    g = json_graph.node_link_graph({**raw, "directed": True}, edges="links")
except TypeError:
    g = json_graph.node_link_graph({**raw, "directed": True})
wrong = []
for line in open(sys.argv[2]).read().splitlines():
    kind, key, payload = line.split("\\t", 2)
    if kind == "f":  # [explain argument or null, importers, dependents, definitions]
        arg = json.loads(payload)[0]
        if arg is None:
            continue  # no argument resolves to this file: the answer has no command
        nid = answer(g, arg)
        if nid is None or g.nodes[nid].get("source_file") != key:
            wrong.append(f"file {key}: {arg} -> {nid}")
        continue
    for row in json.loads(payload)[1]:  # [name, path, line, arg or null, node id, ...]
        name, arg, node_id = row[0], row[3], row[4]
        if arg is None:
            continue
        nid = answer(g, arg)
        if nid != node_id:
            wrong.append(f"{name}: {arg} -> {nid}, not {node_id}")
print(json.dumps(wrong))
"""


def resolve_all(python: Path, graph: Path, index_lines: list[bytes], work: Path) -> list[str]:
    """The index lines whose explain argument the release at `python` does not
    resolve to the line's own node (or file)."""
    lines = work / "index-lines.txt"
    lines.write_bytes(b"".join(line + b"\n" for line in index_lines))
    done = subprocess.run([str(python), "-c", RESOLVE, str(graph), str(lines)],
                          capture_output=True, text=True, timeout=600, check=True)  # fmt: skip
    wrong: list[str] = json.loads(done.stdout)
    return wrong
