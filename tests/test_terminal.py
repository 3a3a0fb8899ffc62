"""``mishkan_core.terminal``: one escape for every string a command prints."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mishkan_core import cli, terminal


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain é 日本 \t tab\nnext line", "plain é 日本 \t tab\nnext line"),
        ("\x1b]52;c;aGk=\x07", "\\u001b]52;c;aGk=\\u0007"),
        ("fake\r\x1b[2Kclean", "fake\\u000d\\u001b[2Kclean"),
        ("\x9b2J\x7f\x00", "\\u009b2J\\u007f\\u0000"),
        ("abc\u202edef\u2066", "abc\\u202edef\\u2066"),
        ("name\udcff.md", "name\\udcff.md"),  # a file name that is not UTF-8
    ],
)
def test_escape(raw: str, shown: str) -> None:
    assert terminal.escape(raw) == shown


@given(st.text(st.characters(max_codepoint=0x80)) | st.text())
def test_the_ascii_shortcut_answers_as_the_pattern_does(text: str) -> None:
    """Plain ASCII skips the pattern (a one-file run need not import ``re``): it is
    returned unchanged exactly when the pattern finds nothing to escape in it."""
    import re

    escaped = terminal.escape(text)
    assert (escaped == text) is (re.search(terminal._UNSAFE_CLASS, text) is None)
    assert not re.search(terminal._UNSAFE_CLASS, escaped)


def test_an_escaped_json_text_is_the_same_json() -> None:
    value = {"id": "\x9b\u202e\u2066x"}
    text = json.dumps(value, ensure_ascii=False)
    assert json.loads(terminal.escape(text)) == value


def test_the_stream_escapes_every_write_and_delegates_the_rest() -> None:
    inner = io.StringIO()
    stream = terminal.EscapingStream(inner)
    print("a\x1b[31mb", file=stream)
    stream.flush()
    assert inner.getvalue() == "a\\u001b[31mb\n"
    assert stream.writable() and not stream.isatty()


def test_main_wraps_every_command_s_output(capsys: pytest.CaptureFixture[str]) -> None:
    """Through ``mishkan`` itself: a usage error naming a hostile argument."""
    code = cli.main(["routing", "check", "--matrix", "/nonexistent/\x1b[2J.json"])
    out, err = capsys.readouterr()
    assert code == 2 and "\x1b" not in out + err and "\\u001b[2J.json" in err
