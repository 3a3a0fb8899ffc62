"""The role of each line of a document, for the format-agnostic backstop (IL601).

Three roles, decided from the line's own shape, never from a tool's format:

* ``PROSE``: a sentence. Told by its function words ("the", "of", "we",
  "because"...), outside code: a sentence in a fence, or indented like code, is
  a comment or a docstring. A paragraph with sentences in it is prose, all of it.
* ``HUMAN``: written for a reader without a sentence's grammar: a heading of
  words, page markup (links, badges, HTML tables, link definitions), a phrase
  ("Robust C99 implementation", a table row of phrases). It counts on the
  document's side, but does not interrupt a listing the way a sentence does.
* ``NEUTRAL``: accepted content that says nothing either way: rules, headings
  that are code, log lines, frames of a stack trace, compiler diagnostics,
  shell prompts, comments and docstrings, text quoted in a fence.
* ``MACHINE``: everything else: code, dumps, listings, tables of names.

Everything here is linear in the text and runs only on documents the backstop's
cheap gate lets through (see ``_detectors/machine_shape.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import compress, filterfalse, repeat
from operator import not_

from mishkan_core.ingest_lint._model import Block, line_widths
from mishkan_core.ingest_lint._properties import printed_key
from mishkan_core.ingest_lint._shape import KEYWORDS
from mishkan_core.ingest_lint._words import FUNCTION_WORDS, WEAK_WORDS

PROSE, NEUTRAL, MACHINE, HUMAN = 0, 1, 2, 3
#: a phrase whose skeleton this many lines of its block share was printed, not written
#: ("  global time:     69.82", "fprintf/32 function body not available")
PRINTED = 4
#: longer than any log line or frame: a line of minified code or a one-line dump
LONG_LINE = 400

_WEAK = WEAK_WORDS

# Accepted content at the start of a line: prompts, frames and diagnostics (Java/JS
# "at", Python 'File "', gdb "#3", native "12: 0x..", Rust "--> a.rs:1:2", Ruby
# "from a.rb:3:in", Go "goroutine 7 [", Java "... 14 more") and log lines that open
# with a level.
_NEUTRAL_START = re.compile(
    r"(?:\$ |> |PS> |at\s|File\s\"|#\d+\s|\d+:\s+0x|Caused by|Traceback"
    r"|-->\s+\S+:\d+:\d+|from\s\S+:\d+:in\s|goroutine\s\d+|\.\.\.\s\d+\s"
    r"|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|TRACE|NOTICE)\b)"
)
_NEUTRAL_FIRST = frozenset("$>PaF#0123456789CT-fg.[EWIDN")
# ... anywhere in a line, each behind a cheap substring test: a timestamp, an error
# message ("IndexError: ", "error[E0308]: "), a native frame or a Go frame's "+0x1d"
_COLON_DIGITS = re.compile(r":\d\d")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\b\d\d:\d\d:\d\d\b")
_ERROR_MESSAGE = re.compile(r"(?:Error|Exception|Warning|error|warning)(?:\[\w+\])?: ")
_NATIVE_FRAME = re.compile(r"(?:\b(?:at|by|in)|#\d+)\s+0x[0-9A-Fa-f]{4,}|\+0x[0-9a-f]+$")

#: characters of a line that is nothing but markdown rules and table separators
MARKUP = "-=|:*_`~ +#."
# an HTML comment's edges
_COMMENT_EDGE = re.compile(r"<!--.*|.*-->")
# HTML that markdown documents embed (tables, details, anchors), unlike the tags of an
# XML dump (<node>, <edge>, <data>)
_HTML_TAG = re.compile(
    r"</?(?:table|thead|tbody|tfoot|tr|td|th|a|span|div|br|img|p|code|kbd|sup|sub|details"
    r"|summary|em|strong|b|i|u|s|ul|ol|li|hr|h[1-6]|pre|blockquote|dl|dt|dd|small|picture"
    r"|source|figure|figcaption|center|font|abbr)\b[^<>]*>",
    re.IGNORECASE,
)
# a link reference definition: "[survey]: https://hackmd.io/..."
_LINK_DEFINITION = re.compile(r"\[[^\]\n]+\]:\s+\S+")
# a line of markdown links or images only (badges, a link list); a badge is an image
# inside a link; either may point by reference ("[![npm][npm-image]][npm-url]")
_TARGET = r"(?:\([^()\s]*\)|\[[^\[\]\n]*\])"
_LINK = rf"!?\[[^\[\]\n]*\]{_TARGET}"
_LINKS_ONLY = re.compile(rf"(?:(?:\[{_LINK}\]{_TARGET}|{_LINK})[ \t]*)+")
# a markdown link or image (inline or by reference), or a code span
_MARKUP_SPAN = re.compile(r"!?\[[^\[\]\n]*\](?:\([^()\s]*\)|\[[^\[\]\n]*\])|`[^`\n]*`")
# two words in a row: the smallest phrase a person writes (a listing rarely has one)
_PHRASE = re.compile(r"(?<![\w.`/-])[A-Za-z][a-z]+ [A-Za-z][a-z]+(?![\w`(/])")
_WORD = re.compile(r"[(\"'*_\[]*(?:[A-Za-z][a-z]*(?:'[a-z]+)?|[A-Z]{2,})[)\"'.,;:!?*_\]]*")
_CODE_MARKS = frozenset("`=;{}()<>$\\")
# a mark of code: braces, brackets and operators, a call, a qualified, snake_case or
# camelCase name, a path, a hex address, a line:column position (once e-mail addresses
# and URLs are gone). Parentheses, quotes and commas are not: prose has them too.
_CODE_MARK = re.compile(
    r"[{}\[\];=<>`$\\]|\w\(|->|::|(?<!\w)[A-Za-z_]\w+[.#][A-Za-z_]\w|\w/\w+/|\w_\w|[a-z][A-Z]"
    r"|\b[0-9a-fA-F]{6,}\b|\d:\d"
)
#: the single characters among the marks of code
_CODE_CHARS = frozenset("=;{}[]<>`$\\")
_ADDRESS = re.compile(r"(?<![\w.+<-])<?[\w.+-]+@[\w-]+(?:\.[\w-]+)+>?|(?<!\w)\w+://\S+")
_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s")


def is_sentence(tokens: list[str]) -> bool:
    """Does a line, split into tokens, hold a sentence's grammar?"""
    if FUNCTION_WORDS.isdisjoint(tokens):
        return False
    found = {token for token in tokens if token in FUNCTION_WORDS}
    if len(found) >= 2 or not found <= _WEAK:
        return True
    words = [t for t in tokens if len(t) >= 3 and t.isalpha() and t.islower() and t not in KEYWORDS]
    return len(words) >= 2


