"""``routing check`` reads a plugin's ``hooks/hooks.json`` as the CLI does.

The CLI runs every loaded plugin's hooks (``--plugin-dir``, or enabled and
listed in ``installed_plugins.json``) after the settings' groups, with
``CLAUDE_PLUGIN_ROOT`` set to the plugin's directory. The registrations here
are written by the real ``mishkan install --scope plugin``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mishkan_core import hook_chain as hc
from tests.routing import _harness
from tests.routing._cli import run_cli
from tests.routing._harness import PYTHON, World

SECURITY = '"${CLAUDE_PLUGIN_ROOT}/hooks/pre-tool-security.sh"'
ROUTE = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/model-route.py"'


def _plugin(root: Path, *, chain: bool = True) -> Path:
    """A harness plugin with the five agents and, optionally, D-004's chain."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "mishkan"}')
    (root / "agents").mkdir()
    for agent in ("hizkiah", "salma", "oholiab", "nathan", "zadok"):
        (root / "agents" / f"{agent}.md").write_text(f"---\nname: {agent}\n---\nbody\n")
    hooks = root / "hooks"
    hooks.mkdir()
    (hooks / "pre-tool-security.sh").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "model-route.py").write_text("# stand-in\n")
    if chain:
        doc = {"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": SECURITY}]},
            {"matcher": "Agent", "hooks": [{"type": "command", "command": ROUTE}]},
        ]}}  # fmt: skip
        (hooks / "hooks.json").write_text(json.dumps(doc, indent=2) + "\n")
    return root


def _install(plugin: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> None:
    argv = ["--scope", "plugin", "--plugin-dir", str(plugin), "--python", PYTHON, *extra]
    code, _out, err = run_cli("mishkan_core.install", argv, capsys)
    assert code == 0, err


def _settings_without_the_nudge(world: World) -> None:
    """The project keeps its chain; the nudge comes from the plugin."""
    path = world.project / ".claude" / "settings.json"
    doc = json.loads(path.read_text())
    doc["hooks"] = {"PreToolUse": doc["hooks"]["PreToolUse"][:2]}
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _enable(world: World, plugin: Path) -> None:
    """Installed and enabled as `claude plugin install` leaves it."""
    (world.user / "settings.json").write_text('{"enabledPlugins": {"mishkan@market": true}}')
    (world.user / "plugins").mkdir(exist_ok=True)
    (world.user / "plugins" / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": {"mishkan@market": [{"installPath": str(plugin)}]}})
    )


def test_a_plugin_dir_the_install_wrote_is_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    _settings_without_the_nudge(world)
    plugin = _plugin(tmp_path / "plugin")
    _install(plugin, capsys, "--mode", "advise")
    code, lines, err = _harness.check(world, capsys, "--plugin-dir", str(plugin))
    assert (code, lines) == (0, []), err
    assert "plugin hooks mishkan" in err


def test_an_enabled_plugin_in_the_cli_cache_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    _settings_without_the_nudge(world)
    source = _plugin(tmp_path / "source")
    _install(source, capsys)
    cached = world.user / "plugins" / "cache" / "market" / "mishkan" / "1.0.0"
    shutil.copytree(source, cached)
    _enable(world, cached)
    code, lines, err = _harness.check(world, capsys)
    assert (code, lines) == (0, []), err
    # without the plugin, the nudge is registered nowhere
    (world.user / "settings.json").write_text('{"enabledPlugins": {"mishkan@market": false}}')
    code, lines, _err = _harness.check(world, capsys)
    assert code == 1
    assert any("graphify-nudge is not registered in any settings scope" in x for x in lines)


def test_the_plugin_alone_as_its_author_checks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = _plugin(tmp_path / "plugin")
    _install(plugin, capsys)
    monkeypatch.chdir(tmp_path)
    argv = ["check", "--plugin-dir", str(plugin)]
    code, out, err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert (code, out) == (0, ""), err
    assert "plugin hooks mishkan, agents" in err
    # the index builder deleted: the finding's fix is the plugin's install
    (plugin / "hooks" / "graphify_nudge_index.py").unlink()
    code, out, _err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith(
        "D-009 hook-index-builder: plugin/hooks/hooks.json [plugin mishkan] hooks.PreToolUse[2]"
    )
    assert f"fix: rerun `mishkan install --scope plugin --plugin-dir {plugin}`" in line


def test_registered_in_settings_and_in_the_plugin_runs_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)  # the project's settings register it too
    plugin = _plugin(tmp_path / "plugin")
    _install(plugin, capsys)
    code, lines, _err = _harness.check(world, capsys, "--plugin-dir", str(plugin))
    assert code == 1
    dupes = [x for x in lines if "is registered for" in x and "again" in x]
    # one per group install writes (hook_chain.GROUPS: two for each Post event)
    assert len(dupes) == sum(len(groups) for groups in hc.GROUPS.values()), lines
    assert all("[plugin mishkan]" in x and "the hook runs twice per call" in x for x in dupes)


def test_the_plugins_groups_run_after_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Security only in the plugin and the nudge in the project's settings:
    the CLI runs the nudge first, so the chain order is wrong."""
    world = _harness.build(tmp_path, monkeypatch)
    path = world.project / ".claude" / "settings.json"
    doc = json.loads(path.read_text())
    doc["hooks"]["PreToolUse"] = doc["hooks"]["PreToolUse"][2:]  # the nudge alone
    path.write_text(json.dumps(doc, indent=2) + "\n")
    plugin = _plugin(tmp_path / "plugin")
    code, lines, _err = _harness.check(world, capsys, "--plugin-dir", str(plugin))
    assert code == 1
    assert any(
        "hook-chain" in x and "PreToolUse order is graphify-nudge -> security -> model-route" in x
        for x in lines
    ), lines


def test_plugin_root_in_settings_is_refused_by_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plugin's hooks.json pasted into settings: CLI 2.1.197 throws 'Hook
    command references ${CLAUDE_PLUGIN_ROOT} but the hook is not associated
    with a plugin'."""
    world = _harness.build(tmp_path, monkeypatch)
    path = world.project / ".claude" / "settings.json"
    doc = json.loads(path.read_text())
    doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = SECURITY
    path.write_text(json.dumps(doc, indent=2) + "\n")
    code, lines, _err = _harness.check(world, capsys)
    assert code == 1
    assert any(
        "[project] hooks.PreToolUse[0].hooks[0]: uses ${CLAUDE_PLUGIN_ROOT}, which only a "
        "plugin's hooks/hooks.json has" in x
        for x in lines
    ), lines


def test_an_unusable_hooks_json_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    plugin = _plugin(tmp_path / "plugin")
    (plugin / "hooks" / "hooks.json").write_text('{"hooks": ')
    code, lines, err = _harness.check(world, capsys, "--plugin-dir", str(plugin))
    assert (code, lines) == (2, [])
    assert err.startswith("mishkan routing check: ") and "hooks.json" in err
    assert err.count("\n") == 1
