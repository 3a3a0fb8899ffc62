"""Issue 14 item 4: the hook's hand-written stand-ins, pinned to the stdlib they copy.

The hook avoids importing json, os.path and shlex (each costs more than the
hook itself, bench/); these differential tests say exactly where each stand-in
agrees with its model, and the few places it deliberately does not.
"""

from __future__ import annotations

import json
import posixpath
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphify_nudge import _dumps, _loads, _norm, shell_quote, split_commands

EXAMPLES = settings(max_examples=1500, deadline=None, derandomize=True)

finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)


# -- _dumps: json.dumps(value, separators=(",", ":")) with ensure_ascii ---------------


@EXAMPLES
@given(json_values)
def test_dumps_is_compact_ascii_json_dumps(value: object) -> None:
    assert _dumps(value) == json.dumps(value, separators=(",", ":"))


@given(st.sampled_from([float("nan"), float("inf"), float("-inf")]))
def test_dumps_writes_null_where_json_dumps_writes_invalid_json(value: float) -> None:
    # json.dumps writes NaN/Infinity, which no JSON parser need accept
    assert _dumps({"x": value}) == '{"x":null}'


def test_dumps_of_tuples_is_a_list() -> None:
    assert _dumps((1, "a")) == json.dumps((1, "a"), separators=(",", ":"))


# -- _loads: json.loads, strict on NaN/Infinity, only ValueError on bad input ----------


def _reject(name: str) -> None:
    raise ValueError(name)


def _model(text: str) -> tuple[str, object]:
    try:
        return "ok", json.loads(text, parse_constant=_reject)
    except RecursionError:
        return "deep", None
    except ValueError:
        return "error", None


def _standin(text: str) -> tuple[str, object]:
    try:
        return "ok", _loads(text)
    except RecursionError:
        return "deep", None
    except ValueError:
        return "error", None


@EXAMPLES
@given(json_values, st.sampled_from(["", " ", "\n", "\t \r\n"]))
def test_loads_reads_what_json_dumps_writes(value: object, space: str) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
        assert _standin(space + text + space) == _model(space + text + space)


json_ish = st.text(alphabet='{}[]:,"\\ntrufalse0123456789.eE+-NaIfiy \t\u00e9', max_size=40)


@EXAMPLES
@given(st.one_of(json_ish, st.text(max_size=40)))
def test_loads_agrees_with_json_loads_on_any_text(text: str) -> None:
    """Same value, or both refuse; the stand-in refuses with ValueError only
    (RecursionError for deep nesting, as json does)."""
    assert _standin(text) == _model(text)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a":-Infinity}'])
def test_loads_refuses_what_json_loads_accepts_but_json_forbids(text: str) -> None:
    assert json.loads(text) is not None
    assert _standin(text) == ("error", None)


# -- _norm: posixpath.normpath on absolute paths ------------------------------------


@EXAMPLES
@given(st.text(alphabet="ab./", max_size=30).filter(lambda rest: not rest.startswith("/")))
def test_norm_is_normpath_for_absolute_paths(rest: str) -> None:
    path = "/" + rest
    assert _norm(path) == posixpath.normpath(path)


def test_norm_collapses_a_leading_double_slash() -> None:
    # POSIX leaves a leading `//` implementation-defined and normpath keeps it;
    # on Linux it is `/`, and the hook compares paths lexically.
    assert (_norm("//a/b"), posixpath.normpath("//a/b")) == ("/a/b", "//a/b")


# -- shell_quote: shlex.quote's promise, always quoting ------------------------------


@EXAMPLES
@given(st.text())
def test_shell_quote_round_trips_through_shlex_split(text: str) -> None:
    assert shlex.split(shell_quote(text)) == [text]
    assert shlex.split(f"graphify explain {shell_quote(text)} --graph x") == [
        "graphify", "explain", text, "--graph", "x",
    ]  # fmt: skip


# -- split_commands: shlex.split on input without shell operators -------------------

# No operators (; & | ( ) < > newline), no comment (#), no substitution ($ `).
operator_free = st.text(alphabet=" \tab-=./'\"\\\u00e9", max_size=40)


@EXAMPLES
@given(operator_free)
def test_split_commands_is_shlex_split_on_operator_free_input(text: str) -> None:
    try:
        expected = shlex.split(text)
    except ValueError:  # an unclosed quote or a trailing backslash: shlex refuses
        return
    assert split_commands(text) == ([expected] if expected else [])
