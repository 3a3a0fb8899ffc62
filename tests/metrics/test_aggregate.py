"""The D-009 definitions, on hand-written telemetry (docs/telemetry.md)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mishkan_core.metrics import report as report_mod
from mishkan_core.metrics.aggregate import Aggregator
from tests.metrics.helpers import Telemetry, report


def _run(tmp_path: Path, fill: Any, mode: str = "advise") -> dict[str, Any]:
    t = Telemetry(tmp_path / "t", mode)
    fill(t)
    return report("--telemetry-dir", str(t.dir))


def test_respected_within_one_two_three_calls_not_four(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        for gap in (0, 1, 2, 3):  # other calls between the nudge and the lookup
            s = f"s{gap}"
            t.start(s)
            t.nudge(s, "hizkiah")
            for _ in range(gap):
                t.other(s, "hizkiah")
            t.lookup(s, "hizkiah")

    data = _run(tmp_path, fill)
    assert data["nudges"] == 4
    assert data["nudges_respected"] == 3
    assert data["nudge_respect_ratio"] == 0.75
    per = data["per_session"]
    assert [per[f"s{g}"]["nudges_respected"] for g in range(4)] == [1, 1, 1, 0]


def test_one_lookup_respects_every_pending_nudge_of_that_agent(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.nudge("s", "hizkiah")
        t.nudge("s", "hizkiah")
        t.nudge("s", "hizkiah")
        t.lookup("s", "hizkiah")  # 3rd, 2nd and 1st call after them

    data = _run(tmp_path, fill)
    assert (data["nudges"], data["nudges_respected"]) == (3, 3)


def test_window_is_per_agent_id_not_per_session(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.nudge("s", "hizkiah", agent_id="h1")
        t.lookup("s", "salma")  # another agent: does not respect h1's nudge
        t.lookup("s", "hizkiah", agent_id="h2")  # same type, other instance: no
        t.other("s", "hizkiah", agent_id="h1")
        t.other("s", "hizkiah", agent_id="h1")
        t.other("s", "hizkiah", agent_id="h1")
        t.lookup("s", "hizkiah", agent_id="h1")  # 4th call of h1: too late

    data = _run(tmp_path, fill)
    assert (data["nudges"], data["nudges_respected"]) == (1, 0)
    assert data["nudge_respect_ratio"] == 0.0  # a measured 0, not "no nudges"


def test_calls_of_other_agents_do_not_consume_the_window(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.nudge("s", "hizkiah")
        for _ in range(5):
            t.other("s", "salma")
        t.lookup("s", "hizkiah")  # 1st call of hizkiah after its nudge

    data = _run(tmp_path, fill)
    assert data["nudges_respected"] == 1


def test_consultation_counts_any_agents_earlier_lookup_in_the_session(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.trigger("s1", "salma")  # before any lookup: not consulted
        t.lookup("s1", "hizkiah")
        t.trigger("s1", "salma")  # consulted (hizkiah's lookup counts)
        t.trigger("s1", "Zadok")  # consulted
        t.trigger("s2", "salma")  # other session: not consulted
        t.lookup("s2", "salma")  # after: does not count backwards

    data = _run(tmp_path, fill, mode="telemetry")
    assert data["triggers"] == 4 and data["triggers_consulted"] == 2
    assert data["pre_read_consultation_rate"] == 0.5
    assert data["per_session"]["s1"]["pre_read_consultation_rate"] == float(Fraction(2, 3))
    assert data["per_session"]["s2"]["pre_read_consultation_rate"] == 0.0
    assert data["per_agent"]["zadok"]["pre_read_consultation_rate"] == 1.0
    assert data["per_agent"]["salma"]["triggers"] == 3


def test_phase_one_has_null_respect_and_a_baseline_verdict(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        for s in ("a", "b", "c"):
            t.start(s)
            t.trigger(s, "nathan", decision="silent")
        t.lookup("c", "nathan")

    data = _run(tmp_path, fill, mode="telemetry")
    assert data["phase"] == 1
    assert data["nudge_respect_ratio"] is None
    assert data["per_agent"]["nathan"]["nudge_respect_ratio"] is None
    assert data["verdict"] == [
        "phase 1: baseline measured, 3 sessions (pre-Read consultation rate 0.0%)"
    ]


def test_phase_two_target_met_at_exactly_80_percent(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.lookup("s", "oholiab")
        for _ in range(4):
            t.trigger("s", "oholiab")
        t.lookup("s2", "oholiab")  # session s2 ...
        t.trigger("s3", "oholiab")  # ... and s3: 1 of 5 not consulted
        t.nudge("s", "oholiab")
        t.lookup("s", "oholiab")

    data = _run(tmp_path, fill)
    assert data["pre_read_consultation_rate"] == 5 / 6  # the nudge trigger is consulted too
    assert data["verdict"][0] == "phase 2: target met, pre-Read consultation rate 83.3% >= 80%"
    assert len(data["verdict"]) == 1  # respect 100%: no follow-up ADR


def test_respect_below_half_asks_for_a_follow_up_adr(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.nudge("s", "salma")
        t.nudge("s", "salma")
        t.nudge("s", "salma")
        t.other("s", "salma")
        t.other("s", "salma")
        t.other("s", "salma")
        t.nudge("s", "salma")
        t.lookup("s", "salma")

    data = _run(tmp_path, fill)
    assert data["nudge_respect_ratio"] == 0.25
    assert data["verdict"] == [
        "phase 2: target not met, pre-Read consultation rate 0.0% < 80%",
        "nudge-respect ratio 25.0% < 50%: agents follow under half of the advice: write a "
        "follow-up decision record (ADR) on what to change, and do not make the hook block "
        "calls instead (D-009)",
    ]


def test_phase_two_with_no_triggers(tmp_path: Path) -> None:
    data = _run(tmp_path, lambda t: t.start("s"))
    assert data["pre_read_consultation_rate"] is None
    assert data["nudge_respect_ratio"] is None
    assert data["verdict"] == ["phase 2: target not measurable, no triggering Read/Grep calls"]


def test_off_and_self_disabled_sessions_are_listed_by_name(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.start("on-1")
        t.trigger("on-1", "hizkiah")
        t.start("off-1", mode="off")
        t.start("off-2", mode="off")
        t.start("slow-1")
        t.self_disable("slow-1", "Hizkiah")
        t.self_disable("slow-2", None)

    data = _run(tmp_path, fill)
    assert data["sessions"] == 5
    assert data["sessions_off"] == 2
    assert data["off_sessions"] == ["off-1", "off-2"]
    assert data["self_disabled_sessions"] == ["slow-1", "slow-2"]
    assert data["self_disables"] == 2
    assert data["per_agent"]["hizkiah"]["self_disables"] == 1
    assert "hook off in 2 sessions: off-1, off-2" in data["verdict"]
    assert "hook self-disabled in 2 sessions: slow-1, slow-2" in data["verdict"]
    assert data["per_session"]["off-1"]["sessions_off"] == 1
    assert data["per_session"]["on-1"]["sessions_off"] == 0


def test_graph_state_and_opt_out_counts(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.trigger("s", "zadok", graph="fresh")
        t.trigger("s", "zadok", graph="stale")
        t.trigger("s", "zadok", graph="stale")
        t.trigger("s", "zadok", graph="absent")
        t.call("s", "zadok", "read", trigger=True, decision="opt_out", graph="fresh")
        t.call("s", "zadok", "other", decision="opt_out")  # not a trigger: not counted

    data = _run(tmp_path, fill)
    assert (data["fresh"], data["stale"], data["absent"]) == (2, 2, 1)
    assert data["opt_outs"] == 1
    assert data["triggers"] == 5


def test_agent_keys_are_lowercased(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.trigger("s", "Hizkiah", agent_id="x")
        t.trigger("s", "HIZKIAH", agent_id="x")

    data = _run(tmp_path, fill)
    assert list(data["per_agent"]) == ["hizkiah"]
    assert data["per_agent"]["hizkiah"]["triggers"] == 2
    assert data["per_agent"]["hizkiah"]["sessions"] == 1


def test_windows_stay_bounded() -> None:
    agg = Aggregator()
    base = {"event": "call", "session": "s", "mode": "advise", "agent_type": "salma",
            "agent_id": "a", "graph": "fresh"}  # fmt: skip
    for i in range(10_000):
        agg.feed({**base, "ts": float(i), "kind": "read", "trigger": True, "decision": "nudge"})
        assert len(agg.sessions["s"].windows["a"]) <= 3
    agg.finish()
    assert agg.total().nudges == 10_000
    assert agg.total().nudges_respected == 0


# -- property: the streaming aggregation equals a naive re-reading ----------

_event = st.tuples(
    st.sampled_from(["s1", "s2"]),
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from(["lookup", "other", "trigger", "nudge"]),
)


def _oracle(events: list[tuple[str, str, str]]) -> tuple[int, int, int, int]:
    triggers = consulted = nudges = respected = 0
    for i, (session, agent, kind) in enumerate(events):
        if kind in ("trigger", "nudge"):
            triggers += 1
            if any(s == session and k == "lookup" for s, _, k in events[:i]):
                consulted += 1
        if kind == "nudge":
            nudges += 1
            following = [k for s, a, k in events[i + 1 :] if s == session and a == agent][:3]
            respected += "lookup" in following
    return triggers, consulted, nudges, respected


@settings(max_examples=300, deadline=None)
@given(st.lists(_event, max_size=40))
def test_streaming_equals_naive_definition(events: list[tuple[str, str, str]]) -> None:
    agg = Aggregator()
    for i, (session, agent, kind) in enumerate(events):
        agg.feed(
            {
                "event": "call",
                "session": session,
                "ts": float(i),
                "mode": "advise",
                "agent_type": "salma" if agent != "c" else "zadok",
                "agent_id": agent,
                "kind": "lookup" if kind == "lookup" else "read",
                "trigger": kind in ("trigger", "nudge"),
                "decision": "nudge" if kind == "nudge" else "silent",
                "graph": "fresh",
            }
        )
    data = report_mod.build(
        agg, source="telemetry", input_path="-", sprint=None, since=None, until=None, quality={}
    )
    triggers, consulted, nudges, respected = _oracle(events)
    assert (data["triggers"], data["triggers_consulted"]) == (triggers, consulted)
    assert (data["nudges"], data["nudges_respected"]) == (nudges, respected)
    assert data["nudge_respect_ratio"] == (respected / nudges if nudges else None)
    assert data["pre_read_consultation_rate"] == (consulted / triggers if triggers else None)


# --------------------------------------------------------------------------- #
# the hook's telemetry additions (docs/telemetry.md, schema still v1)


def test_a_plugin_agent_is_the_same_agent(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.start("s")
        t.lookup("s", "hizkiah")
        t.trigger("s", "mishkan:Hizkiah", agent_id="a2")  # older hook: no "agent" field
        t.trigger("s", "mishkan:hizkiah", agent_id="a3", agent="hizkiah")

    data = _run(tmp_path, fill)
    assert list(data["per_agent"]) == ["hizkiah"]
    assert data["per_agent"]["hizkiah"]["triggers"] == 2


def test_triggers_outside_the_graph_are_not_in_the_consultation_rate(tmp_path: Path) -> None:
    """A Read of a file (or a symbol) the graph does not hold is not a question
    the graph can answer: it is counted apart, never as "not consulted"."""

    def fill(t: Telemetry) -> None:
        t.start("s", mode="telemetry")
        t.trigger("s", "salma", reason="telemetry_mode")
        t.trigger("s", "salma", reason="not_in_graph")
        t.trigger("s", "salma", reason="not_in_graph", graph="stale")
        t.lookup("s", "salma")
        t.trigger("s", "salma", reason="telemetry_mode", graph="stale")

    data = _run(tmp_path, fill, mode="telemetry")
    assert (data["triggers_consulted"], data["triggers"]) == (1, 2)
    assert data["triggers_outside_graph"] == 2
    assert (data["fresh"], data["stale"]) == (1, 1)  # graph states of counted triggers only
    assert data["per_agent"]["salma"]["triggers_outside_graph"] == 2


def test_an_outside_graph_trigger_still_moves_the_respect_window(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.start("s")
        t.nudge("s", "nathan")
        for _ in range(3):
            t.trigger("s", "nathan", reason="not_in_graph")
        t.lookup("s", "nathan")  # the 4th call: too late

    data = _run(tmp_path, fill)
    assert (data["nudges_respected"], data["nudges"]) == (0, 1)


def test_slow_calls_and_new_reasons_are_counted_or_tolerated(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.start("s")
        t.trigger("s", "zadok", reason="already_advised", decision="silent")
        t._write("s", {"event": "slow_call", "agent_type": "mishkan:zadok", "agent": "zadok",
                       "agent_id": "a", "elapsed_ms": 312.5, "cpu_ms": 20.1})  # fmt: skip
        t._write("s", {"event": "slow_call", "agent_type": None, "elapsed_ms": 250.0})
        t._write("s", {"event": "lookup_result", "agent_type": "zadok", "agent_id": "a",
                       "files": 2, "failed": True, "exit_code": 3})  # fmt: skip

    data = _run(tmp_path, fill)
    assert data["slow_calls"] == 2 and data["per_agent"]["zadok"]["slow_calls"] == 1
    assert data["per_session"]["s"]["slow_calls"] == 2
    assert data["triggers"] == 1 and data["data_quality"]["malformed"] == 0
    assert data["lookups_failed"] == 1 and data["per_agent"]["zadok"]["lookups_failed"] == 1


def test_a_mistyped_field_of_a_session_event_is_malformed(tmp_path: Path) -> None:
    def fill(t: Telemetry) -> None:
        t.start("s")
        t._write("s", {"event": "lookup_result", "agent_type": "zadok", "failed": "yes"})
        t._write("s", {"event": "slow_call", "agent": ["zadok"]})
        t._write("s", {"event": "self_disable", "agent_type": {"a": 1}})

    data = _run(tmp_path, fill)
    assert data["data_quality"]["malformed"] == 3
    assert (data["lookups_failed"], data["slow_calls"], data["self_disables"]) == (0, 0, 0)
