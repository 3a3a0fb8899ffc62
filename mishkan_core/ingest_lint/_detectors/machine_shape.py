"""IL601: the format-agnostic backstop. It knows no tool's format; it asks whether a
document was written for a reader at all.

Each line gets a role (``_roles.py``): prose, neutral (headings, markup, logs,
stack traces, words without a sentence's grammar) or machine (code, dumps,
listings). Lines are weighed by width (a 2,000-character line of a compact dump
is worth 25 ordinary lines); lines of a data fence (JSON, YAML...) count half,
as in IL502, since a config or payload example is data, not derived structure.
The same sentence stamped four times or more is boilerplate, not prose.

A document fires when machine lines make up most of it, in one of these shapes:

* **bulk**: long runs of machine lines that no sentence breaks: a pasted
  listing, dump or source file with a line of introduction;
* **nested**: long lines whose brackets nest four deep or more: a printed node
  tree, one statement or one function per line;
* **regular listing**: lines stamped from a few templates (once names, numbers
  and strings are normalised), nearly every one naming code: one line per
  symbol, module, edge or node, as tools print them.

Before these, **machine output**: the shape model's regularity properties
(``_properties.py``) over a pasted listing (20 lines, or 10 when they are most of the
content and drawn: a tree, compact lines); after them, **sections**: a report of
short lists, each stamped from its own template (a line's skeleton repeated by one
of the next two), naming code.

The specific detectors run first and claim what they recognise (their messages
say more); this one sees only what they left. A cheap look at a sample of lines
comes first, so a document that is mostly prose costs a few dozen substring tests.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, repeat
from operator import add, eq, ne, not_

from mishkan_core.ingest_lint._detectors import register
from mishkan_core.ingest_lint._detectors._common import excerpt
from mishkan_core.ingest_lint._model import BACKSTOP, LINE, Block, Document, Hit
from mishkan_core.ingest_lint._properties import (
    IDENTIFIERS,
    Properties,
    printed_key,
    skeleton_of,
)
from mishkan_core.ingest_lint._roles import (
    HUMAN,
    MACHINE,
    MARKUP,
    NEUTRAL,
    PROSE,
    code_shaped,
    compact,
    is_neutral_output,
    is_page_markup,
    is_wordy,
    line_roles,
    plainly_code,
    stripped_lines,
    widths,
)
from mishkan_core.ingest_lint._shape import CODE_LANGS, DATA_LANGS, block_sample, lines_reach

#: the share of the content (by width) every shape needs
MIN_SHARE = 0.75
#: machine output (the shape model's regularity) needs only this share: a listing a tool
#: printed is rejected even in a document carried by prose once it is most of it
OUTPUT_SHARE = 0.5
#: and this many lines of it: a few snippets stamped alike are examples, not a listing
MIN_OUTPUT = 20
#: or MIN_LISTING lines (or line-widths), when they make up MIN_SHARE of the content and
#: their structure is drawn: tree prefixes, or compact lines (a minified file's few)
DRAWN = frozenset(("tree", "compact"))
# bulk: machine width, a higher share, and the part of it in runs no sentence breaks
MIN_MACHINE = 40.0
BULK_SHARE = 0.8
RUN = 20.0
RUN_SHARE = 0.5
CLEAR_SHARE = 0.9
# nested: width of lines whose brackets nest DEPTH deep
DEPTH = 4
MIN_NESTED = 20.0
#: bulk and nested: this part of the machine lines must look like code, not like a
#: list of people or plain words
CODE_SHAPED = 0.2
# regular listing: lines, the part the commonest templates cover, lines naming code
MIN_LISTING = 10
TEMPLATES = 4
TEMPLATE_COVER = 0.8
CODE_NAMED = 0.7
#: machine output by sections: this share of lines repeat the skeleton of a line beside
#: them (read on SECTION_SAMPLE spread runs of three lines), the lines naming code
SECTIONS = 0.6
SECTION_SAMPLE = 16
#: a fence this share of whose non-blank lines are machine lines is code (as one labelled
#: with a programming language is): its comments and docstrings count as machine too
CODE_FENCE = 0.6
#: the same sentence or heading this many times is boilerplate, not prose
STAMPED = 4
#: the gate: a spread sample of about GATE_SAMPLE lines in which sentences make up
#: GATE_PROSE of the width or more cannot reach MIN_SHARE (every document IL601
#: fires on in the corpus samples under 0.26, the highest gcc's IPA summaries, whose
#: printed phrases a sample of 16 lines held too few of to see them repeated)
GATE_SAMPLE = 32
GATE_PROSE = 0.3
# the commonest function words, for the gate (a subset: the sample underestimates);
# the pattern opens with a space, which the regex engine scans for quickly
_HINT = re.compile(
    r" (?:the|of|to|an?|we|that|this|be|are|it|will|should|can|which|when|by|on) [A-Za-z]"
)
_HINT_OPENS = ("The ", "This ", "We ", "It ", "A ", "An ", "In ", "To ", "When ", "If ")
_BRACKET = re.compile(r"[][(){}]")
# a number or a mark of structure: what a line of words alone does not hold
_NOT_WORDS = re.compile(r"[\d\"'`()<>=\[\]{}]")
# a name as code writes it: qualified, called, snake_case, camelCase, a path, a
# `code span`, a <tag>, a line/column position, or a memory address
_CODE_NAME = re.compile(
    r"(?<![\w$])[A-Za-z_$][\w$]*(?:\.|::|->|#|/)[A-Za-z_$]|\w\(|[a-z0-9]_[a-z0-9]|[a-z][A-Z]|`[^`\s]|<\w"
    r"|[A-Za-z]:\d|\d:\d|\b0x[0-9A-Fa-f]{4,}"
)


def template(line: str) -> str:
    """The line's shape: names, numbers and strings replaced by one letter, and a run
    of them ("a, a, a") collapsed, so list lines of any length share one (the shape
    model's skeleton, of the whole line)."""
    return skeleton_of(line, None)


def nests_deep(line: str) -> bool:
    """Do the line's brackets nest DEPTH deep (a printed node tree does), within its
    first few hundred brackets?"""
    head = line[:4096]
    if head.count("(") + head.count("[") + head.count("{") < DEPTH:  # counted in C
        return False
    level = 0
    for match in _BRACKET.finditer(line, 0, 4096):
        if match.group() in "([{":
            level += 1
            if level >= DEPTH:
                return True
        elif level:
            level -= 1
    return False


@dataclass
class Shape:
    """What the backstop measured over a document's unclaimed blocks."""

    machine: float = 0.0  # width of machine lines
    prose: float = 0.0  # width of prose lines
    human: float = 0.0  # width of lines written for a reader without a sentence's grammar
    in_runs: float = 0.0  # machine width in runs of RUN or more that no sentence breaks
    nested: float = 0.0  # machine width of lines whose brackets nest DEPTH deep
    listing: list[str] = field(default_factory=list)  # the machine lines, in order
    first: tuple[int, str] | None = None  # the first machine line (file line, text)

    @property
    def content(self) -> float:
        return self.machine + self.prose + self.human

    @property
    def share(self) -> float:
        return self.machine / self.content if self.content else 0.0


def could_fire(doc: Document) -> bool:
    """The gate: in a spread sample of the unclaimed lines, sentences, headings, page
    markup and phrases at the margin outside fences make up less than GATE_PROSE of the
    width. Most documents are mostly prose and stop here, most of them at their
    largest block outside a fence, which is read first."""
    blocks = doc.unclaimed()
    # a fence holds no prose: its lines count whole, unread. The look stops as soon as
    # the prose would be enough even against the widest the document can be (every
    # line one width more than its length gives).
    total = sum(max(b.nonblank, len(b.text) / LINE) for b in blocks if b.fenced)
    lines = sum(block.nonblank for block in blocks if not block.fenced)
    widest = sum(b.nonblank + len(b.text) / LINE for b in blocks)
    if widest < MIN_LISTING:  # a rejected document's note, the rest claimed
        return False
    enough = GATE_PROSE * widest
    prose = 0.0
    for block in sorted((b for b in blocks if not b.fenced), key=lambda b: -b.nonblank):
        picked = block_sample(block)
        if not picked:
            continue
        step = max(1, round(len(picked) * lines / (GATE_SAMPLE * block.nonblank)))
        picked = picked[::step]
        scale = block.nonblank / len(picked)
        phrases: list[tuple[str, float]] = []  # judged at the block's end, together
        for line in picked:
            stripped = line.strip()
            if not stripped.strip(MARKUP):
                continue
            weight = max(1.0, len(stripped) / LINE) * scale
            total += weight
            if line[:1] == "\t" or line[:4] == "    ":
                continue
            if compact(stripped):
                continue  # a minified line holds words, not sentences
            if (
                stripped[0] == "#"
                or stripped.startswith(_HINT_OPENS)
                or _HINT.search(line)
                or (stripped[0] in "<[" and is_page_markup(stripped))
            ):
                prose += weight
                if prose >= enough:
                    return False
            elif is_wordy(stripped):
                phrases.append((stripped, weight))
        prose += _written(phrases)
        if prose >= enough:
            return False
    return total >= MIN_LISTING and prose < GATE_PROSE * total


def _written(phrases: list[tuple[str, float]]) -> float:
    """The weight of the phrases a person wrote: those whose ``printed_key`` three or
    more phrases of the sample share were printed by a tool ("  global time:  69.82"),
    and do not count on the document's side."""
    if len(phrases) < 3:
        return sum(weight for _, weight in phrases)
    keys = [printed_key(text) for text, _ in phrases]
    counts = Counter(keys)
    return sum(
        weight for (text, weight), key in zip(phrases, keys) if counts[key] < 3 or text[:1] == "|"
    )


def _scale(block: Block) -> float:
    """What a machine line of the block weighs per width: a data fence's lines half."""
    return 0.5 if block.fenced and block.lang in DATA_LANGS else 1.0


def _most(block: Block) -> float:
    """The most machine width a block can hold, from its size alone: every line one
    width more than its length gives."""
    return (block.nonblank + len(block.text) / LINE) * _scale(block)


def _widths(block: Block) -> float:
    """The most machine width a block can hold, closer: the width of each of its
    non-blank lines, counted in C from their lengths before stripping (a blank line,
    "", is one width of 80 characters)."""
    lines = block.lines
    full = sum(map(max, repeat(LINE), map(len, lines))) / LINE
    return (full - (len(lines) - block.nonblank)) * _scale(block)


def _fence_lines(block: Block) -> tuple[list[int], list[int]]:
    """(the fence's machine lines, its other non-blank lines that count as machine): a
    fence of code (labelled with a programming language, or CODE_FENCE of its lines
    machine) holds its comments and docstrings as part of the code, as IL502 counts
    them; a log line or a frame in it stays neutral. Only the first are the listing
    the properties read (cached on the block; read them, never change them)."""
    cached = block.cache.get("fence_lines")
    if isinstance(cached, tuple):
        return cached
    marks = line_roles(block)
    found = list(compress(range(len(marks)), map(eq, marks, repeat(MACHINE))))
    code: list[int] = []
    if (
        found
        and len(found) < block.nonblank
        and (block.lang in CODE_LANGS or len(found) >= CODE_FENCE * block.nonblank)
    ):
        texts = stripped_lines(block)
        others = compress(range(len(marks)), map(ne, marks, repeat(MACHINE)))
        code = [i for i in others if texts[i] and not is_neutral_output(texts[i])]
    block.cache["fence_lines"] = (found, code)
    return found, code


def _out_of_reach(most: float, prose: float) -> bool:
    """MIN_SHARE is out of reach with ``most`` machine width at the very most (with a
    margin for the order the widths are summed in: these sums are not the verdict's)."""
    return most < OUTPUT_SHARE * (most + prose) * (1 - 1e-9)


def measure(doc: Document) -> Shape:
    """Roles and widths over the unclaimed blocks. Prose lives outside fences, so
    those blocks are read first, and the reading stops (an empty Shape comes back)
    as soon as their prose rules out MIN_SHARE even if every line still unread were
    machine; then the fences, which can only add machine lines, with the same test.
    A sentence repeated STAMPED times is boilerplate: its repeats stop counting as
    prose."""
    blocks = doc.unclaimed()
    # the largest first: the prose that rules a document out is found soonest there
    outside = sorted((block for block in blocks if not block.fenced), key=lambda b: -b.nonblank)
    most = sum(_most(block) for block in blocks)  # the machine width there can be
    prose = 0.0  # prose and human width so far, repeats past STAMPED taken back
    said: Counter[str] = Counter()
    for block in outside:
        marks = line_roles(block)
        ws = widths(block)
        most -= _most(block)
        most += sum(compress(ws, map(eq, marks, repeat(MACHINE))))
        texts = stripped_lines(block)
        for i in compress(range(len(marks)), map(ne, marks, repeat(NEUTRAL))):
            if marks[i] == MACHINE:
                continue
            text = texts[i]
            said[text] += 1
            if said[text] < STAMPED:
                prose += ws[i]
            elif said[text] == STAMPED:  # boilerplate after all: machine, every one
                prose -= (STAMPED - 1) * ws[i]
                most += STAMPED * ws[i]
            else:
                most += ws[i]
        if _out_of_reach(most, prose):
            return Shape()
    # The prose is all known now: a fence holds machine lines and neutral ones, never
    # prose. Its most is narrowed to the width of its lines, then replaced, the
    # shortest fence first, by the machine width it holds.
    fenced = [block for block in blocks if block.fenced]
    most += sum(_widths(block) - _most(block) for block in fenced)
    for block in sorted(fenced, key=lambda b: b.nonblank):
        if _out_of_reach(most, prose):
            return Shape()
        ws = widths(block)
        found, code = _fence_lines(block)
        machine = sum(map(ws.__getitem__, sorted(found + code) if code else found))
        most += machine * _scale(block) - _widths(block)
    if _out_of_reach(most, prose):
        return Shape()
    return _shape(blocks, {text for text, count in said.items() if count >= STAMPED})


def _shape(blocks: list[Block], stamped: set[str], *, together: bool = True) -> Shape:
    """The measurements, line by line in document order (the sums are the verdict's, so
    each is added up in that order). A fence holds no prose (its roles are machine and
    neutral), so its machine lines are added up together, in C (``together=False``
    reads them one by one, as the other blocks: tests/ingest_lint/test_fast_paths.py)."""
    shape = Shape()
    listing = shape.listing
    machine = human = prose = in_runs = nested = run = 0.0
    for block in blocks:
        marks = line_roles(block)
        ws = widths(block)
        lines = block.lines
        scale = _scale(block)
        found, code = _fence_lines(block) if block.fenced else ([], [])
        if block.fenced and together:
            if not found:
                continue
            every = sorted(found + code) if code else found
            weights = [ws[i] * scale for i in every]
            machine = reduce(add, weights, machine)
            run = reduce(add, weights, run)
            listing.extend(map(lines.__getitem__, found))
            for i in found:
                weight = ws[i] * scale
                if weight >= 1.5 and nests_deep(lines[i]):
                    nested += weight
            if shape.first is None:
                shape.first = (block.start + found[0], lines[found[0]])
            continue
        texts = stripped_lines(block)
        counted = set(code)
        # neutral lines are skipped in C; a fence of code's comments are counted, in order
        kept = compress(range(len(marks)), map(ne, marks, repeat(NEUTRAL)))
        for i in sorted(counted.union(kept)) if counted else kept:
            role = marks[i]
            weight = ws[i]
            if i in counted:  # a comment or docstring of a fence of code
                weight *= scale
                machine += weight
                run += weight
                continue
            if role == HUMAN and texts[i] not in stamped:
                human += weight
                continue
            if role == PROSE and texts[i] not in stamped:
                prose += weight
                if run >= RUN:
                    in_runs += run
                run = 0.0
                continue
            weight *= scale
            machine += weight
            run += weight
            line = lines[i]
            listing.append(line)
            if weight >= 1.5 and nests_deep(line):
                nested += weight
            if shape.first is None:
                shape.first = (block.start + i, line)
    if run >= RUN:
        in_runs += run
    shape.machine, shape.human, shape.prose = machine, human, prose
    shape.in_runs, shape.nested = in_runs, nested
    return shape


def _code_shaped(shape: Shape) -> bool:
    """CODE_SHAPED of the machine lines look like code: those with a mark of code are
    counted in C, the others read until the answer is known."""
    lines = shape.listing
    quick = plainly_code(lines)
    others = list(compress(lines, map(not_, quick)))
    return lines_reach(others, code_shaped, CODE_SHAPED * len(lines), found=sum(quick))


def _bulk(shape: Shape) -> bool:
    if shape.machine < MIN_MACHINE or shape.share < BULK_SHARE:
        return False
    return shape.in_runs >= RUN_SHARE * shape.content or shape.share >= CLEAR_SHARE


def _regular(shape: Shape) -> tuple[int, int] | None:
    """(lines, templates) when the machine lines are a listing stamped from a few
    templates, nearly every line naming code."""
    lines = shape.listing
    if len(lines) < MIN_LISTING:
        return None
    counts = Counter(template(line) for line in lines)
    if sum(n for _, n in counts.most_common(TEMPLATES)) < TEMPLATE_COVER * len(lines):
        return None
    if sum(1 for line in lines if _CODE_NAME.search(line)) < CODE_NAMED * len(lines):
        return None
    return len(lines), min(TEMPLATES, len(counts))


def _verdict(shape: Shape) -> str | None:
    """The message when one of the shapes is there. Machine output (the shape model's
    regularity properties, ``_properties.py``) comes first: it names what fired."""
    if shape.first is None or shape.machine < MIN_LISTING or shape.share < OUTPUT_SHARE:
        return None
    share = f"{shape.share:.0%} of the content"
    prose = shape.prose / shape.content if shape.content else 0.0
    # below MIN_SHARE, machine output must be one pasted listing, not snippets between
    # paragraphs: most of the content in runs that no sentence breaks
    pasted = shape.share >= MIN_SHARE or shape.in_runs >= OUTPUT_SHARE * shape.content
    # (lines, or line-widths: a minified file is a few lines of 1,000 characters)
    props = None  # the shape model's properties, measured only where they are read
    size = max(len(shape.listing), shape.machine)
    if pasted and size >= MIN_LISTING:
        props = Properties(shape.listing)
        # a short listing is output when it is most of the content and its structure was
        # drawn (a tree's prefixes, compact lines): a skeleton or columns alone need more
        short = shape.share >= MIN_SHARE and not DRAWN.isdisjoint(props.regular())
        if (size >= MIN_OUTPUT or short) and props.machine_output():
            return (
                f"machine-shaped: machine output ({', '.join(props.regular())}) makes up "
                f"{share}, {len(shape.listing)} lines no sentence breaks; shape: "
                f"{props.describe(prose)}"
            )
    message = _other_shape(shape, share)
    if message is None:
        if props is None or size < MIN_OUTPUT or props.identifiers < IDENTIFIERS:
            return None
        # a report in sections, each a list stamped from its own template: more
        # templates than the skeleton's four, but each line's repeated next to it
        sections = _sections(shape.listing)
        if sections < SECTIONS:
            return None
        return (
            f"machine-shaped: machine output (sections) makes up {share}, "
            f"{len(shape.listing)} lines no sentence breaks; shape: "
            f"{props.describe(prose)}, sections* {sections:.2f}"
        )
    return f"{message}; shape: {(props or Properties(shape.listing)).describe(prose)}"


def _sections(listing: list[str]) -> float:
    """The share of lines whose skeleton one of the next two lines repeats (an entry of
    one or two lines stamped again and again), on SECTION_SAMPLE spread runs of three
    lines; a line of words alone (a name, a phrase: its skeleton "a…") repeats none."""
    lines = [line.strip() for line in listing if line.strip()]
    starts = len(lines) - 2
    if starts < 1:
        return 0.0
    step = max(1.0, starts / SECTION_SAMPLE)
    picked = sorted({int(k * step) for k in range(min(starts, SECTION_SAMPLE))})
    repeated = 0
    for i in picked:
        first, second, third = (skeleton_of(line) for line in lines[i : i + 3])
        if first in (second, third) and (first.strip("a… .,;:!?") or _NOT_WORDS.search(lines[i])):
            repeated += 1
    return repeated / len(picked)


def _other_shape(shape: Shape, share: str) -> str | None:
    """The message of bulk, nested or regular listing, when one of them is there."""
    if shape.share < MIN_SHARE or not _code_shaped(shape):
        return None
    if _bulk(shape):
        return (
            f"machine-shaped: {share} is not sentences ({shape.machine:.0f} of "
            f"{shape.content:.0f} line-widths), {shape.in_runs:.0f} in runs of {RUN:.0f}+ "
            "that no sentence breaks"
        )
    if shape.nested >= MIN_NESTED:
        return (
            f"machine-shaped: {shape.nested:.0f} line-widths of brackets nested {DEPTH}+ "
            f"deep, a printed tree ({share})"
        )
    regular = _regular(shape)
    if regular is not None:
        return (
            f"machine-shaped: a listing of {regular[0]} lines stamped from {regular[1]} "
            f"templates, each naming code ({share})"
        )
    return None


@register("IL601", "machine-shaped", BACKSTOP, "mostly machine-shaped text, whatever the format")
def check(doc: Document) -> Iterator[Hit]:
    if not could_fire(doc):
        return
    shape = measure(doc)
    message = _verdict(shape)
    if message is None or shape.first is None:
        return
    blocks: list[Block] = doc.unclaimed()
    line, evidence = shape.first
    yield Hit(line, blocks[-1].end, message, excerpt(evidence), tuple(b.index for b in blocks))
