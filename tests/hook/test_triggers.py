"""Requirement 2: what is a trigger, for Read, Grep and the Bash equivalents."""

from __future__ import annotations

import pytest

from graphify_nudge import TRIGGER_EXTENSIONS, classify_call, split_commands

ROOT = "/work/project"


def bash(command: str) -> tuple[str, bool, str | None]:
    call = classify_call("Bash", {"command": command}, ROOT)
    return call.kind, call.trigger, call.target


@pytest.mark.parametrize("ext", sorted(TRIGGER_EXTENSIONS))
def test_read_of_every_graphify_language_is_a_trigger(ext: str) -> None:
    call = classify_call("Read", {"file_path": f"{ROOT}/src/mod{ext}"}, ROOT)
    assert (call.kind, call.trigger, call.via, call.target) == (
        "read",
        True,
        "Read",
        f"src/mod{ext}",
    )


def test_extension_set_is_exactly_the_adr_list() -> None:
    adr = {
        ".py",
        ".ts",
        ".tsx",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".go",
        ".rs",
        ".java",
        ".php",
        ".rb",
    }
    assert adr == TRIGGER_EXTENSIONS


@pytest.mark.parametrize(
    "path",
    [
        "README.md", "config.yaml", "settings.yml", "pyproject.toml", "package.json",
        "package-lock.json", "Cargo.lock", "poetry.lock", ".env", ".eslintrc.js.bak",
        "setup.cfg", "Makefile", ".gitignore", "src/.py", "notes.txt",
    ],
)  # fmt: skip
def test_configs_docs_lockfiles_and_dotfiles_are_not_triggers(path: str) -> None:
    assert not classify_call("Read", {"file_path": f"{ROOT}/{path}"}, ROOT).trigger


def test_uppercase_extension_counts() -> None:
    assert classify_call("Read", {"file_path": f"{ROOT}/Main.PY"}, ROOT).trigger


@pytest.mark.parametrize(
    "path",
    [
        "/usr/lib/python3.11/json/__init__.py",  # outside the project: no graph covers it
        f"{ROOT}/../other/app.py",
        f"{ROOT}-sibling/app.py",
        f"{ROOT}/.git/hooks/pre-commit.py",
        f"{ROOT}/.graphify/cache/x.py",
        f"{ROOT}/graphify-out/x.py",
    ],
)
def test_files_outside_the_root_or_in_git_or_graph_dirs_are_not_triggers(path: str) -> None:
    assert not classify_call("Read", {"file_path": path}, ROOT).trigger


def test_custom_graph_dir_is_excluded() -> None:
    call = classify_call(
        "Read", {"file_path": f"{ROOT}/out/g/x.py"}, ROOT, graph_dir=f"{ROOT}/out/g"
    )
    assert not call.trigger


def test_relative_read_resolves_against_cwd() -> None:
    assert (
        classify_call("Read", {"file_path": "app.py"}, ROOT, cwd=f"{ROOT}/src").target
        == "src/app.py"
    )


@pytest.mark.parametrize("pattern", ["apply_overlay", "User", "_private", "x", "CONST_2"])
def test_grep_bare_identifier_is_a_trigger(pattern: str) -> None:
    call = classify_call("Grep", {"pattern": pattern, "path": ROOT}, ROOT)
    assert (call.kind, call.trigger, call.target, call.symbol) == ("grep", True, pattern, pattern)


@pytest.mark.parametrize(
    "pattern",
    ["apply.*", "foo|bar", "2fast", "naïve", "foo-bar", "", "$", "_", "a b", "get[A-Z]\\w+"],
)
def test_grep_regex_is_not_a_trigger(pattern: str) -> None:
    call = classify_call("Grep", {"pattern": pattern}, ROOT)
    assert call.kind == "grep" and not call.trigger


@pytest.mark.parametrize(
    ("pattern", "symbol", "qualifier"),
    [
        ("def foo", "foo", None),
        ("foo(", "foo", None),
        ("foo\\(", "foo", None),
        ("^foo$", "foo", None),
        ("\\bfoo\\b", "foo", None),
        ("def\\s+load\\(", "load", None),
        ("class Option", "Option", None),
        ("class Option[(:]", "Option", None),
        ("export async function parse", "parse", None),
        ("pub fn new", "new", None),
        ("$ZodType", "$ZodType", None),
        ("\\$ZodObject", "$ZodObject", None),
        ("a$b", "a$b", None),
        ("click.echo", "echo", "click"),
        ("click\\.echo", "echo", "click"),
        ("Context.invoke", "invoke", "Context"),
        ("Foo::bar", "bar", "Foo"),
        ("self.load", "load", None),
        ("this.parse(", "parse", None),
    ],
)
def test_identifiers_as_the_languages_write_them(
    pattern: str, symbol: str, qualifier: str | None
) -> None:
    call = classify_call("Grep", {"pattern": pattern}, ROOT)
    assert (call.trigger, call.target, call.symbol, call.qualifier) == (
        True, pattern, symbol, qualifier,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "symbol"),
    [("rg '\\$ZodObject' src", "$ZodObject"), ("rg 'def apply_overlay'", "apply_overlay"),
     ("grep -rn 'click\\.echo' .", "echo"), ('rg -w "\\bparse\\("', "parse")],
)  # fmt: skip
def test_bash_identifier_searches(command: str, symbol: str) -> None:
    call = classify_call("Bash", {"command": command}, ROOT)
    assert (call.kind, call.trigger, call.symbol) == ("grep", True, symbol)


