"""IL601: the format-agnostic backstop. It knows no tool's format; it judges
whether a document was written for a reader at all.

Every content line gets a role:

* **prose**: a sentence, told by its function words ("the", "of", "we",
  "because"...) before an ordinary word, outside code (a sentence inside a fence
  or indented like code is a comment or a docstring), and not boilerplate (the
  same line stamped four times or more, like "Kind: instance method of X");
* **neutral**: headings, rules, table rows of words, log lines (a timestamp),
  frames of a stack trace, compiler diagnostics, shell prompts: accepted
  content that says nothing either way;
* **machine**: everything else: code, dumps, listings, tables of names.

Lines are weighed by length (a 2,000-character line of a compact dump is worth
25 ordinary lines), and lines of a data fence (JSON, YAML...) count half, as in
IL502: a config or payload example is data, not derived structure.

A document fires on either of two shapes:

* **bulk**: machine lines dominate it and come in long runs that no sentence
  breaks: a pasted listing, a dump or a source file with a line of introduction;
* **regular listing**: a shorter block of lines stamped from a few templates
  (once names, numbers and strings are normalised), nearly every one carrying
  a code name: one line per symbol, module, edge or node, as tools print them.

The specific detectors run first and claim what they recognise (their messages
are better); this one sees only what they left.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import excerpt
from mishkan_core.ingest_lint._model import BACKSTOP, Block, Document, Hit
from mishkan_core.ingest_lint._shape import DATA_LANGS, is_frame

#: the width of a line of prose: longer lines weigh more
LINE = 80.0
# bulk: machine weight, its share of the content, and how much of it sits in long runs
MIN_MACHINE = 40.0
MIN_SHARE = 0.8
RUN = 20.0
RUN_SHARE = 0.5
CLEAR_SHARE = 0.9
# regular listing: lines, share, the part the commonest templates cover, code names
MIN_LISTING = 12
LISTING_SHARE = 0.75
TEMPLATES = 3
TEMPLATE_COVER = 0.8
CODE_NAMED = 0.7
#: the same sentence this many times is boilerplate, not prose
STAMPED = 4

# A function word before another word: the grammar of a sentence. Words that are
# also keywords in common languages (for, in, if, not, and, or, is, as, from,
# with, at) are left out, so "for x in xs" is not a sentence.
_FUNCTION_WORD = re.compile(
    r"(?<![^ \t(\"'*_])(?:[Tt]he|[Aa]n?|of|to|[Ww]e|[Ii]t|[Tt]his|that|be|are|was|were|has|have"
    r"|will|would|should|can|could|our|they|you|which|when|because|but|than|also|only"
    r"|into|been|may|must|there|these|those|its|their|your|what|how|why|on|by)(?= [a-z])"
)
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\b\d\d:\d\d:\d\d\b")
# frames and diagnostics: Java/JS "at", Python 'File "', gdb "#3", native "12: 0x..",
# Rust "--> a.rs:1:2" and "at ./a.rs:1:2", Go "+0x1d", Ruby "from a.rb:3:in"
_TRACE = re.compile(
    r"\s*(?:at\s|File\s\"|#\d+\s|\d+:\s+0x|Caused by|Traceback|-->\s+\S+:\d+:\d+"
    r"|from\s\S+:\d+:in\s|goroutine\s\d+|\.\.\.\s\d+\s)"
    r"|.*(?:\+0x[0-9a-f]+$|\b(?:[Ee]rror|ERROR|[Ww]arning|WARN|panicked|FAILED|Exception)\b)"
)
_MARKUP_ONLY = frozenset("-=|:*_`~ +#.")
_WORD = re.compile(r"[(\"'*_\[]*[A-Za-z][a-z]+[)\"'.,;:!?*_\]]*")
# a name as code writes it: qualified, called, snake_case, camelCase, a path with an
# extension, a `code span`, a <tag>, or a line/column position
_CODE_NAME = re.compile(
    r"[\w$]+(?:\.|::|->|#|/)[\w$]|\w\(|[a-z0-9]_[a-z0-9]|[a-z][A-Z]|`[^`\s]|<\w|\w:\d|\d:\d"
)
_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|0x[0-9A-Fa-f]+|\d+(?:\.\d+)*|[A-Za-z_$][\w$]*")
_REPEATS = re.compile(r"(a)(?:[ ,;|/.:]+a)+")

PROSE, NEUTRAL, MACHINE = 0, 1, 2


def template(line: str) -> str:
    """The line's shape: names, numbers and strings replaced by one letter, and a
    run of them ("a, a, a") collapsed, so list lines of any length share one."""
    shape = _TOKEN.sub("a", line.strip())
    return _REPEATS.sub("a…", shape)


def _wordy_row(line: str) -> bool:
    """A table row whose cells are mostly words: a human's table, not a listing."""
    tokens = line.replace("|", " ").split()
    words = sum(1 for token in tokens if _WORD.fullmatch(token))
    return len(tokens) >= 2 and words >= 0.5 * len(tokens)