def compact(text: str) -> bool:
    """A line of LONG_LINE characters or more with few blanks (under one in twelve): a
    minified file or a one-line dump, whatever words its strings hold; prose written
    as one long line has a blank every six characters or so."""
    return len(text) >= LONG_LINE and text.count(" ") < len(text) / 12


def is_neutral_output(stripped: str) -> bool:
    """Frames, diagnostics, prompts and log lines: accepted, neither prose nor machine."""
    if stripped[0] in _NEUTRAL_FIRST and _NEUTRAL_START.match(stripped):
        return True
    if "0x" in stripped and _NATIVE_FRAME.search(stripped):
        return True
    if ("rror" in stripped or "xception" in stripped or "arning" in stripped) and (
        _ERROR_MESSAGE.search(stripped)
    ):
        return True
    if "panicked at" in stripped:
        return True
    return _has_clock(stripped) and _TIMESTAMP.search(stripped) is not None


def _has_clock(line: str) -> bool:
    """A cheap look for "12:34" (a pattern that opens with ":" is scanned for in C):
    the timestamp regex runs only where it could match."""
    for match in _COLON_DIGITS.finditer(line):
        if line[max(0, match.start() - 2) : match.start()].isdigit():
            return True
    return False


def code_shaped(line: str) -> bool:
    """Does the line look like code: a keyword first, or a mark of code?"""
    if "@" in line or "://" in line:
        line = _ADDRESS.sub(" ", line)
    elif not _CODE_CHARS.isdisjoint(line):  # most code lines: no regex needed
        return True
    first = line.split(None, 1)[:1]
    return bool(first and first[0] in KEYWORDS) or _CODE_MARK.search(line) is not None


def plainly_code(lines: list[str]) -> list[bool]:
    """For each line, is ``code_shaped`` true without its pattern: a mark of code, and
    no e-mail address or URL for it to take out first? Told for all lines in C."""
    quick = list(map(bool, _bytes_of(lines, _IDENTITY, _NOT_CODE_CHAR)))
    joined = "\n".join(lines)
    for piece in ("@", "://"):
        if piece in joined:
            for i in compress(range(len(lines)), map(str.__contains__, lines, repeat(piece))):
                quick[i] = False
    return quick


