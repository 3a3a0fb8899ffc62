"""The done-when of issue 4: the real hook file scripts the telemetry, the same
session is written as transcripts, and both give exactly the same ratios."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests import console
from tests.metrics import scenario
from tests.metrics.helpers import report

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not scenario.HOOK.exists(), reason="graphify_nudge.py not in the tree"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for the project"),
]

SESSION = "3d7f224f-d067-448e-a460-e76f9d5496bd"


def _exact(value: float | None, expected: Fraction) -> None:
    assert value is not None
    assert value == float(expected)  # the same float as num/den, no rounding


def _assert_figures(data: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, want in expected.items():
        if isinstance(want, Fraction):
            _exact(data[key], want)
        else:
            assert data[key] == want, key


def _pointing(telemetry: Path, out: Path) -> Path:
    """The same telemetry as a hook that only pointed would have written it: no
    `answered` on any line (docs/telemetry.md: earlier hooks never wrote it)."""
    out.mkdir()
    for path in telemetry.glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            line.pop("answered", None)
        (out / path.name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


@pytest.fixture(scope="module")
def advised(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, scenario.Played, Path]:
    tmp = tmp_path_factory.mktemp("advise")
    root = scenario.make_project(tmp)
    telemetry = tmp / "telemetry"
    hook = scenario.Hook(root, telemetry, "advise")
    played = scenario.play(hook, SESSION, scenario.script(str(root)))
    scenario.session_off(scenario.Hook(root, telemetry, "off"), "off-session-1")
    projects = scenario.write_transcripts(
        played, tmp / "projects" / "-proj", reminder_steps=frozenset({12, 17})
    )
    return telemetry, played, projects


def test_hook_nudged_exactly_the_expected_steps(
    advised: tuple[Path, scenario.Played, Path],
) -> None:
    _, played, _ = advised
    nudged = [i for i, ctx in enumerate(played.contexts, 1) if ctx is not None]
    assert nudged == [2, 3, 11, 12, 13, 16, 17]


def test_telemetry_ratios_exact(advised: tuple[Path, scenario.Played, Path]) -> None:
    telemetry, _, _ = advised
    data = report("--telemetry-dir", str(telemetry), "--sprint", "s1")
    _assert_figures(data, scenario.EXPECTED)
    assert data["phase"] == 2
    assert data["sessions"] == 2
    assert data["sessions_off"] == 1
    assert data["off_sessions"] == ["off-session-1"]
    assert data["fresh"] == 8 and data["stale"] == 0 and data["absent"] == 0  # opt-out: no graph
    for agent, want in scenario.EXPECTED_AGENTS.items():
        _assert_figures(data["per_agent"][agent], want)
    assert set(data["per_agent"]) == {"hizkiah", "salma"}  # hiram and main: out of scope
    assert data["per_agent"]["hizkiah"]["nudge_respect_ratio"] is None  # all answered
    _exact(data["per_session"][SESSION]["pre_read_consultation_rate"], Fraction(7, 9))
    assert data["per_session"]["off-session-1"]["off"] is True
    dq = data["data_quality"]
    assert dq["torn"] == dq["malformed"] == dq["unknown_schema"] == dq["foreign_files"] == 0
    assert data["verdict"][0] == (
        "phase 2: target met by the graph's answers: 100.0% of triggers consulted the graph "
        "or were answered from it in the advisory (answered share 77.8%, pre-Read "
        "consultation rate 77.8%)"
    )
    assert (
        "7 of 7 advisories answered the question themselves (they need no lookup, so the "
        "nudge-respect ratio counts only the others)" in data["verdict"]
    )
    assert "hook off in 1 session: off-session-1" in data["verdict"]


def test_without_answers_the_same_nudges_are_measured_by_their_lookups(
    advised: tuple[Path, scenario.Played, Path], tmp_path: Path
) -> None:
    """The respect ratio still measures what it measured for a hook that only
    pointed: the same lines without `answered` give the worked figures."""
    telemetry, _, _ = advised
    data = report("--telemetry-dir", str(_pointing(telemetry, tmp_path / "pointing")))
    _assert_figures(data, {**scenario.EXPECTED, "nudges_answered": 0, "answered_share":
                           Fraction(0, 9), "graph_served_rate": Fraction(7, 9),
                           "triggers_served": 7, **scenario.POINTING})  # fmt: skip
    _exact(data["per_agent"]["hizkiah"]["nudge_respect_ratio"], Fraction(3, 4))
    _exact(data["per_agent"]["salma"]["nudge_respect_ratio"], Fraction(1, 3))
    assert data["verdict"][0] == "phase 2: target not met, pre-Read consultation rate 77.8% < 80%"


def test_transcripts_give_the_same_ratios(advised: tuple[Path, scenario.Played, Path]) -> None:
    telemetry, _, projects = advised
    tele = report("--telemetry-dir", str(telemetry))
    data = report("--from-transcripts", str(projects))
    _assert_figures(data, scenario.EXPECTED)
    for key in (
        "nudge_respect_ratio",
        "pre_read_consultation_rate",
        "triggers",
        "nudges",
        "lookups",
        "opt_outs",
        "triggers_consulted",
        "nudges_respected",
    ):
        assert data[key] == tele[key], key
        for agent in ("hizkiah", "salma"):
            assert data["per_agent"][agent][key] == tele["per_agent"][agent][key], (agent, key)
        assert data["per_session"][SESSION][key] == tele["per_session"][SESSION][key], key
    # what transcripts cannot know is null, not 0
    for key in ("fresh", "stale", "absent", "sessions_off", "self_disables"):
        assert data[key] is None
    assert data["sessions"] == 1
    dq = data["data_quality"]
    assert dq["main_thread_calls"] == 2 + 3  # two main-thread steps + three Agent spawns
    assert dq["out_of_scope_calls"] == 2  # hiram's two calls
    assert dq["malformed"] == dq["torn"] == 0


def test_the_whole_projects_dir_works_too(advised: tuple[Path, scenario.Played, Path]) -> None:
    _, _, projects = advised
    data = report("--from-transcripts", str(projects.parent))
    _assert_figures(data, scenario.EXPECTED)


def test_telemetry_mode_is_phase_one_with_null_respect(tmp_path: Path) -> None:
    root = scenario.make_project(tmp_path)
    telemetry = tmp_path / "telemetry"
    hook = scenario.Hook(root, telemetry, "telemetry")
    played = scenario.play(hook, SESSION, scenario.script(str(root)))
    assert played.contexts == [None] * len(played.contexts)  # phase 1: no advisory text
    projects = scenario.write_transcripts(played, tmp_path / "projects" / "-proj")
    for data in (
        report("--telemetry-dir", str(telemetry)),
        report("--from-transcripts", str(projects)),
    ):
        assert data["nudge_respect_ratio"] is None  # never 0
        assert data["nudges"] == 0
        _exact(data["pre_read_consultation_rate"], Fraction(7, 9))
        assert data["triggers"] == 9 and data["lookups"] == 4 and data["opt_outs"] == 1
        assert data["phase"] == 1
        assert data["verdict"][0] == (
            "phase 1: baseline measured, 1 session (pre-Read consultation rate 77.8%)"
        )


def test_cap_of_three_nudges_per_agent(tmp_path: Path) -> None:
    """With the hook's default cap (3) hizkiah's 4th nudge candidate stays
    silent; both paths still agree because the transcript mirrors the output."""
    root = scenario.make_project(tmp_path)
    telemetry = tmp_path / "telemetry"
    hook = scenario.Hook(root, telemetry, "advise", cap=3)
    played = scenario.play(hook, SESSION, scenario.script(str(root)))
    nudged = [i for i, ctx in enumerate(played.contexts, 1) if ctx is not None]
    assert nudged == [2, 3, 11, 12, 16, 17]  # step 13 (hizkiah's 4th) hit the cap
    projects = scenario.write_transcripts(played, tmp_path / "projects" / "-proj")
    tele = report("--telemetry-dir", str(telemetry))
    back = report("--from-transcripts", str(projects))
    # all six answered: none to respect (pointing, 2, 12 and 17 would be: 3 of 6)
    assert tele["nudge_respect_ratio"] is None and tele["nudges_answered"] == 6
    assert back["nudge_respect_ratio"] == tele["nudge_respect_ratio"]
    assert back["pre_read_consultation_rate"] == tele["pre_read_consultation_rate"]


def test_a_mode_setting_the_hook_does_not_know_is_named_in_the_report(tmp_path: Path) -> None:
    """`MISHKAN_GRAPHIFY_NUDGE=false` quietly meant telemetry mode (issue 29): the real
    hook runs it so (D-009's phase-1 default) and says so in its session_start line,
    and the report, through the console script, names the setting and its sessions."""
    root = scenario.make_project(tmp_path)
    telemetry = tmp_path / "telemetry"
    hook = scenario.Hook(root, telemetry, "false")
    steps = scenario.script(str(root))[:6]
    played = [scenario.play(hook, session, steps) for session in ("s-one", "s-two")]
    assert all(ctx is None for run in played for ctx in run.contexts)  # never advised
    done = console.mishkan("metrics", "--telemetry-dir", str(telemetry), "--format", "json",
                           "--transcripts", "none")  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["phase"] == 1 and data["sessions_off"] == 0
    assert data["unknown_modes"] == {"MISHKAN_GRAPHIFY_NUDGE=false": ["s-one", "s-two"]}
    text = console.mishkan("metrics", "--telemetry-dir", str(telemetry), "--transcripts", "none")
    assert (
        "  telemetry mode in 2 sessions because MISHKAN_GRAPHIFY_NUDGE=false is not a mode "
        "(advise, telemetry, off): the hook runs anything else as telemetry, D-009's phase-1 "
        "default (it records, never advises); MISHKAN_GRAPHIFY_NUDGE=off turns it off"
    ) in text.stdout.splitlines()
