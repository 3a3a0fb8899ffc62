"""The Claude Code CLI that will run the hook, against the supported range.

A hook that fails open goes quiet when the client changes under it, so
``routing check`` says which CLI it found and how it stands against
``mishkan_core.claude_cli`` (docs/versions.md): below the floor is a finding
(the hook cannot work there), above the newest proven release is a note
(it probably works; nothing has proven it). The CLI is found on ``PATH`` (or
given with ``--claude``) and its version read from its install's files:
nothing is run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mishkan_core import claude_cli
from mishkan_core.routing.check import Violation

UPDATE = "update Claude Code (`claude update`, or npm install -g @anthropic-ai/claude-code)"


def check(environ: Mapping[str, str], claude: Path | None = None) -> tuple[list[Violation], str]:
    """(findings, one line saying what was found)."""
    path: str | None
    if claude is not None:
        path = str(claude)
        version = claude_cli.version_of(str(claude))
    else:
        path, version = claude_cli.installed_version(environ)
    supported = f"supported {claude_cli.range_text()}"
    if path is None:
        return [], f"Claude Code CLI: not on PATH ({supported})"
    if version is None:
        return [], f"Claude Code CLI: {path}, version unknown ({supported})"
    parsed = claude_cli.parse(version)
    assert parsed is not None
    if not claude_cli.at_least(version, claude_cli.FLOOR):
        return [
            Violation(
                "D-009",
                "client-version",
                path,
                f"Claude Code {version} is older than {claude_cli.FLOOR}, the oldest the hook "
                f"works with: its hook input has no agent_type, so "
                f"{claude_cli.feature('agent_type').without}",
                fix=UPDATE,
            )
        ], f"Claude Code CLI {version} at {path}: below the supported range ({supported})"
    if not claude_cli.supported(version):
        return [], (
            f"Claude Code CLI {version} at {path}: newer than {claude_cli.NEWEST}, the newest "
            f"proven ({supported}); prove it with `MISHKAN_E2E_CLI={version} tox -e e2e`, "
            "and watch `mishkan metrics` for calls the hook did not record"
        )
    return [], f"Claude Code CLI {version} at {path}: {supported}"