def is_wordy(line: str) -> bool:
    """Words written for a reader without a sentence's grammar: a bullet like
    "Robust C99 implementation", a row "| Build resources | Michael Dawson |", a
    changelog entry "[`513fc62`](url) - **src**: clean up parser". A phrase of two
    words or more, words for most of the tokens, few code marks (a table of imports,
    "| a/b.py | os, re, sys |", has no phrase)."""
    if _PHRASE.search(line) is None:
        return False
    cells = line.replace("|", " ").replace("\\", "")  # markdown escapes ("\\[") are not code
    if "`" in cells or "](" in cells:
        cells = _MARKUP_SPAN.sub(" ", cells)
    tokens = cells.split()
    if not _CODE_MARKS.isdisjoint(cells):
        marked = sum(1 for token in tokens if not _CODE_MARKS.isdisjoint(token))
        if marked > 0.25 * len(tokens):
            return False
    words = sum(1 for token in tokens if _WORD.fullmatch(token))
    return words >= 0.6 * len(tokens)


def is_page_markup(line: str) -> bool:
    """Markdown's own machinery: links only, a link definition, or mostly HTML tags."""
    if line[0] == "[" and _LINK_DEFINITION.match(line):
        return True
    if "](" in line or "][" in line:
        item = _ITEM.match(line)
        if _LINKS_ONLY.fullmatch(line[item.end() :] if item else line):
            return True
    if "<" not in line:
        return False
    bare = _HTML_TAG.sub("", line)
    return len(bare) < len(line) and len(bare.strip()) <= 0.5 * len(line)


def stripped_lines(block: Block) -> list[str]:
    """The block's lines, stripped (cached on the block: the roles and the widths read
    them); read it, never change it."""
    cached = block.cache.get("stripped")
    if isinstance(cached, list):
        return cached
    out = block.cache["stripped"] = list(map(str.strip, block.lines))
    return out


def widths(block: Block) -> list[float]:
    """Each line's width (``line_widths`` of the stripped lines), computed for the block at
    once in C (cached); read it, never change it."""
    cached = block.cache.get("widths")
    if isinstance(cached, list):
        return cached
    out = block.cache["widths"] = line_widths(stripped_lines(block))
    return out


def line_roles(block: Block) -> list[int]:
    """A role per line of the block (blank lines are NEUTRAL), cached on the block (the
    backstop and the line's prose measure both ask); read it, never change it."""
    cached = block.cache.get("roles")
    if isinstance(cached, list):
        return cached
    out = block.cache["roles"] = _line_roles(block)
    return out


def _line_roles(block: Block, *, settle: bool = True) -> list[int]:
    """The roles; ``settle=False`` gives every line ``_role``'s own look (what
    ``_settle`` must agree with, tests/ingest_lint/test_fast_paths.py)."""
    lines = block.lines
    fenced = block.fenced
    stripped = stripped_lines(block)
    sentence = [False] * len(lines)
    out = [MACHINE] * len(lines)
    phrases: list[int] = []  # lines that are phrases, not sentences
    rest, last = _settle(block, stripped, out, sentence) if settle else (range(len(lines)), [])
    for i in rest:
        out[i] = _role(i, lines[i], stripped[i], fenced, sentence=sentence, phrases=phrases)
    for i in last:
        out[i] = _last(i, lines[i], stripped[i], fenced, phrases=phrases)
    if len(phrases) >= PRINTED:
        # a phrase stamped from a skeleton PRINTED of the block's phrases share was printed
        # by a tool ("  global time:     69.82"), not written
        keys = [printed_key(stripped[i]) for i in phrases]
        counts = Counter(keys)
        for i, key in zip(phrases, keys):
            if counts[key] >= PRINTED:
                out[i] = MACHINE
    if any(sentence):  # (a paragraph without a sentence keeps its roles)
        _paragraphs(out, stripped, sentence, NEUTRAL if fenced else PROSE)
    return out


def _role(
    i: int, raw: str, text: str, fenced: bool, *, sentence: list[bool], phrases: list[int]
) -> int:
    """The role of one line (``text`` is ``raw`` stripped), its tests in order; a sentence
    is marked in ``sentence``, a phrase outside fences added to ``phrases``."""
    if not text.strip(MARKUP) or (text[0] == "<" and _COMMENT_EDGE.fullmatch(text)):
        return NEUTRAL
    if not fenced and text[0] == "#":
        return NEUTRAL if code_shaped(text.lstrip("#")) else HUMAN
    if is_sentence(text.split()) and not compact(text):
        # a paragraph's sentences: at the margin, or quoted in a fence (a docstring
        # indented in unfenced code is not one)
        code_indent = raw[:1] == "\t" or raw[:4] == "    "
        sentence[i] = fenced or not code_indent
        return NEUTRAL if fenced or code_indent else PROSE
    if len(text) < LONG_LINE and is_neutral_output(text):
        # (a minified line holds "Error: " in a string: code, not a log line)
        return NEUTRAL
    return _last(i, raw, text, fenced, phrases=phrases)


