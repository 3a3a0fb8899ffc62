"""``--format text``: the report for a terminal."""

from __future__ import annotations

from typing import Any

from mishkan_core.metrics.glossary import terms_block
from mishkan_core.metrics.report import pct

COUNT_COLUMNS = ("triggers", "nudges", "lookups", "opt_outs", "fresh", "stale", "absent")


def num(value: Any) -> str:
    """Counts as digits; an unknown count (transcripts) as ``?``."""
    return "?" if value is None else str(value)


def ratio_line(fig: dict[str, Any], key: str, num_key: str, den_key: str) -> str:
    value = fig[key]
    if value is None:
        return "n/a"
    return f"{pct(value)} ({fig[num_key]}/{fig[den_key]})"


def header(report: dict[str, Any]) -> list[str]:
    window = ""
    if report["since"] or report["until"]:
        window = f", {report['since'] or '…'} to {report['until'] or '…'}"
    title = f"D-009 conformance report{': ' + report['sprint'] if report['sprint'] else ''}"
    return [title, f"source: {report['source']} {report['input']}{window}"]


def render(report: dict[str, Any]) -> str:
    out = header(report)
    out.append("")
    out.append(
        "nudge-respect ratio:         "
        + ratio_line(report, "nudge_respect_ratio", "nudges_respected", "nudges_pointing")
    )
    out.append(
        "pre-Read consultation rate:  "
        + ratio_line(report, "pre_read_consultation_rate", "triggers_consulted", "triggers")
    )
    out.append(
        "answered share:              "
        + ratio_line(report, "answered_share", "nudges_answered", "triggers")
        + " (advisories that answered the question themselves: no lookup needed)"
    )
    out.append(
        f"sessions {num(report['sessions'])}, off {num(report['sessions_off'])}, "
        f"self-disables {num(report['self_disables'])}; "
        f"triggers {num(report['triggers'])}, nudges {num(report['nudges'])}, "
        f"lookups {num(report['lookups'])} (failed {num(report['lookups_failed'])}), "
        f"opt-outs {num(report['opt_outs'])}; "
        f"graph fresh {num(report['fresh'])}, stale {num(report['stale'])}, "
        f"absent {num(report['absent'])}; outside the graph "
        f"{num(report['triggers_outside_graph'])}; slow calls {num(report['slow_calls'])}"
    )
    out.append("")
    out.append("verdict:")
    out.extend(f"  {line}" for line in report["verdict"])
    if report["per_agent"]:
        out.append("")
        out.append(_table("agent", report["per_agent"]))
    if report["per_session"]:
        out.append("")
        out.append(_table("session", report["per_session"]))
    dq = report["data_quality"]
    out.append("")
    out.append("data quality: " + ", ".join(f"{k} {v}" for k, v in dq.items()))
    out.append("")
    out.extend(terms_block(out))
    return "\n".join(out) + "\n"


def flag(fig: dict[str, Any]) -> str:
    """Mark a session whose hook was off or self-disabled."""
    if fig.get("off"):
        return " (off)"
    if fig.get("self_disabled"):
        return " (self-disabled)"
    return ""


def _table(label: str, rows: dict[str, dict[str, Any]]) -> str:
    head = [label, "respect", "consult", *COUNT_COLUMNS]
    body = [
        [
            name + flag(fig),
            pct(fig["nudge_respect_ratio"]),
            pct(fig["pre_read_consultation_rate"]),
            *(num(fig[c]) for c in COUNT_COLUMNS),
        ]
        for name, fig in rows.items()
    ]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = []
    for r in [head, *body]:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
