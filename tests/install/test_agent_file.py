"""``mishkan_core.agent_file``: frontmatter hooks read, inserted and removed as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from mishkan_core import agent_file, hook_chain

CMD = hook_chain.hook_command(Path("/p/payload/mishkan/hooks"), Path("/p"), "advise")

#: agent files as people write them: bare, with their own hooks (block style,
#: a `|` command, comments), CRLF, no final newline, a `- key:` compact list
STYLES = {
    "bare": "---\nname: hizkiah\ndescription: Backend work.\ntools: Read, Grep, Bash\n---\nBody.\n",
    "own_hooks": (
        "---\nname: salma\nhooks:\n  # the team's audit hook\n  PreToolUse:\n"
        '    - matcher: "Bash"\n      hooks:\n        - type: command\n'
        "          command: ./audit.sh   # logs every command\n"
        "  Stop:\n    - hooks:\n        - type: command\n          command: |\n"
        "            echo one\n            echo two\nmodel: sonnet\n---\nBody.\n"
    ),
    "crlf": "---\r\nname: nathan\r\ndescription: x\r\n---\r\nBody.\r\n",
    "no_final_newline": "---\nname: zadok\ndescription: x\n---\nBody.",
    "compact_list": (
        "---\nname: oholiab\nhooks:\n  PostToolUse:\n  - matcher: Edit\n    hooks:\n"
        "    - type: command\n      command: fmt.sh\n---\n"
    ),
    "empty_body": "---\nname: hizkiah\n---\n",
}


@pytest.mark.parametrize("name", sorted(STYLES))
def test_round_trip(name: str) -> None:
    text = STYLES[name]
    once = agent_file.install(text, CMD, hook_chain.TOOL_EVENTS)
    assert agent_file.install(once, CMD, hook_chain.TOOL_EVENTS) == once  # idempotent
    assert agent_file.uninstall(once) == text  # exact
    kept = [line for line in text.splitlines() if line not in once.splitlines()]
    assert kept == []  # every line of the file is still there
    hooks = agent_file.read_hooks(once)
    mine = hook_chain.ours(hooks)
    groups = hook_chain.GROUPS
    assert sorted(h.event for h in mine) == sorted(
        e for e in hook_chain.TOOL_EVENTS for _ in groups[e]
    )
    post = {(h.matcher, h.condition) for h in mine if h.event != "PreToolUse"}
    assert post == set(groups["PostToolUse"]) == set(groups["PostToolUseFailure"])
    assert all(h.command == CMD for h in mine)
    if "\r\n" in text:
        assert "\n" not in once.replace("\r\n", "")


def test_existing_hooks_are_read_and_kept() -> None:
    once = agent_file.install(STYLES["own_hooks"], CMD, hook_chain.TOOL_EVENTS)
    hooks = agent_file.read_hooks(once)
    assert hooks is not None
    pre = [(h.matcher, h.command) for h in hook_chain.handlers(hooks, ("PreToolUse",))]
    assert pre == [("Bash", "./audit.sh"), ("*", CMD)]
    stop = [h.command for h in hook_chain.handlers(hooks, ("Stop",))]
    assert stop == ["echo one\necho two\n"]


def test_a_mode_change_replaces_the_lines() -> None:
    advise = agent_file.install(STYLES["bare"], CMD, hook_chain.TOOL_EVENTS)
    off = agent_file.install(advise, CMD.replace("advise", "off"), hook_chain.TOOL_EVENTS)
    lines = sum(len(hook_chain.GROUPS[e]) for e in hook_chain.TOOL_EVENTS)
    assert "mode=advise " not in off and off.count("mode=off ") == lines
    assert agent_file.uninstall(off) == STYLES["bare"]


def test_moving_to_settings_removes_the_lines() -> None:
    once = agent_file.install(STYLES["own_hooks"], CMD, hook_chain.TOOL_EVENTS)
    assert agent_file.install(once, CMD, ()) == STYLES["own_hooks"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("no frontmatter\n", "no YAML frontmatter"),
        ("---\nname: x\nhooks: {PreToolUse: []}\n---\n", "only JSON-shaped flow values"),
        ('---\nname: x\nhooks: {"PreToolUse": []}\n---\n', "written inline"),
        ("---\nname: x\nhooks:\n  PreToolUse: []\n---\n", "written inline"),
        ("---\nname: x\nhooks:\n  PreToolUse: nope\n---\n", "not a block list"),
        ("---\nname: x\nhooks:\n\tPreToolUse:\n---\n", "tab in indentation"),
        ("---\nname: x\nhooks:\n  - a\n---\n", "'hooks' is not a mapping"),
    ],
)
def test_what_it_cannot_edit_safely_is_refused(text: str, fragment: str) -> None:
    with pytest.raises(agent_file.FrontmatterError) as exc:
        agent_file.install(text, CMD, hook_chain.TOOL_EVENTS)
    assert fragment in str(exc.value)


def test_name_of() -> None:
    assert agent_file.name_of(STYLES["bare"]) == "hizkiah"
    assert agent_file.name_of("---\nname: 'Zadok'\n---\n") == "Zadok"
    assert agent_file.name_of("---\ndescription: x\n---\n") is None
    assert agent_file.name_of("name: x\n") is None


def test_uninstall_leaves_a_hand_written_registration() -> None:
    text = (
        "---\nname: x\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n"
        "          command: python3 payload/graphify_nudge.py\n---\n"
    )
    assert agent_file.uninstall(text) == text
    assert hook_chain.ours(agent_file.read_hooks(text))[0].matcher is None


@pytest.mark.parametrize(
    ("value", "name"),
    [("zadok", "zadok"), ("'zadok'", "zadok"), ("007", "007"), ("true", "true"),
     ('["x"]', None), ("[unclosed", None)],
)  # fmt: skip
def test_a_name_is_text_or_nothing(value: str, name: str | None) -> None:
    """A YAML number names what it says (``.lower()`` on an int crashed install)."""
    assert agent_file.name_of(f"---\nname: {value}\n---\n") == name


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("1" * 5000, "a number of 5000 digits"), ("[" * 100_000, "nests deeper than 64 levels"),
     ("-" + "9" * 101, "a number of 101 digits")],
)  # fmt: skip
def test_values_past_the_bounds_raise_limit_exceeded(value: str, fragment: str) -> None:
    """int() of 5,000 digits raises ValueError on 3.11+; 100,000 ``[``
    raised RecursionError. Both are one bounded error, before conversion."""
    from mishkan_core.safe_files import LimitExceeded

    for text in (f"---\nname: {value}\n---\n", f"---\nhooks:\n  PreToolUse: {value}\n---\n"):
        with pytest.raises(LimitExceeded, match=fragment):
            agent_file.name_of(text) if "name:" in text else agent_file.read_hooks(text)
    line = '- {"command": "graphify_nudge", "x": ' + "[" * 100_000
    deep = f"---\nhooks:\n  PreToolUse:\n    {line}\n---\n"
    with pytest.raises(LimitExceeded):  # read as the hooks block: bounded, one error
        agent_file.registers_nudge(deep)
    assert agent_file.uninstall(deep) == deep  # and never taken for a line install wrote