def _last(i: int, raw: str, text: str, fenced: bool, *, phrases: list[int]) -> int:
    """``_role``'s last tests, for a line that is no blank, heading, sentence or log line."""
    if fenced:
        # a phrase in a fence is quoted text unless it looks like code (checked first:
        # most fenced lines do)
        return NEUTRAL if not code_shaped(text) and is_wordy(text) else MACHINE
    if is_wordy(text) and not code_shaped(_MARKUP_SPAN.sub(" ", text)):
        if not text.startswith("|"):
            phrases.append(i)  # (judged by the caller, against the block's other phrases)
        return NEUTRAL if raw[:1] == "\t" or raw[:4] == "    " else HUMAN
    if is_page_markup(text):
        return HUMAN
    return MACHINE


#: function words that make a sentence on their own (is_sentence's second test)
_STRONG = FUNCTION_WORDS - _WEAK
#: the bytes of the characters that tell code_shaped "code" without a pattern, and the
#: line break between lines: every other byte is deleted to find the lines with one
_NOT_CODE_CHAR = bytes(b for b in range(256) if chr(b) not in _CODE_CHARS and b != 10)
_IDENTITY = bytes(range(256))
#: letters as _PHRASE reads them: a lower-case one "a", a capital "A", a blank " "; any
#: other byte "." (a line break stays one): _PHRASE needs "a aa" or "a Aa" in a line
_LETTERS = bytes(
    ord("a") if 97 <= b <= 122 else ord("A") if 65 <= b <= 90 else b if b in (10, 32) else 46
    for b in range(256)
)
#: what may make a line a log line or a frame beyond its start (see is_neutral_output)
_NEUTRAL_PIECES = ("0x", "rror", "xception", "arning", "panicked at")
_CODE_INDENT = ("\t", "    ")


def _bytes_of(lines: list[str], table: bytes, delete: bytes = b"") -> list[bytes]:
    """Each line's UTF-8 bytes through ``table`` (``delete`` removed), from one C-level
    pass over the lines joined (a line holds no line break)."""
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    return data.translate(table, delete).split(b"\n")


def _settle(
    block: Block, stripped: list[str], out: list[int], sentence: list[bool]
) -> tuple[list[int], list[int]]:
    """Decide the block's common lines together; return the others: those for ``_role``,
    and those for its last tests alone (``_last``).

    Most lines are settled by ``_role``'s early tests alone: a blank line or a rule by
    the first, a sentence by a function word that needs no other (the third), a log
    line or a frame by its start (the fourth), a line of a listing by failing every
    test but the last, which it passes (in a fence, a mark of code or no phrase;
    outside, no phrase and no markup). Each of those facts is found for all the lines
    at once, by C-level passes (``map`` over the lines, a ``translate`` of the block),
    so those lines cost no Python of their own; ``_role`` gets the rest (headings, weak
    function words, long lines) and asks in its order, ``_last`` the lines of a listing
    with a phrase or markup in them. The result is ``_role``'s for every line
    (tests/ingest_lint/test_fast_paths.py).
    """
    n = len(stripped)
    text = block.text
    fenced = block.fenced
    every = range(n)
    # the first test: blank, rules and markup only (NEUTRAL); an HTML comment's edge
    blank = set(compress(every, map(not_, map(str.strip, stripped, repeat(MARKUP)))))
    if "<" in text:
        opened = compress(every, map(str.startswith, stripped, repeat("<")))
        blank.update(i for i in opened if _COMMENT_EDGE.fullmatch(stripped[i]))
    for i in blank:
        out[i] = NEUTRAL
    # the second: a heading, outside fences
    rest: set[int] = set()
    if not fenced and "#" in text:
        rest.update(compress(every, map(str.startswith, stripped, repeat("#"))))
        rest -= blank
    todo = list(filterfalse((blank | rest).__contains__, every))
    # the third: a strong function word is a sentence, unless the line is compact (long);
    # a weak one alone may be, or not: _role judges
    splits = list(map(str.split, map(stripped.__getitem__, todo)))
    # the lines without a function word (most of a listing's), told in C
    none = list(map(FUNCTION_WORDS.isdisjoint, splits))
    plain = list(compress(todo, none))
    for i, words in compress(zip(todo, splits), map(not_, none)):
        if _STRONG.isdisjoint(words) or len(stripped[i]) >= LONG_LINE:
            rest.add(i)
        else:
            code_indent = block.lines[i].startswith(_CODE_INDENT)
            sentence[i] = fenced or not code_indent
            out[i] = NEUTRAL if fenced or code_indent else PROSE
    # the fourth, on lines with no function word: a log line, a frame, a diagnostic, told
    # by its start (is_neutral_output's first test) or, where a line holds a piece of
    # one of the others, by is_neutral_output itself
    leading = set(compress(plain, map(_NEUTRAL_START.match, map(stripped.__getitem__, plain))))
    pieces: set[int] = set()
    for piece in _NEUTRAL_PIECES:
        if piece in text:
            pieces.update(compress(every, map(str.__contains__, stripped, repeat(piece))))
    if ":" in text and _COLON_DIGITS.search(text):
        pieces.update(compress(every, map(_COLON_DIGITS.search, stripped)))
    listing = plain  # (without a start or a piece of one, no line is one)
    if leading or pieces:
        listing = []
        for i in plain:
            line = stripped[i]
            if len(line) < LONG_LINE and (
                i in leading or (i in pieces and is_neutral_output(line))
            ):
                out[i] = NEUTRAL
            else:
                listing.append(i)
    # the last: in a fence, code_shaped's quick answer or no phrase (is_wordy's first);
    # outside, no markup and no phrase: MACHINE, which ``out`` holds already
    last: set[int] = set()
    if fenced:
        quick = plainly_code(stripped)
        listing = [i for i in listing if not quick[i]]
    else:
        for piece in ("<", "["):
            if piece in text:
                last.update(
                    compress(
                        listing,
                        map(str.__contains__, map(stripped.__getitem__, listing), repeat(piece)),
                    )
                )
    if listing:
        letters = _bytes_of(stripped, _LETTERS)
        last.update(
            i
            for i in listing
            if (b"a aa" in letters[i] or b"a Aa" in letters[i]) and _PHRASE.search(stripped[i])
        )
    return sorted(rest), sorted(last)


