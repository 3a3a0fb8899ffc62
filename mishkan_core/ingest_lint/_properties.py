"""The shape model's properties: what makes text machine output, whatever tool printed it.

Each property is a share in [0, 1], measured on lines (a spread sample of at most
``SAMPLE`` of them, so a property costs the same on a 40-line and a 40,000-line
listing), and each has a level at which it *fires*:

* ``skeleton``: lines built from one template with the names changed: the share of
  the lines the four commonest skeletons cover (names, numbers and strings made one
  letter, a run of them collapsed). A tool prints one line per symbol, edge or node.
* ``tree``: lines that open with tree-drawing prefixes (``├──``, ``└─┬``, ``│``,
  ``|--``, `` `-- ``, ``+-``): a dependency tree, a call tree, a profile.
* ``columns``: lines whose fields start at the same columns as most others (two
  blanks or a tab before them): a table a program aligned (struct layouts, symbol
  tables, profiles).
* ``compact``: the part of the text in lines far longer than prose (``LONG``
  characters and more) with code's density of punctuation and few blanks: minified
  code, one-line dumps.
* ``identifiers``: the share of words that are code names (qualified, called,
  snake_case, camelCase, ``$x``, hexadecimal).
* ``punctuation``: punctuation per non-blank character.
* ``edges``: lines that relate two code names by an edge word or arrow (``calls``,
  ``imports``, ``uses``, ``->``...): a call graph in any notation, words included.

A listing is **machine output** when one of skeleton, tree, columns or compact fires
and it names code (identifiers or punctuation at code's level). ``describe`` renders
the values and which of them fired, for the findings.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain, compress, repeat
from operator import floordiv, gt, mod, not_

#: the most lines a property reads (spread evenly over the listing)
SAMPLE = 48
#: a line this long is far longer than prose
LONG = 300

# levels at which each property fires
SKELETON = 0.6
TREE = 0.3
COLUMNS = 0.5
COMPACT = 0.5
IDENTIFIERS = 0.2
PUNCTUATION = 0.08
EDGES = 0.5
#: the skeletons whose share ``skeleton`` is
TEMPLATES = 4

_TOKEN = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|0x[0-9A-Fa-f]+|\d+(?:\.\d+)*|[A-Za-z_$][\w$]*")
_REPEATS = re.compile(r"(a)(?:[ ,;|/.:]+a)+")
# a tree-drawing prefix: guides ("│ ", "| ", ": ") then a branch ("├", "└", "|-", "`-", "+-")
_TREE = re.compile(r"[ \t]*(?:[│┃|:][ \t]*)*(?:[├└┣┗╰╠╚┬┼]|[|`+\\]-)")
# a code name: qualified (a.b, a::b, a->b, a#b), called (f(), f(x)), snake_case, camelCase,
# $x, or a hexadecimal number
# (each branch runs to the end of its word, so a word counts once: "actor_ref_1"). Written
# for speed, it matches what its plain form matches (tests/ingest_lint/test_fast_paths.py):
#   qualified|\w\(|[A-Za-z0-9]_[A-Za-z0-9][\w$]*|[a-z][A-Z][\w$]*|\$\w+|0x[0-9A-Fa-f]+
# After the qualified name, "$x" is the only branch not opening with a word character,
# and the other four each need a different character after it ("(", "_", a capital,
# "x"), so at most one of them can match anywhere and their order does not matter: one
# word character, then that character first (a literal fails in one step), the first
# character checked behind it.
_CODE_WORD = re.compile(
    r"(?<![\w$])[A-Za-z_$][\w$]*(?:\.|::|->|#)[A-Za-z_$][\w$.]*|\$\w+"
    r"|\w(?:\(|_(?<=[A-Za-z0-9]_)[A-Za-z0-9][\w$]*|[A-Z](?<=[a-z][A-Z])[\w$]*|x(?<=0x)[0-9A-Fa-f]+)"
)
# an edge between two names: a relation word or an arrow
_RELATIONS = (
    r"calls|called by|imports|imported by|uses|used by|requires|depends on|extends"
    r"|inherits from|includes|references|invokes"
)
_ARROWS = ("->", "-->", "=>", "→", "<-")
_EDGE = re.compile(
    r"\S[ \t]+(?:" + _RELATIONS + r")[ \t]+\S|\S[ \t]*(?:" + "|".join(_ARROWS) + r")[ \t]*\S"
)
# _EDGE written for speed, searched in a line after a line break: it matches there
# exactly where _EDGE matches in the line (tests/ingest_lint/test_fast_paths.py). _EDGE
# opens with "\S", which the engine tries at nearly every character; this form opens at
# the blank after a name (no blank before it, and the line break added at the start is
# one) or at an arrow right after a name, so most characters fail on their first test.
_EDGE_AFTER_BLANK = r"[ \t]*(?:(?:" + _RELATIONS + r")[ \t]|" + "|".join(_ARROWS) + r")[ \t]*\S"
_EDGE_FAST = re.compile(
    r" (?<!\s )"
    + _EDGE_AFTER_BLANK
    + r"|\t(?<!\s\t)"
    + _EDGE_AFTER_BLANK
    + "|(?:"
    + "|".join(arrow + r"(?<=\S" + arrow + ")" for arrow in _ARROWS)
    + r")[ \t]*\S"
)
#: the first word of every relation _EDGE reads: a blank on each side of it, so a line
#: holding one holds it as a word of its own (one of the line's ``str.split``)
_RELATION_WORDS = frozenset(relation.split()[0] for relation in _RELATIONS.split("|"))
#: a literal of every arrow: those no other arrow is part of ("-->" holds "->")
_ARROW_LITERALS = tuple(
    arrow for arrow in _ARROWS if not any(other in arrow for other in _ARROWS if other != arrow)
)
# _TOKEN and _CODE_WORD for text of ASCII alone: there "\\w" and "\\d" read the same
# characters as in any text, and re.ASCII tests them by a table, not Unicode's database
# (about 1.25x faster). _TOKEN_ASCII tries a name first, the commonest token (its
# branches open with different characters, "0x" still before a number). They match what
# the plain forms match in ASCII text (tests/ingest_lint/test_fast_paths.py).
_TOKEN_ASCII = re.compile(
    r"[A-Za-z_$][\w$]*|\"[^\"\n]*\"|'[^'\n]*'|0x[0-9A-Fa-f]+|\d+(?:\.\d+)*", re.ASCII
)
_CODE_WORD_ASCII = re.compile(_CODE_WORD.pattern, re.ASCII)
_NOT_PUNCTUATION = bytes(b for b in range(256) if chr(b) not in "{}()[];=<>+*/%&|^!~\\$@:,.'\"`#-")


# a table's border: a cell's edge, or a rule of three or more
_BORDER = re.compile(r"[|+]|[-=]{3,}")


def _lettered(text: str) -> str:
    """``text`` with each name, number and string replaced by one letter, "a" (read by
    ``_TOKEN``'s ASCII form when the text is ASCII: the same tokens, faster)."""
    return (_TOKEN_ASCII if text.isascii() else _TOKEN).sub("a", text)


def _skeletons(text: str) -> str:
    """The skeleton of each line of ``text`` (no token, string or run spans a line
    break, so lines joined get their skeletons in two passes, as one by one)."""
    return _REPEATS.sub("a…", _lettered(text))


def skeleton_of(line: str, limit: int | None = LONG) -> str:
    """The line's skeleton: names, numbers and strings replaced by one letter, and a run
    of them ("a, a, a") collapsed, so list lines of any length share one (of the first
    ``limit`` characters; the backstop's regular-listing test reads whole lines)."""
    return _skeletons(line.strip()[:limit])


_NO_DIGITS = str.maketrans("", "", "0123456789")
_STRUCTURE = frozenset("\"'`[]{}()<>=")


def printed_key(phrase: str) -> str:
    """A phrase's skeleton for telling printed phrases from written ones: names,
    numbers and strings made one letter, runs of blanks one blank, nothing collapsed
    ("  global time:     69.82" and "self size: 39" share "a a: a"). A key of letters
    and blanks alone ("a a a": "Flexible memory management") would say nothing, so a
    phrase of words alone is its own key."""
    key = " ".join(_lettered(phrase[:LONG]).split())
    if key.strip("a "):
        return key
    # words alone: the phrase itself, numbers dropped, is the key ("op0 is compile time
    # invariant" three times is printed; three different phrases are a person's list)
    return "=" + " ".join(phrase[:LONG].translate(_NO_DIGITS).split())


def spread(lines: list[str], size: int = SAMPLE) -> list[str]:
    """At most ``size`` of ``lines``, spread evenly (all of them when fewer)."""
    if len(lines) <= size:
        return lines
    step = len(lines) / size
    return [lines[int(k * step)] for k in range(size)]


#: a field's first character, two blanks or more after the one before it (a literal
#: first, which the engine scans for in C; a match ends on the field's first character)
_FIELD = re.compile(r"  [^ ]")


#: the same, in lines padded with line breaks to one width (see _columns)
_FIELD_PADDED = re.compile(r"  [^ \n]")


def _columns(lines: list[str], *, padded: bool = True) -> float:
    """The share of lines with two or more field starts at columns most lines share.

    The lines are padded with line breaks to one width and joined, so one C-level scan
    finds every field start, its line and column by division (the pattern reads no line
    break, so a line's fields are what it alone holds); ``padded=False`` scans line by
    line (tests/ingest_lint/test_fast_paths.py)."""
    texts = [line[:LONG].expandtabs(8) if "\t" in line else line[:LONG] for line in lines]
    if padded and not any(map(str.__contains__, texts, repeat("\n"))):  # (lines have none)
        width = max(map(len, texts)) + 1
        joined = "".join(map(str.ljust, texts, repeat(width), repeat("\n")))
        found = list(map(re.Match.start, _FIELD_PADDED.finditer(joined)))
        # (a field's column less two: the same for every line, so the same columns share)
        columns = list(map(mod, found, repeat(width)))
        shared_at = {column for column, n in Counter(columns).items() if n >= 0.5 * len(lines)}
        if len(shared_at) < 2:
            return 0.0
        rows = Counter(
            compress(map(floordiv, found, repeat(width)), map(shared_at.__contains__, columns))
        )
        return sum(1 for n in rows.values() if n >= 2) / len(lines)
    starts: list[set[int]] = []
    for text in texts:
        starts.append({match.end() - 1 for match in _FIELD.finditer(text)})
    common = Counter(column for found in starts for column in found)
    shared = {column for column, n in common.items() if n >= 0.5 * len(lines)}
    if len(shared) < 2:
        return 0.0
    return sum(1 for found in starts if len(found & shared) >= 2) / len(lines)


def _borders(lines: list[str]) -> int:
    """The characters of markup among the lines' punctuation: a table row's borders
    ("| a | b |", "+---+---+") and a bullet's marker ("- item"). Bullets are counted in
    C; rows are read only when a line opens with a border."""
    text = "\n" + "\n".join(map(str.strip, lines))
    found = text.count("\n- ") + text.count("\n* ")
    if "\n|" in text or "\n+" in text:
        for row in text.split("\n"):
            if row[:1] in ("|", "+") and row[-1:] in ("|", "+"):
                found += sum(map(len, _BORDER.findall(row)))
    return found


#: characters no branch of ``_CODE_WORD`` reads at a word's ends, where no name follows
#: them: a mark there ("lines,", "[12]", "size:", "paragraphs.") names nothing (not "(":
#: "f(" is called)
_UNNAMED_ENDS = ",;)[]{}\"'`=<+*/%&|^!~\\?.:-#>"


def _named(tokens: list[list[str]]) -> int:
    """The code names of each line, at most one a word, summed: ``_CODE_WORD`` matches
    within a word (no branch reads a blank, and a blank before a word reads as its
    start), so each distinct word is counted once, and only a word that could hold one
    (a mark inside it, a capital after a small letter, "0x") is read by the pattern, in
    one pass over those words joined. A word of an e-mail address or a URL is no code
    name. The same count as ``_CODE_WORD`` line by line
    (tests/ingest_lint/test_fast_paths.py)."""
    read = [
        word
        for word in set().union(*tokens)
        if (bare := word.strip(_UNNAMED_ENDS))
        and not (
            bare.isalnum()
            and "0x" not in bare
            and (bare.islower() or bare.isupper() or bare.istitle() or bare.isdigit())
        )
        and "@" not in word
        and "://" not in word
    ]
    if not read:
        return 0
    if any(map(str.__contains__, read, repeat("\x00"))):  # (NUL marks a match below)
        counts = {word: len(_CODE_WORD.findall(word)) for word in read}
    else:
        text = "\n".join(read)
        code_word = _CODE_WORD_ASCII if text.isascii() else _CODE_WORD
        marked = code_word.sub("\x00", text).split("\n")
        counts = dict(zip(read, map(str.count, marked, repeat("\x00"))))
    count = counts.get  # (None: a word not read, no name)
    if max(counts.values()) <= 1:  # no line then holds more names than words
        return sum(filter(None, map(count, chain.from_iterable(tokens))))
    return sum(map(min, map(len, tokens), [sum(map(count, words, repeat(0))) for words in tokens]))


def _edges(heads: list[str], tokens: list[list[str]]) -> int:
    """Lines with an edge between two names. ``_EDGE`` has no literal to scan for, so it
    reads only the lines that could hold an edge, found in C: a line with a relation
    word among its words (set tests) or with an arrow (substring tests, each arrow only
    when the joined lines hold it). The same count as ``_EDGE`` line by line
    (tests/ingest_lint/test_fast_paths.py)."""
    joined = "\n".join(heads)
    # (True: neither a relation word nor, once an arrow is tested, that arrow)
    plain = list(map(_RELATION_WORDS.isdisjoint, tokens))
    for arrow in _ARROW_LITERALS:
        if arrow in joined:
            plain = list(map(gt, plain, map(str.__contains__, heads, repeat(arrow))))
    edges = 0
    for head, words in compress(zip(heads, tokens), map(not_, plain)):
        named_in = head
        if "@" in head or "://" in head:  # an e-mail address or a URL is no code name
            named_in = " ".join(t for t in words if "://" not in t and "@" not in t)
        edges += _EDGE_FAST.search("\n" + named_in) is not None
    return edges


class Properties:
    """The shape model's measurements of one listing (see the module's docstring)."""

    __slots__ = (
        "columns",
        "compact",
        "edges",
        "identifiers",
        "lines",
        "punctuation",
        "skeleton",
        "tree",
    )

    def __init__(self, listing: list[str]) -> None:
        lines = [line for line in spread(listing) if line.strip()]
        self.lines = len(listing)
        n = len(lines) or 1
        # words and nothing else (a sentence, a phrase) have no skeleton to repeat; a
        # quoted name ('"lib/a.js",') or a bracket is structure
        # the sample's skeletons in two C-level substitutions over its joined lines (the
        # same as skeleton_of per line)
        shapes = _skeletons("\n".join(text.strip()[:LONG] for text in lines))
        counts = Counter(
            key
            for key, line in zip(shapes.split("\n"), lines)
            if key.strip("a… .,;:!?") or not _STRUCTURE.isdisjoint(line)
        )
        self.skeleton = sum(c for _, c in counts.most_common(TEMPLATES)) / n
        # (a tree's prefix opens with blanks, which cannot also be its guides or branch)
        self.tree = sum(map(bool, map(_TREE.match, map(str.lstrip, lines, repeat(" \t"))))) / n
        self.columns = _columns(lines) if len(lines) >= 4 else 0.0
        width = sum(map(len, lines)) or 1
        heads = [line[:LONG] for line in lines]
        data = "\n".join(heads).encode("utf-8", "surrogatepass")
        chars = len(data.translate(None, b" \t\n"))
        # a table row's cell borders ("| a | b |") are markup, not code's punctuation
        marks = len(data.translate(None, _NOT_PUNCTUATION)) - _borders(heads)
        tokens = list(map(str.split, heads))
        words = sum(map(len, tokens))
        long_width = 0
        for line in lines:
            if len(line) >= LONG:
                raw = line[:LONG].encode("utf-8", "surrogatepass")
                solid = len(raw.translate(None, b" \t"))
                signs = len(raw.translate(None, _NOT_PUNCTUATION))
                if signs >= 0.15 * solid and solid >= 0.85 * LONG:
                    long_width += len(line)
        self.compact = long_width / width
        self.identifiers = _named(tokens) / words if words else 0.0
        self.punctuation = marks / chars if chars else 0.0
        self.edges = _edges(heads, tokens) / n

    def names_code(self) -> bool:
        return self.identifiers >= IDENTIFIERS or self.punctuation >= PUNCTUATION

    def regular(self) -> list[str]:
        """The machine-regularity properties that fired."""
        fired = []
        if self.skeleton >= SKELETON and self.lines >= 10:
            fired.append("skeleton")
        if self.tree >= TREE:
            fired.append("tree")
        if self.columns >= COLUMNS:
            fired.append("columns")
        if self.compact >= COMPACT:
            fired.append("compact")
        return fired

    def machine_output(self) -> bool:
        """Regular and naming code; a skeleton alone must name code by its words (a list
        of people, a JSON example's keys and values repeat a skeleton too)."""
        fired = self.regular()
        if fired == ["skeleton"]:
            return self.identifiers >= IDENTIFIERS
        return bool(fired) and self.names_code()

    def describe(self, prose: float | None = None) -> str:
        """The values, those that fired marked with "*"."""
        fired = set(self.regular())
        if self.identifiers >= IDENTIFIERS:
            fired.add("identifiers")
        if self.punctuation >= PUNCTUATION:
            fired.add("punctuation")
        if self.edges >= EDGES:
            fired.add("edges")
        values = [
            ("skeleton", self.skeleton),
            ("tree", self.tree),
            ("columns", self.columns),
            ("compact", self.compact),
            ("identifiers", self.identifiers),
            ("punctuation", self.punctuation),
            ("edges", self.edges),
        ]
        shown = ", ".join(
            f"{name}{'*' if name in fired else ''} {value:.2f}" for name, value in values
        )
        if prose is not None:
            shown = f"prose {prose:.0%}; " + shown
        return shown
