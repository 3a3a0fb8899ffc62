"""The trend report (``mishkan metrics --trend``) as text, Markdown and HTML.

The figures and the verdict come from :mod:`mishkan_core.metrics.trend`;
nothing is computed here but which agents and sprints the per-agent tables
and charts show (:func:`per_agent_view`). Every sprint name, agent name and
file name is the project's text, so each is printed on one printable line
(``fmt_markdown.one_line``), in Markdown as plain text (``fmt_markdown.cell``:
no markup, no raw HTML) and in HTML escaped.

Bounded by its input: the per-agent part, every agent any report names by
every sprint, was the output's size (issue 31: 300 crafted reports of 0.9 MB
printed 80 MB of text and 240 MB of HTML). It shows at most SHOWN_AGENTS
agents (those with the most triggers) over the latest SHOWN_SPRINTS sprints,
and says what it left out; ``--format json`` keeps every figure. The rest is
one row (and chart point) per report, names cut to ``trend.MAX_NAME_CHARS``.

The HTML page follows the conformance report's rules (``fmt_html``): one
file, inline CSS and SVG, no script, no external resource, and every figure
in an element with ``data-scope`` (``sprint:<name>``,
``agent:<name>@<sprint>``), ``data-metric`` and ``data-value`` (its JSON).
"""

from __future__ import annotations

from html import escape
from typing import Any

from mishkan_core.metrics.fmt_html import STYLE, _attr
from mishkan_core.metrics.fmt_markdown import cell, one_line
from mishkan_core.metrics.glossary import terms_block
from mishkan_core.metrics.report import pct
from mishkan_core.metrics.trend import CONSULT, RESPECT, below

#: the per-agent tables and charts: at most this many agents, over at most
#: this many of the latest sprints
SHOWN_AGENTS = 16
SHOWN_SPRINTS = 12
RESPECT_COLOUR = "#e08a1e"
CONSULT_COLOUR = "#2f6fb3"
LINE_COLOUR = "#b3261e"


def _h(text: str) -> str:
    """The project's text in HTML: one printable line, escaped."""
    return escape(one_line(text))


def _ratio(fig: dict[str, Any], key: str) -> str:
    """``62.5% (5/8)``; ``33.3%`` when only the share is known (an older report)."""
    value = fig[key]
    if value is None:
        return "n/a"
    num, den = (
        ("nudges_respected", "nudges") if key == RESPECT else ("triggers_consulted", "triggers")
    )
    if fig[num] is None:
        return pct(value)
    return f"{pct(value)} ({fig[num]}/{fig[den]})"


def _mark(key: str, value: float | None) -> str:
    return ("< 50%" if key == RESPECT else "< 80%") if below(key, value) else ""


def _title(trend: dict[str, Any]) -> str:
    n = len(trend["sprints"])
    return f"D-009 phase-2 trend: {n} sprint{'' if n == 1 else 's'}"


def _legend() -> str:
    return (
        "lines: nudge-respect 50% (below it after a sprint of phase 2: a follow-up ADR), "
        "pre-Read consultation 80% (D-009's target)"
    )


def per_agent_view(trend: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]], str]:
    """(agents, sprints) the per-agent part shows, and what it leaves out (or "").
    The latest SHOWN_SPRINTS sprints; of the agents they name, the SHOWN_AGENTS
    with the most triggers in them, in name order."""
    sprints = trend["sprints"][-SHOWN_SPRINTS:]
    triggers: dict[str, int] = {}
    for sprint in sprints:
        for agent, fig in sprint["per_agent"].items():
            triggers[agent] = triggers.get(agent, 0) + fig["triggers"]
    busiest = sorted(triggers, key=lambda agent: (-triggers[agent], agent))
    agents = sorted(busiest[:SHOWN_AGENTS])
    left: list[str] = []
    if len(agents) < len(trend["agents"]):
        left.append(
            f"{len(agents)} of {len(trend['agents'])} agents (the most triggers in these sprints)"
        )
    if len(sprints) < len(trend["sprints"]):
        left.append(f"the latest {len(sprints)} of {len(trend['sprints'])} sprints")
    note = f"per agent: {' over '.join(left)}; --format json has them all" if left else ""
    return agents, sprints, note


def _grid(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]


# --------------------------------------------------------------------------- #
# text and Markdown


