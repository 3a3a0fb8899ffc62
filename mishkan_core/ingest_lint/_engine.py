"""Lint one file: read it, decide whether it is an artifact, run the detectors,
apply suppressions. The decision is per file; the findings carry line-level
evidence."""

from __future__ import annotations

from mishkan_core.ingest_lint import _reader
from mishkan_core.ingest_lint._document import build
from mishkan_core.ingest_lint._gate import plainly_prose
from mishkan_core.ingest_lint._model import INPUT, META, Finding, Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from mishkan_core.ingest_lint._detectors import Detector


def detectors() -> list[Detector]:
    """The detectors, imported on first use: a document the gate finds plainly prose
    never needs them (nor ``re``, which they compile their patterns with)."""
    from mishkan_core.ingest_lint._detectors import detectors as loaded

    return loaded()


META_RULES = (
    Rule(
        _reader.MALFORMED_FRONT_MATTER,
        "malformed-front-matter",
        META,
        "front matter that cannot be read",
    ),
    Rule(
        _reader.INVALID_SUPPRESSION,
        "invalid-suppression",
        META,
        "suppression without a reason, or naming an unknown rule",
    ),
    Rule(_reader.UNUSED_SUPPRESSION, "unused-suppression", META, "suppression that nothing needed"),
)
INPUT_RULES = (
    Rule(_reader.E_UNREADABLE, "unreadable", INPUT, "file cannot be read"),
    Rule(_reader.E_BINARY, "binary-file", INPUT, "binary file, not text"),
    Rule(_reader.E_ENCODING, "invalid-utf8", INPUT, "text that is not valid UTF-8"),
    Rule(_reader.E_TOO_LARGE, "too-large", INPUT, "file over the size bound, not read"),
    Rule(_reader.E_SYMLINK_LOOP, "symlink-loop", INPUT, "symlink loop"),
)


def all_rules() -> list[Rule]:
    return [*META_RULES, *(d.rule for d in detectors()), *INPUT_RULES]


_CODES: list[frozenset[str]] = []


def _shape_of(lines: list[str]) -> str:
    """The shape model's properties of the lines a finding covers (see _properties)."""
    from mishkan_core.ingest_lint._properties import Properties

    return Properties(lines).describe()


def suppressible_codes() -> frozenset[str]:
    if not _CODES:
        _CODES.append(frozenset(d.rule.code for d in detectors()))
    return _CODES[0]


class _Codes:
    """The suppressible codes, as the reader asks about them: loaded (with the detectors)
    only when a file names a rule in a suppression."""

    def __contains__(self, code: object) -> bool:
        return code in suppressible_codes()

    def __iter__(self) -> Iterator[str]:
        return iter(suppressible_codes())

    def __len__(self) -> int:
        return len(suppressible_codes())


_LAZY_CODES = _Codes()


class FileResult:
    __slots__ = ("artifact", "findings", "path")

    def __init__(
        self, path: str, artifact: bool = False, findings: list[Finding] | None = None
    ) -> None:
        self.path = path
        self.artifact = artifact
        self.findings: list[Finding] = [] if findings is None else findings

    @property
    def rejected(self) -> bool:
        return any(not f.suppressed and not f.error for f in self.findings)

    @property
    def errored(self) -> bool:
        return any(f.error for f in self.findings)


def lint_file(
    path: str,
    *,
    include_all: bool = False,
    max_bytes: int = _reader.DEFAULT_MAX_BYTES,
    disabled: frozenset[str] = frozenset(),
) -> FileResult:
    text, error = _reader.read_text(path, max_bytes)
    if text is None:
        assert error is not None
        return FileResult(path, artifact=False, findings=[error])
    return lint_text(path, text, include_all=include_all, disabled=disabled)


def lint_text(
    path: str,
    text: str,
    *,
    include_all: bool = False,
    disabled: frozenset[str] = frozenset(),
    gate: bool = True,
) -> FileResult:
    """Lint ``text`` as the content of ``path``. ``disabled`` rule codes do not run
    (the leave-one-family-out benchmark measures what the others catch without them);
    ``gate=False`` runs the detectors even on a document the gate finds plainly prose
    (the test that the gate hides no finding)."""
    lines = _reader.split_lines(text)
    fm = _reader.parse_front_matter(lines, _LAZY_CODES)
    artifact = fm.is_artifact or (fm.malformed and fm.mentions_mishkan)
    result = FileResult(path, artifact=artifact)
    if not artifact and not include_all:
        return result
    for rule, line, message in fm.problems:
        result.findings.append(Finding(path, rule, line, line, message))
    if fm.present and fm.end_line == 0:
        return result  # unterminated front matter: the body cannot be told apart
    # split_lines turned any carriage return into a line break: then the body is joined
    doc = build(path, lines, fm.end_line, None if "\r" in text else text)
    suppressions = fm.suppressions
    if gate and not suppressions and plainly_prose(doc):
        return result  # the shape model's gate: no rule can reach its threshold here
    for detector in detectors():
        code = detector.rule.code
        if code in disabled:
            continue
        for hit in detector.check(doc):
            doc.claimed.update(hit.blocks)
            message = hit.message
            if "; shape: " not in message:  # a format detector's: the shape model says its part
                message += "; shape: " + _shape_of(doc.lines[hit.line - 1 : hit.end_line])
            allow = next((s for s in suppressions if code in s.rules), None)
            if allow is not None:
                allow.used.add(code)
            result.findings.append(
                Finding(
                    path,
                    code,
                    hit.line,
                    hit.end_line,
                    message,
                    hit.evidence,
                    suppressed=allow is not None,
                    justification=allow.reason if allow is not None else None,
                )
            )
    for allow in suppressions:
        for code in allow.rules:
            if code not in allow.used:
                result.findings.append(
                    Finding(
                        path,
                        _reader.UNUSED_SUPPRESSION,
                        allow.line,
                        allow.line,
                        f"unused suppression: {code} did not fire in this file",
                    )
                )
    result.findings.sort(key=lambda f: (f.line, f.rule))
    return result
