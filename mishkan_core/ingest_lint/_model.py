"""Plain data shared by the reader, the detectors, the engine and the formatters."""

from __future__ import annotations

from itertools import repeat
from operator import truediv

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing, dataclasses and collections cost a pre-commit run their import)
    from typing import Callable

# Families, as the issue names them.
GRAPH_DUMP = "graph-dump"
PARSE_TREE = "parse-tree"
SYMBOL_TABLE = "symbol-table"
CALL_GRAPH = "call-graph"
BULK_SOURCE = "bulk-source"
#: the format-agnostic backstop: it judges shape and proportion, not a family's format
BACKSTOP = "backstop"
META = "meta"
INPUT = "input"

#: the width of a line of prose: a longer line weighs more (the gate, the backstop, the
#: prose measure all weigh lines by line_widths)
LINE = 80.0


def line_widths(stripped: list[str]) -> list[float]:
    """Each stripped line's width, ``max(1.0, len(line) / LINE)``, computed in C."""
    return list(map(max, repeat(1.0), map(truediv, map(len, stripped), repeat(LINE))))


#: single characters a block counts from its punctuation alone (see ``_Counts``)
_PROFILED = '"{}()[]:;=<>|-`@#\t\x7f'
_UNPROFILED = bytes(b for b in range(256) if chr(b) not in _PROFILED)
_PROFILED_BYTES = {char: ord(char) for char in _PROFILED}


class _Record:
    """Equality, hashing and a repr by field, as a frozen dataclass gives them, without
    importing ``dataclasses`` (which imports ``inspect``: a third of what a one-file
    ``mishkan ingest-lint`` may cost). ``__slots__`` lists the fields, in order."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, _Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Rule(_Record):
    """A rule code and what it means; detectors, meta checks and input errors all have one."""

    __slots__ = ("code", "family", "name", "summary")

    def __init__(self, code: str, name: str, family: str, summary: str) -> None:
        self.code = code
        self.name = name
        self.family = family
        self.summary = summary


class Hit(_Record):
    """What a detector returns: one firing, with its line-level evidence.

    ``line``/``end_line`` are 1-based lines of the file. ``blocks`` are the
    indices of the blocks the hit covers; the engine marks them claimed so a
    later, more generic detector does not report the same block again.
    """

    __slots__ = ("blocks", "end_line", "evidence", "line", "message")

    def __init__(
        self, line: int, end_line: int, message: str, evidence: str, blocks: tuple[int, ...] = ()
    ) -> None:
        self.line = line
        self.end_line = end_line
        self.message = message
        self.evidence = evidence
        self.blocks = blocks


class Finding(_Record):
    """A reported result: a rejection, a meta finding, or an input error (``error=True``).
    Its signature is the frozen dataclass's it replaced (every field positional)."""

    __slots__ = (
        "end_line",
        "error",
        "evidence",
        "justification",
        "line",
        "message",
        "path",
        "rule",
        "suppressed",
    )

    def __init__(  # noqa: PLR0917
        self,
        path: str,
        rule: str,
        line: int,
        end_line: int,
        message: str,
        evidence: str = "",
        error: bool = False,
        suppressed: bool = False,
        justification: str | None = None,
    ) -> None:
        self.path = path
        self.rule = rule
        self.line = line
        self.end_line = end_line
        self.message = message
        self.evidence = evidence
        self.error = error
        self.suppressed = suppressed
        self.justification = justification


class Suppression:
    """One ``allow <RULE> -- <reason>`` entry of the front matter."""

    __slots__ = ("line", "reason", "rules", "used")

    def __init__(self, rules: tuple[str, ...], reason: str, line: int) -> None:
        self.rules = rules
        self.reason = reason
        self.line = line
        self.used: set[str] = set()


