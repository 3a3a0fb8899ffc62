"""The CLI version table (docs/versions.md, ``mishkan_core.claude_cli.FEATURES``),
re-measured on every CLI of the e2e run.

One probe session per CLI (tests/e2e/cli_probe.py: probe hooks only, no
graphify-nudge) reads each feature off the evidence: the hook inputs, where
the model found a PreToolUse ``additionalContext``, which ``if`` conditions
and matchers ran, the Agent result, the subagent transcript, the debug log.
Each must be exactly what the table says for that version, so a table row
that is wrong for either end of the supported range fails CI, and
``MISHKAN_E2E_CLI=2.1.240 tox -e e2e -- -k versions`` checks any release.
"""

from __future__ import annotations

import pytest

from mishkan_core import claude_cli
from tests.e2e.cli_probe import Probe, probe
from tests.e2e.harness import Claude

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory, claude_bin: Claude) -> Probe:
    return probe(claude_bin.version, claude_bin, tmp_path_factory.mktemp("probe"))


def test_the_probe_ran_the_whole_script(probed: Probe) -> None:
    assert probed.notes["completed"], probed.run.diagnostics()


@pytest.mark.parametrize("key", [f.key for f in claude_cli.FEATURES])
def test_the_table_is_right_for_this_cli(probed: Probe, key: str) -> None:
    measured = probed.features[key]
    expected = claude_cli.has(probed.version, key)
    assert measured is expected, (
        f"Claude Code {probed.version}: {key} measured {measured}, the table says {expected} "
        f"(first {claude_cli.feature(key).first}, last {claude_cli.feature(key).last})\n"
        f"{probed.notes}\n{probed.run.diagnostics()}"
    )


def test_the_cli_is_in_the_supported_range(probed: Probe) -> None:
    assert claude_cli.supported(probed.version), claude_cli.range_text()


def test_an_unknown_if_field_leaves_every_handler_running(probed: Probe) -> None:
    """What the installer relies on for CLIs before 2.1.85: the settings file
    with ``if`` is accepted, and each handler runs as if it had none."""
    if claude_cli.has(probed.version, "if_field"):
        assert not probed.notes["if_ignored"]
    else:
        assert probed.notes["if_ignored"], probed.notes["if_fired"]


def test_the_installed_cli_reports_its_version(probed: Probe) -> None:
    """routing check reads the version from the install's files, never by running it."""
    assert probed.run.claude is not None and probed.run.claude.binary is not None
    assert claude_cli.version_of(str(probed.run.claude.binary)) == probed.version
