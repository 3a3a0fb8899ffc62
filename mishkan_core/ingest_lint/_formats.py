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


class Report:
    """Everything a formatter needs: findings (errors included), rules, counts."""

    def __init__(
        self, findings: Sequence[Finding], rules: Sequence[Rule], files: int, artifacts: int
    ) -> None:
        self.findings = sorted(findings, key=lambda f: (f.path, f.line, f.rule))
        self.rules = list(rules)
        self.files = files
        self.artifacts = artifacts

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


def text(report: Report) -> tuple[str, str]:
    out: list[str] = []
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
            f"Found {len(report.active)} finding(s) in {rejected} file(s)"
            f" ({report.artifacts} artifact(s) checked, {len(report.suppressed)} suppressed)."
        )
    else:
        out.append(
            f"All checks passed! ({report.artifacts} artifact(s) checked,"
            f" {len(report.suppressed)} suppressed)"
        )
    err = [f"mishkan ingest-lint: error: {f.path}: {f.rule} {f.message}" for f in report.errors]
    return "\n".join(out) + "\n", "\n".join(err) + ("\n" if err else "")


# --------------------------------------------------------------------------- github


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    """GitHub Actions workflow commands, escaped as @actions/core escapes them."""
    names = {rule.code: rule.name for rule in report.rules}
    lines = []
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
    items = [
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
    import json

    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


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
                        "executionSuccessful": not notifications,
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