def _paragraphs(out: list[int], stripped: list[str], sentence: list[bool], role: int) -> None:
    """A paragraph with sentences in it is prose, all of it: the lines of a wrapped
    sentence that carry no function word ("`/proc` file system is unavailable.")
    belong to it. List items and headings start paragraphs of their own. Inside a
    fence the same paragraph is quoted text (a licence, an e-mail): neutral, unless
    its lines look like code (code with its comments)."""
    count = len(out)
    every = range(count)
    # where paragraphs end: a blank line (not part of either), a list item or a heading
    # (the first line of the next), the end
    blank = set(compress(every, map(not_, stripped)))
    opens = set(compress(every, map(_ITEM.match, stripped)))
    opens.update(compress(every, map(str.startswith, stripped, repeat("#"))))
    start = 0
    for end in sorted(blank | opens | {count}):
        sentences = sum(sentence[start:end])
        if sentences and sentences >= 0.3 * (end - start):
            for i in range(start, end):
                if (out[i] == MACHINE or (out[i] == HUMAN and role == PROSE)) and (
                    role == PROSE or not code_shaped(stripped[i])
                ):
                    out[i] = role
        start = end + 1 if end in blank or end == count else end


#: a document whose sentences make up this share of its content (and PROSE_WIDTHS line
#: widths at least), or LONG_PROSE widths and LONG_SHARE of it, is carried by prose: a
#: hand-written listing in it, however long, is the document's example, not its
#: substance (docs/ingest_lint.md, "Where the line is")
PROSE_SHARE = 0.2
PROSE_WIDTHS = 10.0
LONG_PROSE = 40.0
LONG_SHARE = 0.12


def prose_carried(blocks: list[Block]) -> tuple[bool, float]:
    """(carried, share): is the document carried by prose, and what share of its content
    (by line width, a line of 80 characters one) its sentences are. Sentences live
    outside fences, so only those blocks get roles; a fence counts by its widths."""
    prose = content = 0.0
    for block in blocks:
        if block.fenced:
            content += sum(line_widths([line for line in block.lines if line.strip()]))
            continue
        for text, weight, role in zip(stripped_lines(block), widths(block), line_roles(block)):
            if not text:
                continue
            content += weight
            if role == PROSE:
                prose += weight
    share = prose / content if content else 0.0
    carried = (prose >= PROSE_WIDTHS and share >= PROSE_SHARE) or (
        prose >= LONG_PROSE and share >= LONG_SHARE
    )
    return carried, share
