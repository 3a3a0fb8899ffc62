"""``mishkan metrics --trend``: the D-009 phase-2 decision, sprint over sprint.

D-009 decides phase 2 on two numbers "after one sprint": below 50%
nudge-respect, open a follow-up ADR (never make the hook block calls); at 80%
pre-Read consultation or more, the target is met. Each ``mishkan
sprint-close`` report holds one sprint's figures; this module reads the
reports back (:mod:`mishkan_core.metrics.sprint_reports`) and lines the sprints up, in
total and per agent, against those two lines, with the verdict.

A report carries its counts in its front matter (``figures:``, one JSON
object). A report from before that line existed gives its totals from its
conformance table (``| nudges | 8 |``) and its per-agent ratios from the
agent table's percentages, and says so (``"figures": "tables"``).

The reports are files in the project, so a clone shapes them: every value is
checked for its type and range, a report that says nothing usable is listed
under ``skipped`` with the reason, and nothing is ever executed or trusted
beyond its shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mishkan_core import json_text
from mishkan_core.metrics.aggregate import CONSULTATION_TARGET, RESPECT_FLOOR, ratio
from mishkan_core.metrics.glossary import FOLLOW_UP
from mishkan_core.metrics.report import finite, pct
from mishkan_core.metrics.sprint_reports import (
    FIGURES_KEY,
    FIGURES_VERSION,
    MAX_FIGURE_AGENTS,
    read_reports,
)
from mishkan_core.metrics.telemetry import UnusableInput

RESPECT = "nudge_respect_ratio"
CONSULT = "pre_read_consultation_rate"
#: the triggers that consulted the graph or were answered from it in the advisory
SERVED = "graph_served_rate"
#: the most counts a real sprint reaches is far below this; more is not a count
MAX_COUNT = 10**12
#: a sprint name or recommendation is cut to this many characters (with "…"):
#: every format prints a sprint's name several times (the HTML in each of its
#: figures' ``data-scope``), so a 1 MiB name would be printed many MiB
MAX_NAME_CHARS = 120
_ROW = re.compile(r"^\|\s*([a-z_]+)\s*\|\s*(\d{1,13})\s*\|\s*$")
_AGENT_ROW = re.compile(
    r"^\|\s*`([^`|]{1,64})`[^|]*\|\s*(n/a|\d{1,3}\.\d)%?\s*\|\s*(n/a|\d{1,3}\.\d)%?\s*\|"
    r"\s*(\d{1,13})\s*\|\s*(\d{1,13})\s*\|"
)
_AGENT_HEAD = "| agent | respect | consult |"


# --------------------------------------------------------------------------- #
# one report


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        return None
    return int(value)


def _pair(fig: Mapping[str, Any], num: str, den: str) -> tuple[int, int] | None:
    n, d = _count(fig.get(num)), _count(fig.get(den))
    if n is None or d is None or n > d:
        return None
    return n, d


def _figures(counts: Mapping[str, Any]) -> dict[str, Any] | None:
    """The two ratios and their counts, or None when the counts do not hold.
    The respect ratio's denominator leaves out the nudges that answered the
    question themselves (`nudges_answered`, 0 in a report from before them)."""
    respect = _pair(counts, "nudges_respected", "nudges")
    consult = _pair(counts, "triggers_consulted", "triggers")
    answered = _count(counts.get("nudges_answered", 0))
    served = _count(counts.get("triggers_served", consult[0] if consult else 0))
    if respect is None or consult is None or answered is None or answered > respect[1]:
        return None
    if served is None or served > consult[1]:
        return None
    return {
        RESPECT: ratio(respect[0], respect[1] - answered),
        SERVED: ratio(served, consult[1]),
        "nudges_answered": answered,
        CONSULT: ratio(*consult),
        "nudges_respected": respect[0],
        "nudges": respect[1],
        "triggers_consulted": consult[0],
        "triggers": consult[1],
    }


def _from_front_matter(value: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(totals, per agent) from the ``figures:`` line, or None."""
    try:
        doc = json_text.parse(value)
    except json_text.JsonError:
        return None
    if not isinstance(doc, dict) or doc.get("v") != FIGURES_VERSION:
        return None
    totals = _figures(doc)
    agents = doc.get("per_agent")
    if totals is None or not isinstance(agents, dict):
        return None
    per_agent: dict[str, Any] = {}
    for name, counts in list(agents.items())[:MAX_FIGURE_AGENTS]:
        fig = _figures(counts) if isinstance(counts, dict) else None
        if fig is not None and isinstance(name, str) and 0 < len(name) <= 64:
            per_agent[name] = fig
    return totals, per_agent


