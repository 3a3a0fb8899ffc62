"""``routing check --project``: ``D-008 graph-coverage``, the graph the hook
reads against the project's tracked source files (issue 29), and the
interpreter this machine's config names for the shim."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mishkan_core import machine_config
from tests.routing import _harness
from tests.routing._harness import World

HOOKS = "payload/mishkan/hooks"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    world = _harness.build(tmp_path, monkeypatch)
    for i in range(20):
        (world.project / "src" / "app").mkdir(parents=True, exist_ok=True)
        (world.project / "src" / "app" / f"m{i:02}.py").write_text(f"x = {i}\n")
    _harness.git(world.project, "add", "-A")
    return world


def _graph(world: World, sources: list[str]) -> None:
    nodes = [{"id": f"n{i}", "label": "f()", "source_file": s} for i, s in enumerate(sources)]
    graph = world.project / ".graphify" / "graph.json"
    graph.write_text(json.dumps({"nodes": nodes, "links": []}))


def _findings(world: World, capsys: pytest.CaptureFixture[str], check: str) -> list[str]:
    """The routing check's lines of one check (`graph-coverage`, `hook-interpreter`)."""
    _code, lines, _err = _harness.check(world, capsys)
    return [line for line in lines if check in line]


def _coverage(world: World, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return _findings(world, capsys, "graph-coverage")


def test_a_graph_of_the_project_s_code_is_clean(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _graph(world, [f"src/app/m{i:02}.py" for i in range(20)])
    assert _coverage(world, capsys) == []


def test_a_partial_graph_says_how_much_and_the_command_that_builds_it(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _graph(world, ["src/app/m00.py", "src/app/m01.py", "src/app/m02.py"])
    (line,) = _coverage(world, capsys)
    # the hook's own files are not counted; the harness's model-route.py beside them is
    assert line.startswith(
        "D-008 graph-coverage: .graphify/graph.json: the graph covers 3 of 21 tracked source "
        "files (14%), less than 50%: a partial graph"
    )
    assert line.endswith(f"; fix: cd {world.project} && graphify update .")


def test_a_graph_holding_the_hook_s_files_names_them(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _graph(world, [*(f"src/app/m{i:02}.py" for i in range(20)), f"{HOOKS}/graphify_nudge.py"])
    (line,) = _coverage(world, capsys)
    assert f"holds the graphify-nudge hook's own files ({HOOKS}/graphify_nudge.py)" in line
    assert "fix: `mishkan install` (it lists them in .graphifyignore), then `cd " in line


def test_no_graph_or_no_index_is_no_finding(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """D-008 does not commit the graph: a CI checkout has none."""
    shutil.rmtree(world.project / ".graphify")
    (world.project / ".graphify").mkdir()
    assert _coverage(world, capsys) == []
    _graph(world, [])
    (world.project / ".git" / "index").unlink()
    assert _coverage(world, capsys) == []


# -- the interpreter of the shim: this machine's config ---------------------------------


def _interpreter(world: World, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return _findings(world, capsys, "hook-interpreter")


def test_a_machine_without_the_config_is_no_finding(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CI runner never ran install: the shim falls back to PATH's python3."""
    machine_config.config_path().unlink()
    assert _interpreter(world, capsys) == []


@pytest.mark.parametrize(
    ("python", "finding"),
    [
        ("/nonexistent/python3", "names no interpreter that exists here (/nonexistent/python3)"),
        ("@SHIM@", "names a shim"),
        ("@OLD@", "interpreter is Python 3.8 but install compiled"),
    ],
)
def test_the_config_s_interpreter_is_checked_like_a_registered_one(
    world: World, capsys: pytest.CaptureFixture[str], python: str, finding: str
) -> None:
    shim = world.root / "home" / ".pyenv" / "shims" / "python3"
    shim.parent.mkdir(parents=True)
    shim.write_text('#!/bin/sh\nexec python3 "$@"\n')
    shim.chmod(0o755)
    old = world.root / "py38" / "bin" / "python3.8"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"\x7fELF")
    old.chmod(0o755)
    python = python.replace("@SHIM@", str(shim)).replace("@OLD@", str(old))
    machine_config.config_path().write_bytes(
        machine_config.render(python, machine_config.pycache_dir())
    )
    (line,) = _interpreter(world, capsys)
    assert finding in line
    assert "~/.config/mishkan/graphify-nudge.conf" in line  # which file to look at