def render_text(trend: dict[str, Any]) -> str:
    out = [_title(trend), f"source: {one_line(trend['input'])}", _legend(), ""]
    rows = [
        [
            one_line(s["sprint"]),
            str(s["phase"] or "?"),
            _ratio(s, RESPECT),
            _mark(RESPECT, s[RESPECT]),
            _ratio(s, CONSULT),
            _mark(CONSULT, s[CONSULT]),
            one_line(s["recommendation"] or ""),
        ]
        for s in trend["sprints"]
    ]
    head = ["sprint", "phase", "respect", "", "consult", "", "recommendation"]
    out.extend(_grid(head, rows))
    out += ["", "verdict:", *(f"  {one_line(line)}" for line in trend["verdict"])]
    agents, sprints, left_out = per_agent_view(trend)
    if agents:
        for key, label in ((RESPECT, "nudge-respect ratio"), (CONSULT, "pre-Read consultation")):
            out += ["", f"{label} per agent:"]
            head = ["agent", *(one_line(s["sprint"]) for s in sprints)]
            body = [
                [one_line(agent)] + [_agent_cell(s, agent, key) for s in sprints]
                for agent in agents
            ]
            out.extend(_grid(head, body))
        if left_out:
            out.append(left_out)
    out.extend(_skipped(trend))
    out += ["", *terms_block(out)]
    return "\n".join(out) + "\n"


def _agent_cell(sprint: dict[str, Any], agent: str, key: str) -> str:
    fig = sprint["per_agent"].get(agent)
    if fig is None:
        return "-"
    mark = _mark(key, fig[key])
    return f"{pct(fig[key])} ({mark})" if mark else pct(fig[key])


def _skipped(trend: dict[str, Any]) -> list[str]:
    notes = []
    older = [s["sprint"] for s in trend["sprints"] if s["figures"] == "tables"]
    if older:
        notes.append(
            "from an older sprint-close (counts read from its tables; per agent only the "
            "printed ratios): " + ", ".join(cell(name) for name in older)
        )
    notes += [f"skipped {cell(s['file'])}: {s['why']}" for s in trend["skipped"]]
    return ["", *notes] if notes else []


def render_markdown(trend: dict[str, Any]) -> str:
    out = [f"## {_title(trend)}", "", f"_{cell(trend['input'])}; {_legend()}_", ""]
    out.append("| sprint | phase | respect | consult | recommendation |")
    out.append("| --- | ---: | ---: | ---: | --- |")
    for s in trend["sprints"]:
        cells = [
            cell(s["sprint"]),
            str(s["phase"] or "?"),
            " ".join(filter(None, (_ratio(s, RESPECT), _mark(RESPECT, s[RESPECT])))),
            " ".join(filter(None, (_ratio(s, CONSULT), _mark(CONSULT, s[CONSULT])))),
            cell(s["recommendation"] or ""),
        ]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "**Verdict**", "", *(f"- {cell(line)}" for line in trend["verdict"])]
    agents, sprints, left_out = per_agent_view(trend)
    if agents:
        out += [
            "",
            "| agent (respect / consult) | "
            + " | ".join(cell(s["sprint"]) for s in sprints)
            + " |",
        ]
        out.append("| --- " + "| ---: " * len(sprints) + "|")
        for agent in agents:
            cells = [
                f"{_agent_cell(s, agent, RESPECT)} / {_agent_cell(s, agent, CONSULT)}"
                for s in sprints
            ]
            out.append(f"| {cell(agent)} | " + " | ".join(cells) + " |")
        if left_out:
            out += ["", f"_{cell(left_out)}_"]
    notes = _skipped(trend)
    out.extend(f"- {line}" if line else line for line in notes)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- #
# HTML: the chart


