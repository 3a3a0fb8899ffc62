"""ingest-lint runs in linear time on any input (issue 11: one 40 KB front-matter
line took 10.8 s, an 80 KB suppression reason 76 s).

The proof has two halves, neither of them a stopwatch:

* regular expressions, where the time goes in C, are checked by their shape:
  every one in the package is compiled at module level (so the audit sees them
  all), and none has a super-linear backtracking shape for the methods it is
  used with (``regex_linearity``, which finds the two shapes that make a
  backtracking engine slow);
* Python-level work is counted: the traced line events of a lint at most
  double, plus a constant, when its input doubles.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mishkan_core.ingest_lint as package
from mishkan_core.ingest_lint._engine import lint_text
from mishkan_core.ingest_lint._reader import parse_front_matter, split_lines
from tests.ingest_lint.regex_linearity import ANCHORED_METHODS, SEARCH_METHODS, problems

PACKAGE_DIR = Path(package.__file__).parent
REGEX_FUNCTIONS = frozenset(
    {"compile", "match", "search", "fullmatch", "findall", "finditer", "split", "sub", "subn"}
)
Key = tuple[str, str]  # (module, name)


def _modules() -> dict[str, ast.Module]:
    """The package's modules by dotted name, parsed."""
    out = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join((package.__name__, *parts))
        out[name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _re_calls(node: ast.AST) -> list[tuple[ast.Call, str]]:
    calls = []
    for call in ast.walk(node):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "re"
            and call.func.attr in REGEX_FUNCTIONS
        ):
            calls.append((call, call.func.attr))
    return calls


def _patterns() -> dict[Key, re.Pattern[str]]:
    """Every compiled pattern in the package, by the module that defines it."""
    found: dict[Key, re.Pattern[str]] = {}
    for name in [package.__name__] + [
        m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, re.Pattern) and value not in found.values():
                found[(name, attr)] = value
    return found


def _usages(modules: dict[str, ast.Module]) -> dict[Key, set[str]]:
    """The methods each pattern is used with, anywhere in the package. A pattern
    handed on as an object counts as searched: the callee may scan with it."""
    used: dict[Key, set[str]] = defaultdict(set)
    for module, tree in modules.items():
        origin: dict[str, str] = {}
        for top in tree.body:
            if isinstance(top, ast.ImportFrom) and top.module:
                for alias in top.names:
                    origin[alias.asname or alias.name] = top.module
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
                continue
            key = (origin.get(node.id, module), node.id)
            parent = parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                used[key].add(parent.attr)
            else:
                used[key].add("search")
    return used


def test_every_regex_is_compiled_at_module_level() -> None:
    """A pattern built inside a function, or a module-level re.match(...), would
    escape the audit below."""
    inline = []
    for module, tree in _modules().items():
        for top in tree.body:
            at_module_level = isinstance(top, (ast.Assign, ast.AnnAssign))
            for call, function in _re_calls(top):
                if not (at_module_level and function == "compile"):
                    inline.append(f"{module}:{call.lineno} re.{function}")
    assert not inline, f"regexes outside a module-level re.compile: {inline}"


def test_no_regex_backtracks_super_linearly() -> None:
    patterns = _patterns()
    assert len(patterns) >= 60  # the audit sees the package's regexes
    used = _usages(_modules())
    failures = {}
    for key, pattern in sorted(patterns.items()):
        methods = used.get(key, set()) & (SEARCH_METHODS | ANCHORED_METHODS)
        found = problems(pattern, methods or {"search"})
        if found:
            failures[".".join(key)] = found
    assert not failures, failures


# ----------------------------------------------------------------- the analyser itself

SLOW = [
    # the issue 11 shapes: a lazy value, then blanks, then the end
    (r"^(?P<key>\w+)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*$", "match"),
    (r"^allow[ \t]+(?:[ \t]+--[ \t]+(?P<reason>\S.*?))?[ \t]*$", "match"),
    (r"(a|a)*b", "match"),  # exponential
    (r"(a*)*b", "match"),
    (r"(?:a{1,3})+$", "match"),
    (r"\s*x", "search"),  # a leading loop, retried from every position
    (r"\w+_\w+!", "match"),
    (r"[\w$]+(?:[.:/#][\w$]+)+", "findall"),
    (r"[a-z_]+$", "search"),
    (r"^\s*x", "search"),  # multiline "^" after a newline, but \s reads newlines
    (r"[ \t]*(?:\[.*\])?[ \t]*;?[ \t]*$", "match"),
    # a string with escapes retried at every quote: unguarded, or guarded by the wrong
    # character behind its first one
    (r'("[^"\\]*(?:\\.[^"\\]*)*"|\[)', "split"),
    (r'("(?<!x")[^"\\]*(?:\\.[^"\\]*)*"|\[)', "split"),
]
FAST = [
    (r"[ \t]+", "findall"),  # the match cannot fail once the loop is entered
    (r"^[ \t]*x", "search"),
    (r"(?<![\w$])[\w$]+(?:[.:/#][\w$]+)+", "findall"),  # starts only at a word's start
    (r"\b[a-z]+(?:_[a-z]+)+", "findall"),
    (r"[a-z_]+", "match"),
    (r"a{0,30}b", "search"),  # bounded work per position
    (r"^(?P<key>\w+)[ \t]*:(?:[ \t]+(?P<value>[^ \t].*)?)?$", "match"),
    (r"^[ \t]*x[^\n]*[ \t]*$", "match"),  # multiline below: [^\n]* always reaches the end
    # no string starts after a backslash, guarded behind its first character
    (r'("(?<!\\")[^"\\]*(?:\\.[^"\\]*)*"|\[(?<!\\\[))', "split"),
]


