"""``mishkan install --scope plugin``: the hook shipped inside a Claude Code plugin.

The plugin's ``hooks/hooks.json`` gets the registration, with the plugin's
own directory named ``${CLAUDE_PLUGIN_ROOT}``; the hook and its builder go
beside it, with no bytecode: on each machine the hook writes its own under
the user's ``~/.cache/mishkan/pycache`` on its first call. The same guarantees as the
other scopes: merged with the plugin's hooks in D-004's order, idempotent,
and undone byte for byte. The real CLI's view of it (``claude plugin
validate``, a session with ``--plugin-dir``, the cache copy) is
tests/e2e/test_e2e_plugin.py.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
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
        plugin / "hooks", plugin, "advise", root_ref=hook_chain.PLUGIN_ROOT_REF
    )
    assert {h.command for h in _ours(doc)} == {command}
    # the interpreter and the bytecode directory are those of the machine the hook runs on
    assert command == (
        'mode=advise hooks="${CLAUDE_PLUGIN_ROOT}/hooks"; '
        'command . "$hooks/graphify-nudge.sh" 2>/dev/null || true'
    )
    parsed = hook_chain.parse_command(command)
    assert parsed.form == "shim" and parsed.hooks_dir == "${CLAUDE_PLUGIN_ROOT}/hooks"
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


def test_the_plugin_ships_no_bytecode_and_its_hook_caches_its_own_outside_it(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A .pyc shipped in the plugin would be code nobody reviews (a checked-hash
    one carries its source's hash, not its source: any code object passes),
    and one made on this machine is keyed to this machine's paths. So install
    writes none into the plugin; on each machine, the hook's first call writes
    its bytecode under that user's ``$HOME/.cache/mishkan/pycache`` (at the
    path the CLI copied the plugin to, with new mtimes), and later calls load
    it. A .pyc planted in the plugin's ``__pycache__`` never runs. That
    machine never ran ``mishkan install``: no config, so the shim runs the
    first python3 on its PATH."""
    assert _run(plugin, capsys)[0] == 0
    assert not (plugin / "hooks" / "__pycache__").exists()
    (command,) = {str(h.command) for h in _ours(_hooks_json(plugin))}
    copy = tmp_path / "home" / ".claude" / "plugins" / "cache" / "m" / "mishkan" / "1.0.0"
    shutil.copytree(plugin, copy, copy_function=shutil.copyfile)  # contents, not mtimes
    planted = copy / "hooks" / "__pycache__"
    planted.mkdir()
    evil = compile("import os\nos.write(1, b'PLANTED')\n", "graphify_nudge.py", "exec")
    for tag in (
        sys.implementation.cache_tag,
        f"cpython-{sys.version_info[0]}{sys.version_info[1]}",
    ):
        # an unchecked-hash .pyc: the import system would run it for any source
        (planted / f"graphify_nudge.{tag}.pyc").write_bytes(
            importlib.util.MAGIC_NUMBER + (0b01).to_bytes(4, "little") + bytes(8)
            + marshal.dumps(evil)
        )  # fmt: skip
    home = tmp_path / "home"
    project = tmp_path / "work"
    project.mkdir()
    path = tmp_path / "bin"  # that machine's python3: this interpreter, by a link
    path.mkdir()
    (path / "python3").symlink_to(os.path.realpath(sys.executable))
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s1",
                          "source": "startup", "cwd": str(project)})  # fmt: skip
    env = {"PATH": f"{path}:/usr/bin:/bin", "HOME": str(home), "CLAUDE_PLUGIN_ROOT": str(copy),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    cached = home / ".cache" / "mishkan" / "pycache" / str(copy / "hooks").lstrip("/")
    written = []
    for _ in range(2):
        run = subprocess.run(
            ["/bin/sh", "-c", command],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            cwd=str(project),
            timeout=60,
            check=False,
        )
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")  # PLANTED never ran
        written += [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in cached.glob("*.pyc")]
    names = sorted(p.name for p in cached.glob("*.pyc"))
    assert names == [f"graphify_nudge.{sys.implementation.cache_tag}.pyc"]
    assert written[0] == written[1]  # written by the first call, read by the second
    # nothing else wrote bytecode (the standard library keeps its own)
    assert sorted(p.name for p in (home / ".cache").rglob("*.pyc")) == names
    lines = [json.loads(line) for p in (project / ".mishkan" / "telemetry").glob("*.jsonl")
             for line in p.read_text().splitlines()]  # fmt: skip
    assert [e["event"] for e in lines] == ["session_start", "session_start"]


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
