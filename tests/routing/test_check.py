"""``mishkan routing check``: every invariant has a fixture that violates it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mishkan_core.routing import registration
from mishkan_core.routing.matrix import default_matrix_text, load_matrix
from tests.routing import _harness
from tests.routing._cli import run_cli

FIXTURES = Path(__file__).parent / "fixtures"
MATRIX_CASES = sorted((FIXTURES / "matrix").glob("*.json"))
HOOKS = FIXTURES / "hooks"
MODULE = "mishkan_core.routing.cli"


def _check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code, out, err = run_cli(MODULE, ["check", *argv], capsys)
    return code, out.splitlines(), err


def _apply(doc: Any, patch: list[dict[str, Any]]) -> Any:
    for step in patch:
        *parents, last = step["path"]
        node = doc
        for key in parents:
            node = node[key]
        if step["op"] == "set":
            node[last] = step["value"]
        elif step["op"] == "delete":
            del node[last]
        elif step["op"] == "copy":
            *to_parents, to_last = step["to"]
            target = doc
            for key in to_parents:
                target = target[key]
            target[to_last] = json.loads(json.dumps(node[last]))
        else:  # pragma: no cover - fixture typo
            raise AssertionError(f"unknown op {step['op']}")
    return doc


@pytest.fixture
def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the good harness, with the hook files its settings point at."""
    return _harness.build(tmp_path, monkeypatch).project


# ---------------------------------------------------------------------------
# clean inputs


