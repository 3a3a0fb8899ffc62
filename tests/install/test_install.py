"""``mishkan install``: idempotent, preserving, ordered, atomic, exactly undone."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import hook_chain, machine_config
from mishkan_core import install as inst
from tests.install._record import record_of, record_path
from tests.routing._cli import run_cli

FIXTURES = Path(__file__).parent / "fixtures" / "settings"
ALL = sorted(FIXTURES.glob("*.json"))
#: what uninstall alone cannot know without the pre-install copy: an empty list
#: or object install filled, the env mode pin install removed, a file that was `{}`
NEEDS_BACKUP = {"empty_containers.json", "env_off.json", "empty_object.json"}
PYTHON = os.path.realpath(sys.executable)
MODULE = "mishkan_core.install"

#: the project's own hooks, which install and uninstall never touch
THEIRS = ["model-route.py", "post-tool-observe.sh", "pre-tool-security.sh"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    hooks = root / "payload" / "mishkan" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-tool-security.sh").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "model-route.py").write_text("# stand-in\n")
    (hooks / "post-tool-observe.sh").write_text("#!/bin/sh\nexit 0\n")
    (root / ".claude").mkdir()
    return root


def _run(
    project: Path, capsys: pytest.CaptureFixture[str], *extra: str, python: str | None = PYTHON
) -> tuple[int, str, str]:
    argv = ["--project", str(project), *extra]
    if python is not None and "--uninstall" not in extra:
        argv += ["--python", python]
    return run_cli(MODULE, argv, capsys)


def _bytecode_dir(project: Path) -> Path:
    """Where install writes the hooks' bytecode: outside the project."""
    hooks = project.resolve() / "payload" / "mishkan" / "hooks"
    return machine_config.pycache_dir().joinpath(*hooks.parts[1:])


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def _nudge_index(doc: dict[str, Any], event: str) -> int:
    """Where our groups start: install writes hook_chain.GROUPS[event], side by side."""
    groups = doc["hooks"][event]
    found = [
        i
        for i, g in enumerate(groups)
        if any(hook_chain.is_ours(h.get("command")) for h in g["hooks"])
    ]
    assert len(found) == len(hook_chain.GROUPS[event]), groups
    assert found == list(range(found[0], found[0] + len(found))), groups
    return found[0]


# ---------------------------------------------------------------------------
# install twice, uninstall: the original, byte for byte


