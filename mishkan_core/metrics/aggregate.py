"""The D-009 aggregation: one pass over events, memory bounded by sessions.

Both readers (hook telemetry and Claude Code transcripts) produce the same
event dictionaries, shaped like telemetry schema v1 lines (docs/telemetry.md):

* ``{"event": "session_start", "session": str, "ts": float, "mode": str}``
* ``{"event": "call", "session": str, "ts": float, "mode": str|None,
  "agent_type": str, "agent_id": str, "kind": str, "trigger": bool,
  "decision": str|None, "graph": str|None}``
* ``{"event": "self_disable" | "slow_call" | "lookup_result", "session": str,
  "ts": float, "agent_type": str|None, "agent": str|None}``; a
  ``lookup_result`` with ``"failed": true`` is a lookup that exited non-zero
  (graphify: 3 ambiguous, 4 no match)

``agent`` is the hook's normalised agent name (a plugin's ``mishkan:hizkiah``
is ``hizkiah``); without it the same rule is applied to ``agent_type``.

Definitions (D-009):

* **nudge-respect ratio**: of the trigger calls with decision ``nudge`` whose
  advisory pointed to a lookup without answering (no ``answered`` field), the
  fraction followed by a lookup within the next 3 ``call`` events of the same
  (session, agent_id). A nudge still pending when the input ends counts as
  not respected. An advisory that carried the answer itself (``answered``:
  the definitions and who uses them, or what depends on a file; issue 30)
  needs no lookup: it is counted as ``nudges_answered``, apart from the ratio.
* **answered share**: of the trigger calls, the fraction answered in the
  advisory itself. ``triggers_served`` counts the triggers that were either
  consulted (the rate below) or answered: what the graph served.
* **pre-Read consultation rate**: of all trigger calls, the fraction preceded
  by any lookup earlier in the same session (by any in-scope agent).
  A trigger the hook left silent because its target is not in the graph
  (``reason: "not_in_graph"``: the graph index holds no such file or
  symbol) is not a structural question the graph can answer: it is counted
  apart (``outside_graph``) and is in neither side of the rate, nor in the
  graph-state counts. It still moves the nudge-respect window: it is a call.

State kept per session: a flag "a lookup was seen", per agent_id a window of at
most 3 pending nudges, and one counter block per agent type. Nothing grows with
the number of events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: how many following calls of the same agent may carry the lookup
RESPECT_WINDOW = 3
#: the D-009 phase-2 target for the consultation rate
CONSULTATION_TARGET = 0.8
#: below this nudge-respect ratio, the ADR asks for a follow-up ADR
RESPECT_FLOOR = 0.5

COUNT_FIELDS = (
    "calls",
    "triggers",
    "triggers_consulted",
    "nudges",
    "nudges_respected",
    "nudges_answered",
    "triggers_served",
    "lookups",
    "opt_outs",
    "self_disables",
    "fresh",
    "stale",
    "absent",
    "outside_graph",
    "slow_calls",
    "lookups_failed",
)
#: the hook's reason for a trigger whose file or symbol the graph does not hold
NOT_IN_GRAPH = "not_in_graph"


def agent_key(agent_type: str) -> str:
    """The per-agent key: the agent's name, so that a plugin's ``mishkan:hizkiah``
    is the same agent as ``hizkiah`` (the hook's scope rule, ``graphify_nudge.in_scope``)."""
    return agent_type.strip().lower().rpartition(":")[2]


class Counts:
    """Counters for one (session, agent type) cell; summed for every view."""

    __slots__ = COUNT_FIELDS

    def __init__(self) -> None:
        self.calls = 0
        self.triggers = 0
        self.triggers_consulted = 0
        self.nudges = 0
        self.nudges_respected = 0
        self.nudges_answered = 0
        self.triggers_served = 0
        self.lookups = 0
        self.opt_outs = 0
        self.self_disables = 0
        self.fresh = 0
        self.stale = 0
        self.absent = 0
        self.outside_graph = 0
        self.slow_calls = 0
        self.lookups_failed = 0

    def add(self, other: Counts) -> None:
        for name in COUNT_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class SessionState:
    __slots__ = (
        "agents",
        "first_ts",
        "last_ts",
        "looked_up",
        "lookups_failed",
        "modes",
        "off",
        "self_disabled",
        "self_disables",
        "slow_calls",
        "unknown_mode",
        "windows",
    )

    def __init__(self, ts: float) -> None:
        self.looked_up = False
        self.off = False
        self.self_disabled = False
        self.self_disables = 0
        self.slow_calls = 0
        self.lookups_failed = 0
        self.first_ts = ts
        self.last_ts = ts
        self.modes: set[str] = set()
        # the mode setting the hook did not know (it ran as telemetry), as it recorded it
        self.unknown_mode: str | None = None
        # agent_id -> remaining-call counts of its pending nudges (at most 3)
        self.windows: dict[str, list[int]] = {}
        # agent_id -> (agent key, Counts) ; agent key = agent_type lowercased
        self.agents: dict[str, Counts] = {}


class Aggregator:
    """Feed events in order; call :meth:`finish` once, then read the views."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionState] = {}
        self._agent_keys: dict[str, str] = {}
        self.finished = False

    # -- input ------------------------------------------------------------

    def _session(self, sid: str, ts: float) -> SessionState:
        st = self.sessions.get(sid)
        if st is None:
            st = self.sessions[sid] = SessionState(ts)
        else:
            st.first_ts = min(st.first_ts, ts)
            st.last_ts = max(st.last_ts, ts)
        return st

    def touch(self, sid: str, ts: float) -> None:
        """Make a session known (it counts in ``sessions``) without any call."""
        self._session(sid, ts)

    def feed(self, ev: dict[str, Any]) -> None:
        self.feed_all((ev,))

    def feed_all(self, events: Iterable[dict[str, Any]]) -> None:
        """Consume events in order. One flat loop: this is the report's hot path."""
        sessions = self.sessions
        agent_keys = self._agent_keys
        window = RESPECT_WINDOW
        for ev in events:
            sid = ev["session"]
            ts = ev["ts"]
            st = sessions.get(sid)
            if st is None:
                st = sessions[sid] = SessionState(ts)
            elif ts > st.last_ts:
                st.last_ts = ts
            elif ts < st.first_ts:
                st.first_ts = ts
            mode = ev.get("mode")
            if mode is not None:
                st.modes.add(mode)
            event = ev["event"]
            if event != "call":
                if event == "session_start":
                    if mode == "off":
                        st.off = True
                    unknown = ev.get("unknown_mode")
                    if isinstance(unknown, str) and unknown:
                        st.unknown_mode = unknown[:64]
                elif event == "self_disable":
                    st.self_disabled = True
                    st.self_disables += 1
                    agent_type = ev.get("agent") or ev.get("agent_type")
                    if isinstance(agent_type, str):
                        self._counts(st, agent_type).self_disables += 1
                elif event == "slow_call":
                    st.slow_calls += 1
                    agent_type = ev.get("agent") or ev.get("agent_type")
                    if isinstance(agent_type, str):
                        self._counts(st, agent_type).slow_calls += 1
                elif event == "lookup_result" and ev.get("failed") is True:
                    st.lookups_failed += 1
                    agent_type = ev.get("agent") or ev.get("agent_type")
                    if isinstance(agent_type, str):
                        self._counts(st, agent_type).lookups_failed += 1
                continue

            key = ev.get("agent") or ev["agent_type"]
            known = agent_keys.get(key)
            if known is None:
                known = agent_keys[key] = agent_key(key)
            key = known
            c = st.agents.get(key)
            if c is None:
                c = st.agents[key] = Counts()
            c.calls += 1
            agent_id = ev["agent_id"]
            kind = ev["kind"]
            win = st.windows.get(agent_id)
            if win:
                if kind == "lookup":
                    # every pending nudge of this agent is respected; credit
                    # the agent that received them (same agent_id and type)
                    c.nudges_respected += len(win)
                    win.clear()
                else:
                    win[:] = [left - 1 for left in win if left > 1]
            if kind == "lookup":
                c.lookups += 1
                st.looked_up = True
                continue
            if not ev["trigger"]:
                continue
            if ev.get("reason") == NOT_IN_GRAPH:
                c.outside_graph += 1
                continue
            c.triggers += 1
            answered = ev.get("decision") == "nudge" and bool(ev.get("answered"))
            if st.looked_up:
                c.triggers_consulted += 1
            if st.looked_up or answered:
                c.triggers_served += 1
            graph = ev.get("graph")
            if graph == "fresh":
                c.fresh += 1
            elif graph == "stale":
                c.stale += 1
            elif graph == "absent":
                c.absent += 1
            decision = ev.get("decision")
            if decision == "nudge":
                c.nudges += 1
                if answered:  # nothing to look up: no respect window
                    c.nudges_answered += 1
                    continue
                if win is None:
                    win = st.windows[agent_id] = []
                win.append(window)
            elif decision == "opt_out":
                c.opt_outs += 1

    def _counts(self, st: SessionState, agent_type: str) -> Counts:
        key = self._agent_keys.get(agent_type)
        if key is None:
            key = self._agent_keys[agent_type] = agent_key(agent_type)
        c = st.agents.get(key)
        if c is None:
            c = st.agents[key] = Counts()
        return c

    def finish(self) -> None:
        """End of input: pending nudges stay unrespected; drop the windows."""
        for st in self.sessions.values():
            st.windows.clear()
        self.finished = True

    # -- views ------------------------------------------------------------

    def total(self) -> Counts:
        out = Counts()
        for st in self.sessions.values():
            out.add(self.session_counts(st))
        return out

    def per_agent(self) -> dict[str, tuple[Counts, int]]:
        """agent key -> (summed counts, number of sessions it appeared in)."""
        out: dict[str, tuple[Counts, int]] = {}
        for st in self.sessions.values():
            for key, c in st.agents.items():
                prev = out.get(key)
                if prev is None:
                    acc = Counts()
                    acc.add(c)
                    out[key] = (acc, 1)
                else:
                    prev[0].add(c)
                    out[key] = (prev[0], prev[1] + 1)
        return dict(sorted(out.items()))

    def session_counts(self, st: SessionState) -> Counts:
        out = Counts()
        for c in st.agents.values():
            out.add(c)
        # session events whose agent is unknown still count
        out.self_disables = st.self_disables
        out.slow_calls = st.slow_calls
        out.lookups_failed = st.lookups_failed
        return out

    def phase(self) -> int:
        """2 when any event ran in mode ``advise`` (or a nudge was seen), else 1."""
        for st in self.sessions.values():
            if "advise" in st.modes:
                return 2
            if any(c.nudges for c in st.agents.values()):
                return 2
        return 1


def ratio(num: int, den: int) -> float | None:
    """``num/den``, or None when there is nothing to divide (never 0 for 0/0)."""
    if den == 0:
        return None
    return num / den
