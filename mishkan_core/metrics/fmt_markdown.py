"""``--format markdown``: the report for a sprint-close note or a PR."""

from __future__ import annotations

from typing import Any

from mishkan_core.metrics.fmt_text import COUNT_COLUMNS, flag, header, num, ratio_line
from mishkan_core.metrics.report import SUMMARY_KEYS, pct


def one_line(text: str) -> str:
    """``text`` with every unprintable character (newline, escape) as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in text)


def cell(text: str) -> str:
    """Text safe inside a table cell or a code span, on one line: a session id
    is any string the hook received (newlines, pipes, backticks included)."""
    return one_line(text).replace("`", "'").replace("|", "\\|")


def code(text: str) -> str:
    """``text`` as an inline code span (see :func:`cell`)."""
    return f"`{cell(text)}`"


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
