"""Plain words for what the reports say: the terms they use, and why the hook stayed
silent on a call (the telemetry's ``reason``, docs/telemetry.md).

One home for them, so the demo, ``mishkan metrics`` and ``mishkan sprint-close`` say
the same thing the same way to someone who has not read D-009.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: each term a report uses, glossed once (the text reports' closing ``terms:`` block)
TERMS = {
    "trigger": "a Read of a source file, or a search for a code name, by one of the five "
    "agents: a question the code graph answers",
    "nudge-respect ratio": "the share of advised triggers followed by a graph lookup within the "
    "agent's next 3 tool calls",
    "pre-Read consultation rate": "the share of triggers that came after a graph lookup "
    "in the same session (D-009's target: 80%)",
    "phase 1, phase 2": "D-009's rollout: phase 1 only records (mode telemetry), phase 2 "
    "also advises (mode advise)",
    "ADR": "architecture decision record, such as D-009",
}

#: D-009's rule when agents follow under half of the advice, in plain words
FOLLOW_UP = (
    "write a follow-up decision record (ADR) on what to change, and do not make the hook "
    "block calls instead (D-009)"
)

#: why the hook stayed silent on a trigger (``decision`` silent or opt_out), by ``reason``;
#: each reads after "no advice: "
REASONS = {
    "metadata": "the call opted out (its metadata asks to skip the advice)",
    "description": "the call opted out (its Bash description says [skip-graphify-nudge])",
    "consulted_symbol": "this session already looked this name up in the graph",
    "consulted_file": "a graph lookup in this session already named this file",
    "not_in_graph": "the graph has no such file or name, so it could not answer",
    "telemetry_mode": "the hook is in telemetry mode (phase 1): it records, never advises",
    "already_advised": "this agent was already advised about this target",
    "cap": "this agent has had its advice for the session (MISHKAN_GRAPHIFY_NUDGE_CAP, default 3)",
    "shown_once": "the stale-graph advice was already shown to this agent",
    "too_long": "the advice would be too long (over 400 bytes)",
    "unquotable": "the name or file cannot stand in a command as written, so no command "
    "is suggested",
    "unrecorded": "the advice could not be recorded (a full disk?), so it was not shown",
}


def terms_block(report: list[str]) -> list[str]:
    """A text report's closing ``terms:`` block: the terms it uses, glossed once (ADR
    only when the report's lines name one)."""
    used = [term for term in TERMS if term != "ADR" or any("ADR" in line for line in report)]
    return ["terms:", *(f"  {term}: {TERMS[term]}" for term in used)]


def why_silent(record: Mapping[str, Any] | None) -> str:
    """Why the hook printed nothing for a tool call, from its ``call`` telemetry line
    (None: the hook recorded no line, as for any caller but the five agents); the
    words read after "no advice: "."""
    if record is None:
        return "not one of the five agents the hook serves (it records nothing)"
    kind = record.get("kind")
    if kind == "lookup":
        return "a graph lookup, which is what the advice asks for (recorded, never advised on)"
    if not record.get("trigger"):
        if kind == "read":
            return "not a source file of the project, so not a structural question"
        if kind == "grep":
            return "the pattern names no code identifier, so not a structural question"
        return "neither a Read nor a search, so nothing to advise on"
    reason = record.get("reason")
    if isinstance(reason, str) and reason in REASONS:
        return REASONS[reason]
    return f"the hook recorded the reason {reason!r} (docs/telemetry.md)"