@pytest.mark.parametrize(("pattern", "method"), SLOW)
def test_the_audit_finds_super_linear_shapes(pattern: str, method: str) -> None:
    assert problems(re.compile(pattern, re.MULTILINE), [method])


@pytest.mark.parametrize(("pattern", "method"), FAST)
def test_the_audit_passes_linear_shapes(pattern: str, method: str) -> None:
    assert not problems(re.compile(pattern, re.MULTILINE), [method])


# ----------------------------------------------------------------- Python-level work


def _line_events(text: str) -> int:
    """Line events executed inside the package while linting ``text``."""
    count = 0
    prefix = str(PACKAGE_DIR)

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def scope(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return local if frame.f_code.co_filename.startswith(prefix) else None

    previous = sys.gettrace()
    sys.settrace(scope)
    try:
        lint_text("t.md", text, include_all=True)
    finally:
        sys.settrace(previous)
    return count


FRONT = "---\nmishkan: ingest\n---\n"
UNITS = st.sampled_from(
    [
        " ",
        "\t",
        "a",
        "-",
        ">",
        "(",
        ")",
        "[",
        '"',
        '\\"',
        ", ",
        "a.",
        "--",
        "-[",
        "$:",
        "x ",
        "`a.b` ",
        "(n [1, 2] - [3, 4]",
        "a.b -> c.d ",
        "Name(id=",
        "  - dep",
        "| a.py | 1 ",
        "\x7f ",
        "MERGE (",
    ]
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    unit=UNITS,
    tail=st.sampled_from(["", "b", "\n", ":", "!"]),
    shape=st.sampled_from(["line", "lines", "title", "reason", "fenced", "carried"]),
)
def test_work_grows_linearly_with_the_input(unit: str, tail: str, shape: str) -> None:
    def document(n: int) -> str:
        run = unit * n
        if shape == "line":
            return FRONT + "note " + run + tail + "\n"
        if shape == "lines":
            return FRONT + "\n".join([unit.strip() or unit] * n) + tail + "\n"
        if shape == "title":
            return "---\nmishkan: ingest\ntitle: a" + run + tail + "\n---\nbody\n"
        if shape == "reason":
            return (
                "---\nmishkan: ingest\nmishkan-lint: allow IL101 -- x"
                + run
                + tail
                + "\n---\nbody\n"
            )
        if shape == "carried":  # sentences around a listing: the line and the shape model
            prose = "We chose this because the team can run it and it fails in known ways.\n"
            return FRONT + prose * (n // 8) + "```\n" + "\n".join([unit * 8] * n) + tail + "\n```\n"
        return FRONT + "```\n" + "\n".join([unit] * n) + tail + "\n```\n"

    small, large = _line_events(document(400)), _line_events(document(800))
    assert large <= 2.2 * small + 2_000, (small, large)


# ----------------------------------------------------------------- issue 11, as reported


def test_a_long_front_matter_line_is_parsed() -> None:
    value = "a" + " " * 40_000 + "b"
    plain = parse_front_matter(split_lines(f"---\ntitle: {value}\n---\n"), frozenset())
    assert plain.present and plain.end_line == 3 and not plain.problems
    assert not plain.is_artifact  # no "mishkan: ingest": rightly not an artifact
    artifact = parse_front_matter(
        split_lines(f"---\ntitle: {value}\nmishkan: ingest\n---\n"), frozenset()
    )
    assert artifact.is_artifact and not artifact.problems


def test_a_long_suppression_reason_is_kept_whole() -> None:
    reason = "x" + " " * 80_000 + "y"
    fm = parse_front_matter(
        split_lines(f"---\nmishkan: ingest\nmishkan-lint: allow IL101 -- {reason}   \n---\n"),
        frozenset({"IL101"}),
    )
    assert not fm.problems
    assert [(s.rules, s.reason) for s in fm.suppressions] == [(("IL101",), reason)]


def test_the_reported_files_lint_as_they_should(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's own reproductions, through the CLI: the plain one is rightly not
    an artifact, the same line beside "mishkan: ingest" is one, and both are read."""
    from mishkan_core.ingest_lint.__main__ import main

    plain = tmp_path / "x.md"
    plain.write_text("---\ntitle: a" + " " * 40_000 + "b\n---\n", encoding="utf-8")
    assert main([str(plain)]) == 0
    assert f'{plain}: skipped: no "mishkan: ingest" marker' in capsys.readouterr().out
    marked = tmp_path / "y.md"
    marked.write_text(
        "---\nmishkan: ingest\ntitle: a" + " " * 40_000 + "b\n"
        "mishkan-lint: allow IL101 -- x" + " " * 80_000 + "y\n---\nProse.\n",
        encoding="utf-8",
    )
    assert main([str(marked)]) == 1  # the suppression is unused: IL003, not a timeout
    out = capsys.readouterr().out
    assert "IL003 unused suppression: IL101" in out and "(1 artifact(s) checked" in out
