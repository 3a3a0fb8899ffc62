"""Output formats: text (ruff-like), github (workflow commands), json and sarif (2.1.0)."""

from __future__ import annotations

import os

from mishkan_core.ingest_lint._model import Finding, Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any
# json, hashlib, pathlib and urllib are imported by the formats that need them: the text
# report of a one-file pre-commit run does not pay for them

FORMATS = ("text", "github", "json", "sarif")
TOOL_NAME = "mishkan-ingest-lint"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


#: why a file named on the command line was not linted (one line per file, every format)
SKIPPED = 'skipped: no "mishkan: ingest" marker (only marked files are Cognee work artifacts)'
#: the summary of a run that linted nothing
NOTHING_CHECKED = (
    'Nothing checked: none of the {files} file(s) read has the "mishkan: ingest" marker '
    "(only marked files are Cognee work artifacts; --all lints them anyway)."
)
NO_FILES = "Nothing checked: no .md, .markdown, .mdx or .txt file under the paths given."


class Report:
    """Everything a formatter needs: findings (errors included), rules, counts, and
    the files named on the command line that were skipped (no marker)."""

    def __init__(
        self,
        findings: Sequence[Finding],
        rules: Sequence[Rule],
        files: int,
        artifacts: int,
        skipped: Sequence[str] = (),
    ) -> None:
        self.findings = sorted(findings, key=lambda f: (f.path, f.line, f.rule))
        self.rules = list(rules)
        self.files = files
        self.artifacts = artifacts
        self.skipped = list(skipped)

    @property
    def active(self) -> list[Finding]:
        return [f for f in self.findings if not f.suppressed and not f.error]

    @property
    def suppressed(self) -> list[Finding]:
        return [f for f in self.findings if f.suppressed]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.error]


def render(report: Report, fmt: str) -> tuple[str, str]:
    """(stdout text, stderr text) for ``fmt``."""
    if fmt == "text":
        return text(report)
    if fmt == "github":
        return github(report), ""
    if fmt == "json":
        return as_json(report), ""
    if fmt == "sarif":
        return sarif(report), ""
    raise ValueError(f"unknown format {fmt!r}")


# --------------------------------------------------------------------------- text


def _skip_lines(report: Report) -> list[str]:
    return [f"{path}: {SKIPPED}" for path in report.skipped]


def _counts(report: Report) -> str:
    skipped = f", {len(report.skipped)} skipped" if report.skipped else ""
    return f"{report.artifacts} artifact(s) checked{skipped}, {len(report.suppressed)} suppressed"


def text(report: Report) -> tuple[str, str]:
    out = _skip_lines(report)
    for f in report.active:
        out.append(f"{f.path}:{f.line}:1: {f.rule} {f.message}")
        if f.evidence:
            out.append(f"    evidence: {f.evidence}")
    for f in report.suppressed:
        out.append(f"suppressed: {f.path}:{f.line} {f.rule} -- {f.justification}")
    rejected = len({f.path for f in report.active})
    if report.errors:
        out.append(
            f"{len(report.errors)} path(s) could not be linted (see stderr);"
            f" {len(report.active)} finding(s) in {rejected} file(s)."
        )
    elif report.active:
        out.append(
            f"Found {len(report.active)} finding(s) in {rejected} file(s) ({_counts(report)})."
        )
    elif report.artifacts:
        out.append(f"All checks passed! ({_counts(report)})")
    else:  # never "passed" when nothing was checked
        out.append(NOTHING_CHECKED.format(files=report.files) if report.files else NO_FILES)
    err = [f"mishkan ingest-lint: error: {f.path}: {f.rule} {f.message}" for f in report.errors]
    return "\n".join(out) + "\n", "\n".join(err) + ("\n" if err else "")


