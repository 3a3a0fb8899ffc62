"""``mishkan_core.hook_chain``: the one model of the hook chain."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.cold_start import PRE_SHIM_SNIPPET
from mishkan_core import hook_chain as hc

SHIM_FORM = hc.hook_command(Path("/p/payload/mishkan/hooks"), Path("/p"), "advise")
#: what installs before issue 29 registered (an upgrade must recognise it)
IMPORT_FORM = (
    f"/opt/py/bin/python3.11 -I -S -B -c '{PRE_SHIM_SNIPPET}' "
    '"$CLAUDE_PROJECT_DIR/payload/mishkan/hooks" "$HOME/.cache/mishkan/pycache" --mode=advise'
)


@pytest.mark.parametrize(
    ("command", "role"),
    [
        (SHIM_FORM, hc.NUDGE),
        (IMPORT_FORM, hc.NUDGE),
        ("python3 payload/mishkan/hooks/graphify_nudge.py", hc.NUDGE),
        ('"$CLAUDE_PROJECT_DIR"/hooks/pre-tool-graphify-nudge.py', hc.NUDGE),
        ("/home/u/.local/bin/graphify hook-guard search", hc.GRAPHIFY_GUARD),
        ("graphify hook-guard read --strict", hc.GRAPHIFY_GUARD),
        ("graphify hook-check", hc.GRAPHIFY_GUARD),
        ("[ -f graphify-out/graph.json ] && echo 'graphify: ...'", hc.GRAPHIFY_GUARD),
        ('"$CLAUDE_PROJECT_DIR"/payload/mishkan/hooks/pre-tool-security.sh', hc.SECURITY),
        ("python3 hooks/model-route.py", hc.MODEL_ROUTE),
        ("/opt/graphify-tools/lint.sh", None),  # graphify in a path is not graphify's hook
        ("echo hi", None),
    ],
)
def test_roles(command: str, role: str | None) -> None:
    assert hc.role_of(command) == role
    assert hc.is_ours(command) is (role == hc.NUDGE)


def test_the_registered_command_names_no_path_of_one_machine() -> None:
    """Issue 29: one short line for every machine and teammate, that a reviewer
    reads: the shim by its place in the project, the mode, fail-open."""
    assert SHIM_FORM == (
        'mode=advise hooks="$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"; '
        'command . "$hooks/graphify-nudge.sh" 2>/dev/null || true'
    )
    assert len(SHIM_FORM) <= 200
    parsed = hc.parse_command(SHIM_FORM)
    assert (parsed.form, parsed.program, parsed.mode, parsed.isolated) == (
        "shim",
        ".",
        "advise",
        True,
    )
    assert parsed.hooks_dir == "$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"
    assert parsed.script == "$CLAUDE_PROJECT_DIR/payload/mishkan/hooks/graphify-nudge.sh"


def test_command_round_trip() -> None:
    parsed = hc.parse_command(IMPORT_FORM)
    assert parsed.form == "import" and parsed.mode == "advise" and parsed.isolated
    assert parsed.program == "/opt/py/bin/python3.11"
    assert parsed.hooks_dir == "$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"
    assert hc.expand(parsed.hooks_dir, Path("/work/p")) == "/work/p/payload/mishkan/hooks"
    script = hc.parse_command("FOO=1 python3 -u payload/graphify_nudge.py")
    assert (script.form, script.script, script.mode, script.isolated) == (
        "script",
        "payload/graphify_nudge.py",
        None,
        False,
    )
    with pytest.raises(ValueError):
        hc.parse_command("python3 'unterminated")


def test_hooks_dir_outside_and_odd_names_are_quoted() -> None:
    outside = hc.hook_command(Path("/shared hooks"), Path("/p"), "off")
    assert outside == (
        "mode=off hooks='/shared hooks'; command . \"$hooks/graphify-nudge.sh\" 2>/dev/null || true"
    )
    assert hc.parse_command(outside).hooks_dir == "/shared hooks"
    odd = hc.hook_command(Path('/p/a "b'), Path("/p"), "telemetry")
    assert hc.expand(hc.parse_command(odd).hooks_dir or "", Path("/p")) == '/p/a "b'


# -- matchers: the semantics of CLI 2.1.197, verified end to end in
#    tests/e2e/test_e2e_registration.py::test_matcher_semantics


@pytest.mark.parametrize(
    ("matcher", "tool", "matches"),
    [
        (None, "Read", True),
        ("", "Read", True),
        ("*", "mcp__x__y", True),
        ("Bash", "Bash", True),
        ("Bas", "Bash", False),  # a plain name list compares exact names
        ("Read|Grep", "Grep", True),
        ("Read, Grep", "Grep", True),  # commas and spaces too, for tool events
        ("Task", "Agent", True),  # an old name means the current tool
        ("Ba.h", "Bash", True),  # anything else is a regex...
        ("a.h", "Bash", True),  # ...searched, not anchored
        ("Bash|mcp__.*", "TaskOutput", True),  # via its old name BashOutput
        ("Bash|mcp__.*", "TaskStop", True),  # via KillBash
        (hc.LOOKUP_MATCHER, "Bash", True),
        (hc.LOOKUP_MATCHER, "mcp__graphify__query_graph", True),
        (hc.LOOKUP_MATCHER, "mcp__plugin_x_Graphify__get_node", True),
        (hc.LOOKUP_MATCHER, "TaskOutput", False),
        (hc.LOOKUP_MATCHER, "TaskStop", False),
        (hc.LOOKUP_MATCHER, "Read", False),
        (hc.LOOKUP_MATCHER, "mcp__cognee__search", False),
        ("mcp__graphify", "mcp__graphify__query_graph", False),  # exact: matches no tool
        ("(unclosed", "Bash", False),  # an invalid regex matches nothing
    ],
)
def test_matcher_semantics(matcher: str | None, tool: str, matches: bool) -> None:
    assert hc.matcher_matches(matcher, tool) is matches


# -- editing


def _doc() -> dict[str, object]:
    security = {"type": "command", "command": "hooks/pre-tool-security.sh"}
    route = {"type": "command", "command": "python3 hooks/model-route.py"}
    return {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [security]},
                {"matcher": "Task", "hooks": [route]},
                {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]},
            ]
        }
    }


def test_install_places_pre_after_the_chain_and_is_idempotent() -> None:
    doc = hc.install_doc(_doc(), IMPORT_FORM, hc.EVENTS)
    pre = doc["hooks"]["PreToolUse"]
    assert [hc.role_of(g["hooks"][0]["command"]) for g in pre] == [
        hc.SECURITY,
        hc.MODEL_ROUTE,
        hc.NUDGE,
        None,
    ]
    assert hc.install_doc(doc, IMPORT_FORM, hc.EVENTS) == doc
    assert hc.uninstall_doc(doc) == _doc()
    assert {h.event for h in hc.ours(doc["hooks"])} == set(hc.EVENTS)


def test_install_for_fewer_events_moves_the_rest_out() -> None:
    everywhere = hc.install_doc(_doc(), IMPORT_FORM, hc.EVENTS)
    session_only = hc.install_doc(everywhere, IMPORT_FORM, ("SessionStart",))
    assert [h.event for h in hc.ours(session_only["hooks"])] == ["SessionStart"]
    assert session_only["hooks"]["PreToolUse"] == _doc()["hooks"]["PreToolUse"]  # type: ignore[index]


def test_handlers_skip_what_is_malformed() -> None:
    hooks = {
        "PreToolUse": [
            "junk",
            {"matcher": 3, "hooks": [None, {"type": "prompt", "prompt": "x"}, {"command": "a"}]},
        ],
        "Stop": {"not": "a list"},
    }
    found = list(hc.handlers(hooks))
    assert [(h.path, h.matcher, h.command) for h in found] == [
        ("hooks.PreToolUse[1].hooks[1]", None, None),
        ("hooks.PreToolUse[1].hooks[2]", None, "a"),
    ]


# -- scopes


def test_scopes_and_merge_order(tmp_path: Path) -> None:
    project, user, managed = tmp_path / "p", tmp_path / "u", tmp_path / "etc"
    for path, env in (
        (user / "settings.json", {"A": "user", "B": "user"}),
        (project / ".claude" / "settings.json", {"A": "project"}),
        (project / ".claude" / "settings.local.json", {"B": "local"}),
        (managed / "managed-settings.json", {"C": "managed"}),
        (managed / "managed-settings.d" / "20-b.json", {"C": "dropin-b"}),
        (managed / "managed-settings.d" / "10-a.json", {"D": "dropin-a"}),
        (managed / "managed-settings.d" / ".hidden.json", {"D": "hidden"}),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"env": env}))
    scopes = hc.settings_scopes(project, user, managed)
    assert [(s.name, s.path.name) for s in scopes] == [
        ("user", "settings.json"),
        ("project", "settings.json"),
        ("local", "settings.local.json"),
        ("managed", "managed-settings.json"),
        ("managed", "10-a.json"),
        ("managed", "20-b.json"),
    ]
    merged = {k: (v, s.name) for k, (v, s) in hc.merged_env(scopes).items()}
    assert merged == {
        "A": ("project", "project"),
        "B": ("local", "local"),
        "C": ("dropin-b", "managed"),
        "D": ("dropin-a", "managed"),
    }


def test_a_bad_scope_carries_its_error(tmp_path: Path) -> None:
    bad = tmp_path / "settings.json"
    bad.write_text("[" * 100 + "]" * 100)
    scope = hc.read_scope("project", bad)
    assert scope.doc is None and scope.error is not None and "nests deeper" in scope.error
    assert hc.read_scope("user", tmp_path / "missing.json").error is None


def test_config_dir() -> None:
    assert hc.config_dir({"CLAUDE_CONFIG_DIR": "/c"}) == Path("/c")
    assert hc.config_dir({"HOME": "/h"}) == Path("/h/.claude")


def test_python_version_of(tmp_path: Path) -> None:
    binary = tmp_path / "bin" / "python3.12"
    binary.parent.mkdir()
    binary.write_bytes(b"\x7fELF")
    assert hc.python_version_of(str(binary)) == (3, 12)
    link = tmp_path / "bin" / "python3"
    link.symlink_to("python3.12")
    assert hc.python_version_of(str(link)) == (3, 12)
    plain = tmp_path / "venv" / "bin" / "python"
    plain.parent.mkdir(parents=True)
    plain.write_bytes(b"\x7fELF")
    (tmp_path / "venv" / "lib" / "python3.10").mkdir(parents=True)
    assert hc.python_version_of(str(plain)) == (3, 10)


@pytest.mark.parametrize("kind", ["script", "binary", "fifo", "device", "directory", "missing"])
def test_a_shim_is_a_script_and_only_a_regular_file_is_read(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "python3"
    if kind == "script":
        path.write_bytes(b'#!/usr/bin/env bash\nexec pyenv exec "$@"\n')
    elif kind == "binary":
        path.write_bytes(b"\x7fELF\x02\x01\x01")
    elif kind == "fifo":
        os.mkfifo(path)  # a plain open() would block here
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    assert hc.is_shim(str(path)) is (kind == "script")
    assert hc.is_shim(str(tmp_path / "shims" / "python3"))  # by its directory, unread


def test_claude_settings_merges_below_managed_and_above_local(tmp_path: Path) -> None:
    """`claude --settings` (the "flag" scope) overrides local, and managed
    overrides it: one order for env, plugins and the hook chain."""
    scopes = []
    for name, env in (
        ("managed", {"M": "managed"}),
        ("flag", {"M": "flag", "L": "flag"}),
        ("local", {"L": "local", "U": "local"}),
        ("user", {"U": "user"}),
    ):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"env": env}))
        scopes.append(hc.read_scope(name, path))
    assert [s.name for s in hc.in_merge_order(scopes)] == ["user", "local", "flag", "managed"]
    merged = {k: v for k, (v, _s) in hc.merged_env(scopes).items()}
    assert merged == {"M": "managed", "L": "flag", "U": "local"}


# -- the `if` field (CLI 2.1.85+), as measured in tests/e2e/test_e2e_registration.py


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("graphify explain 'apply_overlay'", True),
        ("cd src && graphify explain x --graph ../.graphify/graph.json", True),
        ("GRAPHIFY_OUT=.graphify graphify explain x", True),
        ("graphify query 'who calls x' | head -5", True),
        ("ls; graphify explain x", True),
        ("ls\ngraphify path a b", True),
        ("graphify", True),
        ("/usr/local/bin/graphify explain x", False),
        ("time graphify explain x", False),
        ("grep -rn graphify .", False),
        ("git status", False),
        ("graphifyx explain", False),
    ],
)
def test_the_lookup_if_lets_lookups_through(command: str, runs: bool) -> None:
    assert hc.if_matches(hc.LOOKUP_IF, "Bash", {"command": command}) is runs


def test_an_if_names_its_tool() -> None:
    assert not hc.if_matches(hc.LOOKUP_IF, "mcp__graphify__query_graph", {"question": "x"})
    assert hc.if_matches("Read", "Read", {"file_path": "/x"})
    assert not hc.if_matches("Read", "Grep", {})
    assert hc.if_matches(None, "Edit", {})
    assert not hc.if_matches("(broken", "Bash", {"command": "graphify"})


def test_a_cli_before_the_field_ignores_it() -> None:
    assert hc.if_matches(hc.LOOKUP_IF, "Bash", {"command": "git status"}, cli="2.1.84")
    assert not hc.if_matches(hc.LOOKUP_IF, "Bash", {"command": "git status"}, cli="2.1.85")


def test_installs_groups_start_once_per_lookup_and_not_after_other_calls() -> None:
    """The registration install writes (hook_chain.GROUPS): each lookup starts
    exactly one handler after it returns; nothing else starts one."""
    for event in ("PostToolUse", "PostToolUseFailure"):
        handlers = list(hc.handlers({event: hc._groups(event, "python3 graphify_nudge")}))
        calls = {
            ("Bash", "graphify explain x"): 1,
            ("mcp__graphify__query_graph", ""): 1,
            ("Bash", "git status"): 0,
            ("Read", ""): 0,
            ("TaskOutput", ""): 0,
        }
        for (tool, command), n in calls.items():
            data = {"command": command} if command else {}
            assert sum(hc.starts(h, tool, data) for h in handlers) == n, (event, tool, command)


def test_comma_lists_are_regexes_before_2_1_191() -> None:
    assert hc.matcher_matches("Read, Grep", "Read")
    assert hc.matcher_matches("Read, Grep", "Read", cli="2.1.191")
    assert not hc.matcher_matches("Read, Grep", "Read", cli="2.1.190")
    assert hc.matcher_matches("Read|Grep", "Grep", cli="2.1.69")
