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

from mishkan_core.ingest_lint._model import Block
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


def line_roles(block: Block) -> list[int]:
    """A role per line of the block (blank lines are NEUTRAL), cached on the block (the
    backstop and the line's prose measure both ask); read it, never change it."""
    cached = block.cache.get("roles")
    if isinstance(cached, list):
        return cached
    out = block.cache["roles"] = _line_roles(block)
    return out


def _line_roles(block: Block) -> list[int]:
    lines = block.lines
    fenced = block.fenced
    stripped = [raw.strip() for raw in lines]
    sentence = [False] * len(lines)
    out = []
    phrases: list[int] = []  # lines that are phrases, not sentences
    for i, raw in enumerate(lines):
        text = stripped[i]
        if not text.strip(MARKUP) or (text[0] == "<" and _COMMENT_EDGE.fullmatch(text)):
            out.append(NEUTRAL)
        elif not fenced and text[0] == "#":
            out.append(NEUTRAL if code_shaped(text.lstrip("#")) else HUMAN)
        elif is_sentence(text.split()) and not compact(text):
            # a paragraph's sentences: at the margin, or quoted in a fence (a docstring
            # indented in unfenced code is not one)
            code_indent = raw[:1] == "\t" or raw[:4] == "    "
            sentence[i] = fenced or not code_indent
            out.append(NEUTRAL if fenced or code_indent else PROSE)
        elif len(text) < LONG_LINE and is_neutral_output(text):
            # (a minified line holds "Error: " in a string: code, not a log line)
            out.append(NEUTRAL)
        elif fenced:
            # a phrase in a fence is quoted text unless it looks like code (checked first:
            # most fenced lines do)
            out.append(NEUTRAL if not code_shaped(text) and is_wordy(text) else MACHINE)
        elif is_wordy(text) and not code_shaped(_MARKUP_SPAN.sub(" ", text)):
            code_indent = raw[:1] == "\t" or raw[:4] == "    "
            if not text.startswith("|"):
                phrases.append(i)  # (judged below, against the block's other phrases)
            out.append(NEUTRAL if code_indent else HUMAN)
        elif is_page_markup(text):
            out.append(HUMAN)
        else:
            out.append(MACHINE)
    if len(phrases) >= PRINTED:
        # a phrase stamped from a skeleton PRINTED of the block's phrases share was printed
        # by a tool ("  global time:     69.82"), not written
        keys = [printed_key(stripped[i]) for i in phrases]
        counts = Counter(keys)
        for i, key in zip(phrases, keys):
            if counts[key] >= PRINTED:
                out[i] = MACHINE
    _paragraphs(out, stripped, sentence, NEUTRAL if fenced else PROSE)
    return out


def _paragraphs(out: list[int], stripped: list[str], sentence: list[bool], role: int) -> None:
    """A paragraph with sentences in it is prose, all of it: the lines of a wrapped
    sentence that carry no function word ("`/proc` file system is unavailable.")
    belong to it. List items and headings start paragraphs of their own. Inside a
    fence the same paragraph is quoted text (a licence, an e-mail): neutral, unless
    its lines look like code (code with its comments)."""
    start = 0
    count = len(out)
    for end in range(count + 1):
        text = stripped[end] if end < count else ""
        opens = end < count and (_ITEM.match(text) is not None or text[:1] == "#")
        if text and not opens:
            continue
        sentences = sum(sentence[start:end])
        if sentences and sentences >= 0.3 * (end - start):
            for i in range(start, end):
                if (out[i] == MACHINE or (out[i] == HUMAN and role == PROSE)) and (
                    role == PROSE or not code_shaped(stripped[i])
                ):
                    out[i] = role
        start = end + 1 if not text else end


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
            content += sum(max(1.0, len(line) / 80.0) for line in block.lines if line.strip())
            continue
        for line, role in zip(block.lines, line_roles(block)):
            if not line.strip():
                continue
            weight = max(1.0, len(line.strip()) / 80.0)
            content += weight
            if role == PROSE:
                prose += weight
    share = prose / content if content else 0.0
    carried = (prose >= PROSE_WIDTHS and share >= PROSE_SHARE) or (
        prose >= LONG_PROSE and share >= LONG_SHARE
    )
    return carried, share