# --------------------------------------------------------------------------- github


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    """GitHub Actions workflow commands, escaped as @actions/core escapes them. A
    skipped file is a plain line of the job's log, not an annotation on the PR."""
    names = {rule.code: rule.name for rule in report.rules}
    lines = _skip_lines(report)
    for f in report.findings:
        command = "notice" if f.suppressed else "error"
        title = f"{f.rule} {names.get(f.rule, '')}".strip()
        message = f.message
        if f.suppressed:
            message = f"suppressed: {message} -- {f.justification}"
        if f.evidence:
            message += f"\nevidence: {f.evidence}"
        props = [
            f"file={_escape_property(f.path)}",
            f"line={f.line}",
            f"endLine={max(f.end_line, f.line)}",
            f"title={_escape_property(title)}",
        ]
        lines.append(f"::{command} {','.join(props)}::{_escape_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


# --------------------------------------------------------------------------- json


def as_json(report: Report) -> str:
    """An object: the files read, the artifacts checked, the named files skipped (with
    why), and the findings (errors included)."""
    findings = [
        {
            "path": f.path,
            "rule": f.rule,
            "line": f.line,
            "end_line": max(f.end_line, f.line),
            "message": f.message,
            "evidence": f.evidence,
            "suppressed": f.suppressed,
            "justification": f.justification,
        }
        for f in report.findings
    ]
    doc = {
        "files": report.files,
        "checked": report.artifacts,
        "skipped": [{"path": path, "why": SKIPPED} for path in report.skipped],
        "findings": findings,
    }
    import json

    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- sarif


def _uri(path: str, root: Path) -> tuple[str, bool]:
    """(URI, relative-to-root?) for an artifact location."""
    from pathlib import Path
    from urllib.parse import quote

    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return absolute.as_uri(), False
    return quote(relative.as_posix(), safe="/"), True


def _fingerprint(f: Finding) -> str:
    import hashlib

    basis = "\x00".join((f.rule, f.path.replace(os.sep, "/"), f.evidence or f.message))

    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:32]


def sarif(report: Report, root: str | None = None) -> str:
    """SARIF 2.1.0 as GitHub code scanning takes it: rules in tool.driver.rules,
    relative URIs under %SRCROOT%, and partialFingerprints on every result."""
    from pathlib import Path

    from mishkan_core import __version__

    base = Path(os.path.abspath(root or os.getcwd()))
    index = {rule.code: i for i, rule in enumerate(report.rules)}
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.summary} ({rule.family})."},
            "defaultConfiguration": {"level": "error"},
            "help": {
                "text": f"{rule.code} {rule.name}: {rule.summary}. Move structure to the code "
                "graph (Graphify), keep the decision and its rationale; or suppress with "
                f"'mishkan-lint: allow {rule.code} -- <reason>' in the front matter.",
            },
            "properties": {"tags": ["ingest-lint", rule.family]},
        }
        for rule in report.rules
    ]
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for f in report.findings:
        uri, relative = _uri(f.path, base)
        location: dict[str, Any] = {"uri": uri}
        if relative:
            location["uriBaseId"] = "%SRCROOT%"
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": "error",
            "message": {"text": f.message + (f"\nEvidence: {f.evidence}" if f.evidence else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": location,
                        "region": {
                            "startLine": max(f.line, 1),
                            "endLine": max(f.end_line, f.line, 1),
                            "startColumn": 1,
                        },
                    }
                }
            ],
            "partialFingerprints": {"mishkanIngestLint/v1": _fingerprint(f)},
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": f.justification or ""}]
        results.append(result)
        if f.error:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{f.path}: {f.message}"},
                    "descriptor": {"id": f.rule},
                }
            )
    failed = bool(notifications)
    for path in report.skipped:  # a note on the run, not a result: nothing was found there
        uri, relative = _uri(path, base)
        skipped: dict[str, Any] = {"uri": uri}
        if relative:
            skipped["uriBaseId"] = "%SRCROOT%"
        notifications.append(
            {
                "level": "note",
                "message": {"text": f"{path}: {SKIPPED}"},
                "locations": [{"physicalLocation": {"artifactLocation": skipped}}],
            }
        )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri().rstrip("/") + "/"}},
                "invocations": [
                    {
                        "executionSuccessful": not failed,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    import json

    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
