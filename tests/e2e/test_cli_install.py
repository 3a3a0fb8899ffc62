"""The e2e setup fails loudly, never skips: no npm, a failing registry, a wrong pin.

These run in the ordinary unit envs (no network: npm is replaced by a script).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mishkan_core import claude_cli
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


# -- the CLI axis ------------------------------------------------------------


def test_the_default_axis_is_both_ends_of_the_range() -> None:
    assert cli_install.cli_versions({}) == (claude_cli.FLOOR, claude_cli.NEWEST)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2.1.240", ("2.1.240",)),
        ("newest", (claude_cli.NEWEST,)),
        ("floor, 2.1.197,floor", (claude_cli.FLOOR, "2.1.197")),
    ],
)
def test_the_variable_chooses_the_clis(value: str, expected: tuple[str, ...]) -> None:
    assert cli_install.cli_versions({cli_install.CLI_ENV: value}) == expected


@pytest.mark.parametrize("value", ["latest", "2.1", "2.1.x", ",,"])
def test_a_bad_variable_fails_loudly(value: str) -> None:
    with pytest.raises(E2ESetupError, match=cli_install.CLI_ENV):
        cli_install.cli_versions({cli_install.CLI_ENV: value})


def test_up_to_2_1_112_the_cli_is_javascript(empty_cache: Path) -> None:
    """npm ships cli.js (run by node) up to 2.1.112, a native binary from 2.1.113."""
    js = cli_install.install_prefix("2.1.69") / "node_modules" / "@anthropic-ai" / "claude-code"
    js.mkdir(parents=True)
    (js / "cli.js").write_text("#!/usr/bin/env node\n")
    assert cli_install.claude_binary_path("2.1.69") == js / "cli.js"
    native = cli_install.claude_binary_path("2.1.332")
    assert native.name == "claude" and native.parent.name.startswith("claude-code-linux-")
