"""``mishkan_core.json_text``: parse within limits, edit in place, give the bytes back."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mishkan_core import hook_chain, json_text

FIXTURES = Path(__file__).parent / "fixtures" / "settings"
ALL = sorted(FIXTURES.glob("*.json"))
PYTHON = os.path.realpath(sys.executable)


# ---------------------------------------------------------------------------
# parse: one-line errors, never a traceback, whatever the input


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b'{"a": [}', "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nests deeper than 64 levels"),
        (b"[" * 900 + b"]" * 900, "nests deeper than 64 levels"),
        (b'{"a": ' * 70 + b"1" + b"}" * 70, "nests deeper than 64 levels"),
        (b"1" * 5000, "not usable JSON"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
    ],
)
def test_parse_refuses_in_one_line(data: bytes, fragment: str) -> None:
    if fragment.startswith("not usable") and not hasattr(sys, "get_int_max_str_digits"):
        pytest.skip("this Python parses integers of any length")
    with pytest.raises(json_text.JsonError) as exc:
        json_text.parse(data, unique_keys=True)
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_parse_accepts_a_bom_and_deep_enough_documents() -> None:
    nested: Any = 1
    for _ in range(json_text.MAX_DEPTH):
        nested = [nested]
    assert json_text.parse(b"\xef\xbb\xbf" + json.dumps(nested).encode()) == nested
    assert json_text.depth(nested) == json_text.MAX_DEPTH
    assert json_text.depth({"a": [1, {"b": 2}]}) == 3


def test_a_million_of_one_character_is_fine() -> None:
    assert json_text.parse(json.dumps({"a": "x" * 1_000_000})) == {"a": "x" * 1_000_000}


# ---------------------------------------------------------------------------
# render: the 14 settings styles round trip through install and uninstall


@pytest.mark.parametrize("fixture", ALL, ids=[p.name for p in ALL])
def test_styles_round_trip(fixture: Path) -> None:
    text = fixture.read_bytes().decode("utf-8")
    once = _apply_install(text, "telemetry")
    assert json.loads(once) != json.loads(text)
    assert _apply_install(once, "telemetry") == once
    doc, style = _parse(once)
    back = json_text.render(once.encode(), doc, hook_chain.uninstall_doc(doc), style)
    if fixture.name not in {"empty_containers.json", "env_off.json", "empty_object.json"}:
        assert back == fixture.read_bytes()
    else:  # what only the backup can give back: an emptied container, a removed pin
        assert hook_chain.core(json.loads(back)) == hook_chain.core(json.loads(text))


def test_detect_style() -> None:
    assert json_text.detect_style('{\n\t"a": 1\n}\n').indent == "\t"
    assert json_text.detect_style('{\r\n    "a": 1\r\n}').crlf
    style = json_text.detect_style('{"a": 1, "b": "\\u00e9"}')
    assert style.indent is None and style.ensure_ascii and not style.final_newline
    assert json_text.dump({"a": 1}, style) == '{"a": 1}'


def test_render_falls_back_to_a_dump_on_trailing_data() -> None:
    old = b'{"a": 1} trailing'
    out = json_text.render(old, {"a": 1}, {"a": 2}, json_text.Style(indent=2))
    assert json.loads(out) == {"a": 2}


def test_unified_diff_marks_a_missing_newline() -> None:
    diff = json_text.unified_diff("x.json", b'{"a": 1}', b'{"a": 2}')
    assert diff.startswith("--- a/x.json\n+++ b/x.json\n")
    assert "\\ No newline at end of file" in diff
    assert json_text.unified_diff("x", None, b"1\n").startswith("--- /dev/null\n")


# ---------------------------------------------------------------------------
# the text edits, on generated settings files

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_handler = st.fixed_dictionaries(
    {
        "type": st.just("command"),
        "command": st.sampled_from(["a.sh", "pre-tool-security.sh x", "model-route.py", "echo é"]),
    }
)
_group = st.fixed_dictionaries(
    {
        "matcher": st.sampled_from(["*", "Bash", "Task"]),
        "hooks": st.lists(_handler, min_size=1, max_size=2),
    }
)
_hooks = st.dictionaries(
    st.sampled_from(["PreToolUse", "PostToolUse", "SessionStart", "Stop", "Notification"]),
    st.lists(_group, min_size=1, max_size=3),
    min_size=1,
    max_size=4,
)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    doc: dict[str, Any] = draw(
        st.dictionaries(
            st.sampled_from(["model", "permissions", "x", "statusLine"]), _values, max_size=3
        )
    )
    if draw(st.booleans()):
        doc["hooks"] = draw(_hooks)
    if draw(st.booleans()):
        doc["env"] = draw(
            st.dictionaries(st.sampled_from(["A", "B"]), st.text(max_size=4), min_size=1)
        )
    indent = draw(st.sampled_from([2, 4, "\t", None]))
    text = json.dumps(doc, indent=indent, ensure_ascii=draw(st.booleans()))
    return text + ("\n" if draw(st.booleans()) else "")


def _parse(text: str) -> tuple[Any, json_text.Style]:
    return json_text.parse(text.encode()), json_text.detect_style(text)


def _apply_install(text: str, mode: str) -> str:
    doc, style = _parse(text)
    command = hook_chain.hook_command(Path("/p/payload/mishkan/hooks"), Path("/p"), mode)
    new = hook_chain.install_doc(doc, command, hook_chain.EVENTS)
    return json_text.render(text.encode(), doc, new, style).decode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_generated_round_trip(text: str) -> None:
    once = _apply_install(text, "telemetry")
    assert _apply_install(once, "telemetry") == once
    assert _apply_install(once, "advise") != once
    doc, style = _parse(once)
    back = json_text.render(once.encode(), doc, hook_chain.uninstall_doc(doc), style).decode()
    assert back == text


def test_a_lone_surrogate_survives_a_re_serialisation() -> None:
    """Raw "é" makes the dump keep non-ASCII raw, a duplicate key defeats the
    splice, and the escaped ``\\ud800`` could not be encoded (issue 22)."""
    old = '{"hooks": {}, "a": "é", "b": "\\ud800", "hooks": {}}\n'.encode()
    doc = json_text.parse(old)
    new_doc = {**doc, "added": "ü"}
    out = json_text.render(old, doc, new_doc, json_text.detect_style(old.decode()))
    text = out.decode("utf-8")
    assert json.loads(text) == new_doc and "é" in text and "\\ud800" in text


def test_bounds_are_limit_exceeded_too() -> None:
    from mishkan_core.safe_files import LimitExceeded

    for data in (b"[" * 100_000, b"[" * 65 + b"]" * 65, b"1" * 5000):
        with pytest.raises(LimitExceeded):
            json_text.parse(data)
    with pytest.raises(json_text.JsonError) as caught:
        json_text.parse(b"{nope")
    assert not isinstance(caught.value, LimitExceeded)
