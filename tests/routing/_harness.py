"""A realistic multi-scope harness on disk, for ``routing check --project``.

:func:`build` lays out what a MISHKAN machine has: a git project with the
good settings (security, model-route, then graphify-nudge as install writes
it: ``mode=advise hooks="$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"; command . ...``),
the hook's files and its ``.pyc`` compiled by this interpreter into the
bytecode directory, this machine's config naming both, six agents,
graphify's four refresh hooks in ``.git/hooks``, one graph in ``.graphify/``
with ``graphify-out`` linked to it; an empty user directory (``~/.claude``)
and an empty managed directory (``/etc/claude-code``). Cases about the
registration installs wrote before issue 29 spell it with ``@NUDGE_ARGS@``
(its options and code, after an interpreter) and ``@PYCACHE@``.
:func:`overlay` then lays a case's files over it: ``user/``, ``managed/`` and
``project/`` mirror those three places.
"""

from __future__ import annotations

import json
import os
import py_compile
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.cold_start import PRE_SHIM_SNIPPET
from mishkan_core import graph_refresh, hook_chain, machine_config
from tests.routing._cli import run_cli

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "harness" / "good"
PYTHON = os.path.realpath(sys.executable)
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def nudge_args() -> str:
    """What installs before issue 29 wrote after the interpreter, as it stands
    in a JSON string: `-I -S -B -c '<code>'`."""
    return json.dumps(f"-I -S -B -c '{PRE_SHIM_SNIPPET}'")[1:-1]


def pycache_arg() -> str:
    """The bytecode directory those installs named after the hooks dir (under
    the test session's XDG_CACHE_HOME), as it stands in a JSON string."""
    return json.dumps(shlex.quote(str(machine_config.pycache_dir())))[1:-1]


@dataclass
class World:
    root: Path

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def user(self) -> Path:
        return self.home / ".claude"

    @property
    def managed(self) -> Path:
        return self.root / "etc-claude-code"

    def subst(self, text: str) -> str:
        return (
            text.replace("@NUDGE_ARGS@", nudge_args())
            .replace("@PYCACHE@", pycache_arg())
            .replace("@PYTHON@", PYTHON)
            .replace("@PROJECT@", str(self.project))
            .replace("@USER@", str(self.user))
            .replace("@HOME@", str(self.home))
            .replace("@MANAGED@", str(self.managed))
        )


def git(project: Path, *argv: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *argv],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.strip()


def graphify_hooks(
    directory: Path, names: tuple[str, ...] = tuple(graph_refresh.GRAPHIFY_HOOKS)
) -> None:
    """graphify's marker blocks, the way `graphify hook install` appends them."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        start, end = graph_refresh.GRAPHIFY_HOOKS[name]
        path = directory / name
        path.write_text(f"#!/bin/sh\n{start}\n(\n  exit 0\n)\n{end}\n")
        path.chmod(0o755)


def _copy(src: Path, dst: Path, world: World) -> None:
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        try:
            target.write_text(world.subst(data.decode("utf-8")))
        except UnicodeDecodeError:
            target.write_bytes(data)
        target.chmod(path.stat().st_mode & 0o777)


def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    world = World(tmp_path / "world")
    _copy(GOOD, world.project, world)
    hooks = world.project / "payload" / "mishkan" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-tool-security.sh").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-tool-security.sh").chmod(0o755)
    (hooks / "model-route.py").write_text("# stand-in for model-route.py\n")
    import graphify_nudge
    import graphify_nudge_index

    cache = machine_config.pycache_dir().joinpath(*hooks.parts[1:])
    for module in (graphify_nudge, graphify_nudge_index):  # as `mishkan install` puts them
        target = hooks / Path(str(module.__file__)).name
        shutil.copyfile(str(module.__file__), target)
        pyc = cache / f"{target.stem}.{sys.implementation.cache_tag}.pyc"
        mode = py_compile.PycInvalidationMode.CHECKED_HASH
        py_compile.compile(str(target), cfile=str(pyc), doraise=True, invalidation_mode=mode)
    shim = Path(str(hook_chain.__file__)).parent / "data" / hook_chain.SHIM_FILE
    shutil.copyfile(shim, hooks / hook_chain.SHIM_FILE)
    world.user.mkdir(parents=True)
    world.managed.mkdir()
    git(world.project, "init", "-q")
    graphify_hooks(world.project / ".git" / "hooks")
    (world.project / ".graphify").mkdir()
    (world.project / ".graphify" / "graph.json").write_text('{"nodes": [], "links": []}')
    (world.project / "graphify-out").symlink_to(".graphify")  # as mishkan install links it
    for name in (
        "MISHKAN_GRAPHIFY_NUDGE",
        "MISHKAN_GRAPHIFY_GRAPH",
        "GRAPHIFY_OUT",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_PLUGIN_CACHE_DIR",
        "MISHKAN_TELEMETRY_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(world.home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(world.home / ".config"))
    config = machine_config.config_path()
    config.parent.mkdir(parents=True)
    config.write_bytes(machine_config.render(PYTHON, machine_config.pycache_dir()))
    # no graphify of this machine's on PATH: its release would change the findings
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    return world


def overlay(world: World, case: Path) -> None:
    """Lay ``case``'s ``user/``, ``managed/`` and ``project/`` over the world;
    ``remove.txt`` lists files (as ``project/...``) the case takes away."""
    places = {"user": world.user, "managed": world.managed, "project": world.project}
    for part, dst in places.items():
        if (case / part).is_dir():
            _copy(case / part, dst, world)
    removals = case / "remove.txt"
    for line in removals.read_text().splitlines() if removals.exists() else []:
        part, _sep, rel = line.partition("/")
        (places[part] / rel).unlink()


def check(
    world: World, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str], str]:
    argv = [
        "check",
        "--project",
        str(world.project),
        "--user-dir",
        str(world.user),
        "--managed-dir",
        str(world.managed),
        *extra,
    ]
    code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    return code, out.splitlines(), err
