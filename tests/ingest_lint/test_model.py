"""A block's counts: ``count`` is ``text.count`` (whether it is counted in the text or
in the block's punctuation), and ``at_most`` never says less than it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mishkan_core.ingest_lint._model import Block

# punctuation the block profiles, and what stands between it in real text
_TEXT = st.text(alphabet=st.sampled_from(list('|-`>=<:"{}() aZ\n\t\u2192\u00e9')), max_size=1200)
_PAIRS = st.sampled_from(
    ["|-", "`-", "->", "=>", "<-", "--", "::", "->>", ": (", "] - [", " -- ", "aZ"]
)


@given(_TEXT, st.sampled_from([*'|-`>=<:"{}()\t', "->", "aZ", "\u2192", " "]))
def test_count_is_the_texts_count(text: str, needle: str) -> None:
    block = Block(0, 1, text.split("\n"), False, text=text)
    assert block.count(needle) == text.count(needle)


@given(_TEXT, _PAIRS)
def test_at_most_bounds_the_count_and_is_it_for_a_short_block(text: str, needle: str) -> None:
    block = Block(0, 1, text.split("\n"), False, text=text)
    bound = block.at_most(needle)
    assert bound >= text.count(needle)
    if len(text) <= 512:
        assert bound == text.count(needle)
