"""The sprint-close report's format: where the reports live, the front matter that
carries a sprint's figures, and reading the reports back.

``mishkan sprint-close`` writes a report per sprint (:mod:`mishkan_core.sprint_close`);
``mishkan metrics --trend`` reads them (:mod:`mishkan_core.metrics.trend`). The format
is the contract between the two, so it lives here, with the reader: sprint-close
depends on metrics, never the other way round.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mishkan_core.safe_files import Directory

#: the harness may move the reports; default: <project>/DEFAULT_REPORT_DIR
REPORT_DIR_ENV = "MISHKAN_SPRINT_CLOSE_DIR"
DEFAULT_REPORT_DIR = "docs/sprint-close"
#: written in every report's front matter: only such files are read back or overwritten
GENERATOR = "mishkan sprint-close"
#: the front matter line `mishkan metrics --trend` reads the sprint's figures
#: back from: one JSON object (a YAML flow mapping), counts only
FIGURES_KEY = "figures"
FIGURES_VERSION = 1
FIGURE_FIELDS = (
    "nudges", "nudges_respected", "nudges_answered", "triggers", "triggers_consulted",
    "triggers_served",
)  # fmt: skip
#: agents in the figures line and rows in the artifact's agent table: the
#: hook records five; a telemetry directory a clone shaped can name thousands
MAX_FIGURE_AGENTS = 32
#: reading reports back: bytes per report, and .md files looked at per directory
REPORT_LIMIT = 1 << 20
MAX_REPORT_FILES = 2000


def default_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where sprint-close writes its reports: ``$MISHKAN_SPRINT_CLOSE_DIR``, else
    ``<project>/docs/sprint-close`` with project = ``$CLAUDE_PROJECT_DIR`` or the
    current directory."""
    env = os.environ if environ is None else environ
    if env.get(REPORT_DIR_ENV):
        return Path(env[REPORT_DIR_ENV])
    return Path(env.get("CLAUDE_PROJECT_DIR") or os.getcwd()) / DEFAULT_REPORT_DIR


@dataclass
class SprintReport:
    """A sprint-close report read back: its file name, front matter and text."""

    name: str
    front: dict[str, str]
    text: str


def read_reports(report_dir: Path) -> list[SprintReport]:
    """The reports an earlier sprint-close wrote in ``report_dir`` (front
    matter ``generator: mishkan sprint-close``), in file-name order. The
    directory is the project's, so a clone shapes it: a link, a FIFO or a file
    over :data:`REPORT_LIMIT` is never read through, and at most
    :data:`MAX_REPORT_FILES` ``.md`` files are opened. A missing or unreadable
    directory has none."""
    found: list[SprintReport] = []
    try:
        with Directory.anchor(report_dir) as reports:
            names = [name for name in reports.names() if name.endswith(".md")]
            for name in names[:MAX_REPORT_FILES]:
                try:
                    data = reports.read(name, limit=REPORT_LIMIT)
                except OSError:
                    continue
                text = (data or b"").decode("utf-8", "replace")
                front = front_matter(text)
                if front.get("generator") == GENERATOR:
                    found.append(SprintReport(name, front, text))
    except OSError:
        return found
    return found


def front_matter(text: str) -> dict[str, str]:
    """The top-level ``key: value`` lines of a front matter block (JSON-quoted
    values unquoted); what sprint-close writes, read back."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    out: dict[str, str] = {}
    for line in lines[1:200]:
        if line.strip() == "---":
            return out
        key, sep, value = line.partition(":")
        if not sep or line[:1].isspace():
            continue
        value = value.strip()
        if value.startswith('"'):
            try:
                value = json.loads(value)
            except ValueError:
                continue
        out[key.strip()] = value
    return {}


def busiest(per_agent: dict[str, Any]) -> dict[str, Any]:
    """At most MAX_FIGURE_AGENTS agents, those with the most triggers, by name."""
    if len(per_agent) <= MAX_FIGURE_AGENTS:
        return dict(sorted(per_agent.items()))
    ranked = sorted(per_agent.items(), key=lambda item: (-(item[1]["triggers"] or 0), item[0]))
    return dict(sorted(ranked[:MAX_FIGURE_AGENTS]))


def figures_line(report: Mapping[str, Any]) -> str:
    """A conformance report's counts as one JSON object, for the front matter: the
    two ratios' numerators and denominators, in total and per agent."""
    agents = busiest(report["per_agent"]).items()
    doc = {
        "v": FIGURES_VERSION,
        **{key: report[key] for key in FIGURE_FIELDS},
        "per_agent": {name: {key: fig[key] for key in FIGURE_FIELDS} for name, fig in agents},
    }
    return json.dumps(doc, ensure_ascii=True)
