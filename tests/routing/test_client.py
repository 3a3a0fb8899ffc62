"""routing check reports the Claude Code CLI it finds against the supported range."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mishkan_core import claude_cli
from tests.routing._cli import run_cli


def _cli(root: Path, version: str) -> Path:
    """An npm install of CLI ``version`` as the native package lays it out."""
    package = root / "node_modules" / "@anthropic-ai" / "claude-code-linux-x64"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "@anthropic-ai/claude-code-linux-x64", "version": version})
    )
    binary = package / "claude"
    binary.write_bytes(b"\x7fELF")
    binary.chmod(0o755)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    os.symlink(binary, bin_dir / "claude")
    return bin_dir


@pytest.mark.parametrize(
    ("version", "code", "says"),
    [
        (claude_cli.FLOOR, 0, f"supported {claude_cli.FLOOR} to {claude_cli.NEWEST}"),
        (claude_cli.NEWEST, 0, "supported"),
        ("2.1.68", 1, "below the supported range"),
        ("2.1.400", 0, f"newer than {claude_cli.NEWEST}"),
    ],
)
def test_the_cli_on_path_against_the_range(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    version: str,
    code: int,
    says: str,
) -> None:
    monkeypatch.setenv("PATH", str(_cli(tmp_path, version)))
    got, out, err = run_cli("mishkan_core.routing.cli", ["check"], capsys)
    assert got == code, (out, err)
    assert f"Claude Code CLI {version} at" in err and says in err
    if code:
        assert out.startswith("D-009 client-version: ") and "no agent_type" in out
        assert "fix: update Claude Code" in out


def test_no_cli_is_no_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    got, out, err = run_cli("mishkan_core.routing.cli", ["check"], capsys)
    assert (got, out) == (0, "")
    assert "Claude Code CLI: not on PATH" in err


def test_a_cli_given_by_hand_is_never_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--claude names a binary; its version comes from its package. A script
    that would leave a mark if run is left alone."""
    bin_dir = _cli(tmp_path, "2.1.200")
    marker = tmp_path / "ran"
    real = Path(os.path.realpath(bin_dir / "claude"))
    real.write_text(f"#!/bin/sh\ntouch {marker}\n")
    got, _out, err = run_cli("mishkan_core.routing.cli", ["check", "--claude", str(real)], capsys)
    assert got == 0 and "Claude Code CLI 2.1.200" in err
    assert not marker.exists()