class _Counts(dict[str, int]):
    """``text.count(needle)`` by needle, computed on first use (``__missing__``).

    Detectors gate on the same counts, so each is computed once per block; a
    lookup that hits is a C-level dict subscript, not a Python call. The
    punctuation that gates most detectors is counted in the block's punctuation
    alone (``kept``, a tenth of the text, made in one pass), not in the text.
    """

    __slots__ = ("kept", "text")

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self.kept: bytes | None = None

    def __missing__(self, needle: str) -> int:
        byte = _PROFILED_BYTES.get(needle)
        if byte is None or len(self.text) <= 512:
            found = self[needle] = self.text.count(needle)
            return found
        found = self[needle] = self._punctuation().count(byte)
        return found

    def _punctuation(self) -> bytes:
        if self.kept is None:
            # an ASCII character is its own byte in UTF-8, and no other character holds it
            self.kept = self.text.encode("utf-8", "surrogatepass").translate(None, _UNPROFILED)
        return self.kept

    def at_most(self, needle: str) -> int:
        """See ``Block.at_most``."""
        if len(self.text) <= 512:
            return self[needle]
        punctuation = needle.encode("utf-8", "surrogatepass").translate(None, _UNPROFILED)
        if not punctuation:  # nothing of it in the punctuation to bound it by
            return self[needle]
        return self._punctuation().count(punctuation)


class Block:
    """A fenced code block, or a run of lines outside any fence.

    ``start``/``end`` are the 1-based file lines of the first and last content
    line (fence markers excluded); ``info`` is the fence's info string,
    lower-cased (empty when unfenced or bare). ``text`` and ``nonblank`` are
    plain attributes (computed once) because every detector reads them.
    ``count(needle)`` is ``text.count(needle)``, cached (see ``_Counts``).
    """

    __slots__ = (
        "cache",
        "closed",
        "count",
        "counts",
        "end",
        "fenced",
        "index",
        "info",
        "lang",
        "lines",
        "nonblank",
        "start",
        "text",
    )

    count: Callable[[str], int]

    def __init__(
        self,
        index: int,
        start: int,
        lines: list[str],
        fenced: bool,
        *,
        info: str = "",
        closed: bool = True,
        text: str | None = None,
    ) -> None:
        self.index = index
        self.start = start
        self.lines = lines
        self.fenced = fenced
        self.info = info
        self.closed = closed
        self.text = "\n".join(lines) if text is None else text
        # whitespace-only lines are rare enough to count as content; "" lines are blank
        self.nonblank = len(lines) - lines.count("")
        self.end = start + max(len(lines), 1) - 1
        self.lang = info.split(None, 1)[0] if info else ""
        self.cache: dict[str, object] = {}
        # the bound lookup itself: a detector's gate costs one C call per count
        self.counts = _Counts(self.text)
        self.count = self.counts.__getitem__

    def at_most(self, needle: str) -> int:
        """An upper bound of ``count(needle)`` for a needle with punctuation in it
        ("|-", "->", ": ("): the count of its ``_PROFILED`` characters in the block's
        punctuation, where what stood between them is gone, so every occurrence is
        still there (and a few more may be). A gate that fails on it fails on the
        count, at a tenth of the scan; one that passes asks ``count``. Exact for a
        short block."""
        return self.counts.at_most(needle)

    def __repr__(self) -> str:
        kind = f"fenced {self.lang}" if self.fenced else "unfenced"
        return f"Block({self.index}, lines {self.start}-{self.end}, {kind})"


class Document:
    """One artifact, segmented into blocks; what every detector reads."""

    __slots__ = ("blocks", "body_start", "claimed", "content_lines", "lines", "path")

    def __init__(
        self,
        path: str,
        lines: list[str],
        body_start: int,  # 1-based file line where the body begins
        blocks: list[Block],
        content_lines: int,  # non-blank body lines, fence markers excluded
    ) -> None:
        self.path = path
        self.lines = lines
        self.body_start = body_start
        self.blocks = blocks
        self.content_lines = content_lines
        self.claimed: set[int] = set()

    def unclaimed(self) -> list[Block]:
        """The blocks no detector has reported yet: the document's own list while none
        is (every detector asks; a copy each time cost more than its reading), so read
        it, never change it."""
        if not self.claimed:
            return self.blocks
        return [b for b in self.blocks if b.index not in self.claimed]

    def share(self, *counts: int) -> float:
        """The part of the document's content that ``counts`` lines make up."""
        return sum(counts) / self.content_lines if self.content_lines else 0.0