def _chart(
    points: list[tuple[str, dict[str, Any] | None]], chart_id: str, title: str, small: bool = False
) -> str:
    """Both ratios over the sprints, with the 50% and 80% lines. ``points``:
    (sprint, its figures or None when the agent did not work that sprint)."""
    n = max(len(points), 1)
    plot_h = 110 if small else 200
    left, right, top = 44, 190, 12
    step = max(44, min(180, 640 // n))
    plot_right = left + step * max(n - 1, 1)
    width = max(plot_right + right, left + 600)  # room for the lines' labels and the legend
    height = top + plot_h + 44
    x_of = [left + i * step for i in range(n)]

    def y_of(value: float) -> float:
        return top + plot_h * (1 - value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" id="{_h(chart_id)}" '
        f'class="trend" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{_h(title)}</title>",
    ]
    for mark in (0, 100):
        y = y_of(mark / 100)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{plot_right}" y2="{y:.1f}" stroke="#e3e7ec"/>'
            f'<text x="0" y="{y + 4:.1f}">{mark}%</text>'
        )
    lines = (
        (0.5, "50%: follow-up ADR below", "respect-floor"),
        (0.8, "80%: consultation target", "consultation-target"),
    )
    for level, label, cls in lines:
        y = y_of(level)
        parts.append(
            f'<line class="{cls}" x1="{left}" y1="{y:.1f}" x2="{plot_right}" y2="{y:.1f}" '
            f'stroke="{LINE_COLOUR}" stroke-dasharray="5 4"/>'
            f'<text x="{plot_right + 8}" y="{y + 4:.1f}" fill="{LINE_COLOUR}">{label}</text>'
        )
    for key, colour in ((CONSULT, CONSULT_COLOUR), (RESPECT, RESPECT_COLOUR)):
        runs: list[list[str]] = [[]]  # a sprint without the figure breaks the line
        dots: list[str] = []
        for (sprint, fig), x in zip(points, x_of):
            value: float | None = None if fig is None else fig[key]
            if value is None:
                runs.append([])
                continue
            dot_y = y_of(value)
            runs[-1].append(f"{x:.1f},{dot_y:.1f}")
            fill = "#fff" if below(key, value) else colour
            dots.append(
                f'<circle cx="{x:.1f}" cy="{dot_y:.1f}" r="{3.5 if small else 5}" fill="{fill}" '
                f'stroke="{colour}" stroke-width="2">'
                f"<title>{_h(sprint)}: {_h(pct(value))}</title></circle>"
            )
        parts.extend(
            f'<polyline points="{" ".join(run)}" fill="none" stroke="{colour}" stroke-width="2"/>'
            for run in runs
            if len(run) > 1
        )
        parts.extend(dots)
    for (sprint, _fig), x in zip(points, x_of):
        label = sprint if len(sprint) <= 14 else sprint[:13] + "…"
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 18}" text-anchor="middle">{_h(label)}</text>'
        )
    legend_y = top + plot_h + 36
    parts.append(
        f'<circle cx="{left + 4}" cy="{legend_y - 4}" r="4" fill="{CONSULT_COLOUR}"/>'
        f'<text x="{left + 12}" y="{legend_y}">pre-Read consultation rate</text>'
        f'<circle cx="{left + 204}" cy="{legend_y - 4}" r="4" fill="{RESPECT_COLOUR}"/>'
        f'<text x="{left + 212}" y="{legend_y}">nudge-respect ratio</text>'
        f'<text x="{left + 360}" y="{legend_y}">(hollow: under its line)</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _ratio_td(scope: str, fig: dict[str, Any] | None, key: str) -> str:
    if fig is None:
        return "<td>-</td>"
    flag = ' class="below"' if below(key, fig[key]) else ""
    return f"<td{flag}{_attr(scope, key, fig[key])}>{_h(_ratio(fig, key))}</td>"


def render_html(trend: dict[str, Any]) -> str:
    title = _title(trend)
    sprints = trend["sprints"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_h(title)}</title><style>{STYLE}"
        "td.below{color:#b3261e;font-weight:600}svg.trend{display:block;margin:.5rem 0}"
        "</style></head><body>",
        f"<h1>{_h(title)}</h1>",
        f'<p class="source">{_h(trend["input"])}; {_h(_legend())}</p>',
        '<h2>Verdict</h2><ul class="verdict" id="verdict">',
        *(f"<li>{_h(line)}</li>" for line in trend["verdict"]),
        "</ul>",
        "<h2>Sprint over sprint</h2>",
        _chart(
            [(s["sprint"], s) for s in sprints],
            "trend-total",
            "nudge-respect ratio and pre-Read consultation rate per sprint",
        ),
        '<table id="sprints"><thead><tr><th>sprint</th><th>phase</th><th>respect</th>'
        "<th>consultation</th><th>recommendation</th></tr></thead><tbody>",
    ]
    for s in sprints:
        scope = f"sprint:{one_line(s['sprint'])}"
        parts.append(
            f"<tr><td><code>{_h(s['sprint'])}</code></td>"
            f"<td{_attr(scope, 'phase', s['phase'])}>{_h(str(s['phase'] or '?'))}</td>"
            + _ratio_td(scope, s, RESPECT)
            + _ratio_td(scope, s, CONSULT)
            + f"<td>{_h(s['recommendation'] or '')}</td></tr>"
        )
    parts.append("</tbody></table>")
    agents, sprints, left_out = per_agent_view(trend)
    if agents:
        parts.append("<h2>Per agent</h2>")
        if left_out:
            parts.append(f'<p class="source" id="per-agent-shown">{_h(left_out)}</p>')
        for agent in agents:
            points = [(s["sprint"], s["per_agent"].get(agent)) for s in sprints]
            parts.append(f"<h3><code>{_h(agent)}</code></h3>")
            parts.append(_chart(points, f"trend-agent-{agent}", f"{agent}: both ratios per sprint",
                                small=True))  # fmt: skip
        parts.append(
            '<table id="per-agent"><thead><tr><th rowspan="2">agent</th>'
            + "".join(f'<th colspan="2">{_h(s["sprint"])}</th>' for s in sprints)
            + "</tr><tr>"
            + "<th>respect</th><th>consultation</th>" * len(sprints)
            + "</tr></thead><tbody>"
        )
        for agent in agents:
            cells = "".join(
                _ratio_td(
                    f"agent:{one_line(agent)}@{one_line(s['sprint'])}",
                    s["per_agent"].get(agent),
                    key,
                )
                for s in sprints
                for key in (RESPECT, CONSULT)
            )
            parts.append(f"<tr><td><code>{_h(agent)}</code></td>{cells}</tr>")
        parts.append("</tbody></table>")
    notes = [line for line in _skipped(trend) if line]
    if notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_h(n)}</li>" for n in notes) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
