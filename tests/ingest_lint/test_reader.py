"""Front matter, suppressions and bad input: each a clear finding or error, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mishkan_core.ingest_lint._engine import lint_file, lint_text, suppressible_codes
from mishkan_core.ingest_lint._reader import (
    FrontMatter,
    decode,
    parse_front_matter,
    read_text,
    split_lines,
)

KNOWN = suppressible_codes()


def _fm(text: str) -> FrontMatter:
    return parse_front_matter(split_lines(text), KNOWN)


def test_artifact_front_matter() -> None:
    fm = _fm("---\nmishkan: ingest\nkind: adr\nsource: python -c 'a: b' x.py\n---\nbody\n")
    assert fm.present and fm.is_artifact and not fm.problems
    assert fm.end_line == 5


@pytest.mark.parametrize(
    "value", ["ingest", '"ingest"', "'ingest'", "ingest  # the store", "[ingest, notes]"]
)
def test_mishkan_value_forms(value: str) -> None:
    assert _fm(f"---\nmishkan: {value}\n---\n").is_artifact


def test_other_files_are_not_artifacts() -> None:
    assert not _fm("# Title\n\nno front matter\n").is_artifact
    assert not _fm("---\ntitle: x\n---\n").is_artifact
    assert not _fm("---\nmishkan: memory\n---\n").is_artifact


def test_nested_yaml_under_other_keys_is_skipped() -> None:
    fm = _fm(
        "---\nmishkan: ingest\ntags:\n  - a\n  - b\n"
        "meta:\n  owner: x\n  desc: |\n    text: here\n---\n"
    )
    assert fm.is_artifact and not fm.problems


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("---\nmishkan: ingest\nkind: adr\n", "never closed"),
        ("---\nmishkan: ingest\nthis is not yaml\n---\n", "expected 'key: value'"),
        ("---\nmishkan: ingest\nmishkan: ingest\n---\n", "duplicate key"),
        ('---\nmishkan: "ingest\n---\n', "unterminated"),
        ("---\nmishkan: ingest\ntags:\n\t- a\n---\n", "tab"),
        ("---\nmishkan: [ingest\n---\n", "unterminated flow"),
    ],
)
def test_malformed_front_matter_is_one_finding(text: str, expected: str) -> None:
    result = lint_text("bad.md", text + "body\n")
    assert [f.rule for f in result.findings] == ["IL001"]
    assert expected in result.findings[0].message
    assert result.rejected


def test_malformed_front_matter_without_mishkan_is_ignored_unless_all() -> None:
    text = "---\ntitle: x\nnot yaml at all\n---\nbody\n"
    assert not lint_text("x.md", text).findings
    assert [f.rule for f in lint_text("x.md", text, include_all=True).findings] == ["IL001"]


def test_suppression_forms() -> None:
    fm = _fm(
        "---\nmishkan: ingest\nmishkan-lint: allow IL502 -- the listing is the decision\n---\n"
    )
    assert [(s.rules, s.reason) for s in fm.suppressions] == [
        (("IL502",), "the listing is the decision")
    ]
    fm = _fm(
        "---\nmishkan: ingest\nmishkan-lint:\n  - allow IL101, IL102 -- schema example\n"
        '  - "allow IL401 -- migration map"\n---\n'
    )
    assert [s.rules for s in fm.suppressions] == [("IL101", "IL102"), ("IL401",)]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("allow IL502", "has no reason"),
        ("allow IL502 --", "has no reason"),
        ("allow IL999 -- because", "unknown rule IL999"),
        ("ignore IL502 -- because", "invalid suppression"),
    ],
)
def test_invalid_suppressions(entry: str, expected: str) -> None:
    fm = _fm(f"---\nmishkan: ingest\nmishkan-lint: {entry}\n---\n")
    assert not fm.suppressions
    assert [(rule, line) for rule, line, _ in fm.problems] == [("IL002", 3)]
    assert expected in fm.problems[0][2]


def test_decode_errors_are_located() -> None:
    text, error = decode("b.md", b"line one\nline two\x00\n")
    assert text is None and error is not None
    assert error.rule == "IL902" and error.line == 2 and "NUL byte" in error.message
    text, error = decode("u.md", b"ok\n\xff\xfe bad\n")
    assert error is not None and error.rule == "IL903" and error.line == 2
    text, error = decode("bom.md", b"\xef\xbb\xbf---\nmishkan: ingest\n---\n")
    assert error is None and text is not None and text.startswith("---")


def test_large_files_are_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with open(big, "wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of nothing, never read
    text, error = read_text(str(big), max_bytes=1024)
    assert text is None and error is not None
    assert error.rule == "IL904" and "67,108,864 bytes" in error.message


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    missing = lint_file(str(tmp_path / "nope.md"))
    assert [(f.rule, f.error) for f in missing.findings] == [("IL901", True)]
    assert "no such file" in missing.findings[0].message


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked.md"
    locked.write_text("---\nmishkan: ingest\n---\n")
    real_open = os.open

    def refuse(file: str, flags: int, *args: int, **kwargs: object) -> int:
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied")
        return real_open(file, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    result = lint_file(str(locked))
    assert [f.rule for f in result.findings] == ["IL901"]
    assert result.findings[0].message == "cannot read: Permission denied"


def test_symlink_loop_is_reported(tmp_path: Path) -> None:
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    result = lint_file(str(loop))
    assert [f.rule for f in result.findings] == ["IL905"]
    assert "symlink loop" in result.findings[0].message


def test_directory_given_as_file_is_an_error(tmp_path: Path) -> None:
    _text, error = read_text(str(tmp_path))
    assert error is not None and error.rule == "IL901"
