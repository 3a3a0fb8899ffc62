"""``routing check --project``: the harness read the way Claude Code reads it.

Each case under ``fixtures/scopes/`` lays a realistic change over the good
harness (``_harness.build``: project, user and managed scopes, agents,
graphify's refresh hooks, one graph) and lists, in ``expect.txt``, the
findings it must produce. Every finding names the file, its scope, the JSON
path and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.routing import _harness
from tests.routing._harness import World

CASES = sorted(p for p in (_harness.FIXTURES / "scopes").iterdir() if p.is_dir())


def test_the_good_harness_is_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    code, lines, err = _harness.check(world, capsys)
    assert (code, lines) == (0, [])
    assert (
        "clean (matrix, hook, mcp, settings project, agents, graph refresh, graph coverage, claude)"
        in err
    )


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_case(
    case: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    _harness.overlay(world, case)
    code, lines, err = _harness.check(world, capsys)
    expected = [world.subst(x) for x in (case / "expect.txt").read_text().splitlines() if x]
    assert code == 1, err
    for wanted in expected:
        assert any(wanted in line for line in lines), f"{wanted}\n-- got:\n" + "\n".join(lines)
    for line in lines:
        assert "; fix: " in line, line  # every finding names its fix
        assert "Traceback" not in line


def test_plugin_agent_satisfies_the_gate_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """zadok comes only from the enabled plugin `mishkan`, as `mishkan:zadok`."""
    world = _harness.build(tmp_path, monkeypatch)
    _harness.overlay(world, _harness.FIXTURES / "scopes" / "plugin-agents")
    _code, lines, _err = _harness.check(world, capsys)
    assert not any("gate-scope" in line for line in lines), lines


def test_plugin_dir_like_the_cli_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    (world.project / ".claude" / "agents" / "zadok.md").unlink()
    plugin = tmp_path / "myplugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "mishkan"}')
    (plugin / "agents" / "review").mkdir(parents=True)
    (plugin / "agents" / "review" / "zadok.md").write_text("---\nname: zadok\n---\n")
    code, lines, err = _harness.check(world, capsys, "--plugin-dir", str(plugin))
    assert (code, lines) == (0, []), err


def test_settings_flag_scope_is_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--settings` with `--project` is `claude --settings`: one more scope."""
    world = _harness.build(tmp_path, monkeypatch)
    flag = tmp_path / "flag.json"
    flag.write_text('{"env": {"MISHKAN_GRAPHIFY_NUDGE": "sometimes"}}')
    code, lines, _err = _harness.check(world, capsys, "--settings", str(flag))
    assert code == 1
    assert any("[flag] env.MISHKAN_GRAPHIFY_NUDGE: 'sometimes' is not a mode" in x for x in lines)


def test_an_exported_unknown_mode_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _harness.build(tmp_path, monkeypatch)
    monkeypatch.setenv("MISHKAN_GRAPHIFY_NUDGE", "of")
    code, lines, _err = _harness.check(world, capsys)
    assert code == 1
    assert lines == [
        "D-009 hook-mode: the environment: exported MISHKAN_GRAPHIFY_NUDGE='of' is not a mode; "
        "the hook runs as telemetry, whatever install chose; fix: export "
        "MISHKAN_GRAPHIFY_NUDGE=off (or unset it)"
    ]


def test_an_unreadable_managed_file_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Managed settings are read where readable (root-owned, mode 600 is common)."""
    world = _harness.build(tmp_path, monkeypatch)
    managed = world.managed / "managed-settings.json"
    managed.write_text('{"env": {"MISHKAN_GRAPHIFY_NUDGE": "advise"}}')
    managed.chmod(0)
    try:
        with managed.open():
            readable = True
    except PermissionError:
        readable = False
    code, lines, _err = _harness.check(world, capsys)
    managed.chmod(0o600)
    if readable:  # running as root: the file is readable, so it is checked
        assert code == 1 and any("[managed]" in line for line in lines)
    else:
        assert (code, lines) == (0, [])


@pytest.mark.parametrize("how", ["exported", "settings env", "a hook that builds its own"])
def test_no_index_builder_on_purpose_is_no_finding(
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A harness that runs without the builder says so (MISHKAN_GRAPHIFY_INDEX=off,
    in the shell or the settings `env` the hook sees), or has a hook from before
    the builder moved beside it, which spawns none (case no-index-builder: the finding)."""
    world = _harness.build(tmp_path, monkeypatch)
    hooks = world.project / "payload" / "mishkan" / "hooks"
    (hooks / "graphify_nudge_index.py").unlink()
    if how == "exported":
        monkeypatch.setenv("MISHKAN_GRAPHIFY_INDEX", "off")
    elif how == "settings env":
        settings = world.project / ".claude" / "settings.json"
        doc = json.loads(settings.read_text())
        doc.setdefault("env", {})["MISHKAN_GRAPHIFY_INDEX"] = "OFF"
        settings.write_text(json.dumps(doc))
    else:
        (hooks / "graphify_nudge.py").write_text("# an older hook: its index builder is inside\n")
    code, lines, err = _harness.check(world, capsys)
    assert (code, lines) == (0, []), err


def test_install_output_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `mishkan install` writes, in either scope, is what the check wants."""
    from tests.routing._cli import run_cli

    world: World = _harness.build(tmp_path, monkeypatch)
    (world.project / ".claude" / "settings.json").write_text("{}\n")
    for scope in ("agents", "project"):
        argv = ["--project", str(world.project), "--python", _harness.PYTHON, "--scope", scope]
        assert run_cli("mishkan_core.install", argv, capsys)[0] == 0
        code, lines, err = _harness.check(world, capsys)
        assert (code, lines) == (0, []), err


def test_a_relative_hooks_dir_is_read_under_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook's shell runs in the project: a relative hooks directory is
    checked there, not in whatever directory `routing check` runs from."""
    from tests.routing._cli import run_cli

    project = tmp_path / "proj"
    hooks = project / "payload" / "mishkan" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "graphify_nudge.py").write_text("")
    hook = "'import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()'"
    command = f"/opt/py/bin/python3.11 -I -S -c {hook} payload/mishkan/hooks --mode=advise"
    entry = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": entry}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _code, out, err = run_cli(
        "mishkan_core.routing.cli", ["check", "--project", str(project)], capsys
    )
    assert "interpreter is Python 3.11 but install compiled nothing" in out + err, out + err
