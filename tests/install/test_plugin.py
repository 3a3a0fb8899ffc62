"""``mishkan install --scope plugin``: the hook shipped inside a Claude Code plugin.

The plugin's ``hooks/hooks.json`` gets the registration, with the plugin's
own directory named ``${CLAUDE_PLUGIN_ROOT}``; the hook and its builder go
beside it, precompiled as checked-hash ``.pyc`` files (the CLI copies a
plugin into its cache without keeping mtimes). The same guarantees as the
other scopes: merged with the plugin's hooks in D-004's order, idempotent,
and undone byte for byte. The real CLI's view of it (``claude plugin
validate``, a session with ``--plugin-dir``, the cache copy) is
tests/e2e/test_e2e_plugin.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import hook_chain
from tests.install._tree import tree
from tests.routing._cli import run_cli

MODULE = "mishkan_core.install"
PYTHON = os.path.realpath(sys.executable)
SETTINGS_FIXTURES = sorted((Path(__file__).parent / "fixtures" / "settings").glob("*.json"))
#: the hooks.json of a harness plugin before install: D-004's chain, its own files
HARNESS_HOOKS = """{
  "description": "MISHKAN harness hooks",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/pre-tool-security.sh"}
        ]
      },
      {
        "matcher": "Agent",
        "hooks": [
          {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/model-route.py"}
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/post-tool-observe.sh"}
        ]
      }
    ]
  }
}
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    root = tmp_path / "payload" / "mishkan"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "mishkan", "version": "1.0.0", "description": "harness"}\n'
    )
    hooks = root / "hooks"
    hooks.mkdir()
    for name in ("pre-tool-security.sh", "model-route.py", "post-tool-observe.sh"):
        (hooks / name).write_text("# stand-in\n")
    (root / "agents").mkdir()
    (root / "agents" / "hizkiah.md").write_text("---\nname: hizkiah\n---\nbody\n")
    return root