@pytest.mark.parametrize("fixture", ALL, ids=[p.name for p in ALL])
def test_twice_then_uninstall_restores_bytes(
    fixture: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = fixture.read_bytes()
    _settings(project).write_bytes(original)

    code, out, _err = _run(project, capsys)
    assert code == 0
    first = _settings(project).read_bytes()
    assert first != original
    assert (project / ".claude" / "settings.json.mishkan-backup").read_bytes() == original
    assert "updated .claude/settings.json" in out

    code, out, _err = _run(project, capsys)
    assert code == 0
    assert _settings(project).read_bytes() == first
    assert "already up to date" in out

    code, out, _err = _run(project, capsys, "--uninstall")
    assert code == 0
    assert _settings(project).read_bytes() == original
    assert not (project / ".claude" / "settings.json.mishkan-backup").exists()
    hooks = project / "payload" / "mishkan" / "hooks"
    assert sorted(p.name for p in hooks.iterdir()) == THEIRS  # ours gone, theirs kept


def test_a_second_install_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every file, the compiled .pyc included, keeps its bytes, inode and mtime:
    # two compiles of one source differ in their bodies (random hash seed under
    # -I), so install keeps a .pyc whose header already matches the source.
    assert _run(project, capsys)[0] == 0

    def snapshot() -> dict[str, tuple[bytes, int, int]]:
        found = {}
        for path in sorted([*project.rglob("*"), *_bytecode_dir(project).rglob("*")]):
            if path.is_file() and not path.is_symlink():
                info = path.stat()
                found[str(path)] = (path.read_bytes(), info.st_ino, info.st_mtime_ns)
        return found

    before = snapshot()
    assert any(name.endswith(".pyc") for name in before)
    assert _run(project, capsys)[0] == 0
    assert snapshot() == before


@pytest.mark.parametrize(
    "fixture", [p for p in ALL if p.name not in NEEDS_BACKUP], ids=lambda p: p.name
)
def test_uninstall_is_exact_even_without_the_backup(
    fixture: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text edits are their own inverse: the backup is a safety net."""
    original = fixture.read_bytes()
    _settings(project).write_bytes(original)
    assert _run(project, capsys)[0] == 0
    assert _run(project, capsys, "--mode", "advise")[0] == 0
    (project / ".claude" / "settings.json.mishkan-backup").unlink()
    assert _run(project, capsys, "--uninstall")[0] == 0
    assert _settings(project).read_bytes() == original


@pytest.mark.parametrize("fixture", ALL, ids=[p.name for p in ALL])
def test_other_content_is_kept(
    fixture: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = json.loads(fixture.read_text(encoding="utf-8"))
    _settings(project).write_bytes(fixture.read_bytes())
    assert _run(project, capsys)[0] == 0
    after = json.loads(_settings(project).read_text(encoding="utf-8"))
    assert hook_chain.core(after) == hook_chain.core(before)
    kept = [k for k in before if k in after]
    assert kept == [k for k in after if k in before]  # every key kept, in place
    assert set(before) - set(after) <= {"env"}  # an env that held only the mode pin
    assert "MISHKAN_GRAPHIFY_NUDGE" not in after.get("env", {})  # the mode is --mode=
    for event in hook_chain.EVENTS:
        at = _nudge_index(after, event)
        mine = after["hooks"][event][at : at + len(hook_chain.GROUPS[event])]
        command = mine[0]["hooks"][0]["command"]
        assert mine == hook_chain._groups(event, command)


def test_only_the_added_lines_change(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-formatted file keeps every one of its own lines."""
    original = (FIXTURES / "hand_formatted.json").read_text()
    _settings(project).write_text(original)
    assert _run(project, capsys)[0] == 0
    new_lines = _settings(project).read_text().splitlines()
    missing = [line for line in original.splitlines() if line not in new_lines]
    # two entries gained a comma (something now follows them); env is untouched
    assert missing == [
        '      { "matcher": "Task", "hooks": [ { "type": "command", "command": "python3 '
        'payload/mishkan/hooks/model-route.py" } ] }',
        '    "Stop": [ { "hooks": [ { "type": "command", "command": "echo stop" } ] } ]',
    ]
    assert all(line + "," in new_lines for line in missing)
    assert '  "env": { "FOO": "1" }' in new_lines


# ---------------------------------------------------------------------------
# ordered, and passes routing check


@pytest.mark.parametrize(
    ("fixture", "index"), [("claude_code_2space.json", 2), ("chain_in_one_group.json", 1)]
)
def test_nudge_goes_after_security_and_model_route(
    fixture: str, index: int, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(project).write_bytes((FIXTURES / fixture).read_bytes())
    assert _run(project, capsys)[0] == 0
    doc = json.loads(_settings(project).read_text())
    assert _nudge_index(doc, "PreToolUse") == index
    post = doc["hooks"]["PostToolUse"]
    assert _nudge_index(doc, "PostToolUse") == len(post) - len(hook_chain.GROUPS["PostToolUse"])
    code, out, _err = run_cli(
        "mishkan_core.routing.cli", ["check", "--settings", str(_settings(project))], capsys
    )
    assert (code, out) == (0, "")


def test_routing_check_accepts_the_install(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(project).write_bytes((FIXTURES / "claude_code_2space.json").read_bytes())
    assert _run(project, capsys)[0] == 0
    code, out, _err = run_cli(
        "mishkan_core.routing.cli", ["check", "--settings", str(_settings(project))], capsys
    )
    assert (code, out) == (0, "")


def test_no_chain_hooks_appends(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {
        "hooks": {
            "PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "x"}]}]
        }
    }
    _settings(project).write_text(json.dumps(doc, indent=2) + "\n")
    assert _run(project, capsys)[0] == 0
    assert _nudge_index(json.loads(_settings(project).read_text()), "PreToolUse") == 1


# ---------------------------------------------------------------------------
# the command, the hook file, the compiled cache


def test_command_form(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29: the mode, the hooks dir, Claude Code's shell reading the shim
    beside the hook, the fail-open tail; no interpreter, no home directory."""
    assert _run(project, capsys)[0] == 0
    doc = json.loads(_settings(project).read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command == (
        'mode=telemetry hooks="$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"; '
        'command . "$hooks/graphify-nudge.sh" 2>/dev/null || true'
    )
    assert "SessionStart" in doc["hooks"] and "matcher" not in doc["hooks"]["SessionStart"][0]


def test_hooks_dir_outside_the_project_is_absolute(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "shared hooks"
    assert _run(project, capsys, "--hooks-dir", str(outside))[0] == 0
    doc = json.loads(_settings(project).read_text())
    command = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command == (
        f"mode=telemetry hooks='{outside}'; command . \"$hooks/graphify-nudge.sh\" "
        "2>/dev/null || true"
    )
    assert (outside / "graphify_nudge.py").exists()


def test_copy_matches_source_and_is_precompiled(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook and, beside it, the index builder it spawns; both in install's record."""
    assert _run(project, capsys)[0] == 0
    manifest = record_of(project)["files"]
    for module in ("graphify_nudge", "graphify_nudge_index"):
        target = project / "payload" / "mishkan" / "hooks" / f"{module}.py"
        assert target.read_bytes() == inst.source_of(module).read_bytes()
        pyc = _bytecode_dir(project) / f"{module}.{sys.implementation.cache_tag}.pyc"
        assert manifest[target.relative_to(project).as_posix()] == _sha(target)
        assert manifest[str(pyc)] == _sha(pyc)
        flags = int.from_bytes(pyc.read_bytes()[4:8], "little")
        assert flags == 3  # checked hash-based: it runs only for this very source
        assert importlib.util.source_hash(target.read_bytes()) == pyc.read_bytes()[8:16]
    shim = project / "payload" / "mishkan" / "hooks" / hook_chain.SHIM_FILE
    assert shim.read_bytes() == inst.shipped_source(hook_chain.SHIM_FILE).read_bytes()
    assert manifest[shim.relative_to(project).as_posix()] == _sha(shim)
    assert len(manifest) == 5  # the two modules, their two .pyc, the shim
    assert not (project / "payload" / "mishkan" / "hooks" / "__pycache__").exists()


def test_an_install_from_before_the_builder_gains_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project installed when the hook was one file: the next install adds
    the builder and records it, and uninstall removes all of it."""
    assert _run(project, capsys)[0] == 0
    hooks = project / "payload" / "mishkan" / "hooks"
    manifest_file = record_path(project)
    manifest = json.loads(manifest_file.read_text())
    for path in (hooks / "graphify_nudge_index.py", *hooks.glob("__pycache__/*_index.*.pyc")):
        del manifest["files"][path.relative_to(project).as_posix()]
        path.unlink()
    manifest_file.write_text(json.dumps(manifest))
    code, out, _err = _run(project, capsys)
    assert code == 0
    assert f"copied {inst.source_of('graphify_nudge_index')} -> " in out
    assert "payload/mishkan/hooks/graphify_nudge_index.py" in out
    assert len(json.loads(manifest_file.read_text())["files"]) == 5
    assert _run(project, capsys, "--uninstall")[0] == 0
    assert sorted(p.name for p in hooks.iterdir()) == THEIRS


@pytest.mark.skipif(shutil.which("python3.9") is None, reason="python3.9 not on PATH")
def test_precompiled_by_the_target_interpreter(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, _err = _run(project, capsys, python="python3.9")
    assert code == 0
    cache = _bytecode_dir(project)
    assert sorted(p.name for p in cache.iterdir()) == [
        "graphify_nudge.cpython-39.pyc", "graphify_nudge_index.cpython-39.pyc",
    ]  # fmt: skip


def test_registered_command_runs_the_hook(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(project, capsys)[0] == 0
    doc = json.loads(_settings(project).read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    telemetry = tmp_path / "telemetry"
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), MISHKAN_TELEMETRY_DIR=str(telemetry))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    event = {"session_id": "s-1", "cwd": str(project), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps({**event, "source": "startup"}),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for f in telemetry.glob("*.jsonl") for x in f.read_text().splitlines()]
    assert [(x["event"], x["mode"]) for x in lines] == [("session_start", "telemetry")]


# ---------------------------------------------------------------------------
# modes, dry runs, fresh projects


def test_mode_change_touches_only_the_mode(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(project).write_bytes((FIXTURES / "claude_code_2space.json").read_bytes())
    assert _run(project, capsys)[0] == 0
    before = _settings(project).read_text().splitlines()
    assert _run(project, capsys, "--mode", "advise")[0] == 0
    after = _settings(project).read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after)
    groups = sum(len(g) for g in hook_chain.GROUPS.values())
    assert len(changed) == groups  # one command line per group install wrote
    assert all(a.replace("mode=telemetry", "mode=advise") == b for a, b in changed)


def test_rerun_keeps_the_installed_mode(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(project, capsys, "--mode", "advise")[0] == 0
    installed = _settings(project).read_bytes()
    code, out, _err = _run(project, capsys)
    assert code == 0 and "already up to date" in out
    assert _settings(project).read_bytes() == installed


def test_old_env_pin_becomes_the_default_mode(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An earlier install pinned the mode in settings env, which beats the
    user's exported off switch: install moves it to --mode= and says so."""
    doc = {"hooks": {}, "env": {"MISHKAN_GRAPHIFY_NUDGE": "advise", "FOO": "1"}}
    _settings(project).write_text(json.dumps(doc, indent=2) + "\n")
    code, _out, err = _run(project, capsys)
    assert code == 0
    after = json.loads(_settings(project).read_text())
    assert after["env"] == {"FOO": "1"}
    assert (
        hook_chain.parse_command(after["hooks"]["PreToolUse"][0]["hooks"][0]["command"]).mode
        == "advise"
    )
    assert "removed env.MISHKAN_GRAPHIFY_NUDGE='advise'" in err


def test_dry_run_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = (FIXTURES / "claude_code_2space.json").read_bytes()
    _settings(project).write_bytes(original)
    code, out, err = _run(project, capsys, "--dry-run")
    assert code == 0
    assert out.startswith(
        "# scope: project\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n"
    )
    assert "mode=telemetry hooks=" in out and "MISHKAN_GRAPHIFY_NUDGE" not in out
    assert "# scope: gitignore\n--- /dev/null\n+++ b/.gitignore\n" in out
    assert "would save the previous settings" in err
    for name in ("graphify_nudge.py", "graphify_nudge_index.py"):
        assert f"would copy {inst.source_of(name[:-3])} -> payload/mishkan/hooks/{name}" in err
        assert f"would compile payload/mishkan/hooks/{name} with" in err
        assert not (project / "payload" / "mishkan" / "hooks" / name).exists()
    assert _settings(project).read_bytes() == original
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]


def test_uninstall_dry_run_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(project).write_bytes((FIXTURES / "four_space.json").read_bytes())
    assert _run(project, capsys)[0] == 0
    installed = _settings(project).read_bytes()
    code, out, err = _run(project, capsys, "--uninstall", "--dry-run")
    assert code == 0
    assert out.startswith("# scope: project\n--- a/.claude/settings.json")
    assert "would remove payload/mishkan/hooks/graphify_nudge.py" in err
    assert "would remove payload/mishkan/hooks/graphify_nudge_index.py" in err
    assert _settings(project).read_bytes() == installed


def test_fresh_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    assert _run(root, capsys)[0] == 0
    doc = json.loads(_settings(root).read_text())
    assert list(doc) == ["hooks"]
    assert (root / ".gitignore").read_text() == ".graphify/\n.mishkan/\ngraphify-out\n"
    assert record_path(root).is_file() and not (root / ".mishkan").exists()
    assert os.readlink(root / "graphify-out") == ".graphify"
    assert list((root / ".graphify").iterdir()) == []
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert list(root.iterdir()) == []


def test_existing_registration_is_replaced_then_given_back(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads((FIXTURES / "claude_code_2space.json").read_text())
    mine = {"type": "command", "command": "python3 payload/mishkan/hooks/graphify_nudge.py"}
    doc["hooks"]["PreToolUse"].insert(0, {"matcher": "Read|Grep", "hooks": [mine]})
    original = json.dumps(doc, indent=2) + "\n"
    _settings(project).write_text(original)
    assert _run(project, capsys)[0] == 0
    installed = json.loads(_settings(project).read_text())
    assert _nudge_index(installed, "PreToolUse") == 2  # moved after the chain, replaced
    assert _run(project, capsys, "--uninstall")[0] == 0
    assert _settings(project).read_text() == original


def test_settings_edited_after_install(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _settings(project).write_bytes((FIXTURES / "claude_code_2space.json").read_bytes())
    assert _run(project, capsys)[0] == 0
    doc = json.loads(_settings(project).read_text())
    doc["model"] = "sonnet"
    _settings(project).write_text(json.dumps(doc, indent=2) + "\n")
    code, _out, err = _run(project, capsys, "--uninstall")
    assert code == 0
    left = json.loads(_settings(project).read_text())
    expected = json.loads((FIXTURES / "claude_code_2space.json").read_text())
    expected["model"] = "sonnet"
    assert left == expected
    assert "pre-install copy stays" in err


# ---------------------------------------------------------------------------
# the interpreter


def _shim(tmp_path: Path) -> Path:
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{PYTHON}" "$@"\n')
    shim.chmod(0o755)
    return shim


def test_explicit_shim_is_resolved(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shim = _shim(tmp_path)
    code, _out, err = _run(project, capsys, python=str(shim))
    assert code == 0
    assert "is a shim" in err
    command = json.loads(_settings(project).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert "shims" not in command["command"]
    assert machine_config.read() == machine_config.MachineConfig(
        PYTHON, str(machine_config.pycache_dir())
    )


def test_default_interpreter_never_a_shim(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", str(_shim(tmp_path)))
    code, out, err = _run(project, capsys, python=None)
    assert code == 2
    assert out == ""
    assert "is a shim" in err and "--python" in err
    assert not _settings(project).exists()


def test_default_interpreter_is_the_real_path(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(project, capsys, python=None)[0] == 0
    config = machine_config.read()
    assert config is not None and config.python == os.path.realpath(sys.executable)


# ---------------------------------------------------------------------------
# unusable input: exit 2, one line, nothing written


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"hooks": {"PreToolUse": [}', "not valid JSON"),
        ('{"hooks": []}', "'hooks' is not an object"),
        ('{"hooks": {"PreToolUse": {}}}', "'hooks.PreToolUse' is not a list"),
        ('{"env": "x"}', "'env' is not an object"),
        ("[]", "expected a JSON object"),
    ],
)
def test_bad_settings(
    content: str, fragment: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(project).write_text(content)
    code, out, err = _run(project, capsys)
    assert (code, out) == (2, "")
    assert fragment in err and len(err.strip().splitlines()) == 1
    assert _settings(project).read_text() == content
    assert not (project / "payload" / "mishkan" / "hooks" / "graphify_nudge.py").exists()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--python", "/nonexistent/python3"], "not an executable file"),
        (["--python", "no-such-python-xyz"], "not found on PATH"),
        (["--mode", "loud"], "invalid choice"),
    ],
)
def test_bad_arguments(
    argv: list[str], fragment: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = _run(project, capsys, *argv, python=None)
    assert code == 2
    assert fragment in err


def test_missing_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(tmp_path / "nope", capsys)
    assert code == 2 and "not a directory" in err


# ---------------------------------------------------------------------------
# --scope agents: the nudge in the five agents' frontmatter

AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")


def _agents(project: Path) -> dict[str, bytes]:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    files = {
        "hizkiah": b"---\nname: hizkiah\ndescription: Backend.\ntools: Read, Bash\n---\nBody\n",
        "salma": b"---\nname: salma\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n"
        b"          command: echo done\n---\n",
        "oholiab": b"---\r\nname: oholiab\r\n---\r\nBody\r\n",
        "nathan": b"---\nname: nathan\n---\nno newline at the end",
        "zadok": b"---\nname: zadok\n---\n",
    }
    for name, data in files.items():
        (agents / f"{name}.md").write_bytes(data)
    (agents / "hiram.md").write_bytes(b"---\nname: hiram\n---\n")  # out of scope: untouched
    return files


def test_scope_agents_round_trip(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = (FIXTURES / "claude_code_2space.json").read_bytes()
    _settings(project).write_bytes(original)
    files = _agents(project)
    code, out, _err = _run(project, capsys, "--scope", "agents", "--mode", "advise")
    assert code == 0
    doc = json.loads(_settings(project).read_text())
    assert [h.event for h in hook_chain.ours(doc["hooks"])] == ["SessionStart"]
    for name in AGENTS:
        text = (project / ".claude" / "agents" / f"{name}.md").read_text()
        lines = sum(len(hook_chain.GROUPS[e]) for e in hook_chain.TOOL_EVENTS)
        assert text.count("mode=advise ") == lines, name
        assert f"updated .claude/agents/{name}.md" in out
    assert (project / ".claude" / "agents" / "hiram.md").read_bytes() == b"---\nname: hiram\n---\n"

    installed = {n: (project / ".claude" / "agents" / f"{n}.md").read_bytes() for n in AGENTS}
    code, out, _err = _run(project, capsys, "--scope", "agents")  # keeps advise
    assert code == 0 and "updated" not in out
    assert all(
        (project / ".claude" / "agents" / f"{n}.md").read_bytes() == installed[n] for n in AGENTS
    )

    assert _run(project, capsys, "--uninstall")[0] == 0
    assert _settings(project).read_bytes() == original
    for name, data in files.items():
        assert (project / ".claude" / "agents" / f"{name}.md").read_bytes() == data, name


def test_switching_scopes_leaves_one_registration(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _agents(project)
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    assert _run(project, capsys, "--scope", "project")[0] == 0
    doc = json.loads(_settings(project).read_text())
    assert sorted(h.event for h in hook_chain.ours(doc["hooks"])) == sorted(
        e for e in hook_chain.EVENTS for _ in hook_chain.GROUPS[e]
    )
    for name, data in files.items():
        assert (project / ".claude" / "agents" / f"{name}.md").read_bytes() == data
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    doc = json.loads(_settings(project).read_text())
    assert [h.event for h in hook_chain.ours(doc["hooks"])] == ["SessionStart"]


def test_scope_agents_dry_run_shows_each_file_by_scope(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _agents(project)
    code, out, _err = _run(project, capsys, "--scope", "agents", "--dry-run")
    assert code == 0
    scopes = [line for line in out.splitlines() if line.startswith("# scope: ")]
    assert scopes == [
        "# scope: project",
        *(f"# scope: agent {name}" for name in sorted(AGENTS)),
        "# scope: gitignore",
        "# scope: graphifyignore",
        "# scope: machine",
    ]
    assert not (project / ".mishkan").exists()


def test_scope_agents_needs_the_five_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _agents(project)
    (project / ".claude" / "agents" / "zadok.md").unlink()
    code, out, err = _run(project, capsys, "--scope", "agents")
    assert (code, out) == (2, "")
    assert "no agent file in .claude/agents for zadok" in err
    assert "plugin agents ignore frontmatter hooks" in err
    assert not _settings(project).exists()


def test_scope_agents_finds_a_file_by_its_frontmatter_name(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _agents(project)
    agents = project / ".claude" / "agents"
    (agents / "zadok.md").rename(agents / "reviewer.md")
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    assert hook_chain.SHIM_FILE in (agents / "reviewer.md").read_text()


def test_scope_agents_means_the_file_the_cli_and_routing_check_mean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """zadok.md that declares `name: helper` is helper's file, not zadok's: the
    CLI launches zadok from the file that declares `name: zadok`. Install used
    to write into zadok.md, and routing check then asked for the install again."""
    _agents(project)
    agents = project / ".claude" / "agents"
    (agents / "zadok.md").write_bytes(b"---\nname: helper\n---\n")
    (agents / "zz.md").write_bytes(b"---\nname: zadok\n---\n")
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    assert (agents / "zadok.md").read_bytes() == b"---\nname: helper\n---\n"
    assert hook_chain.SHIM_FILE in (agents / "zz.md").read_text()
    _code, out, err = run_cli(
        "mishkan_core.routing.cli", ["check", "--project", str(project)], capsys
    )
    assert "zadok" not in out + err, out + err


def test_an_agent_body_that_names_the_hook_is_not_a_registration(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Prose about graphify_nudge.py in an agent's body is not our hook: with
    --scope project an unreadable frontmatter there is left alone (install
    failed on it), and uninstall says nothing about a hook that is not there."""
    _agents(project)
    agents = project / ".claude" / "agents"
    odd = (
        b"---\nname: zadok\nhooks: {Stop: []}\n---\nSee payload/mishkan/hooks/graphify_nudge.py.\n"
    )
    (agents / "zadok.md").write_bytes(odd)
    assert _run(project, capsys)[0] == 0
    assert (agents / "zadok.md").read_bytes() == odd
    code, out, err = _run(project, capsys, "--uninstall")
    assert code == 0, err
    assert "did not write stays" not in out + err


def test_uninstall_names_a_hand_written_nudge_in_an_agent(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _agents(project)
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    zadok = project / ".claude" / "agents" / "zadok.md"
    text = zadok.read_text()
    hand = (
        "  Stop:\n    - hooks:\n        - type: command\n"
        "          command: python3 payload/mishkan/hooks/graphify_nudge.py\n"
    )
    zadok.write_text(text.replace("hooks:\n", "hooks:\n" + hand, 1))
    code, out, err = _run(project, capsys, "--uninstall")
    assert code == 0, err
    assert ".claude/agents/zadok.md: a graphify-nudge hook install did not write stays" in out + err
    assert "graphify_nudge.py" in zadok.read_text() and "--mode=" not in zadok.read_text()


# ---------------------------------------------------------------------------
# .gitignore (D-008: the graph's artifacts are not committed)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, ".graphify/\n.mishkan/\ngraphify-out\n"),
        ("node_modules/\n", "node_modules/\n.graphify/\n.mishkan/\ngraphify-out\n"),
        ("dist", "dist\n.graphify/\n.mishkan/\ngraphify-out\n"),
        ("a\r\nb\r\n", "a\r\nb\r\n.graphify/\r\n.mishkan/\r\ngraphify-out\r\n"),
        ("/.graphify\n", "/.graphify\n.mishkan/\ngraphify-out\n"),
        (".mishkan\n.graphify/\n/graphify-out\n", ".mishkan\n.graphify/\n/graphify-out\n"),
        # git sees the link as a file: a directory pattern does not ignore it
        ("graphify-out/\n", "graphify-out/\n.graphify/\n.mishkan/\ngraphify-out\n"),
    ],
)
def test_gitignore(
    before: str | None, after: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "g"
    root.mkdir()
    if before is not None:
        (root / ".gitignore").write_bytes(before.encode())
    assert _run(root, capsys)[0] == 0
    assert (root / ".gitignore").read_bytes() == after.encode()
    assert _run(root, capsys)[0] == 0
    assert (root / ".gitignore").read_bytes() == after.encode()
    assert _run(root, capsys, "--uninstall")[0] == 0
    if before is None:
        assert not (root / ".gitignore").exists()
    else:
        assert (root / ".gitignore").read_bytes() == before.encode()


def test_gitignore_keeps_lines_the_user_added_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "g"
    root.mkdir()
    assert _run(root, capsys)[0] == 0
    with (root / ".gitignore").open("a") as handle:
        handle.write("build/\n")
    assert _run(root, capsys, "--uninstall")[0] == 0
    assert (root / ".gitignore").read_text() == "build/\n"


# ---------------------------------------------------------------------------
# the refresh hook: printed, never run


def _git(root: Path, *argv: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(root), *argv], check=True, capture_output=True, env=env)


def test_install_prints_the_graphify_hook_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRAPHIFY_OUT", raising=False)
    monkeypatch.delenv("MISHKAN_GRAPHIFY_GRAPH", raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    code, out, _err = _run(root, capsys)
    assert code == 0
    # install linked graphify-out -> .graphify: graphify's default is D-008's place;
    # no graph yet, so the first build comes before the commit hook
    assert out.endswith(
        "next (D-008: you run these; install never does):\n"
        "  1. build the graph of your code:\n"
        f"     cd {root} && graphify update .\n"
        "  2. refresh it at every commit:\n"
        f"     cd {root} && graphify hook install\n"
    )
    hooks = root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-commit").write_text(
        "#!/bin/sh\n# graphify-hook-start\n(true)\n# graphify-hook-end\n"
    )
    (hooks / "post-commit").chmod(0o755)
    code, out, _err = _run(root, capsys)
    assert f"graph refresh: graphify's git hooks are installed in {hooks}" in out
    assert "graphify hook install" not in out


def test_without_the_link_the_command_carries_graphify_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two real graph directories (left alone): the command names the newest,
    and says which shells must export it."""
    monkeypatch.delenv("GRAPHIFY_OUT", raising=False)
    monkeypatch.delenv("MISHKAN_GRAPHIFY_GRAPH", raising=False)
    root = tmp_path / "repo"
    for name, mtime in ((".graphify", 2_000_000_000), ("graphify-out", 1_000_000_000)):
        (root / name).mkdir(parents=True)
        (root / name / "graph.json").write_text("{}")
        os.utime(root / name / "graph.json", (mtime, mtime))
    _git(root, "init", "-q")
    code, out, _err = _run(root, capsys)
    assert code == 0
    assert (
        f"     cd {root} && GRAPHIFY_OUT=.graphify graphify hook install\n"
        "  and commit from shells that export GRAPHIFY_OUT=.graphify: graphify's hooks rebuild "
        "into $GRAPHIFY_OUT at commit time, else into graphify-out/\n"
    ) in out


def test_dry_run_creates_no_directory_outside_the_project(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "shared" / "deep" / "hooks"
    code, _out, err = _run(project, capsys, "--hooks-dir", str(outside), "--dry-run")
    assert code == 0 and "would copy" in err
    assert not (tmp_path / "shared").exists()
    assert _run(project, capsys, "--hooks-dir", str(outside))[0] == 0
    assert (outside / "graphify_nudge.py").is_file()
    assert _run(project, capsys, "--hooks-dir", str(outside), "--uninstall")[0] == 0
    assert not (outside / "graphify_nudge.py").exists()
