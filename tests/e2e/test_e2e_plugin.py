"""Issue 21 with the real Claude Code CLI: the hook shipped inside a plugin.

A harness plugin (``mishkan``: the fixture's ``hizkiah`` agent, a security
and a model-route hook in its ``hooks/hooks.json``) gets the nudge from
``mishkan install --scope plugin --plugin-dir DIR --mode advise``. Then:

* ``claude plugin validate`` passes on it (with ``--strict`` where the CLI
  has it, 2.1.147 on), and fails on the same plugin with its hooks.json
  broken (so it does read the file: 2.1.77 on);
* loaded with ``--plugin-dir`` into a project whose settings do not register
  the nudge, the plugin's hooks nudge its own ``mishkan:hizkiah`` and never
  the main thread; ``routing check --plugin-dir`` finds the registration whole;
* installed from a local marketplace (``claude plugin marketplace add``,
  ``claude plugin install``), the CLI copies it into its cache with new
  mtimes; the session is nudged from the cached copy, whose hook wrote its
  bytecode under the user's ``~/.cache/mishkan/pycache`` on its first call
  (the plugin ships none) and nothing into the copy.

The CLI under test is the harness's (``tests/e2e/cli_install.py``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import (
    AGENT_FILE,
    MAIN_REL,
    MARKER,
    SOURCE_REL,
    SYMBOL,
    Claude,
    Project,
    ScenarioRun,
    base_path,
    build_graph,
    build_index,
    install_hook,
    make_project,
    mishkan_command,
    nudge_count,
    plugin_validate,
    run,
    run_scenario,
)
from tests.e2e.stub_api import Text, ToolUse

pytestmark = pytest.mark.e2e

EVENTS = ("PreToolUse", "PostToolUse", "SessionStart")
MANIFEST = {
    "name": "mishkan",
    "version": "1.0.0",
    "description": "MISHKAN harness (e2e)",
    "author": {"name": "e2e"},
}
#: D-004's chain as the harness plugin ships it, before the nudge
CHAIN = {
    "description": "MISHKAN harness hooks",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command",
             "command": '"${CLAUDE_PLUGIN_ROOT}/hooks/pre-tool-security.sh"'}]},
            {"matcher": "Agent", "hooks": [{"type": "command",
             "command": 'python3 -I -S "${CLAUDE_PLUGIN_ROOT}/hooks/model-route.py"'}]},
        ]
    },
}  # fmt: skip


def make_plugin(root: Path) -> Path:
    """The harness plugin, then `mishkan install --scope plugin` into it."""
    plugin = root / "payload" / "mishkan"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps(MANIFEST, indent=2) + "\n")
    (plugin / "agents").mkdir()
    (plugin / "agents" / "hizkiah.md").write_text(AGENT_FILE, encoding="utf-8")
    hooks = plugin / "hooks"
    hooks.mkdir()
    (hooks / "pre-tool-security.sh").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-tool-security.sh").chmod(0o755)
    (hooks / "model-route.py").write_text("import sys\nsys.stdin.read()\n")
    (hooks / "hooks.json").write_text(json.dumps(CHAIN, indent=2) + "\n")
    run([*mishkan_command(), "install", "--scope", "plugin", "--plugin-dir", str(plugin),
         "--mode", "advise", "--python", sys.executable],
        cwd=root, env={"PATH": base_path(), "HOME": str(root)})  # fmt: skip
    return plugin


def _script(repo: Path) -> dict[str, list[Any]]:
    return {
        "main": [
            ToolUse("main_read", "Read", {"file_path": str(repo / MAIN_REL)}),
            ToolUse("launch", "Agent", {"subagent_type": "mishkan:hizkiah",
                                        "description": f"Find {SYMBOL}",
                                        "prompt": f"Where is {SYMBOL} defined?"}),
            Text("done"),
        ],
        "sub": [
            ToolUse("read1", "Read", {"file_path": str(repo / SOURCE_REL)}),
            ToolUse("grep", "Grep", {"pattern": SYMBOL, "path": str(repo),
                                     "output_mode": "content"}),
            Text("done"),
        ],
    }  # fmt: skip


def _project(root: Path, graphify: Path) -> Project:
    """The fixture project with a graph and the evidence hook, and no nudge in settings."""
    project = make_project(root)
    build_graph(project, graphify)
    build_index(project, graphify)
    settings = install_hook(project, None, log_events=EVENTS)
    assert "graphify_nudge" not in json.dumps(settings)
    return project


def _session(name: str, project: Project, claude: Path, extra_args: list[str]) -> ScenarioRun:
    result = run_scenario(name, project, claude, "bypassPermissions",
                          script=_script(project.repo), extra_args=extra_args)  # fmt: skip
    assert result.cli.returncode == 0, result.diagnostics()
    missing = [k for k in ("main_read", "launch", "read1", "grep") if k not in result.ids]
    assert not missing, f"the CLI never reached {missing}\n{result.diagnostics()}"
    return result


def _assert_only_the_plugin_agent_is_nudged(result: ScenarioRun) -> None:
    for key in ("read1", "grep"):
        call = result.telemetry_call(key)
        assert (call["agent_type"], call["agent"], call["decision"]) == (
            "mishkan:hizkiah", "hizkiah", "nudge",
        ), result.diagnostics()  # fmt: skip
        assert MARKER in json.dumps(result.request_after(key).body)
    # the main thread's Read ran the plugin's hook (the evidence hook saw it)
    # and was neither nudged nor recorded: out of D-009's scope
    assert result.hook_inputs("PreToolUse", "main_read")
    assert not [e for e in result.telemetry_calls() if e.get("tool_use_id") ==
                result.tool_use_id("main_read")]  # fmt: skip
    assert all(nudge_count(r.body) == 0 for r in result.role_requests("main")), result.diagnostics()
    assert sum(nudge_count(r.body) for r in result.role_requests("sub")) > 0


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_plugin(tmp_path_factory.mktemp("plugin-src"))


@pytest.fixture(scope="module")
def session(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Path, graphify_bin: Path, plugin_dir: Path
) -> ScenarioRun:
    project = _project(tmp_path_factory.mktemp("plugin-dir"), graphify_bin)
    return _session("plugin-dir", project, claude_bin, ["--plugin-dir", str(plugin_dir)])


def _validate(claude: Claude, plugin: Path, home: Path) -> subprocess.CompletedProcess[str]:
    strict = ["--strict"] if claude.has("plugin_validate_strict") else []
    return plugin_validate(claude, plugin, home, *strict)


def test_claude_plugin_validate_passes(
    claude_bin: Claude, plugin_dir: Path, tmp_path: Path
) -> None:
    done = _validate(claude_bin, plugin_dir, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
    # ... and it does read hooks.json (2.1.77 on): the same plugin with a broken one fails
    broken = tmp_path / "broken"
    shutil.copytree(plugin_dir, broken)
    doc = json.loads((broken / "hooks" / "hooks.json").read_text())
    doc["hooks"]["PreToolUse"][-1]["hooks"][0]["timeout"] = "10"
    (broken / "hooks" / "hooks.json").write_text(json.dumps(doc))
    done = _validate(claude_bin, broken, tmp_path)
    if not claude_bin.has("plugin_validate_hooks"):
        # before 2.1.77 validate reads the manifest only (routing check reads the hooks)
        assert done.returncode == 0 and "Validating hooks" not in done.stdout, done.stdout
        return
    assert done.returncode == 1
    # 2.1.197: "hooks.PreToolUse.2.hooks.0.timeout: Invalid input: expected number";
    # 2.1.332: "hooks.PreToolUse.2.hooks.0: Invalid command hook (timeout: Invalid input..."
    found = [line for line in done.stdout.splitlines() if "hooks.PreToolUse.2.hooks.0" in line]
    assert found and "timeout" in found[0] and "expected number" in found[0], done.stdout


def test_the_plugins_hooks_nudge_its_own_agent_and_not_the_main_thread(
    session: ScenarioRun,
) -> None:
    _assert_only_the_plugin_agent_is_nudged(session)
    inputs = session.hook_inputs("PreToolUse", "grep")
    assert inputs and inputs[0]["agent_type"] == "mishkan:hizkiah"


def test_routing_check_understands_the_plugin(session: ScenarioRun, plugin_dir: Path) -> None:
    project = session.project
    done = run([*mishkan_command(), "routing", "check", "--project", str(project.repo),
                "--user-dir", str(project.home / ".claude"), "--plugin-dir", str(plugin_dir)],
               cwd=project.repo, env={"PATH": base_path(), "HOME": str(project.home)},
               check=False)  # fmt: skip
    # the registration rules (the plugin carries one of the five agents, and
    # the fixture's graph is not linked or refreshed: other rules' findings)
    registration = [line for line in done.stdout.splitlines() if line.startswith("D-009 hook-")]
    assert registration == [], done.stdout
    assert "plugin hooks mishkan" in done.stderr


@pytest.fixture(scope="module")
def marketplace_session(
    tmp_path_factory: pytest.TempPathFactory, claude_bin: Path, graphify_bin: Path, plugin_dir: Path
) -> tuple[ScenarioRun, Path, Path]:
    """The plugin published in a local marketplace and installed by the CLI:
    the run, the CLI's cache copy, and the marketplace's copy."""
    root = tmp_path_factory.mktemp("plugin-market")
    project = _project(root, graphify_bin)
    market = root / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": "local", "owner": {"name": "e2e"},
        "plugins": [{"name": "mishkan", "source": "./mishkan", "description": "e2e"}],
    }))  # fmt: skip
    shutil.copytree(plugin_dir, market / "mishkan")  # copy2: the author's mtimes
    env = {"HOME": str(project.home), "PATH": base_path(), "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip
    for argv in (["marketplace", "add", str(market)], ["install", "mishkan@local"]):
        run([str(claude_bin), "plugin", *argv], cwd=project.repo, env=env)
    installed = json.loads(
        (project.home / ".claude" / "plugins" / "installed_plugins.json").read_text()
    )
    cached = Path(installed["plugins"]["mishkan@local"][0]["installPath"])
    result = _session("plugin-market", project, claude_bin, [])
    return result, cached, market / "mishkan"


def test_installed_from_a_marketplace_it_runs_on_its_own_bytecode(
    marketplace_session: tuple[ScenarioRun, Path, Path], plugin_dir: Path
) -> None:
    result, cached, source_copy = marketplace_session
    assert cached != plugin_dir and (cached / "hooks" / "hooks.json").is_file()
    source = cached / "hooks" / "graphify_nudge.py"
    # the CLI's copy keeps the bytes and drops the mtimes
    assert source.read_bytes() == (plugin_dir / "hooks" / "graphify_nudge.py").read_bytes()
    assert (
        source.stat().st_mtime_ns != (plugin_dir / "hooks" / "graphify_nudge.py").stat().st_mtime_ns
    )
    _assert_only_the_plugin_agent_is_nudged(result)
    # The plugin ships no bytecode; its hook wrote its own on its first call
    # under the user's cache, at the path of the copy that ran, and nothing
    # into either copy. Which copy runs is the CLI's choice: 2.1.69 runs the
    # cache copy, 2.1.332 a directory marketplace's source in place.
    assert not list(cached.rglob("*.pyc")) and not list(source_copy.rglob("*.pyc"))
    home_cache = result.project.home / ".cache" / "mishkan" / "pycache"
    tag = sys.implementation.cache_tag
    found = {p.relative_to(home_cache) for p in home_cache.rglob("*.pyc")}
    ran = [root for root in (cached, source_copy)
           if Path(*(root / "hooks").parts[1:]) / f"graphify_nudge.{tag}.pyc" in found]  # fmt: skip
    assert len(ran) == 1, (found, cached, source_copy)
    hooks = Path(*(ran[0] / "hooks").parts[1:])
    assert found <= {hooks / f"graphify_nudge.{tag}.pyc", hooks / f"graphify_nudge_index.{tag}.pyc"}
