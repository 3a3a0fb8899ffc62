"""Turn an :class:`Aggregator` into the report dictionary every format renders.

The dictionary is exactly what ``--format json`` prints; the text, markdown
and HTML formats render the same figures and never compute their own.
"""

from __future__ import annotations

import math
from typing import Any

from mishkan_core.metrics.aggregate import (
    CONSULTATION_TARGET,
    RESPECT_FLOOR,
    Aggregator,
    Counts,
    SessionState,
    ratio,
)
from mishkan_core.metrics.glossary import FOLLOW_UP

#: the counts every format lists for the whole report, in this order
SUMMARY_KEYS = (
    "sessions",
    "sessions_off",
    "self_disables",
    "triggers",
    "triggers_consulted",
    "nudges",
    "nudges_respected",
    "nudges_answered",
    "triggers_served",
    "lookups",
    "lookups_failed",
    "opt_outs",
    "fresh",
    "stale",
    "absent",
    "triggers_outside_graph",
    "slow_calls",
)
#: figures that transcripts cannot know (graph state, hook mode, self-disable)
TRANSCRIPT_UNKNOWN = (
    "self_disables",
    "sessions_off",
    "fresh",
    "stale",
    "absent",
    "triggers_outside_graph",
    "slow_calls",
    "lookups_failed",
)


def figures(c: Counts, sessions: int, sessions_off: int | None) -> dict[str, Any]:
    """The D-009 figures for one view (total, one agent or one session)."""
    return {
        "nudge_respect_ratio": ratio(c.nudges_respected, c.nudges - c.nudges_answered),
        "pre_read_consultation_rate": ratio(c.triggers_consulted, c.triggers),
        "answered_share": ratio(c.nudges_answered, c.triggers),
        "graph_served_rate": ratio(c.triggers_served, c.triggers),
        "triggers": c.triggers,
        "triggers_consulted": c.triggers_consulted,
        "nudges": c.nudges,
        "nudges_respected": c.nudges_respected,
        "nudges_answered": c.nudges_answered,
        "nudges_pointing": c.nudges - c.nudges_answered,
        "triggers_served": c.triggers_served,
        "lookups": c.lookups,
        "opt_outs": c.opt_outs,
        "self_disables": c.self_disables,
        "sessions": sessions,
        "sessions_off": sessions_off,
        "fresh": c.fresh,
        "stale": c.stale,
        "absent": c.absent,
        "triggers_outside_graph": c.outside_graph,
        "slow_calls": c.slow_calls,
        "lookups_failed": c.lookups_failed,
        "calls": c.calls,
    }


def _blank_unknown(fig: dict[str, Any]) -> None:
    for key in TRANSCRIPT_UNKNOWN:
        fig[key] = None


def pct(value: float | None) -> str:
    """How every human format prints a ratio: ``66.7%`` or ``n/a``."""
    if value is None:
        return "n/a"
    return f"{value * 100:.1f}%"


#: sessions a verdict line names; the report's lists (``off_sessions``) hold them all
VERDICT_NAMES = 10


