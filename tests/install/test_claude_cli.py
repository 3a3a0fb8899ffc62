"""The CLI version table and finding the installed CLI without running it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mishkan_core import claude_cli


def test_versions_parse_and_compare() -> None:
    assert claude_cli.parse("2.1.69") == (2, 1, 69)
    assert claude_cli.parse("2.1.332 (Claude Code)") == (2, 1, 332)
    assert claude_cli.parse("v2.1.1") is None and claude_cli.parse("2.1") is None
    assert claude_cli.at_least("2.1.100", "2.1.99") and not claude_cli.at_least("2.1.99", "2.1.100")
    assert not claude_cli.at_least("2.1.332", None)


def test_the_range_and_its_ends() -> None:
    assert claude_cli.supported(claude_cli.FLOOR) and claude_cli.supported(claude_cli.NEWEST)
    assert not claude_cli.supported("2.1.68") and not claude_cli.supported("2.1.333")
    # the floor is where the hook's own needs are met
    for key in ("agent_type", "additional_context", "post_tool_use_failure", "frontmatter_hooks"):
        assert claude_cli.has(claude_cli.FLOOR, key), key
    assert not claude_cli.has("2.1.68", "agent_type")


def test_the_envelopes_take_turns() -> None:
    """Exactly one envelope per supported version: a reminder up to 2.1.227,
    a message of its own from 2.1.228."""
    for version in ("2.1.69", "2.1.227", "2.1.228", "2.1.332"):
        envelopes = [claude_cli.has(version, k) for k in ("reminder_envelope", "context_message")]
        assert envelopes.count(True) == 1, version
    assert claude_cli.has("2.1.227", "reminder_envelope")
    assert claude_cli.has("2.1.228", "context_message")


def test_every_feature_names_a_real_first_version() -> None:
    for feature in claude_cli.FEATURES:
        assert feature.first is not None and claude_cli.parse(feature.first), feature.key
        assert claude_cli.at_least(claude_cli.NEWEST, feature.first), feature.key
        assert feature.what and feature.without


def _package(directory: Path, name: str, version: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "package.json").write_text(json.dumps({"name": name, "version": version}))


def test_the_version_of_an_npm_install_is_read_from_its_package(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules" / "@anthropic-ai"
    _package(modules / "claude-code-linux-x64", "@anthropic-ai/claude-code-linux-x64", "2.1.332")
    native = modules / "claude-code-linux-x64" / "claude"
    native.write_bytes(b"\x7fELF")
    _package(modules / "claude-code", "@anthropic-ai/claude-code", "2.1.69")
    script = modules / "claude-code" / "cli.js"
    script.write_text("#!/usr/bin/env node\n")
    (modules / "claude-code" / "bin").mkdir()
    wrapper = modules / "claude-code" / "bin" / "claude.exe"
    wrapper.write_bytes(b"")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(native, bin_dir / "claude")
    assert claude_cli.version_of(str(bin_dir / "claude")) == "2.1.332"
    assert claude_cli.version_of(str(script)) == "2.1.69"
    assert claude_cli.version_of(str(wrapper)) == "2.1.69"


def test_the_native_installer_names_the_file_by_its_version(tmp_path: Path) -> None:
    versions = tmp_path / "share" / "claude" / "versions"
    versions.mkdir(parents=True)
    (versions / "2.1.300").write_bytes(b"\x7fELF")
    link = tmp_path / "claude"
    os.symlink(versions / "2.1.300", link)
    assert claude_cli.version_of(str(link)) == "2.1.300"


@pytest.mark.parametrize(
    "package",
    [
        '{"name": "left-pad", "version": "2.1.300"}',  # someone else's package
        '{"name": "@anthropic-ai/claude-code", "version": "latest"}',
        "[1, 2]",
        "{not json",
    ],
)
def test_what_is_not_a_claude_install_has_no_version(tmp_path: Path, package: str) -> None:
    (tmp_path / "package.json").write_text(package)
    (tmp_path / "claude").write_bytes(b"")
    assert claude_cli.version_of(str(tmp_path / "claude")) is None


def test_a_fifo_for_a_package_file_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "package.json")
    (tmp_path / "claude").write_bytes(b"")
    assert claude_cli.version_of(str(tmp_path / "claude")) is None


def test_no_claude_on_path(tmp_path: Path) -> None:
    assert claude_cli.installed_version({"PATH": str(tmp_path)}) == (None, None)
