"""The fast forms of patterns match exactly what their plain forms do.

Patterns tried at every line of a block are written for speed (``_shape.line_led``
says how: runs that do not give back what cannot follow them, optional groups as
branches, unrolled strings). Each such pattern is checked here against the plain
form it replaced, on lines drawn from both and on lines of their characters: the
same match or none, with the same span and groups.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mishkan_core.ingest_lint import _shape, _structure
from mishkan_core.ingest_lint._detectors import ctags, dot, import_lists, sexp

_DOT_ID = r'(?:"(?:[^"\\\n]|\\.)*"|[\w.$:]+)'
_SEXP_POS = r"(?:[ \t]*\[\d+,[ \t]*\d+\][ \t]*-[ \t]*\[\d+,[ \t]*\d+\])"
_SEXP_NODE = rf"(?:[A-Za-z_]\w*:[ \t]*)?\((?:[A-Za-z_]\w*|\"[^\"\n]*\"){_SEXP_POS}?"

# (fast pattern, its plain form, the method it is used with, characters its lines hold)
FORMS: list[tuple[re.Pattern[str], str, str, str]] = [
    (
        import_lists._ITEM,
        r"^[ \t]+(?:(?:->|=>|[-*+]|\u2192)[ \t]*)?(?:\[[A-Za-z]{1,3}\][ \t]*)?"
        r"(?P<name>[@~.]{0,2}[\w$][\w$.\-/@:]*)[ \t]*(?:,[ \t]*)?$",
        "match",
        " \t->=*+\u2192[]Ua@~._$/:,x1",
    ),
    (
        dot._EDGE,
        rf"^[ \t]*{_DOT_ID}(?:[ \t]*(?:->|--)[ \t]*{_DOT_ID})+[ \t]*(?:\[[^\n]*\][ \t]*)?"
        r"(?:;[ \t]*)?$",
        "match",
        ' \t"\\a.$:->[];=',
    ),
    (
        dot._NODE,
        rf"^[ \t]*{_DOT_ID}[ \t]*\[[^\n]*\][ \t]*(?:;[ \t]*)?$",
        "match",
        ' \t"\\a.$:[];=',
    ),
    (
        _shape.LOCATION_HINT,
        r"\.[A-Za-z][A-Za-z0-9]{0,5}(?::L?\d|#L\d|,?[ \t]+L\d|\)?,?[ \t]+line[ \t]+\d)",
        "search",
        ".pyL1:# \t,)line",
    ),
    (
        sexp._TREE_LINE,
        rf"^[ \t]*{_SEXP_NODE}(?:(?:\)+[ \t]*|[ \t]+){_SEXP_NODE})*\)*[ \t]*$",
        "match",
        ' \t()a_:"[1,]-',
    ),
    (
        _structure._YAMLISH_LINE,
        r"^[ \t]*(?:-[ \t]+)?(?:[^\s#:{}()\[\],][^:{}()\[\]\n]*?:(?:[ \t]|$)|-[ \t]*\S)",
        "match",
        " \t-a:#{}()[],",
    ),
    (
        ctags._TAGS,
        r'^(?:[^\t\n]+\t[^\t\n]+\t(?:/\^?.*?\$?/|\?.*?\?|\d+)(?:;"(?:\t.*)?)?[ \t]*$|!_TAG_\w+\t)',
        "match",
        '\ta/^$?;"1!_TAG ',
    ),
    (
        _shape._CODE_START,
        r"(?:[#@][A-Za-z_]|//|/\*|\*/|[})\]]|<\?|<%|\$\w|[\w.\[\]'\"]+\s*(?:[-+*/%|&^]?=|:=)(?!=)\s*\S)",
        "match",
        "#@a_/*})<?%$.[]'\" =+:-",
    ),
    (
        _shape._DIAGNOSTIC_START,
        r"\s*(?:at\s|File\s\"|#\d+\s|\d+:\s+0x|Caused by|Traceback|-->\s|from\s\S+:\d+:in\s)",
        "match",
        ' \tatFile"#1:0xCaused byTraceback->from.',
    ),
]


def _result(match: re.Match[str] | None) -> Any:
    return None if match is None else (match.span(), match.groups())


@pytest.mark.parametrize(
    ("fast", "plain", "method", "chars"), FORMS, ids=[f[0].pattern[:24] for f in FORMS]
)
def test_the_fast_form_matches_what_the_plain_form_does(
    fast: re.Pattern[str], plain: str, method: str, chars: str
) -> None:
    slow = re.compile(plain, fast.flags)
    lines = st.one_of(
        st.from_regex(slow), st.from_regex(fast), st.text(alphabet=chars, max_size=40)
    )

    @settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
    @given(lines)
    def same(text: str) -> None:
        for line in text.split("\n"):
            assert _result(getattr(fast, method)(line)) == _result(getattr(slow, method)(line))

    same()
