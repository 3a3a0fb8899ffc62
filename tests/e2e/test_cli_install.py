"""The e2e setup fails loudly, never skips: no npm, a failing registry, a wrong pin.

These run in the ordinary unit envs (no network: npm is replaced by a script).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.e2e import cli_install
from tests.e2e.cli_install import E2ESetupError


def _fake_npm(bin_dir: Path, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    npm = bin_dir / "npm"
    npm.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setattr(cli_install, "CACHE_DIR", cache)
    return cache


def test_no_npm_is_an_error(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(empty_cache.parent / "nothing-here"))
    with pytest.raises(E2ESetupError, match="npm is not on PATH"):
        cli_install.ensure_claude_cli()


def test_unreachable_registry_is_an_error(
    empty_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_npm(tmp_path / "bin", 'echo "npm error code ECONNREFUSED" >&2; exit 1')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin")
    with pytest.raises(E2ESetupError, match="ECONNREFUSED"):
        cli_install.ensure_claude_cli()


def test_install_without_the_native_binary_is_an_error(
    empty_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `npm view` answers the pinned version, `npm install` "succeeds" but
    # leaves no binary (as with --omit=optional)
    version = cli_install.CLAUDE_CODE_VERSION
    _fake_npm(tmp_path / "bin", f'[ "$1" = view ] && echo {version}; exit 0')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin")
    with pytest.raises(E2ESetupError, match="native binary is missing"):
        cli_install.ensure_claude_cli()


def test_script_exits_non_zero_with_one_line(
    empty_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(empty_cache.parent / "nothing-here"))
    assert cli_install.main() == 1
    err = capsys.readouterr().err
    assert err.startswith("e2e: npm is not on PATH")


def test_graphify_pin_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    def version(dist: str) -> str:
        if dist == cli_install.GRAPHIFY_DIST:
            return "0.0.1"
        raise metadata.PackageNotFoundError(dist)

    monkeypatch.setattr(metadata, "version", version)
    with pytest.raises(E2ESetupError, match=r"0\.0\.1 installed"):
        cli_install.ensure_graphify()


def test_graphify_missing_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    def version(dist: str) -> str:
        raise metadata.PackageNotFoundError(dist)

    monkeypatch.setattr(metadata, "version", version)
    with pytest.raises(E2ESetupError, match="is not installed"):
        cli_install.ensure_graphify()