def test_packaged_matrix_and_real_hook_are_clean(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _check([], capsys)
    assert (code, lines) == (0, [])
    assert "clean" in err


def test_good_harness_is_clean(harness: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "--settings",
        str(harness / ".claude" / "settings.json"),
        "--mcp",
        str(harness / ".mcp.json"),
        "--compose-json",
        str(harness / "compose.json"),
        "--agents-dir",
        str(harness / ".claude" / "agents"),
    ]
    code, lines, _err = _check(argv, capsys)
    assert (code, lines) == (0, [])


def test_amended_gate_with_matching_hook_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = json.loads(default_matrix_text())
    matrix["gate"]["agents"].append("hiram")
    matrix["gate"]["adr"] = "D-010"
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    hook = HOOKS / "hook_scope_hiram.py"
    code, lines, _err = _check(["--matrix", str(path), "--hook", str(hook)], capsys)
    assert (code, lines) == (0, [])


def test_packaged_matrix_records_d008() -> None:
    matrix, _label = load_matrix()
    assert list(matrix.stores) == ["graphify", "cognee-work", "cognee-curated"]
    work, curated = matrix.stores["cognee-work"], matrix.stores["cognee-curated"]
    assert (work.ports, work.mcp_server) == ((7777,), "cognee")
    assert (curated.ports, curated.mcp_server) == ((7730,), "cognee-curated")
    assert curated.read_only_from_projects
    graphify = matrix.stores["graphify"]
    assert graphify.code_extensions is not None
    assert {".py", ".ts", ".go", ".rs", ".java", ".php", ".rb"} <= set(graphify.code_extensions)
    assert ".md" not in graphify.code_extensions


def test_real_hook_constants_are_read_not_copied() -> None:
    import graphify_nudge
    from mishkan_core.routing.cli import hook_facts

    facts = hook_facts()
    assert facts.scope_agents == graphify_nudge.SCOPE_AGENTS
    assert facts.trigger_extensions == graphify_nudge.TRIGGER_EXTENSIONS


# ---------------------------------------------------------------------------
# the matrix: one fixture per invariant


@pytest.mark.parametrize("case", MATRIX_CASES, ids=[p.stem for p in MATRIX_CASES])
def test_matrix_violation(case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = json.loads(case.read_text())
    matrix = _apply(json.loads(default_matrix_text()), spec["patch"])
    path = tmp_path / f"{case.stem}.json"
    path.write_text(json.dumps(matrix, indent=2))
    code, lines, _err = _check(["--matrix", str(path)], capsys)
    assert code == 1
    wanted = [line for line in lines if spec["expect"] in line]
    assert wanted, f"no line contains {spec['expect']!r}: {lines}"
    invariant, rule = spec["invariant"].split()
    import graphify_nudge

    file = graphify_nudge.__file__ if spec.get("file") == "hook" else str(path)
    assert wanted[0].startswith(f"{invariant} {rule}: {file}: ")


def test_every_rule_has_a_violating_fixture() -> None:
    """Every rule routing check can report appears in at least one fixture."""
    covered = {json.loads(p.read_text())["invariant"] for p in MATRIX_CASES}
    covered |= {"D-009 hook-chain"}  # settings fixtures below
    rules = {
        "D-008 three-stores",
        "D-008 exclusive-write",
        "D-008 routing",
        "D-008 citation",
        "D-008 neo4j-isolation",
        "D-008 mcp-ports",
        "D-009 gate-scope",
        "D-009 trigger-extensions",
        "D-009 hook-chain",
    }
    assert rules <= covered


# ---------------------------------------------------------------------------
# the hook's own constants


@pytest.mark.parametrize(
    ("hook", "expect"),
    [
        ("hook_scope_hiram.py", "D-009 gate-scope: {hook}: SCOPE_AGENTS includes 'hiram'"),
        ("hook_scope_four.py", "D-009 gate-scope: {hook}: SCOPE_AGENTS lacks 'zadok'"),
        (
            "hook_trigger_md.py",
            "D-009 trigger-extensions: {hook}: TRIGGER_EXTENSIONS has '.md', which Graphify "
            "cannot extract",
        ),
    ],
)
def test_hook_violation(hook: str, expect: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = HOOKS / hook
    code, lines, _err = _check(["--hook", str(path)], capsys)
    assert code == 1
    assert any(line.startswith(expect.format(hook=path)) for line in lines), lines


def test_trigger_lockfile_also_reported(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _err = _check(["--hook", str(HOOKS / "hook_trigger_md.py")], capsys)
    assert code == 1
    assert sum("TRIGGER_EXTENSIONS has" in line for line in lines) == 2  # .lock and .md


# ---------------------------------------------------------------------------
# harness files


def test_agents_dir_missing_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    agents = FIXTURES / "harness" / "bad_agents"
    code, lines, _err = _check(["--agents-dir", str(agents)], capsys)
    assert code == 1
    assert lines == [
        f"D-009 gate-scope: {agents}: no agent file for in-scope agent 'zadok' (expected "
        "zadok.md, or a plugin agent named <plugin>:zadok); fix: add .claude/agents/zadok.md"
    ]


def test_agent_found_by_frontmatter_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = tmp_path / "agents"
    shutil.copytree(FIXTURES / "harness" / "bad_agents", agents)
    (agents / "code-reviewer-z.md").write_text("---\nname: Zadok\n---\nbody\n")
    code, lines, _err = _check(["--agents-dir", str(agents)], capsys)
    assert (code, lines) == (0, [])


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        (
            ".mcp.wrong-port.json",
            "D-008 mcp-ports: {file}: MCP server 'cognee' uses 8000; the matrix gives store "
            "'cognee-work' port 7777",
        ),
        (
            ".mcp.renamed-curated.json",
            "D-008 mcp-ports: {file}: MCP server 'cognee-curated' for store 'cognee-curated' is "
            "not configured",
        ),
        (
            ".mcp.renamed-curated.json",
            "D-008 mcp-ports: {file}: MCP server 'cognee-library' uses port 7730, which the matrix "
            "gives to store 'cognee-curated' (MCP 'cognee-curated')",
        ),
    ],
)
def test_mcp_violation(
    harness: Path, name: str, expect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = harness / name
    code, lines, _err = _check(["--mcp", str(path)], capsys)
    assert code == 1
    assert expect.format(file=path) in lines


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        (
            "compose.same-port.json",
            "service 'graphify-neo4j' publishes host port 7687, Cognee work's Neo4j port",
        ),
        (
            "compose.same-container.json",
            "services 'graphify-neo4j' and 'cognee-neo4j' share container_name 'cognee-neo4j'",
        ),
        (
            "compose.shared-volume.json",
            "services 'graphify-neo4j' and 'cognee-neo4j' share the volume 'cognee_neo4j_data'",
        ),
    ],
)
def test_compose_violation(
    harness: Path, name: str, expect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = harness / name
    code, lines, _err = _check(["--compose-json", str(path)], capsys)
    assert code == 1
    assert f"D-008 neo4j-isolation: {path}: {expect}" in lines


def test_compose_short_port_syntax(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    compose = {
        "services": {
            "cognee-neo4j": {"image": "neo4j:5", "ports": ["7687:7687"]},
            "graphify-neo4j": {"image": "neo4j:5", "ports": ["127.0.0.1:7687:7687/tcp"]},
        }
    }
    path = tmp_path / "compose.json"
    path.write_text(json.dumps(compose))
    code, lines, _err = _check(["--compose-json", str(path)], capsys)
    assert code == 1
    assert any("publishes host port 7687" in line for line in lines)


def test_compose_without_graphify_neo4j_is_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "compose.json"
    path.write_text(json.dumps({"services": {"cognee-neo4j": {"ports": ["7687:7687"]}}}))
    code, lines, _err = _check(["--compose-json", str(path)], capsys)
    assert (code, lines) == (0, [])


ORDER = (
    "(security at .claude/{name} [settings] hooks.PreToolUse[{s}].hooks[0], "
    "{second} at .claude/{name} [settings] hooks.PreToolUse[1].hooks[0], "
    "{third} at .claude/{name} [settings] hooks.PreToolUse[{t}].hooks[0])"
)


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        (
            "settings.bad-order.json",
            "D-009 hook-chain: .claude/{name} [settings]: PreToolUse order is security -> "
            "graphify-nudge -> model-route; expected security -> model-route -> graphify-nudge "
            + ORDER.format(name="{name}", s=0, second="graphify-nudge", third="model-route", t=2),
        ),
        (
            "settings.route-before-security.json",
            "D-009 hook-chain: .claude/{name} [settings]: PreToolUse order is model-route -> "
            "security -> graphify-nudge; expected security -> model-route -> graphify-nudge",
        ),
        (
            "settings.missing-nudge-file.json",
            "D-009 hook-chain: .claude/{name} [settings] hooks.PreToolUse[2].hooks[0]: no such "
            "file {root}/payload/hooks-moved/graphify_nudge.py; fix: restore it, or rerun "
            "`mishkan install`",
        ),
        (
            "settings.missing-security-file.json",
            "D-009 hook-chain: .claude/{name} [settings] hooks.PreToolUse[0].hooks[0]: no such "
            "file /opt/nowhere/pre-tool-security.sh; fix: restore it",
        ),
        (
            "settings.missing-interpreter.json",
            "D-009 hook-chain: .claude/{name} [settings] hooks.SessionStart[0].hooks[0]: no such "
            "file /nonexistent/bin/python3.11",
        ),
    ],
)
def test_settings_violation(
    harness: Path, name: str, expect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = harness / ".claude" / name
    code, lines, _err = _check(["--settings", str(path)], capsys)
    assert code == 1
    wanted = expect.format(name=name, root=harness.resolve())
    assert any(line.startswith(wanted) for line in lines), lines


def test_settings_script_path_form_recognised(
    harness: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The spec's script form (pre-tool-graphify-nudge.py) counts as the nudge."""
    hooks = harness / "payload" / "mishkan" / "hooks"
    (hooks / "pre-tool-graphify-nudge.py").write_text("# stand-in\n")
    settings = json.loads((harness / ".claude" / "settings.json").read_text())
    pre = settings["hooks"]["PreToolUse"]
    pre[2]["hooks"][0]["command"] = (
        f'{_harness.PYTHON} "$CLAUDE_PROJECT_DIR"/payload/mishkan/hooks/pre-tool-graphify-nudge.py'
    )
    pre.insert(0, pre.pop(2))
    path = harness / ".claude" / "settings.script.json"
    path.write_text(json.dumps(settings))
    code, lines, _err = _check(["--settings", str(path)], capsys)
    assert code == 1
    assert any("PreToolUse order is graphify-nudge -> security -> model-route" in x for x in lines)


def test_command_files() -> None:
    project = Path("/p")
    nudge = (
        "/usr/bin/python3 -I -S -c 'import sys;sys.path.insert(0,sys.argv[1]);import "
        'graphify_nudge;graphify_nudge.main()\' "$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"'
    )
    assert registration.command_files(nudge + " --mode=advise", project) == [
        "/usr/bin/python3",
        "/p/payload/mishkan/hooks/graphify_nudge.py",
    ]
    assert registration.command_files('"${CLAUDE_PROJECT_DIR}"/hooks/sec.sh --strict', project) == [
        "/p/hooks/sec.sh"
    ]
    assert registration.command_files("FOO=1 python3 -u hooks/model-route.py", project) == [
        "hooks/model-route.py"
    ]
    assert registration.command_files("python3 -m some_module", project) == []
    assert registration.command_files("echo hello", project) == []


# ---------------------------------------------------------------------------
# unreadable input: exit 2, one line, no traceback


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--matrix", str(FIXTURES / "broken_matrix.json.txt")], "matrix is not valid JSON"),
        (["--matrix", str(FIXTURES / "duplicate_keys_matrix.json")], "duplicate key 'graphify'"),
        (["--matrix", str(FIXTURES / "wrong_shape_matrix.json")], "stores: expected an object"),
        (["--matrix", str(FIXTURES / "no-such-matrix.json")], "matrix not found"),
        (["--settings", str(FIXTURES / "no-such-settings.json")], "settings not found"),
        (["--mcp", str(FIXTURES / "broken_matrix.json.txt")], "MCP config is not valid JSON"),
        (["--agents-dir", str(FIXTURES / "no-such-dir")], "agents directory not found"),
        (["--hook", str(HOOKS / "hook_broken.py")], "lacks SCOPE_AGENTS or TRIGGER_EXTENSIONS"),
    ],
)
def test_unreadable_input(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines, err = _check(argv, capsys)
    assert code == 2
    assert lines == []
    assert len(err.strip().splitlines()) == 1
    assert fragment in err
    assert "Traceback" not in err


def test_missing_action(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(MODULE, [], capsys)
    assert code == 2
    assert "routing check" in err
