"""``mishkan_core.bounded_regex``: a settings matcher searched in bounded time,
with the answer Python's ``re`` gives wherever JavaScript agrees with it."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mishkan_core import bounded_regex as br

ATOMS = ["a", "b", "_", ".", "[ab]", "[^a]", "[a-c1]", r"\w", r"\W", r"\d", r"\s", r"\S",
         "(a|b)", "(a|ab)", "(?:b|)", "(?:)"]  # fmt: skip
ASSERTIONS = ["^", "$", r"\b", r"\B", "(?=a)", "(?!b)", "(?<=a)", "(?<!b)"]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}", "{0,2}", "*?", "+?", "??", "{1,2}?"]


@st.composite
def patterns(draw: st.DrawFn, depth: int = 0) -> str:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            out.append(draw(st.sampled_from(ASSERTIONS)))
            continue
        if kind == 1 and depth < 2:
            inner = [draw(patterns(depth + 1)) for _ in range(draw(st.integers(1, 3)))]
            atom = "(" + "|".join(inner) + ")"
        else:
            atom = draw(st.sampled_from(ATOMS))
        out.append(atom + draw(st.sampled_from(QUANTIFIERS)))
    return "".join(out)


@settings(max_examples=600, deadline=None)
@given(patterns(), st.text(alphabet="ab_1 ", max_size=10))
def test_the_answer_is_python_s_on_ascii_names(pattern: str, text: str) -> None:
    """ASCII, no line terminators: where JavaScript and Python agree (not on
    ``\\B`` in an empty string: JavaScript matches, Python before 3.14 not)."""
    assume(not (r"\B" in pattern and not text))
    try:
        expected = re.search(pattern, text) is not None
    except re.error:
        with pytest.raises(br.InvalidPattern):
            br.search(pattern, text)
        return
    try:
        assert br.search(pattern, text) is expected
    except br.TooCostly:  # a random pattern may backtrack exponentially: that is the point
        pass


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^\d+$", "\u0663", False),  # JavaScript's \d is ASCII; Python's is not
        (r"^\w+$", "é", False),
        (r"a\b", "aé", True),  # and so is \b
        ("a$", "a\n", False),  # $ is the end of the input, not before a final newline
        ("^.$", "\r", False),  # . reads no line terminator
        ("(a*)*b", "aaaa", False),  # an empty iteration ends the loop
        ("(a|)*b", "aab", True),
        ("(?<=mcp__)graphify", "mcp__graphify__q", True),
        ("^(?!Read$).*", "Read", False),
        ("^(?!Read$).*", "Reader", True),
        ("", "anything", True),
        (r"\B", "", True),
    ],
)
def test_javascript_semantics(pattern: str, text: str, found: bool) -> None:
    assert br.search(pattern, text) is found


@pytest.mark.parametrize(
    ("pattern", "what"),
    [
        (r"(a)\1", "a backreference"),
        ("(?i)bash", "an inline flag"),
        ("(?i:bash)", "an inline flag"),
        ("(a)?(?(1)b|c)", "a conditional group"),
        ("a{30000}", "a repeat of more than"),
        ("(?:a{100}){300}", "a pattern that compiles to more than"),
        ("x" * 5000, "a pattern longer than 4096 characters"),
    ],
)
def test_what_cannot_be_evaluated_is_said(pattern: str, what: str) -> None:
    with pytest.raises(br.Unsupported, match=re.escape(what)):
        br.search(pattern, "aaaa")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="atomic groups parse from 3.11")
def test_atomic_groups_and_possessive_repeats_are_not_evaluated() -> None:
    for pattern in ("(?>a+)b", "a++b"):
        with pytest.raises(br.Unsupported):
            br.search(pattern, "aab")


def test_deep_nesting_is_one_error_not_a_recursion_error() -> None:
    with pytest.raises(br.MatcherError):
        br.search("(" * 2000 + ")" * 2000, "a")


def test_catastrophic_backtracking_stops_at_the_budget() -> None:
    """The reported matcher: 3^26 steps on the graphify MCP tool's name."""
    with pytest.raises(br.TooCostly, match="more than 1000 backtracking steps"):
        br.search(r"(\w|\w|\w)*!", "mcp__graphify__query_graph", budget=1000)
    with pytest.raises(br.TooCostly):
        br.search(r"(\w|\w|\w)*!", "mcp__graphify__query_graph")
    assert br.search(r"(\w|\w|\w)*!", "Read!") is True  # within budget: exact


def test_invalid_patterns_match_nothing_in_the_cli() -> None:
    with pytest.raises(br.InvalidPattern):
        br.search("(unclosed", "Bash")
