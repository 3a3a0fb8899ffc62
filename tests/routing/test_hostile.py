"""``routing check`` on hostile input (issue 11, items 4, 9, 14 and 15).

A FIFO, a device, deep nesting or a value no tool accepts, in any file the
gate reads, is one line on stderr and exit 2, never a traceback, never a
hang, never the exit code of "findings". A gate that would pass on nothing,
or on a hook that exits while loading, fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.routing._cli import run_cli

FILE_OPTIONS = ("--settings", "--mcp", "--compose-json", "--matrix", "--hook")


def _check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli("mishkan_core.routing.cli", ["check", *argv], capsys)


def _one_line_exit_2(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2, (out, err)
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert fragment in err, err


@pytest.mark.parametrize("option", FILE_OPTIONS)
def test_a_fifo_never_blocks(option: str, tmp_path: Path) -> None:
    """In a subprocess with a timeout: a regression fails, it does not hang."""
    fifo = tmp_path / "input.json"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "mishkan_core", "routing", "check", option, str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    _one_line_exit_2(done.returncode, done.stdout, done.stderr, "FIFO")


@pytest.mark.parametrize("option", ("--settings", "--mcp", "--compose-json", "--matrix"))
@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 900 + "1" + "}" * 900])
def test_deep_nesting(
    option: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text)
    code, out, err = _check([option, str(path)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "nests deeper than 64 levels" in err or "not valid JSON" in err


def test_a_deep_hook_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hook = tmp_path / "graphify_nudge.py"
    hook.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, out, err = _check(["--hook", str(hook)], capsys)
    _one_line_exit_2(code, out, err, "cannot load the hook")


@pytest.mark.parametrize(
    ("name", "doc", "fragment"),
    [
        (
            "compose.json",
            {"services": {"graphify-neo4j": {"ports": ["²:7687"]}}},
            "service 'graphify-neo4j' ports[0]: '²' is not a port",
        ),
        (
            "compose.json",
            {
                "services": {
                    "graphify-neo4j": {"ports": [{"target": 7687, "published": "9" * 5000}]}
                }
            },
            "service 'graphify-neo4j' ports[0]: '99999999999999999999...' is not a port",
        ),
        (
            ".mcp.json",
            {"mcpServers": {"cognee": {"command": "x", "args": ["--port", "²"]}}},
            "MCP server 'cognee' --port: '²' is not a port",
        ),
    ],
)
def test_a_value_no_tool_accepts(
    name: str, doc: object, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False))
    option = "--compose-json" if name.startswith("compose") else "--mcp"
    code, out, err = _check([option, str(path)], capsys)
    _one_line_exit_2(code, out, err, fragment)


def test_a_5000_digit_number_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "compose.json"
    path.write_text(
        '{"services": {"graphify-neo4j": {"ports": [{"published": ' + "9" * 5000 + "}]}}}"
    )
    code, out, err = _check(["--compose-json", str(path)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("status", ["0", "None", "'bye'", "3"])
def test_a_hook_that_exits_while_loading_fails_the_gate(
    status: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file is read, never run (issue 22): what exits on import has no
    constants to read, and the gate fails on that."""
    hook = tmp_path / "graphify_nudge.py"
    hook.write_text(f"open({str(tmp_path / 'ran')!r}, 'w')\nraise SystemExit({status})\n")
    code, out, err = _check(["--hook", str(hook)], capsys)
    _one_line_exit_2(code, out, err, "the hook lacks SCOPE_AGENTS or TRIGGER_EXTENSIONS")
    assert not (tmp_path / "ran").exists()


def test_a_gate_that_passes_on_nothing_is_no_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}")
    code, out, _err = _check(["--settings", str(settings)], capsys)
    assert code == 1
    assert out.splitlines() == [
        "D-009 hook-registration: .claude/settings.json [settings]: graphify-nudge is not "
        "registered in any settings scope or agent file; nor are security and model-route: "
        "the D-009 gate checks nothing; fix: run `mishkan install` (or `mishkan install "
        "--scope agents`)"
    ]


