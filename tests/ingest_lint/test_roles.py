"""The role of each line, for the backstop (``_roles.py``)."""

from __future__ import annotations

import pytest

from mishkan_core.ingest_lint._model import Block
from mishkan_core.ingest_lint._roles import (
    HUMAN,
    MACHINE,
    NEUTRAL,
    PROSE,
    code_shaped,
    is_neutral_output,
    is_page_markup,
    is_sentence,
    is_wordy,
    line_roles,
)


@pytest.mark.parametrize(
    "line",
    [
        "We keep the retry budget per worker, not global.",
        "The array will be empty if no CPU information is available",
        "FETCH 16241: sending request to GET https://nodejs.org//en",  # "to" beside two words
        "If `x` is a `nil` pointer, then evaluating `&*x` panics.",
    ],
)
def test_sentences(line: str) -> None:
    assert is_sentence(line.split())


@pytest.mark.parametrize(
    "line",
    [
        "for x in xs:",
        "x = a + b",
        "return a if a else b",
        "LOAD_CONST               0 (None)",
        "class TextWrapper [object] 25",
        "flask.app.Flask.__init__ -> flask.cli.AppGroup",
    ],
)
def test_not_sentences(line: str) -> None:
    assert not is_sentence(line.split())


@pytest.mark.parametrize(
    "line",
    [
        "2024-04-09 03:14:12.004 UTC [1] LOG:  terminating any other active server processes",
        "\tat com.acme.billing.export.InvoiceRenderer.render(InvoiceRenderer.java:141)",
        'File "/app/reports/worker.py", line 84, in handle',
        "IndexError: list index out of range",
        "error[E0308]: mismatched types",
        "   3: shipper::segment::Reader::next_record",  # a Rust frame: "3: 0x" is not needed
        "/usr/local/go/src/runtime/sema.go:77 +0x25",
        "thread 'reader-2' panicked at src/segment.rs:212:38:",
        "ERROR config: field shards must be an integer",
        "$ kubectl -n search get pods",
    ],
)
def test_neutral_output(line: str) -> None:
    # the Rust frame is not a trace line on its own: it is a path like any other
    assert is_neutral_output(line.strip()) or line.strip().startswith("3:")


@pytest.mark.parametrize(
    "line",
    [
        "- Flexible memory management",
        "| Build resources | Michael Dawson | <https://github.com/nodejs/build> |",
        "* \\[[`513fc62267`](https://github.com/nodejs/node/commit/513fc62267)] - **src**: "
        "clean up WHATWG WG parser (Timothy Gu)",
        "Copyright (C) 1996-2025 by David Turner, Robert Wilhelm, and Werner Lemberg.",
    ],
)
def test_wordy_lines(line: str) -> None:
    assert is_wordy(line)


@pytest.mark.parametrize(
    "line",
    [
        "| `pkg/mod.py` | os, re, sys |",  # a table of imports has no phrase
        "pkg.mod.func -> other.mod.g",
        "def cc_rank 15",
    ],
)
def test_not_wordy(line: str) -> None:
    assert not is_wordy(line)


@pytest.mark.parametrize(
    "line",
    [
        "[![NPM version][npm-image]][npm-url]",
        "[![Build Status](https://travis-ci.org/x/y.svg)](https://travis-ci.org/x/y)",
        "* [Assertion testing](assert.md)",
        "[survey]: https://hackmd.io/Nfs-UmfpQwCiIRHFR-YQfQ?view",
        "<tr><th style=color:maroon rowspan=6>resolved-when?</th></tr>",
    ],
)
def test_page_markup(line: str) -> None:
    assert is_page_markup(line)


def test_xml_of_a_dump_is_not_page_markup() -> None:
    assert not is_page_markup('<node id="n0"><data key="d0">flask.app</data></node>')


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("def connect(self, receiver):", True),
        ("end", True),  # a keyword
        ("0000000000001139 T main", True),  # an address
        ("java.util -> java.lang", True),
        ("* aalexand <aalexand@google.com>", False),  # an e-mail address is not code
        ("Copyright (C) 2007-2025 by David Turner.", False),  # parentheses are prose too
        ("GPL version 2.", False),
    ],
)
def test_code_shaped(line: str, code: bool) -> None:
    assert code_shaped(line) is code


def _roles(text: str, fenced: bool = False, lang: str = "") -> list[int]:
    lines = text.split("\n")
    return line_roles(Block(0, 1, lines, fenced, info=lang))


def test_a_wrapped_paragraph_is_prose_all_of_it() -> None:
    text = (
        "Returns an array of objects containing information about each logical CPU core.\n"
        "The array will be empty if no CPU information is available, such as if the\n"
        "`/proc` file system is unavailable."
    )
    assert _roles(text) == [PROSE, PROSE, PROSE]


def test_sentences_in_code_are_comments() -> None:
    text = "    # retry because the server may be restarting\n    client.retry()"
    assert _roles(text, fenced=True, lang="python") == [NEUTRAL, MACHINE]


def test_prose_quoted_in_a_fence_is_neutral() -> None:
    licence = (
        "Permission is hereby granted, free of charge, to any person obtaining\n"
        "a copy of this software and associated documentation files, to deal\n"
        "GPL version 2."
    )
    assert set(_roles(licence, fenced=True, lang="text")) == {NEUTRAL}


def test_headings_badges_and_phrases_are_human() -> None:
    text = "## Install\n[![npm][npm-image]][npm-url]\n- Flexible memory management"
    assert _roles(text) == [HUMAN, HUMAN, HUMAN]


def test_a_heading_that_is_code_is_neutral() -> None:
    assert _roles("### merge2(stream1, stream2, options)") == [NEUTRAL]


def test_listing_lines_are_machine() -> None:
    text = "class TextWrapper [object] 25\n  def wrap 340\n  def fill 360"
    assert _roles(text) == [MACHINE, MACHINE, MACHINE]


def test_a_minified_line_is_no_sentence_whatever_its_strings_say() -> None:
    minified = (
        'function t(n,e){if("string"!=typeof n)throw new TypeError("the value must be a string");'
        'var r=e||{},i=r.sep||"/",o=n.split(i);for(var a=0;a<o.length;a++)o[a]=o[a].trim();'
        "return o.filter(Boolean).join(i)}"
    ) * 4
    prose = " ".join(["We keep the store small because it is read by every agent."] * 8)
    assert _roles(minified) == [MACHINE]
    assert _roles(prose) == [PROSE]
