"""``--format html``: one self-contained page for the sprint report.

No script, no external resource, no network: inline CSS and inline SVG only.
Every figure is printed in an element carrying ``data-scope`` (``total``,
``agent:<name>``, ``session:<id>``, ``quality``), ``data-metric`` (the JSON key)
and ``data-value`` (the JSON value, JSON-encoded), so a browser test can check
that the page says exactly what ``--format json`` says.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from mishkan_core.metrics.aggregate import CONSULTATION_TARGET
from mishkan_core.metrics.fmt_text import COUNT_COLUMNS, flag, header, num
from mishkan_core.metrics.report import SUMMARY_KEYS, pct

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;
max-width:980px;color:#1d232b;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem}
.source{color:#5a6472;margin-top:0}
.big{display:flex;gap:1.5rem;flex-wrap:wrap}
.big>div{border:1px solid #d5dae1;border-radius:8px;padding:.8rem 1.2rem;min-width:15rem}
.big .of{color:#5a6472}
.big .v{font-size:2rem;font-weight:600}
table{border-collapse:collapse;margin:.6rem 0}
th,td{border-bottom:1px solid #e3e7ec;padding:.25rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}
code{font-size:.9em}
ul.verdict li{margin:.2rem 0}
svg text{font:12px system-ui,sans-serif;fill:#1d232b}
"""


def _attr(scope: str, metric: str, value: Any) -> str:
    return (
        f' data-scope="{escape(scope)}" data-metric="{escape(metric)}"'
        f' data-value="{escape(json.dumps(value))}"'
    )


def _ratio_cell(scope: str, fig: dict[str, Any], key: str, tag: str = "td") -> str:
    cls = ' class="v"' if tag == "div" else ""
    return f"<{tag}{cls}{_attr(scope, key, fig[key])}>{escape(pct(fig[key]))}</{tag}>"


def _count_cell(scope: str, fig: dict[str, Any], key: str) -> str:
    return f"<td{_attr(scope, key, fig[key])}>{escape(num(fig[key]))}</td>"