@pytest.mark.parametrize("text", ["[]", '"x"', "null"])
def test_settings_that_are_not_an_object(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    code, out, err = _check(["--settings", str(path)], capsys)
    _one_line_exit_2(code, out, err, "settings is not a JSON object")


def test_a_fifo_in_the_harness_is_reported_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files the gate discovers (agents, git hooks) are opened without blocking."""
    from tests.routing import _harness

    world = _harness.build(tmp_path, monkeypatch)
    os.unlink(world.project / ".claude" / "agents" / "hiram.md")
    os.mkfifo(world.project / ".claude" / "agents" / "hiram.md")
    os.unlink(world.project / ".git" / "hooks" / "post-merge")
    os.mkfifo(world.project / ".git" / "hooks" / "post-merge")
    code, lines, err = _harness.check(world, capsys)
    assert code == 1, err
    assert any("hiram.md" in line and "FIFO" in line for line in lines), lines
    assert any("post-merge hook(s) are missing" in line for line in lines), lines


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "missing"])
def test_a_registered_interpreter_that_is_not_a_file_never_blocks(
    kind: str, tmp_path: Path
) -> None:
    """The shim test reads the first bytes of the interpreter a settings
    scope names: a FIFO there must not hang the gate (it did: open() blocked),
    and nothing that is not a regular file is a shim."""
    target = tmp_path / "python3"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target = Path("/dev/zero")
    elif kind == "directory":
        target.mkdir()
    hook = "'import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()'"
    command = f'{target} -I -S -c {hook} "$CLAUDE_PROJECT_DIR/hooks"'
    settings = tmp_path / "settings.json"
    entry = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    settings.write_text(json.dumps({"hooks": {"PreToolUse": entry}}))
    done = subprocess.run(
        [sys.executable, "-m", "mishkan_core", "routing", "check", "--settings", str(settings)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert "shim" not in done.stdout


# -- issue 22: the hook file is read, never run


@pytest.mark.parametrize(
    ("source", "scope", "triggers"),
    [
        ('SCOPE_AGENTS: "Final" = frozenset({"a", "b"})\nTRIGGER_EXTENSIONS = {".py"}\n',
         {"a", "b"}, {".py"}),
        ("_BY_LANG = {'.py': 'python', '.go': 'go'}\nSCOPE_AGENTS = frozenset(('a',))\n"
         "TRIGGER_EXTENSIONS = (frozenset(_BY_LANG.keys()) | {'.rs'}) - {'.go'}\n",
         {"a"}, {".py", ".rs"}),
        ("SCOPE_AGENTS = set(sorted(['b', 'a']))\nTRIGGER_EXTENSIONS = frozenset()\n",
         {"a", "b"}, set()),
    ],
)  # fmt: skip
def test_the_hook_s_constants_are_read_from_its_syntax(
    source: str, scope: set[str], triggers: set[str]
) -> None:
    from mishkan_core.routing.cli import HOOK_CONSTANTS, read_constants

    values = read_constants(source.encode(), HOOK_CONSTANTS)
    assert values == {"SCOPE_AGENTS": scope, "TRIGGER_EXTENSIONS": triggers}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("SCOPE_AGENTS = frozenset(open('/etc/passwd'))\n", "SCOPE_AGENTS is not defined"),
        ("SCOPE_AGENTS = {x for x in 'ab'}\n", "SCOPE_AGENTS is not defined"),
        ("A = 'x' * 9\nSCOPE_AGENTS = A\n", "SCOPE_AGENTS is not defined"),
        # doubling per line would take 2^60 bytes: every value is bounded
        ("A = 'xx'\n" + "".join(f"A = A + A  # {i}\n" for i in range(60))
         + "SCOPE_AGENTS = frozenset({A})\n", "SCOPE_AGENTS is not defined"),
        ("def f(:\n", "not Python the hook could be"),
        ("x = " + "-" * 100_000 + "1\n", "not Python the hook could be"),
    ],
)  # fmt: skip
def test_what_is_not_a_literal_definition_is_refused_unrun(source: str, message: str) -> None:
    from mishkan_core.routing.cli import HOOK_CONSTANTS, read_constants

    with pytest.raises(ValueError, match=message):
        read_constants(source.encode(), HOOK_CONSTANTS)


def test_the_shipped_hook_reads_the_same_as_imported() -> None:
    import graphify_nudge
    from mishkan_core.routing.cli import hook_facts

    facts = hook_facts(Path(graphify_nudge.__file__))
    assert facts.scope_agents == graphify_nudge.SCOPE_AGENTS
    assert facts.trigger_extensions == graphify_nudge.TRIGGER_EXTENSIONS
