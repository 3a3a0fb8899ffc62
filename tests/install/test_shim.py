"""graphify-nudge.sh, the shim install registers: what it runs, and fail-open
from the first byte (issue 29).

Every case runs the exact command ``mishkan install`` wrote into
``.claude/settings.json`` through ``/bin/sh -c``, as Claude Code starts it, in
a real process, with the stdin Claude Code sends for each event the hook is
registered for (captured from the CLI: ``shared/reference/claude-code-hooks``
and ``tests/hook/data/post_tool_use_failure.jsonl``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge
from mishkan_core import hook_chain, machine_config
from mishkan_core import install as inst
from tests.event_inputs import EVENTS, inputs
from tests.routing._cli import run_cli

PYTHON = os.path.realpath(sys.executable)
SHIM = inst.shipped_source(hook_chain.SHIM_FILE)


def shim_python() -> str:
    """The Python the shim passes to ``-c``, as the file has it."""
    text = SHIM.read_text()
    start = text.index("-c '\n") + len("-c '\n")
    return text[start : text.index('\' "$hooks" "$pycache" --mode="$mode"', start)]


def test_the_shim_runs_the_loader_the_builder_is_spawned_with() -> None:
    """One loader: the shim carries graphify_nudge.load_code verbatim (one
    statement a line, for a reviewer), and nothing in it closes the shell's
    single quotes."""
    code = shim_python()
    assert code == graphify_nudge.load_code("graphify_nudge") + "module.main()\n"
    assert code == hook_chain.IMPORT_CODE
    assert "'" not in code
    assert graphify_nudge._BUILDER_CODE.endswith("module.main()\n")


# -- the project, installed, and what breaks it --------------------------------


@dataclass
class Installed:
    project: Path
    command: str
    env: dict[str, str]

    @property
    def hooks(self) -> Path:
        return self.project / hook_chain.DEFAULT_HOOKS_DIR

    def run(self, data: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["/bin/sh", "-c", self.command], input=json.dumps(data).encode(),
                              env=self.env, cwd=str(self.project), capture_output=True,
                              timeout=60, check=False)  # fmt: skip


def _bin_dir(root: Path, *names: str) -> Path:
    """A PATH directory with only ``names`` from /bin or this interpreter."""
    directory = root / ("bin-" + "-".join(names))
    directory.mkdir()
    for name in names:
        target = PYTHON if name == "python3" else shutil.which(name, path="/usr/bin:/bin")
        assert target is not None
        (directory / name).symlink_to(target)
    return directory


@pytest.fixture
def installed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Installed:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def apply_overlay():\n    return 1\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    argv = ["--project", str(project), "--mode", "advise", "--python", PYTHON]
    code, _out, err = run_cli("mishkan_core.install", argv, capsys)
    assert code == 0, err
    doc = json.loads((project / ".claude" / "settings.json").read_text())
    commands = {str(h.command) for h in hook_chain.ours(doc["hooks"])}
    assert len(commands) == 1
    env = {
        "PATH": f"{_bin_dir(tmp_path, 'sh')}:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
        "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],
        "CLAUDE_PROJECT_DIR": str(project),
    }
    return Installed(project, commands.pop(), env)


def _rewrite(path: Path, data: bytes) -> None:
    path.unlink()
    path.write_bytes(data)


def _truncated(path: Path, share: float) -> None:
    data = path.read_bytes()
    _rewrite(path, data[: int(len(data) * share)])


def _config(installed: Installed, text: str) -> None:
    path = machine_config.config_path(installed.env)
    path.write_text(text)


def _a_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


BREAKS: dict[str, Callable[[Installed], None]] = {
    "payload missing": lambda i: shutil.rmtree(i.project / "payload"),
    "hooks dir missing": lambda i: shutil.rmtree(i.hooks),
    "shim missing": lambda i: (i.hooks / hook_chain.SHIM_FILE).unlink(),
    "shim is a directory": lambda i: _a_directory(i.hooks / hook_chain.SHIM_FILE),
    "shim truncated in its shell": lambda i: _truncated(i.hooks / hook_chain.SHIM_FILE, 0.45),
    "shim truncated in its Python": lambda i: _truncated(i.hooks / hook_chain.SHIM_FILE, 0.95),
    "shim empty": lambda i: _rewrite(i.hooks / hook_chain.SHIM_FILE, b""),
    "hook missing": lambda i: (i.hooks / hook_chain.HOOK_FILE).unlink(),
    "hook truncated": lambda i: _truncated(i.hooks / hook_chain.HOOK_FILE, 0.5),
    "hook with a syntax error": lambda i: _rewrite(
        i.hooks / hook_chain.HOOK_FILE, (i.hooks / hook_chain.HOOK_FILE).read_bytes() + b"\ndef (\n"
    ),
    "hook raises at import": lambda i: _rewrite(
        i.hooks / hook_chain.HOOK_FILE, b"raise SystemExit(3)\n"
    ),
    "interpreter missing, no python3 on PATH": lambda i: _config(
        i, "python=/nonexistent/bin/python3.11\n"
    ),
    "interpreter not a program": lambda i: _config(i, f"python={i.hooks / hook_chain.HOOK_FILE}\n"),
    "interpreter exits 3": lambda i: _config(i, f"python={shutil.which('false')}\n"),
    "no config, no python3 on PATH": lambda i: machine_config.config_path(i.env).unlink(),
    "config a directory": lambda i: _a_directory(machine_config.config_path(i.env)),
}


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_whatever_breaks_the_client_sees_exit_0_and_nothing(
    installed: Installed, broken: str, event: str
) -> None:
    """Fail-open from the first byte: before issue 29 a missing payload gave
    every tool call a traceback and exit 1, a missing interpreter exit 127."""
    data = inputs(installed.project)[event]
    installed.env["PATH"] = installed.env["PATH"].replace(":/usr/bin:/bin", "")  # no python3
    BREAKS[broken](installed)
    result = installed.run(data)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_payload_gives_exit_0_and_nothing(installed: Installed) -> None:
    installed.hooks.chmod(0)
    try:
        result = installed.run(inputs(installed.project)["PreToolUse"])
    finally:
        installed.hooks.chmod(0o755)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


# -- which interpreter -------------------------------------------------------------


def _fake_shim(root: Path, marker: Path) -> Path:
    """A version-manager shim on PATH that leaves a mark when it runs."""
    shims = root / "pyenv" / "shims"
    shims.mkdir(parents=True)
    (shims / "python3").write_text(f'#!/bin/sh\necho ran > "{marker}"\nexec "{PYTHON}" "$@"\n')
    (shims / "python3").chmod(0o755)
    return shims


def _telemetry(project: Path) -> list[str]:
    return [
        json.loads(line)["event"]
        for path in (project / ".mishkan" / "telemetry").glob("*.jsonl")
        for line in path.read_text().splitlines()
    ]


def test_the_recorded_interpreter_runs_never_a_shim_first_on_path(
    installed: Installed, tmp_path: Path
) -> None:
    marker = tmp_path / "shim-ran"
    installed.env["PATH"] = f"{_fake_shim(tmp_path, marker)}:{installed.env['PATH']}"
    result = installed.run(inputs(installed.project)["SessionStart"])
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert _telemetry(installed.project) == ["session_start"]
    assert not marker.exists()


def test_without_a_config_the_first_python3_on_path_that_is_no_shim_runs(
    installed: Installed, tmp_path: Path
) -> None:
    """A teammate who has not run install yet: it works (its first call writes
    the hook's bytecode into the user's cache), and skips the shim first on PATH."""
    machine_config.config_path(installed.env).unlink()
    marker = tmp_path / "shim-ran"
    python = _bin_dir(tmp_path, "python3")
    installed.env["PATH"] = f"{_fake_shim(tmp_path, marker)}:relative:{python}:/usr/bin:/bin"
    installed.env["XDG_CACHE_HOME"] = str(tmp_path / "teammate-cache")
    result = installed.run(inputs(installed.project)["SessionStart"])
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert _telemetry(installed.project) == ["session_start"]
    assert not marker.exists()
    cache = machine_config.pycache_dir(installed.env)
    assert [p.name for p in cache.rglob("*.pyc")] == [
        f"graphify_nudge.{sys.implementation.cache_tag}.pyc"
    ]


# -- the config, as the shim reads it and as machine_config.parse reads it ---------


CONFIGS = {
    "as install writes it": "{header}\npython={py}\npycache=/c/one\n",
    "reordered": "pycache=/c/one\npython={py}\n",
    "last one wins": "python=/nonexistent\npycache=/c/one\npython={py}\npycache=/c/two\n",
    "relative paths ignored": "python=bin/python3\npycache=cache\n",
    "a space before the path": "python= {py}\npycache= /c/one\n",
    "no newline at the end": "python={py}\npycache=/c/one",
    "CRLF": "python={py}\r\npycache=/c/one\r\n",
    "comments and blanks": "# python=/nonexistent\n\n  python=/x\npython={py}\n",
}


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_the_shim_and_routing_check_read_the_config_alike(
    installed: Installed, tmp_path: Path, case: str
) -> None:
    """routing check judges the interpreter the shim will run: both read the
    config by the same rules (mishkan_core.machine_config.parse)."""
    out = tmp_path / "argv"
    recorder = tmp_path / "recorder"
    recorder.write_text(f'#!/bin/sh\nprintf "%s\\0" "$0" "$@" > "{out}"\n')
    recorder.chmod(0o755)
    fallback = _bin_dir(tmp_path, "python3")
    installed.env["PATH"] = f"{fallback}:{installed.env['PATH']}"
    text = CONFIGS[case].format(header=machine_config.HEADER, py=recorder)
    _config(installed, text)
    result = installed.run(inputs(installed.project)["SessionStart"])
    assert result.returncode == 0
    parsed = machine_config.parse(text.encode())
    python = parsed.python if parsed.python and os.access(parsed.python, os.X_OK) else None
    if python is None:  # the shim fell back to PATH: the real hook ran
        assert not out.exists() and _telemetry(installed.project) == ["session_start"]
        return
    argv = out.read_text().split("\0")
    assert argv[0] == python
    cache = parsed.pycache or str(machine_config.pycache_dir(installed.env))
    assert argv[argv.index("-c") + 2 : argv.index("-c") + 4] == [str(installed.hooks), cache]