def _agent_svg(per_agent: dict[str, dict[str, Any]]) -> str:
    """Horizontal bars per agent: consultation rate and nudge-respect ratio."""
    row_h, label_w, bar_w = 44, 110, 560
    height = 30 + row_h * len(per_agent)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" id="agent-bars" '
        f'width="{label_w + bar_w + 90}" height="{height}" '
        f'viewBox="0 0 {label_w + bar_w + 90} {height}">',
        "<title>per-agent pre-Read consultation rate and nudge-respect ratio</title>",
        f'<rect x="{label_w}" y="4" width="12" height="10" fill="#2f6fb3"/>'
        f'<text x="{label_w + 16}" y="13">pre-Read consultation rate</text>'
        f'<rect x="{label_w + 200}" y="4" width="12" height="10" fill="#e08a1e"/>'
        f'<text x="{label_w + 216}" y="13">nudge-respect ratio</text>',
    ]
    target_x = label_w + bar_w * CONSULTATION_TARGET
    for i, (name, fig) in enumerate(per_agent.items()):
        y = 24 + i * row_h
        parts.append(f'<text x="0" y="{y + 18}">{escape(name)}</text>')
        for j, (key, colour) in enumerate(
            (("pre_read_consultation_rate", "#2f6fb3"), ("nudge_respect_ratio", "#e08a1e"))
        ):
            value: float | None = fig[key]
            by = y + j * 17
            width = 0.0 if value is None else bar_w * value
            parts.append(
                f'<rect x="{label_w}" y="{by}" width="{bar_w}" height="14" fill="#eef1f4"/>'
                f'<rect x="{label_w}" y="{by}" width="{width:.1f}" height="14" fill="{colour}"/>'
                f'<text x="{label_w + bar_w + 6}" y="{by + 11}">{escape(pct(value))}</text>'
            )
    parts.append(
        f'<line x1="{target_x:.1f}" y1="20" x2="{target_x:.1f}" y2="{height}" '
        'stroke="#b3261e" stroke-dasharray="4 3"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _session_svg(per_session: dict[str, dict[str, Any]]) -> str:
    """One column per session, in time order: its consultation rate."""
    n = max(len(per_session), 1)
    plot_h, left, right = 160, 40, 80
    col = max(6, min(48, 720 // n))
    width = left + max(col * n, 240) + right
    height = plot_h + 46
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" id="session-rates" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        "<title>pre-Read consultation rate across sessions</title>",
    ]
    for pct_mark in (0, 50, 100):
        y = 10 + plot_h * (1 - pct_mark / 100)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#e3e7ec"/>'
            f'<text x="0" y="{y + 4:.1f}">{pct_mark}%</text>'
        )
    ty = 10 + plot_h * (1 - CONSULTATION_TARGET)
    parts.append(
        f'<line x1="{left}" y1="{ty:.1f}" x2="{width - right}" y2="{ty:.1f}" '
        'stroke="#b3261e" stroke-dasharray="4 3"/>'
        f'<text x="{width - right + 6}" y="{ty + 4:.1f}">target 80%</text>'
    )
    for i, (sid, fig) in enumerate(per_session.items()):
        value: float | None = fig["pre_read_consultation_rate"]
        x = left + i * col + 2
        if n <= 30:
            parts.append(
                f'<text x="{x + (col - 4) / 2:.1f}" y="{plot_h + 24}" '
                f'text-anchor="middle">{i + 1}</text>'
            )
        if value is None:
            parts.append(
                f'<rect x="{x}" y="{10 + plot_h - 2}" width="{col - 4}" height="2" '
                f'fill="#c5ccd5"><title>{escape(sid)}: n/a</title></rect>'
            )
            continue
        h = plot_h * value
        parts.append(
            f'<rect x="{x}" y="{10 + plot_h - h:.1f}" width="{col - 4}" height="{h:.1f}" '
            f'fill="#2f6fb3"><title>{escape(sid)}: {escape(pct(value))}</title></rect>'
        )
    parts.append(f'<text x="{left}" y="{plot_h + 38}">sessions, oldest first</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(label: str, prefix: str, rows: dict[str, dict[str, Any]]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in COUNT_COLUMNS)
    out = [
        f'<table id="per-{label}"><thead><tr><th>{label}</th><th>respect</th>'
        f"<th>consultation</th>{head}</tr></thead><tbody>"
    ]
    for number, (name, fig) in enumerate(rows.items(), 1):
        scope = f"{prefix}:{name}"
        shown = f"{number}. " if prefix == "session" else ""
        cells = [
            f"<td>{shown}<code>{escape(name)}</code>{escape(flag(fig))}</td>",
            _ratio_cell(scope, fig, "nudge_respect_ratio"),
            _ratio_cell(scope, fig, "pre_read_consultation_rate"),
            *(_count_cell(scope, fig, c) for c in COUNT_COLUMNS),
        ]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def render(report: dict[str, Any]) -> str:
    title, source = header(report)
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="source">{escape(source)} · phase '
        f"<span{_attr('total', 'phase', report['phase'])}>{report['phase']}</span></p>",
        '<div class="big">',
        "<div><div>nudge-respect ratio</div>"
        + _ratio_cell("total", report, "nudge_respect_ratio", tag="div")
        + f'<div class="of">{report["nudges_respected"]} of {report["nudges_pointing"]} '
        "pointing nudges followed by a lookup within 3 calls</div></div>",
        "<div><div>pre-Read consultation rate</div>"
        + _ratio_cell("total", report, "pre_read_consultation_rate", tag="div")
        + f'<div class="of">{report["triggers_consulted"]} of {report["triggers"]} '
        "triggering calls preceded by a lookup (target 80%)</div></div>",
        "<div><div>answered share</div>"
        + _ratio_cell("total", report, "answered_share", tag="div")
        + f'<div class="of">{report["nudges_answered"]} of {report["triggers"]} '
        "triggering calls answered in the advisory itself</div></div>",
        "</div>",
        '<h2>Verdict</h2><ul class="verdict" id="verdict">',
        *(f"<li>{escape(line)}</li>" for line in report["verdict"]),
        "</ul>",
        '<h2>Counts</h2><table id="summary"><tbody>',
        *(
            f"<tr><th>{escape(key)}</th>{_count_cell('total', report, key)}</tr>"
            for key in SUMMARY_KEYS
        ),
        "</tbody></table>",
    ]
    if report["per_agent"]:
        parts.append("<h2>Per agent</h2>")
        parts.append(_agent_svg(report["per_agent"]))
        parts.append(_table("agent", "agent", report["per_agent"]))
    if report["per_session"]:
        parts.append("<h2>Consultation rate across sessions</h2>")
        parts.append(_session_svg(report["per_session"]))
        parts.append(_table("session", "session", report["per_session"]))
    parts.append('<h2>Data quality</h2><table id="data-quality"><tbody>')
    for key, value in report["data_quality"].items():
        parts.append(
            f"<tr><th>{escape(key)}</th><td{_attr('quality', key, value)}>{value}</td></tr>"
        )
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts) + "\n"
