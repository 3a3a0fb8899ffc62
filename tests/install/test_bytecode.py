"""Issue 20 class 2: the code that runs is the code that was reviewed.

A PR can add files beside the hook in `payload/mishkan/hooks/` that a
reviewer reads past: a `.pyc` in `__pycache__` (compiled as UNCHECKED_HASH,
or as a timestamp .pyc whose header matches the source's mtime and size, which
a tarball sets), a `graphify_nudge/` package, a `.so`, a `_json.py`. Each test
installs the hook with `mishkan install`, plants those as an attacker would,
and runs the registered command as Claude Code does (`/bin/sh -c`, with
`$CLAUDE_PROJECT_DIR`); then asks `routing check`.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import machine_config
from tests.install._record import record_path
from tests.routing._cli import run_cli

PYTHON = os.path.realpath(sys.executable)
TAG = sys.implementation.cache_tag
EVIL = "import pathlib, os\npathlib.Path(os.environ['MARKER']).write_text('ran')\n"


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    argv = ["--project", str(root), "--mode", "advise", "--python", PYTHON]
    code, _out, err = run_cli("mishkan_core.install", argv, capsys)
    assert code == 0, err
    return root


def hooks_of(project: Path) -> Path:
    return project / "payload" / "mishkan" / "hooks"


def _pyc(code: str, flags: int, word2: bytes, word3: bytes = b"") -> bytes:
    """A .pyc of `code` with the given header (PEP 552), as an attacker writes it."""
    magic = importlib.util.MAGIC_NUMBER
    body = marshal.dumps(compile(code, "graphify_nudge.py", "exec"))
    return magic + flags.to_bytes(4, "little") + word2 + word3 + body


def plant(project: Path, what: str) -> Path:
    """One of the files a PR adds beside the hook (the hook's source untouched)."""
    hooks = hooks_of(project)
    source = hooks / "graphify_nudge.py"
    cache = hooks / "__pycache__"
    cache.mkdir(exist_ok=True)
    if what == "unchecked_pyc":  # the red team's: runs whatever the source says
        path = cache / f"graphify_nudge.{TAG}.pyc"
        path.write_bytes(_pyc(EVIL, 1, b"\0" * 8))
    elif what == "timestamp_pyc":  # a tarball sets the source's mtime to the header's
        os.utime(source, (1_700_000_000, 1_700_000_000))
        size = source.stat().st_size
        path = cache / f"graphify_nudge.{TAG}.pyc"
        path.write_bytes(_pyc(EVIL, 0, (1_700_000_000).to_bytes(4, "little"),
                              size.to_bytes(4, "little")))  # fmt: skip
    elif what == "package":  # preferred to graphify_nudge.py by the import system
        path = hooks / "graphify_nudge"
        path.mkdir()
        (path / "__init__.py").write_text(EVIL + "def main():\n    pass\n")
    elif what == "extension":  # an extension module is tried before the .py
        path = hooks / f"graphify_nudge{importlib.machinery.EXTENSION_SUFFIXES[0]}"
        path.write_bytes(b"\x7fELF not really")
    elif what == "stdlib_shadow":  # the hook imports _json lazily, the builder json
        path = hooks / "_json.py"
        path.write_text(EVIL)
        (hooks / "json.py").write_text(EVIL)
    else:
        raise ValueError(what)
    return path


def run_registered(
    project: Path, data: dict[str, Any], marker: Path
) -> subprocess.CompletedProcess[str]:
    """The registered command, through /bin/sh, as Claude Code runs it."""
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"),
           "CLAUDE_PROJECT_DIR": str(project), "MARKER": str(marker),
           # this machine's config and cache, as install wrote them (tests/conftest.py)
           "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
           "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]}  # fmt: skip
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data), env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def grep_input(project: Path, agent: str = "a1") -> dict[str, Any]:
    return {"session_id": "s1", "cwd": str(project), "hook_event_name": "PreToolUse",
            "agent_id": agent, "agent_type": "hizkiah", "tool_name": "Grep",
            "tool_input": {"pattern": "apply_overlay"}, "tool_use_id": "t1"}  # fmt: skip