def _named(sessions: list[str]) -> str:
    """The first VERDICT_NAMES session ids and how many more: a verdict line
    naming every one of 20,000 sessions was 128 KB, and sprint-close's own
    ingest gate then rejected its artifact."""
    more = len(sessions) - VERDICT_NAMES
    return ", ".join(sessions[:VERDICT_NAMES]) + (f" and {more} more" if more > 0 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def verdict(report: dict[str, Any]) -> list[str]:
    """The ADR's phase logic, one line per finding."""
    lines: list[str] = []
    rate = report["pre_read_consultation_rate"]
    respect = report["nudge_respect_ratio"]
    served = report["graph_served_rate"]
    sessions = report["sessions"]
    if report["phase"] == 1:
        lines.append(
            f"phase 1: baseline measured, {_plural(sessions, 'session')}"
            f" (pre-Read consultation rate {pct(rate)})"
        )
    elif rate is None:
        lines.append("phase 2: target not measurable, no triggering Read/Grep calls")
    elif rate >= CONSULTATION_TARGET:
        lines.append(f"phase 2: target met, pre-Read consultation rate {pct(rate)} >= 80%")
    elif served is not None and served >= CONSULTATION_TARGET:
        lines.append(
            f"phase 2: target met by the graph's answers: {pct(served)} of triggers consulted "
            f"the graph or were answered from it in the advisory (answered share "
            f"{pct(report['answered_share'])}, pre-Read consultation rate {pct(rate)})"
        )
    else:
        lines.append(f"phase 2: target not met, pre-Read consultation rate {pct(rate)} < 80%")
    if report["phase"] == 2 and respect is not None and respect < RESPECT_FLOOR:
        lines.append(
            f"nudge-respect ratio {pct(respect)} < 50%: agents follow under half of the "
            f"advice: {FOLLOW_UP}"
        )
    answered = report["nudges_answered"]
    if report["phase"] == 2 and answered:
        lines.append(
            f"{answered} of {report['nudges']} advisories answered the question themselves "
            "(they need no lookup, so the nudge-respect ratio counts only the others)"
        )
    if report["source"] == "transcripts" and report["nudges"] == 0:
        lines.append(
            "from transcripts: no [graphify-nudge] advisory is recorded for subagent calls, "
            "so the nudge-respect ratio is not measurable here"
        )
    drift = report.get("drift")
    if drift and drift["unrecorded_sessions"]:
        n = len(drift["unrecorded_sessions"])
        lines.append(
            f"drift: the transcripts show {_plural(drift['unrecorded_calls'], 'call')} by the "
            f"five agents in {_plural(n, 'session')} for which the telemetry recorded none: "
            "the hook did not run (run `mishkan routing check`; a new Claude Code? "
            "docs/versions.md)"
        )
    if drift and drift["short_sessions"]:
        lines.append(
            f"drift: in {_plural(len(drift['short_sessions']), 'session')} the telemetry "
            "recorded fewer of the five agents' calls than the transcripts show"
        )
    off = report["off_sessions"]
    if off:
        lines.append(f"hook off in {_plural(len(off), 'session')}: {_named(off)}")
    for setting, sessions in (report["unknown_modes"] or {}).items():
        lines.append(
            f"telemetry mode in {_plural(len(sessions), 'session')} because {setting} is not a "
            "mode (advise, telemetry, off): the hook runs anything else as telemetry, D-009's "
            "phase-1 default (it records, never advises); MISHKAN_GRAPHIFY_NUDGE=off turns it off"
        )
    disabled = report["self_disabled_sessions"]
    if disabled:
        lines.append(
            f"hook self-disabled in {_plural(len(disabled), 'session')}: {_named(disabled)}"
        )
    return lines


def build(
    agg: Aggregator,
    *,
    source: str,
    input_path: str,
    sprint: str | None,
    since: str | None,
    until: str | None,
    quality: dict[str, int],
    drift: tuple[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    """The full report. ``source`` is ``telemetry`` or ``transcripts``;
    ``drift``: the transcripts to hold the telemetry against (:func:`drift_of`)."""
    if not agg.finished:
        agg.finish()
    from_transcripts = source == "transcripts"
    ordered = sorted(agg.sessions.items(), key=lambda kv: (kv[1].first_ts, kv[0]))
    off = [sid for sid, st in ordered if st.off]
    disabled = [sid for sid, st in ordered if st.self_disabled]

    report: dict[str, Any] = {
        "sprint": sprint,
        "source": source,
        "input": input_path,
        "since": since,
        "until": until,
        "phase": agg.phase(),
        "verdict": [],
    }
    report.update(figures(agg.total(), len(ordered), len(off)))
    report["off_sessions"] = off
    report["self_disabled_sessions"] = disabled
    unknown: dict[str, list[str]] = {}
    for sid, st in ordered:
        if st.unknown_mode is not None:
            unknown.setdefault(st.unknown_mode, []).append(sid)
    report["unknown_modes"] = None if from_transcripts else unknown  # (no session_start there)

    per_agent: dict[str, Any] = {}
    for key, (c, n_sessions) in agg.per_agent().items():
        fig = figures(c, n_sessions, None)
        per_agent[key] = fig
    per_session: dict[str, Any] = {}
    for sid, st in ordered:
        fig = figures(agg.session_counts(st), 1, 1 if st.off else 0)
        fig.update(_session_extra(st))
        per_session[sid] = fig
    if from_transcripts:
        _blank_unknown(report)
        for fig in per_agent.values():
            _blank_unknown(fig)
        for fig in per_session.values():
            _blank_unknown(fig)
            fig["off"] = None
            fig["self_disabled"] = None
            fig["modes"] = None
    report["per_agent"] = per_agent
    report["per_session"] = per_session
    report["data_quality"] = dict(quality)
    if drift is not None:
        report["drift"] = drift_of(agg, *drift)
    report["verdict"] = verdict(report)
    clean: dict[str, Any] = finite(report)
    return clean


def drift_of(agg: Aggregator, directory: str, calls: dict[str, int]) -> dict[str, Any]:
    """Sessions whose transcripts hold in-scope calls the telemetry lacks:
    none recorded (and the hook not off), or fewer than the transcripts show.
    A hook that fails open goes quiet when the client changes under it; this
    is where that shows."""
    unrecorded: list[str] = []
    short: list[str] = []
    missing = 0
    for sid, n in sorted(calls.items()):
        st = agg.sessions.get(sid)
        recorded = agg.session_counts(st).calls if st is not None else 0
        if st is not None and st.off:
            continue
        if recorded == 0:
            unrecorded.append(sid)
            missing += n
        elif recorded < n:
            short.append(sid)
    return {
        "transcripts": directory,
        "sessions": len(calls),
        "calls": sum(calls.values()),
        "unrecorded_sessions": unrecorded,
        "unrecorded_calls": missing,
        "short_sessions": short,
    }


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None.

    The readers already refuse such times, so this changes nothing on valid
    input; it is why ``--format json`` can promise JSON (no ``NaN``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite(item) for item in value]
    return value


def _session_extra(st: SessionState) -> dict[str, Any]:
    return {
        "first_ts": st.first_ts,
        "last_ts": st.last_ts,
        "modes": sorted(st.modes),
        "off": st.off,
        "self_disabled": st.self_disabled,
    }
