"""_shape: the sampled-share shortcut agrees with the full share."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mishkan_core.ingest_lint._model import Block
from mishkan_core.ingest_lint._shape import is_frame, lines_reach, sample_reaches, sample_share


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a.b c.d", "x", "", "# note", "f(x)"]), max_size=80),
    st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0]),
)
def test_sample_reaches_agrees_with_sample_share(lines: list[str], share: float) -> None:
    def test(line: str) -> bool:
        return "." in line or "(" in line

    block = Block(0, 1, lines, fenced=True)
    assert sample_reaches(block, test, share) == (sample_share(block, test) >= share)


def test_native_stack_frames() -> None:
    assert is_frame("==4174==    by 0x12F68A3: ??? (in /usr/bin/node)")
    assert is_frame("#3  0x00007f3a2b in start_thread () from /lib/libc.so.6")
    assert not is_frame("value = 0x10  # a flag")


@given(
    st.lists(st.sampled_from(["a", "b", "ab", ""]), max_size=40),
    st.floats(min_value=-1.0, max_value=45.0, allow_nan=False),
)
def test_lines_reach_is_the_count_compared(lines: list[str], least: float) -> None:
    def test(line: str) -> bool:
        return "a" in line

    assert lines_reach(lines, test, least) == (sum(1 for line in lines if test(line)) >= least)