def _run(plugin: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    argv = ["--scope", "plugin", "--plugin-dir", str(plugin), *extra]
    if "--uninstall" not in extra and "--python" not in extra:
        argv += ["--python", PYTHON]
    return run_cli(MODULE, argv, capsys)


def _hooks_json(plugin: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((plugin / "hooks" / "hooks.json").read_text())
    return doc


def _ours(doc: dict[str, Any]) -> list[hook_chain.Handler]:
    return hook_chain.ours(doc.get("hooks"))


def test_registers_in_the_plugin_after_security_and_model_route(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (plugin / "hooks" / "hooks.json").write_text(HARNESS_HOOKS)
    code, out, err = _run(plugin, capsys, "--mode", "advise")
    assert code == 0, err
    doc = _hooks_json(plugin)
    assert doc["description"] == "MISHKAN harness hooks"
    roles = [h.role for h in hook_chain.handlers(doc["hooks"], ("PreToolUse",))]
    assert roles == [hook_chain.SECURITY, hook_chain.MODEL_ROUTE, hook_chain.NUDGE]
    assert {h.event for h in _ours(doc)} == set(hook_chain.EVENTS)
    command = hook_chain.hook_command(
        PYTHON, plugin / "hooks", plugin, "advise", hook_chain.PLUGIN_ROOT_REF
    )
    assert {h.command for h in _ours(doc)} == {command}
    assert '"${CLAUDE_PLUGIN_ROOT}/hooks" --mode=advise' in command
    parsed = hook_chain.parse_command(command)
    assert parsed.form == "import" and parsed.hooks_dir == "${CLAUDE_PLUGIN_ROOT}/hooks"
    # the plugin's own post hook is kept, and our groups (hook_chain.GROUPS)
    # are added after it
    post = doc["hooks"]["PostToolUse"]
    assert post[0]["hooks"][0]["command"].endswith("post-tool-observe.sh")
    assert [(g["matcher"], g["hooks"][0].get("if")) for g in post[1:]] == list(
        hook_chain.GROUPS["PostToolUse"]
    )
    assert "updated hooks/hooks.json: PreToolUse, PostToolUse, PostToolUseFailure" in out
    assert "claude plugin validate" in out
    for name in ("graphify_nudge.py", "graphify_nudge_index.py"):
        assert (plugin / "hooks" / name).read_bytes() == (
            Path(__file__).resolve().parents[2] / name
        ).read_bytes()


def test_no_hooks_json_yet_then_uninstall_leaves_the_plugin_as_it_was(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree(plugin)
    assert _run(plugin, capsys)[0] == 0
    assert _ours(_hooks_json(plugin))
    code, out, _err = _run(plugin, capsys, "--uninstall")
    assert code == 0
    assert "removed hooks/hooks.json (install had created it)" in out
    assert tree(plugin) == before


@pytest.mark.parametrize("fixture", SETTINGS_FIXTURES, ids=[p.name for p in SETTINGS_FIXTURES])
def test_twice_then_uninstall_restores_the_hooks_json_bytes(
    fixture: Path, plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every text shape the settings tests use (inline arrays, CRLF, tabs,
    non-ASCII, empty containers...), as the plugin's hooks.json."""
    original = fixture.read_bytes()
    (plugin / "hooks" / "hooks.json").write_bytes(original)
    before = tree(plugin)
    assert _run(plugin, capsys)[0] == 0
    first = tree(plugin)
    assert first["hooks/hooks.json"] != original
    assert first["hooks/hooks.json.mishkan-backup"] == original
    code, out, _err = _run(plugin, capsys)
    assert code == 0
    assert "hooks/hooks.json: already up to date" in out
    assert tree(plugin) == first  # a second run writes nothing
    assert _run(plugin, capsys, "--uninstall")[0] == 0
    assert tree(plugin) == before


def test_uninstall_keeps_what_the_author_added_since(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (plugin / "hooks" / "hooks.json").write_text(HARNESS_HOOKS)
    assert _run(plugin, capsys)[0] == 0
    doc = _hooks_json(plugin)
    doc["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "echo stop"}]}]
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(doc, indent=2) + "\n")
    code, _out, err = _run(plugin, capsys, "--uninstall")
    assert code == 0
    after = _hooks_json(plugin)
    assert not _ours(after)
    assert after["hooks"]["Stop"] == doc["hooks"]["Stop"]
    assert len(after["hooks"]["PreToolUse"]) == 2
    assert "pre-install copy stays at hooks/hooks.json.mishkan-backup" in err


def test_the_pyc_is_checked_hash_and_survives_a_copy_that_resets_mtimes(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``claude plugin install`` copies the plugin into its cache with new
    mtimes (CLI 2.1.197); a timestamp .pyc would then be recompiled on every
    machine. Install writes checked-hash ones (PEP 552 flags 0b11)."""
    assert _run(plugin, capsys)[0] == 0
    cache = plugin / "hooks" / "__pycache__"
    pycs = sorted(cache.glob("*.pyc"))
    assert [p.name.split(".")[0] for p in pycs] == ["graphify_nudge", "graphify_nudge_index"]
    for pyc in pycs:
        assert int.from_bytes(pyc.read_bytes()[4:8], "little") == 0b11
    copy = tmp_path / "cache" / "mishkan" / "1.0.0"
    shutil.copytree(plugin, copy, copy_function=shutil.copyfile)  # contents, not mtimes
    os.utime(copy / "hooks" / "graphify_nudge.py", (1_000_000_000, 1_000_000_000))
    code = f"import sys;sys.path.insert(0,{str(copy / 'hooks')!r});import graphify_nudge"
    proc = subprocess.run(
        [PYTHON, "-I", "-S", "-v", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    pyc = copy / "hooks" / "__pycache__" / pycs[0].name
    assert f"# {pyc} matches " in proc.stderr
    assert "# wrote " not in proc.stderr  # used as shipped, not recompiled


def test_the_registered_command_runs_with_the_plugin_root_the_cli_exports(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command through /bin/sh, as the CLI runs it on Linux, with
    CLAUDE_PLUGIN_ROOT exported: the hook runs from the plugin's hooks dir
    and records the session in the project's telemetry, not in the plugin."""
    assert _run(plugin, capsys)[0] == 0
    (command,) = {str(h.command) for h in _ours(_hooks_json(plugin))}
    project = tmp_path / "work"
    project.mkdir()
    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup",
               "cwd": str(project)}  # fmt: skip
    before = tree(plugin)
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": str(plugin)}
        | {"CLAUDE_PROJECT_DIR": str(project)},
        cwd=str(project),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    lines = [json.loads(line) for p in (project / ".mishkan" / "telemetry").glob("*.jsonl")
             for line in p.read_text().splitlines()]  # fmt: skip
    assert [(e["event"], e["mode"]) for e in lines] == [("session_start", "telemetry")]
    assert tree(plugin) == before  # nothing written into the plugin


def test_dry_run_writes_nothing(plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (plugin / "hooks" / "hooks.json").write_text(HARNESS_HOOKS)
    before = tree(plugin)
    code, out, err = _run(plugin, capsys, "--dry-run")
    assert code == 0
    assert tree(plugin) == before
    assert "# scope: plugin" in out and "+++ b/hooks/hooks.json" in out
    assert "would copy" in err


def test_it_touches_nothing_outside_the_plugin(
    plugin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.chdir(project)
    before = tree(project)
    assert _run(plugin, capsys, "--project", str(project))[0] == 0
    assert tree(project) == before
    assert not (plugin / ".gitignore").exists() and not (plugin / "graphify-out").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scope", "plugin"], "--scope plugin needs --plugin-dir DIR"),
        (["--scope", "agents", "--plugin-dir", "{plugin}"],
         "--plugin-dir goes with --scope plugin"),
        (["--scope", "plugin", "--plugin-dir", "{missing}"], "not a directory"),
        (["--scope", "plugin", "--plugin-dir", "{bare}"], "not a Claude Code plugin, no "
         ".claude-plugin/plugin.json"),
        (["--scope", "plugin", "--plugin-dir", "{plugin}", "--hooks-dir", "../elsewhere"],
         "outside the plugin"),
        (["--scope", "plugin", "--plugin-dir", "{plugin}", "--hooks-dir", "/tmp"],
         "outside the plugin"),
    ],
)  # fmt: skip
def test_unusable_input_is_one_line_and_exit_2(
    argv: list[str],
    message: str,
    plugin: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    values = {"plugin": str(plugin), "missing": str(tmp_path / "nope"), "bare": str(bare)}
    before = tree(tmp_path)
    code, _out, err = run_cli(MODULE, [a.format(**values) for a in argv], capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert tree(tmp_path) == before


@pytest.mark.parametrize("planted", ["hooks.json", "dir"])
def test_a_link_planted_in_the_plugin_is_refused(
    planted: str, plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plugin can come from anyone's repository: install writes through
    safe_files, so a link at hooks/hooks.json or at hooks/ is never followed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "hooks.json").write_text("{}\n")
    if planted == "hooks.json":
        (plugin / "hooks" / "hooks.json").symlink_to(outside / "hooks.json")
    else:
        shutil.rmtree(plugin / "hooks")
        (plugin / "hooks").symlink_to(outside)
    before = tree(outside)
    code, _out, err = _run(plugin, capsys)
    assert code == 2, err
    assert "mishkan install:" in err and "Traceback" not in err
    assert tree(outside) == before