def _share(text: str) -> float | None:
    return None if text == "n/a" else float(text) / 100


def _from_tables(text: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(totals, per agent) from the conformance tables an older sprint-close
    wrote: the totals' counts exactly, each agent's ratios as printed (one
    decimal) with its triggers and nudges."""
    counts: dict[str, int] = {}
    per_agent: dict[str, Any] = {}
    in_agents = False
    for line in text.split("\n")[:5000]:
        row = _ROW.match(line)
        if row and row.group(1) not in counts:
            counts[row.group(1)] = int(row.group(2))
        if line.startswith(_AGENT_HEAD):
            in_agents = True
            continue
        if in_agents:
            if not line.startswith("|"):
                in_agents = False
                continue
            agent = _AGENT_ROW.match(line)
            if agent is None:
                continue
            name, respect, consult, triggers, nudges = agent.groups()
            shares = (_share(respect), _share(consult))
            if any(s is not None and s > 1 for s in shares) or name in per_agent:
                continue
            if len(per_agent) == MAX_FIGURE_AGENTS:  # as many as a figures: line holds
                continue
            n_trig, n_nudge = int(triggers), int(nudges)
            per_agent[name] = {
                RESPECT: shares[0] if n_nudge else None,
                CONSULT: shares[1] if n_trig else None,
                "nudges_respected": None,
                "nudges": n_nudge,
                "triggers_consulted": None,
                "triggers": n_trig,
            }
    totals = _figures(counts)
    return None if totals is None else (totals, per_agent)


def _respect(row: Mapping[str, Any]) -> str:
    """The respect ratio as the verdict prints it; n/a says why when every
    advisory answered the question itself."""
    answered = row.get("nudges_answered") or 0
    if row[RESPECT] is None and answered:
        return f"n/a ({answered} advisories answered themselves)"
    return pct(row[RESPECT])


def _sprint(name: str, front: Mapping[str, str], text: str) -> dict[str, Any] | str:
    """One sprint's row, or why the report gives none."""
    found = None
    source = None
    if FIGURES_KEY in front:
        found, source = _from_front_matter(front[FIGURES_KEY]), "front matter"
        if found is None:
            return f"its {FIGURES_KEY}: line is not what sprint-close writes"
    else:
        found, source = _from_tables(text), "tables"
        if found is None:
            return "no figures: neither a figures: line nor the conformance table"
    phase = front.get("phase")
    from mishkan_core.metrics.transcripts import parse_timestamp

    until = front.get("until") or None
    since = front.get("since") or None
    totals, per_agent = found
    return {
        "sprint": _cut(front.get("sprint") or name[:-3]),
        "file": name,
        "since": since,
        "until": until,
        "until_ts": parse_timestamp(until) if until else None,
        "phase": int(phase) if phase in ("1", "2") else None,
        "recommendation": _cut(front.get("recommendation") or "") or None,
        "figures": source,
        **totals,
        "per_agent": per_agent,
    }


def _cut(text: str) -> str:
    return text if len(text) <= MAX_NAME_CHARS else text[: MAX_NAME_CHARS - 1] + "…"


# --------------------------------------------------------------------------- #
# the trend


def build(
    report_dir: Path, since: float | None = None, until: float | None = None
) -> dict[str, Any]:
    """The trend report (what ``--format json`` prints). ``since``/``until``
    keep the sprints whose window ends between them. Raises UnusableInput when
    the directory is missing or holds no sprint-close report."""
    if not report_dir.is_dir():
        raise UnusableInput(f"no sprint-close reports: {report_dir} is not a directory")
    sprints: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    reports = read_reports(report_dir)
    for report in reports:
        row = _sprint(report.name, report.front, report.text)
        if isinstance(row, str):
            skipped.append({"file": report.name, "why": row})
            continue
        ends = row["until_ts"]
        if (since is not None or until is not None) and ends is None:
            continue
        if (since is not None and ends < since) or (until is not None and ends > until):
            continue
        sprints.append(row)
    if not reports:
        raise UnusableInput(
            f"no sprint-close report in {report_dir} (mishkan sprint-close writes them)"
        )
    sprints.sort(key=lambda s: (s["until_ts"] is None, s["until_ts"] or 0.0, s["sprint"]))
    for row in sprints:
        del row["until_ts"]
    agents = sorted({name for row in sprints for name in row["per_agent"]})
    trend: dict[str, Any] = {
        "kind": "trend",
        "input": str(report_dir),
        "respect_floor": RESPECT_FLOOR,
        "consultation_target": CONSULTATION_TARGET,
        "sprints": sprints,
        "agents": agents,
        "skipped": skipped,
        "verdict": verdict(sprints),
    }
    clean: dict[str, Any] = finite(trend)
    return clean


def below(key: str, value: float | None) -> bool:
    """The value is under its ADR line (50% respect, 80% consultation)."""
    line = RESPECT_FLOOR if key == RESPECT else CONSULTATION_TARGET
    return value is not None and value < line


def _change(now: float | None, before: float | None) -> str:
    if now is None or before is None:
        return ""
    delta = (now - before) * 100
    if abs(delta) < 0.05:
        return " (unchanged)"
    return f" ({'up' if delta > 0 else 'down'} {abs(delta):.1f} points)"


def verdict(sprints: list[dict[str, Any]]) -> list[str]:
    """D-009's phase-2 rules over the sprints, oldest first."""
    if not sprints:
        return ["no sprint with figures in the window"]
    lines: list[str] = []
    phase2 = [s for s in sprints if s["phase"] == 2]
    baseline = next((s for s in reversed(sprints) if s["phase"] == 1), None)
    latest = sprints[-1]
    if not phase2:
        rate = latest[CONSULT]
        if rate is None:
            lines.append(
                f"phase 1 only ({len(sprints)} sprint{'s' if len(sprints) > 1 else ''}): "
                "the baseline is not measured yet (no triggering Read/Grep call)"
            )
        else:
            lines.append(
                f"phase 1 only: baseline pre-Read consultation rate {pct(rate)} "
                f"({latest['sprint']}); D-009 decides after one sprint of phase 2: enable "
                "the advisory (mishkan install --mode advise)"
            )
        return lines
    first = phase2[0]
    name = first["sprint"]
    respect, rate = first[RESPECT], first[CONSULT]
    if respect is None:
        answered = first.get("nudges_answered") or 0
        why = (
            f"its {answered} advisories answered the question themselves: none needs a lookup"
            if answered else "no advisory was given"
        )  # fmt: skip
        lines.append(
            f"after one sprint of phase 2 ({name}): nudge-respect ratio not measurable ({why})"
        )
    elif respect < RESPECT_FLOOR:
        lines.append(
            f"after one sprint of phase 2 ({name}): nudge-respect ratio {pct(respect)} < 50%: "
            f"agents followed under half of the advice: {FOLLOW_UP}"
        )
    else:
        lines.append(
            f"after one sprint of phase 2 ({name}): nudge-respect ratio {pct(respect)} >= 50%: "
            "agents follow the advice; no follow-up decision record needed"
        )
    if rate is None:
        lines.append(f"{name}: pre-Read consultation rate not measurable (no triggers)")
    elif rate >= CONSULTATION_TARGET:
        lines.append(f"{name}: pre-Read consultation rate {pct(rate)} >= 80%: target met")
    elif (first.get(SERVED) or 0) >= CONSULTATION_TARGET:
        lines.append(
            f"{name}: pre-Read consultation rate {pct(rate)} < 80%, but {pct(first[SERVED])} "
            "of triggers consulted the graph or were answered from it: target met by the answers"
        )
    else:
        lines.append(f"{name}: pre-Read consultation rate {pct(rate)} < 80%: target not met")
    if latest is not first:
        previous = sprints[-2]
        flags = [
            f"{label} under {line}"
            for key, label, line in ((RESPECT, "respect", "50%"), (CONSULT, "consultation", "80%"))
            if below(key, latest[key])
        ]
        lines.append(
            f"latest sprint {latest['sprint']} against {previous['sprint']}: nudge-respect "
            f"{_respect(latest)}{_change(latest[RESPECT], previous[RESPECT])}, pre-Read "
            f"consultation {pct(latest[CONSULT])}{_change(latest[CONSULT], previous[CONSULT])}"
            + (f"; {', '.join(flags)}" if flags else "")
        )
    if (
        baseline is not None
        and baseline is not latest
        and baseline[CONSULT] is not None
        and latest[CONSULT] is not None
    ):
        lines.append(
            f"pre-Read consultation {pct(baseline[CONSULT])} in the phase-1 baseline "
            f"({baseline['sprint']}), {pct(latest[CONSULT])} in {latest['sprint']}"
        )
    lagging = []
    for agent, fig in sorted(latest["per_agent"].items()):
        parts = [
            f"{label} {pct(fig[key])} < {line}"
            for key, label, line in ((RESPECT, "respect", "50%"), (CONSULT, "consultation", "80%"))
            if below(key, fig[key])
        ]
        if parts:
            lagging.append(f"{agent} ({', '.join(parts)})")
    if lagging:
        lines.append(f"below the lines in {latest['sprint']}, per agent: " + "; ".join(lagging))
    return lines