def test_multiline_grep_is_not_a_trigger() -> None:
    assert not classify_call("Grep", {"pattern": "foo", "multiline": True}, ROOT).trigger
    assert classify_call("Grep", {"pattern": "foo", "multiline": False}, ROOT).trigger


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn apply_overlay .",
        "grep -rn apply_overlay src/ | head -20",
        "cd src && grep -n apply_overlay *.py",
        "rg apply_overlay",
        "rg -n --type py apply_overlay src",
        "rg -g '*.py' apply_overlay",
        "ag apply_overlay",
        "ack apply_overlay",
        "egrep -rn apply_overlay .",
        "fgrep apply_overlay app.py",
        "git grep -n apply_overlay",
        "git --no-pager grep apply_overlay -- src",
        "git -C sub grep apply_overlay",
        "grep -e apply_overlay -r .",
        "grep -rnA3 apply_overlay .",
        "grep --include='*.py' -rn apply_overlay .",
        "/usr/bin/grep apply_overlay x.py",
        "LC_ALL=C grep apply_overlay x.py",
        "sudo -u root grep apply_overlay x.py",
        "env LC_ALL=C grep apply_overlay x.py",
        "timeout 5 rg apply_overlay",
        "find . -name '*.py' | xargs grep -n apply_overlay",
        "echo start; grep -w apply_overlay src/app.py",
        "if grep -q apply_overlay src/app.py; then echo yes; fi",
        "bash -c 'grep -rn apply_overlay .'",
        "echo $(grep -l apply_overlay src/*.py)",
        "grep -rn apply_overlay . 2>/dev/null",
        "grep -rn \\\n  apply_overlay .",
        "(cd src; rg apply_overlay)",
    ],
)
def test_bash_search_for_a_bare_identifier_is_a_grep_trigger(command: str) -> None:
    assert bash(command) == ("grep", True, "apply_overlay")


@pytest.mark.parametrize(
    "command",
    [
        'git commit -m "grep foo"',  # graphify's own hook shipped this bug (#3121)
        "echo grep foo",
        "echo 'rg foo'",
        "printf '%s' 'grep foo'",
        "cat <<EOF\ngrep foo\nEOF",
        "# grep foo",
        "git log --grep foo",
        "ls grep",
        "npm run grep",
        "grep 'foo.*bar' src",
        "grep -E 'foo|bar' src",
        "grep -e foo -e bar src",
        "grep -f patterns.txt src",
        "rg --files | grep test",
        "ag -g apply_overlay",
        "ack -f",
        "grep",
    ],
)
def test_bash_that_does_not_execute_a_symbol_search_is_not_a_grep_trigger(command: str) -> None:
    assert not bash(command)[1], command


@pytest.mark.parametrize(
    "command", ["ls | grep test", "pip list | grep -i pytest", "ps aux | grep python"]
)
def test_grep_filtering_a_pipe_searches_no_code(command: str) -> None:
    # grep with no file operand and no -r reads stdin: a filter, not a lookup.
    kind, trigger, _ = bash(command)
    assert (kind, trigger) == ("grep", False)


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("cat src/app.py", "src/app.py"),
        ("cat -n src/app.py", "src/app.py"),
        ("head -50 src/app.py", "src/app.py"),
        ("head -n 50 src/app.py", "src/app.py"),
        ("tail -n +10 src/app.py", "src/app.py"),
        ("less src/app.py", "src/app.py"),
        ("sed -n '1,80p' src/app.py", "src/app.py"),
        ("sed -ne '1,80p' src/app.py", "src/app.py"),
        ("sed -n -e 5p -- src/app.py", "src/app.py"),
        ("cat README.md src/app.py", "src/app.py"),
        (f"cat {ROOT}/lib/x.ts", "lib/x.ts"),
        ("cd /tmp && cat /work/project/a.go", "a.go"),
        ("cat src/app.py | wc -l", "src/app.py"),
    ],
)
def test_bash_read_of_a_source_file_is_a_read_trigger(command: str, target: str) -> None:
    assert bash(command) == ("read", True, target)