@pytest.mark.parametrize(
    "what", ["unchecked_pyc", "timestamp_pyc", "package", "extension", "stdlib_shadow"]
)
def test_nothing_planted_beside_the_hook_runs(project: Path, tmp_path: Path, what: str) -> None:
    """Issue 20 class 2: `__pycache__/graphify_nudge.cpython-311.pyc`, compiled as
    UNCHECKED_HASH beside an untouched graphify_nudge.py, ran on every hook call."""
    marker = tmp_path / "ran"
    plant(project, what)
    result = run_registered(project, grep_input(project), marker)
    assert (result.returncode, result.stderr) == (0, "")
    assert not marker.exists()
    log = project / ".mishkan" / "telemetry" / "s1.jsonl"
    assert [json.loads(line)["event"] for line in log.read_text().splitlines()] == ["call"]
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_builder_the_hook_spawns_runs_nothing_planted_either(
    project: Path, tmp_path: Path
) -> None:
    """The detached index builder loads the hook and itself by path too, with the
    same bytecode directory: a `json.py` beside them is never its json."""
    marker = tmp_path / "ran"
    plant(project, "stdlib_shadow")
    plant(project, "unchecked_pyc")
    graph = project / ".graphify" / "graph.json"
    nodes = [{"id": "src_a_f", "label": "f()", "file_type": "code", "source_file": "src/a.py",
              "source_location": "L1"}]  # fmt: skip
    graph.write_text(json.dumps({"nodes": nodes, "links": []}))
    run_registered(project, grep_input(project), marker)
    index = project / ".mishkan" / "telemetry" / ".index"
    deadline = time.monotonic() + 60
    while not list(index.glob("*.idx")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(index.glob("*.idx")), list(index.iterdir())
    assert not marker.exists()


def test_routing_check_reports_bytecode_beside_the_hook(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "--project", str(project)]
    code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert "hook-bytecode" not in out + err
    for what in ("unchecked_pyc", "package", "extension"):
        plant(project, what)
    code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    found = [line for line in (out + err).splitlines() if "hook-bytecode" in line]
    assert code == 1 and len(found) == 3, out + err
    assert any("unchecked hash-based bytecode" in line for line in found)
    assert any("a package of that name" in line for line in found)
    assert any("an extension module" in line for line in found)


def test_routing_check_reports_stale_and_tarball_bytecode(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(project, "timestamp_pyc")
    argv = ["check", "--project", str(project)]
    _code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert "header matches the source's mtime and size" in out + err
    os.utime(hooks_of(project) / "graphify_nudge.py")  # now the header is stale
    _code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert "stale bytecode that does not match its source" in out + err


def test_routing_check_reports_a_registration_that_trusts_the_hooks_directory(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The registration before issue 20 loaded bytecode from the hooks dir."""
    path = project / ".claude" / "settings.json"
    legacy = (
        f"{PYTHON} -I -S -c 'import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;"
        'graphify_nudge.main()\' "$CLAUDE_PROJECT_DIR/payload/mishkan/hooks" --mode=advise'
    )
    settings = json.loads(path.read_text())
    for groups in settings["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = legacy
    path.write_text(json.dumps(settings))
    _code, out, err = run_cli("mishkan_core.routing.cli", ["check", "--project", str(project)],
                              capsys)  # fmt: skip
    assert "registered without a bytecode directory outside the project" in out + err


def test_install_removes_the_bytecode_an_earlier_install_wrote_and_names_the_rest(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Installs before issue 20 wrote `__pycache__/graphify_nudge.<tag>.pyc` beside
    the hook and recorded it; the next install removes it, and names bytecode it
    did not write (never loaded by the registered command)."""
    hooks = hooks_of(project)
    (hooks / "__pycache__").mkdir()
    ours = hooks / "__pycache__" / f"graphify_nudge.{TAG}.pyc"
    ours.write_bytes(_pyc("x = 1\n", 0, b"\0" * 8))
    manifest_path = record_path(project)
    manifest = json.loads(manifest_path.read_text())
    import hashlib

    label = ours.relative_to(project).as_posix()
    manifest["files"][label] = hashlib.sha256(ours.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest))
    theirs = hooks / "__pycache__" / f"graphify_nudge_index.{TAG}.pyc"
    theirs.write_bytes(b"planted")
    argv = ["--project", str(project), "--python", PYTHON]
    code, out, err = run_cli("mishkan_core.install", argv, capsys)
    assert code == 0, err
    assert not ours.exists() and f"removed {label}" in out
    assert theirs.exists() and f"note: {theirs.relative_to(project).as_posix()} is bytecode" in err
    assert label not in json.loads(manifest_path.read_text())["files"]


def test_uninstall_removes_the_bytecode_outside_the_project(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = machine_config.pycache_dir().joinpath(*hooks_of(project).resolve().parts[1:])
    assert sorted(p.name for p in cache.iterdir()) == [
        f"graphify_nudge.{TAG}.pyc", f"graphify_nudge_index.{TAG}.pyc",
    ]  # fmt: skip
    code, _out, err = run_cli("mishkan_core.install", ["--project", str(project), "--uninstall"],
                              capsys)  # fmt: skip
    assert code == 0, err
    assert not cache.exists()
    assert machine_config.pycache_dir().is_dir()  # the bytecode directory itself stays


def test_a_bytecode_directory_inside_the_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / ".cache"))
    code, _out, err = run_cli("mishkan_core.install", ["--project", str(root)], capsys)
    assert code == 2 and "inside the project" in err and len(err.strip().splitlines()) == 1


def test_missing_bytecode_is_written_once_under_the_cache_and_nowhere_else(
    project: Path, tmp_path: Path
) -> None:
    """Where install's bytecode is missing (a cleared cache; a plugin on a
    machine install never ran on), the first call compiles the hook and its
    builder and writes their bytecode under the command's cache directory,
    at the hooks dir's path, as the import system lays it out; no other
    module's bytecode goes there, and none goes into the project."""
    cache = Path(os.path.normpath(machine_config.pycache_dir()))
    where = cache.joinpath(*hooks_of(project).parts[1:])
    for pyc in where.glob("*.pyc"):
        pyc.unlink()
    graph = project / ".graphify" / "graph.json"
    nodes = [{"id": "src_a_f", "label": "f()", "file_type": "code", "source_file": "src/a.py",
              "source_location": "L1"}]  # fmt: skip
    graph.write_text(json.dumps({"nodes": nodes, "links": []}))
    result = run_registered(project, grep_input(project), tmp_path / "ran")
    assert (result.returncode, result.stderr) == (0, "")
    index = project / ".mishkan" / "telemetry" / ".index"
    deadline = time.monotonic() + 60
    while not list(index.glob("*.idx")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(index.glob("*.idx"))
    names = {f"graphify_nudge.{TAG}.pyc", f"graphify_nudge_index.{TAG}.pyc"}
    assert {p.name for p in where.glob("*.pyc")} == names
    assert {p.name for p in cache.rglob("*.pyc")} == names
    assert not list(project.rglob("*.pyc"))


def test_the_builder_imports_its_standard_modules_before_the_prefix_is_set() -> None:
    """Every module file the builder imports at its top is imported by
    `_BUILDER_CODE` before `sys.pycache_prefix` points at the hook's cache:
    else each would be looked up (and written) there, not in its own cache."""
    import ast

    import graphify_nudge

    source = (Path(graphify_nudge.__file__).parent / "graphify_nudge_index.py").read_text()
    top = {alias.name for node in ast.parse(source).body if isinstance(node, ast.Import)
           for alias in node.names}  # fmt: skip
    files = {name for name in top if name not in sys.builtin_module_names}
    assert files == set(graphify_nudge._BUILDER_IMPORTS.split(","))
