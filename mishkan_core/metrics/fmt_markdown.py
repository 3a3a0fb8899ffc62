"""``--format markdown``: the report for a sprint-close note or a PR."""

from __future__ import annotations

import re
from typing import Any

from mishkan_core.metrics.fmt_text import COUNT_COLUMNS, flag, header, num, ratio_line
from mishkan_core.metrics.report import SUMMARY_KEYS, pct

#: what Markdown (CommonMark and GitHub's) reads as markup inside a line: a
#: backslash escape, a code span, emphasis, a link or an image (``[``), a
#: table cell (``|``), strikethrough, raw HTML or an autolink (``<`` before a
#: tag's first character) and an entity (``&`` before one). Nothing else
#: changes, so a line such as ``77.8% < 80%`` reads the same in the source
#: (an ingest artifact's text is read as text too)
_MARKUP = re.compile(r"[\\`*\[\]|~]|<(?=[A-Za-z/!?])|&(?=#|[A-Za-z][A-Za-z0-9]*;)")


def one_line(text: str) -> str:
    """``text`` with every unprintable character (newline, escape) as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in text)


def cell(text: str) -> str:
    """Repository text (a sprint, agent or session name, a line quoting one) as
    plain text on one line, in running text or a table cell: every character
    Markdown reads as markup is escaped with a backslash, so it renders as
    written (``<img src=x>`` is text, not HTML; ``[a](b)`` is no link; ``|``
    opens no cell)."""
    return _MARKUP.sub(lambda mark: "\\" + mark.group(), one_line(text))


def code(text: str) -> str:
    """``text`` as an inline code span on one line, inside a table too: nothing
    in a code span is markup, but a backtick would close it and a pipe open a
    cell."""
    return "`" + one_line(text).replace("`", "'").replace("|", "\\|") + "`"


def render(report: dict[str, Any]) -> str:
    title, source = header(report)
    out: list[str] = [f"## {title}", "", f"_{source}_", ""]
    out.append("| metric | value |")
    out.append("| --- | --- |")
    out.append(
        "| nudge-respect ratio | "
        + ratio_line(report, "nudge_respect_ratio", "nudges_respected", "nudges_pointing")
        + " |"
    )
    out.append(
        "| pre-Read consultation rate | "
        + ratio_line(report, "pre_read_consultation_rate", "triggers_consulted", "triggers")
        + " |"
    )
    out.append(
        "| answered share | "
        + ratio_line(report, "answered_share", "nudges_answered", "triggers")
        + " |"
    )
    for key in SUMMARY_KEYS:
        out.append(f"| {key} | {num(report[key])} |")
    out.append("")
    out.append("**Verdict**")
    out.append("")
    out.extend(f"- {cell(line)}" for line in report["verdict"])
    for label, rows in (("agent", report["per_agent"]), ("session", report["per_session"])):
        if not rows:
            continue
        out.append("")
        out.append(f"| {label} | respect | consult | " + " | ".join(COUNT_COLUMNS) + " |")
        out.append("| --- " + "| ---: " * (2 + len(COUNT_COLUMNS)) + "|")
        for name, fig in rows.items():
            cells = [
                f"{code(name)}{flag(fig)}",
                pct(fig["nudge_respect_ratio"]),
                pct(fig["pre_read_consultation_rate"]),
                *(num(fig[c]) for c in COUNT_COLUMNS),
            ]
            out.append("| " + " | ".join(cells) + " |")
    dq = report["data_quality"]
    out.append("")
    out.append("Data quality: " + ", ".join(f"{k} {v}" for k, v in dq.items()) + ".")
    return "\n".join(out) + "\n"