@pytest.mark.parametrize(
    "command",
    [
        "cat README.md",
        "head -5 pyproject.toml",
        "sed 's/a/b/' src/app.py",  # no -n: a stream edit, not a slice
        "sed -i -n '1p' src/app.py",  # -i edits in place
        "echo cat src/app.py",
        "cat /etc/hosts.py",  # outside the project
        "cat .git/config",
        "cat > src/new.py <<EOF\nx = 1\nEOF",  # writes, the file is a redirection target
        "tail -f logs/app.log",
    ],
)
def test_bash_that_does_not_read_source_is_not_a_read_trigger(command: str) -> None:
    assert not bash(command)[1], command


@pytest.mark.parametrize(
    ("command", "target", "symbols"),
    [
        ('graphify explain "apply_overlay"', "explain", ("apply_overlay",)),
        (
            "graphify explain apply_overlay --graph .graphify/graph.json",
            "explain",
            ("apply_overlay",),
        ),
        ('graphify query "who calls apply_overlay"', "query", ("apply_overlay",)),
        ("graphify path A B", "path", ("A", "B")),
        ("graphify affected models.User --depth 3", "affected", ("models.User",)),
        ("graphify search apply_overlay", "search", ("apply_overlay",)),
        ("cd /x && graphify explain foo | head", "explain", ("foo",)),
        ("python3 -m graphify explain foo", "explain", ("foo",)),
        (
            "GRAPHIFY_OUT=.graphify graphify query 'what imports src/app.py'",
            "query",
            ("src/app.py",),
        ),
    ],
)
def test_bash_graphify_lookups(command: str, target: str, symbols: tuple[str, ...]) -> None:
    call = classify_call("Bash", {"command": command}, ROOT)
    assert (call.kind, call.trigger, call.via, call.target, call.symbols) == (
        "lookup", False, "Bash", target, symbols,
    )  # fmt: skip


@pytest.mark.parametrize(
    "command",
    [
        "graphify install",
        "graphify extract . --code-only",
        "graphify update .",
        "echo graphify explain x",
        "git commit -m 'graphify explain x'",
        "graphify",
    ],
)
def test_bash_graphify_non_lookups(command: str) -> None:
    assert bash(command)[0] != "lookup"


def test_lookup_wins_over_trigger_in_one_command() -> None:
    assert bash("grep -rn foo . && graphify explain foo")[0] == "lookup"


def test_mcp_tools_named_graphify_are_lookups() -> None:
    call = classify_call("mcp__graphify__query", {"question": "who calls apply_overlay"}, ROOT)
    assert (call.kind, call.via, call.symbols) == ("lookup", "MCP", ("apply_overlay",))


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Edit", {"file_path": f"{ROOT}/a.py"}),
        ("Write", {"file_path": f"{ROOT}/a.py"}),
        ("Glob", {"pattern": "*.py"}),
        ("Agent", {"subagent_type": "hizkiah"}),
        ("Read", {"file_path": 5}),
        ("Read", {}),
        ("Grep", {"pattern": None}),
        ("Bash", {"command": 3}),
        ("Read", "not a dict"),
        ("Read", None),
    ],
)
def test_other_tools_and_malformed_inputs_are_other(tool: str, tool_input: object) -> None:
    call = classify_call(tool, tool_input, ROOT)
    assert (call.kind, call.trigger) == ("other", False)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a b; c d", [["a", "b"], ["c", "d"]]),
        ("a && b || c | d & e", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("a 'b c' \"d e\" f\\ g", [["a", "b c", "d e", "f g"]]),
        ('a "x\\"y"', [["a", 'x"y']]),
        ("a >out 2>&1 <in", [["a"]]),
        ("a 2>/dev/null b", [["a", "b"]]),
        ("a &>log b", [["a", "b"]]),
        ("a # b c", [["a"]]),
        ("a#b", [["a#b"]]),
        ("a $(b c) d", [["b", "c"], ["a", "$(…)", "d"]]),
        ("a `b c`", [["b", "c"], ["a", "$(…)"]]),
        ("cat <<'EOF' | x\nline\nEOF\nnext", [["cat"], ["x"], ["next"]]),
        ("a ''", [["a", ""]]),
        ("", []),
        ("'unterminated", [["unterminated"]]),
    ],
)
def test_split_commands(command: str, expected: list[list[str]]) -> None:
    assert split_commands(command) == expected