def roles(block: Block) -> list[int]:
    """A role per line of the block (blank lines are NEUTRAL)."""
    lines = block.lines
    sentences: set[int] = set()
    text = block.text
    line = 0
    pos = 0
    for match in _FUNCTION_WORD.finditer(text):
        start = match.start()
        line += text.count("\n", pos, start)
        pos = start
        sentences.add(line)
    out = []
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or set(stripped) <= _MARKUP_ONLY:
            out.append(NEUTRAL)
        elif i in sentences:
            code_indent = raw[:1] == "\t" or raw[:4] == "    "
            out.append(NEUTRAL if block.fenced or code_indent else PROSE)
        elif (
            (not block.fenced and stripped[0] == "#")
            or stripped.startswith(("$ ", "> ", "PS> "))
            or _TIMESTAMP.search(stripped)
            or _TRACE.match(stripped)
            or is_frame(stripped)
            or (stripped[0] == "|" and _wordy_row(stripped))
        ):
            out.append(NEUTRAL)
        else:
            out.append(MACHINE)
    return out


@dataclass
class Shape:
    """What the backstop measured over a document's unclaimed blocks."""

    machine: float = 0.0  # weight of machine lines
    prose: float = 0.0  # weight of prose lines
    in_runs: float = 0.0  # machine weight in runs of RUN or more that no sentence breaks
    listing: list[str] = field(default_factory=list)  # the machine lines, in order
    first: tuple[int, str] | None = None  # the first machine line (file line, text)

    @property
    def content(self) -> float:
        return self.machine + self.prose


def measure(doc: Document) -> Shape:
    shape = Shape()
    roled = [(block, roles(block)) for block in doc.unclaimed()]
    said = Counter(
        block.lines[i].strip() for block, marks in roled for i, role in enumerate(marks) if role == PROSE
    )
    stamped = {line for line, count in said.items() if count >= STAMPED}
    run = 0.0
    for block, marks in roled:
        data = 0.5 if block.fenced and block.lang in DATA_LANGS else 1.0
        for i, role in enumerate(marks):
            line = block.lines[i]
            if role == PROSE and stamped and line.strip() in stamped:
                role = MACHINE
            if role == NEUTRAL:
                continue
            weight = max(1.0, len(line.strip()) / LINE)
            if role == PROSE:
                shape.prose += weight
                if run >= RUN:
                    shape.in_runs += run
                run = 0.0
                continue
            weight *= data
            shape.machine += weight
            run += weight
            shape.listing.append(line)
            if shape.first is None:
                shape.first = (block.start + i, line)
    if run >= RUN:
        shape.in_runs += run
    return shape


def _bulk(shape: Shape) -> bool:
    content = shape.content
    if shape.machine < MIN_MACHINE or shape.machine < MIN_SHARE * content:
        return False
    return shape.in_runs >= RUN_SHARE * content or shape.machine >= CLEAR_SHARE * content


def _regular(shape: Shape) -> tuple[int, int] | None:
    """(lines, templates) when the machine lines are a listing stamped from a few
    templates, nearly every line naming code."""
    lines = shape.listing
    if len(lines) < MIN_LISTING or shape.machine < LISTING_SHARE * shape.content:
        return None
    counts = Counter(template(line) for line in lines)
    common = sum(n for _, n in counts.most_common(TEMPLATES))
    if common < TEMPLATE_COVER * len(lines):
        return None
    named = sum(1 for line in lines if _CODE_NAME.search(line))
    if named < CODE_NAMED * len(lines):
        return None
    return len(lines), min(TEMPLATES, len(counts))


@register("IL601", "machine-shaped", BACKSTOP, "mostly machine-shaped text, whatever the format")
def check(doc: Document) -> Iterator[Hit]:
    shape = measure(doc)
    if shape.first is None or shape.machine < MIN_LISTING:
        return
    share = shape.machine / shape.content
    if _bulk(shape):
        message = (
            f"machine-shaped: {share:.0%} of the content is not sentences "
            f"({shape.machine:.0f} of {shape.content:.0f} line-widths), "
            f"{shape.in_runs:.0f} in runs of {RUN:.0f}+ that no sentence breaks"
        )
    else:
        regular = _regular(shape)
        if regular is None:
            return
        message = (
            f"machine-shaped: a listing of {regular[0]} lines stamped from {regular[1]} "
            f"templates, each naming code ({share:.0%} of the content)"
        )
    blocks = doc.unclaimed()
    first_line, evidence = shape.first
    yield Hit(
        first_line,
        blocks[-1].end,
        message,
        excerpt(evidence),
        tuple(block.index for block in blocks),
    )
