"""mishkan sprint-close: the window, the ADR's phase rules, what runs and what is
printed, the artifact (checked by the real `mishkan ingest-lint`), exit 2 on
unusable input. Real graphify runs in tests/e2e/test_e2e_freshness.py (tox -e e2e)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from mishkan_core import graph_refresh, sprint_close
from mishkan_core.cli import build_parser
from mishkan_core.metrics import sprint_reports
from tests import console, graphify_layout
from tests.metrics.helpers import Telemetry

NOW = datetime(2026, 12, 9, 12, 0, tzinfo=timezone.utc)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No graphify on PATH unless a test puts one there; no agent shell."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), **extra}


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def main() -> None:\n    pass\n")
    return project


def _telemetry(project: Path, mode: str = "advise") -> Telemetry:
    t = Telemetry(project / ".mishkan" / "telemetry", mode=mode)
    t.ts = 1796774400.0  # 2026-12-07T00:00:00Z, a Monday (ISO week 2026-W50)
    return t


def _close(env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    args = build_parser(only="sprint-close").parse_args(["sprint-close", *argv])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = sprint_close.run(args, env)
    return code, out.getvalue(), err.getvalue()


def _lint(path: Path) -> subprocess.CompletedProcess[str]:
    """The real gate, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mishkan_core", "ingest-lint", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


# --------------------------------------------------------------------------- #
# the window


def test_an_iso_week_sprint_sets_the_window(tmp_path: Path) -> None:
    w = sprint_close.choose_window("2026-W49", None, None, tmp_path, NOW)
    assert (w.since, w.until) == ("2026-11-30T00:00:00Z", "2026-12-07T00:00:00Z")
    current = sprint_close.choose_window("2026-W50", None, None, tmp_path, NOW)
    assert (current.since, current.until) == ("2026-12-07T00:00:00Z", "2026-12-09T12:00:00Z")
    assert sprint_close.iso_week("2026-W54") is None and sprint_close.iso_week("s12") is None


def test_explicit_dates_win_and_the_default_is_everything(tmp_path: Path) -> None:
    w = sprint_close.choose_window("2026-W49", "2026-12-01", None, tmp_path, NOW)
    assert (w.since, w.until) == ("2026-12-01T00:00:00Z", "2026-12-09T12:00:00Z")
    w = sprint_close.choose_window(None, None, "2026-12-05", tmp_path, NOW)
    assert (w.since, w.until) == (None, "2026-12-06T00:00:00Z")  # a bare date: its whole day
    w = sprint_close.choose_window("s12", None, None, tmp_path / "none", NOW)
    assert w.since is None and w.until == "2026-12-09T12:00:00Z"


def test_the_next_sprint_starts_where_the_previous_report_ended(tmp_path: Path) -> None:
    for name, until in (("s11", "2026-11-23T09:00:00Z"), ("s12", "2026-12-01T09:00:00Z")):
        front = f'mishkan: ingest\ngenerator: mishkan sprint-close\nuntil: "{until}"'
        (tmp_path / f"{name}.md").write_text(f"---\n{front}\n---\n")
    (tmp_path / "notes.md").write_text('---\nuntil: "2027-01-01T00:00:00Z"\n---\n')  # not ours
    os.mkfifo(tmp_path / "fifo.md")  # never blocks
    w = sprint_close.choose_window("s13", None, None, tmp_path, NOW)
    assert w.since == "2026-12-01T09:00:00Z" and "previous" in w.why


# --------------------------------------------------------------------------- #
# the ADR's phase rules


def _report(**fig: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "sessions": 3, "phase": 2, "triggers": 10, "pre_read_consultation_rate": 0.9,
        "nudge_respect_ratio": 0.7, "fresh": 10, "stale": 0, "absent": 0, "off_sessions": [],
    }  # fmt: skip
    base.update(fig)
    return base


@pytest.mark.parametrize(
    ("fig", "verdict", "words"),
    [
        ({"sessions": 0}, "no-data", "nothing to decide"),
        ({"phase": 1, "triggers": 0}, "stay-phase-1", "not measured"),
        ({"phase": 1, "pre_read_consultation_rate": 0.4}, "enable-phase-2", "baseline is measured"),
        ({"pre_read_consultation_rate": 0.3, "nudge_respect_ratio": None,
          "graph_served_rate": 0.9, "answered_share": 0.8},
         "keep-phase-2", "target met by the graph's answers"),
        ({"nudge_respect_ratio": 0.49}, "follow-up-adr", "do not make the hook block calls"),
        ({"nudge_respect_ratio": 0.49, "pre_read_consultation_rate": 0.95}, "follow-up-adr", "ADR"),
        ({"pre_read_consultation_rate": 0.8}, "keep-phase-2", "target met"),
        ({"pre_read_consultation_rate": 0.79}, "keep-phase-2", "re-measure"),
        ({"pre_read_consultation_rate": None, "triggers": 0}, "keep-phase-2", "not measurable"),
        ({"nudge_respect_ratio": None}, "keep-phase-2", "target met"),
    ],
)  # fmt: skip
def test_the_phase_recommendation_follows_d009(
    fig: dict[str, Any], verdict: str, words: str
) -> None:
    rec = sprint_close.recommend(_report(**fig), "installed")
    assert rec.verdict == verdict and words in rec.text
    assert "harden" not in rec.text and "hard gate" not in rec.text  # plain words


@pytest.mark.parametrize(
    ("refresh", "says", "never"),
    [
        ("installed", "the refresh trigger is installed, but it rebuilds only after a commit",
         "install the refresh trigger"),
        ("missing", "install the refresh trigger (graphify hook install, printed below)",
         "is installed"),
        ("unknown", "unknown (no git hooks directory)", "is installed"),
    ],
)  # fmt: skip
def test_notes_for_a_stale_graph_and_sessions_with_the_hook_off(
    refresh: str, says: str, never: str
) -> None:
    """The note on a stale graph reads the refresh trigger's state, as the console
    line and the artifact do: never "install it" right after "installed"."""
    rec = sprint_close.recommend(
        _report(fresh=5, stale=4, absent=1, off_sessions=["a", "b"]), refresh
    )
    (stale,) = [n for n in rec.notes if "met a stale or absent graph" in n]
    assert stale.startswith("50.0% of triggers (5 of 10) met a stale or absent graph")
    assert says in stale and never not in stale
    assert any("off in 2 sessions" in n for n in rec.notes)
    assert sprint_close.stale_share(_report(fresh=None, stale=None, absent=None))[0] is None


# --------------------------------------------------------------------------- #
# the run


def test_print_mode_writes_an_artifact_that_passes_the_real_ingest_lint(tmp_path: Path) -> None:
    project = _project(tmp_path)
    t = _telemetry(project, mode="telemetry")
    t.start("s1")
    t.trigger("s1", "mishkan:Hizkiah")
    t.lookup("s1", "salma")
    t.trigger("s1", "hizkiah", graph="stale")
    t.start("s2", mode="off")
    env = _env(tmp_path)
    code, out, err = _close(
        env, "--project", str(project), "--sprint", "2026-W50", "--extract", "print"
    )
    assert code == 0, err
    artifact = project / "docs" / "sprint-close" / "2026-W50.md"
    assert f"wrote    {artifact}" in out or "docs/sprint-close/2026-W50.md" in out
    text = artifact.read_text()
    assert text.startswith("---\nmishkan: ingest\nkind: sprint-report\n")
    lint = _lint(artifact)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    front = sprint_reports.front_matter(text)
    assert front["recommendation"] == "enable-phase-2" and front["phase"] == "1"
    assert front["since"] == "2026-12-07T00:00:00Z"
    # the plugin agent counts as hizkiah; the off session and the stale trigger are listed
    assert "| `hizkiah` |" in text and "mishkan:hizkiah" not in text
    assert "Sessions with the hook off (1): `s2`" in text
    assert "50.0% of the triggers met a stale or absent graph (1 of 2" in text
    # what was printed, not run: the re-extract, the link, the refresh hook, the phase
    # switch; the refresh hook as it will be after the link: no GRAPHIFY_OUT
    assert "GRAPHIFY_OUT=.graphify graphify extract . --code-only --force" in out
    assert (
        "  mishkan install --project .    # link graphify-out -> .graphify: one graph, "
        "refreshed from every shell (D-008)\n"
        "  graphify hook install    # install the refresh trigger (D-008)\n"
    ) in out
    assert "mishkan install --project . --mode advise" in out
    assert "next: an agent ingests docs/sprint-close/2026-W50.md into Cognee work" in out
    assert not (project / ".graphify").exists()  # nothing ran graphify


def test_an_agents_shell_prepares_the_re_extract_instead_of_running_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    graphify = _fake_graphify(tmp_path, 'if [ "$1" = extract ]; then touch ran; fi')
    env = _env(tmp_path, CLAUDECODE="1")
    code, out, err = _close(env, "--project", str(project), "--graphify", str(graphify))
    assert code == 0, err
    assert "graphify extract . --code-only --force    # the full re-extract" in out
    assert not (project / "ran").exists()


@pytest.mark.parametrize(
    ("version", "words"),
    [("0.8.31", "graphify update . --force"), ("0.9.96", "graphify extract . --code-only --force")],
)
def test_the_re_extract_is_in_the_dialect_of_the_graphify_that_runs_it(
    tmp_path: Path, version: str, words: str
) -> None:
    """0.8.31's extract needs an LLM key even with --code-only (docs/versions.md):
    the command prepared, and the one run, is `update . --force` there."""
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    graphify = graphify_layout.venv(tmp_path / "venv", version, 'echo "$@" > "$0.argv"; exit 7')
    env = _env(tmp_path, CLAUDECODE="1")
    code, out, err = _close(env, "--project", str(project), "--graphify", f"{graphify}/graphify")
    assert code == 0, err
    assert f"{words}    # the full re-extract" in out
    code, out, err = _close(_env(tmp_path), "--project", str(project), "--graphify",
                            f"{graphify}/graphify", "--extract", "run")  # fmt: skip
    assert code == 2 and f"{' '.join(words.split()[:2])} exited 7" in err, err
    assert (graphify / "graphify.argv").read_text().split() == words.split()[1:]


def _fake_graphify(tmp_path: Path, body: str) -> Path:
    """A stand-in only for graphify's *failure* modes; success is proven with the
    real graphify in tests/e2e/test_e2e_freshness.py."""
    path = tmp_path / "bin" / "graphify"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    ("graphify_body", "message"),
    [
        (None, "graphify not found on PATH"),
        ("echo 'boom: no such file' >&2; exit 3", "graphify extract exited 3: boom: no such file"),
        ("exit 0", "wrote no"),
    ],
)
def test_missing_or_failing_graphify_exits_2_and_writes_nothing(
    tmp_path: Path, graphify_body: str | None, message: str
) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    if graphify_body is not None:
        _fake_graphify(tmp_path, graphify_body)
    code, out, err = _close(_env(tmp_path), "--project", str(project), "--extract", "run")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (project / "docs").exists()


def test_no_telemetry_exits_2_before_running_graphify(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _fake_graphify(tmp_path, "touch ran; exit 0")
    code, out, err = _close(_env(tmp_path), "--project", str(project))
    assert code == 2 and out == ""
    assert err == (
        f"mishkan sprint-close: telemetry directory not found: {project}/.mishkan/telemetry\n"
    )
    assert not (tmp_path / "ran").exists() and not (project / "ran").exists()
    code, _, err = _close(_env(tmp_path), "--project", str(tmp_path / "nope"))
    assert code == 2 and "project directory not found" in err


def test_the_artifact_path_is_configurable_and_never_clobbers(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    reports = tmp_path / "reports"
    env = _env(tmp_path, MISHKAN_SPRINT_CLOSE_DIR=str(reports))
    code, _, err = _close(
        env, "--project", str(project), "--sprint", "s 12/x", "--extract", "print"
    )
    assert code == 0, err
    assert (reports / "s-12-x.md").is_file()
    code, _, err = _close(
        env, "--project", str(project), "--sprint", "s 12/x", "--extract", "print"
    )
    assert code == 0, err  # our own artifact is replaced
    mine = tmp_path / "mine.md"
    mine.write_text("# my notes\n")
    code, _, err = _close(env, "--project", str(project), "--out", str(mine), "--extract", "print")
    assert code == 2 and "was not written by mishkan sprint-close" in err
    assert mine.read_text() == "# my notes\n"
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    link = tmp_path / "link.md"
    link.symlink_to(victim)
    code, _, err = _close(env, "--project", str(project), "--out", str(link), "--extract", "print")
    assert code == 2 and "not a regular file" in err and victim.read_text() == "keep\n"
    explicit = tmp_path / "out" / "close.md"
    code, _, err = _close(
        env, "--project", str(project), "--out", str(explicit), "--extract", "print"
    )
    assert code == 0 and explicit.is_file()


def test_hostile_session_ids_and_many_sessions_still_pass_the_lint(tmp_path: Path) -> None:
    project = _project(tmp_path)
    t = _telemetry(project)
    for i in range(60):
        t.start(f"s{i}|`x`\n---\nmishkan: evil", mode="off" if i % 7 == 0 else "advise")
        t.trigger(f"s{i}|`x`\n---\nmishkan: evil", "zadok")
    argv = ("--project", str(project), "--until", "2026-12-31", "--extract", "print")
    code, _, err = _close(_env(tmp_path), *argv)
    assert code == 0, err
    artifact = next((project / "docs" / "sprint-close").glob("*.md"))
    text = artifact.read_text()
    body = text.split("\n---\n", 1)[1]  # after the front matter
    assert "mishkan: evil" not in body.replace("`", "").split("\n")
    assert "30 more sessions" in text
    lint = _lint(artifact)
    assert lint.returncode == 0, lint.stdout + lint.stderr


# --------------------------------------------------------------------------- #
# one graph, one place: sprint-close agrees with install and routing check


def _git(project: Path, *argv: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(project), *argv], check=True, capture_output=True, env=env)


def test_with_the_link_no_command_needs_graphify_out(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    (project / ".graphify").mkdir()
    (project / "graphify-out").symlink_to(".graphify")
    code, out, err = _close(_env(tmp_path), "--project", str(project), "--extract", "print")
    assert code == 0, err
    assert "  graphify extract . --code-only --force    # the full re-extract" in out
    assert "  graphify hook install    # install the refresh trigger" in out
    assert "GRAPHIFY_OUT" not in out and "mishkan install --project .    #" not in out
    close = sprint_close.plan_extract(str(project), {}, None, graph_refresh.layout_of(project))
    assert close.out_dir == "graphify-out"  # graphify's default: through the link
    assert close.graph_path == str(project / ".graphify" / "graph.json")  # what the hook reads


def test_graphify_s_default_layout_is_refreshed_where_it_is(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    (project / "graphify-out").mkdir()
    (project / "graphify-out" / "graph.json").write_text("{}")
    code, out, err = _close(_env(tmp_path), "--project", str(project), "--extract", "print")
    assert code == 0, err
    assert "GRAPHIFY_OUT" not in out and "mishkan install --project .    #" not in out


def test_the_refresh_trigger_is_read_where_git_runs_hooks(tmp_path: Path) -> None:
    """The markers graphify writes, read as install and routing check read
    them (core.hooksPath honoured); no graphify needed."""
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    _git(project, "init", "-q")
    _git(project, "config", "core.hooksPath", "tools/hooks")
    hooks = project / "tools" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "post-commit").write_text("#!/bin/sh\n# graphify-hook-start\n# graphify-hook-end\n")
    (hooks / "post-commit").chmod(0o755)
    code, out, err = _close(_env(tmp_path), "--project", str(project), "--extract", "print")
    assert code == 0, err
    assert "read     refresh trigger: graphify's post-commit hook installed" in out
    assert "graphify hook install" not in out
    text = next((project / "docs" / "sprint-close").glob("*.md")).read_text()
    assert "Refresh trigger (graphify's post-commit hook): installed." in text


@pytest.mark.parametrize("installed", [True, False])
def test_the_console_says_one_thing_about_the_refresh_trigger(
    tmp_path: Path, installed: bool
) -> None:
    """Through the console script: with a stale graph, the note on it agrees with the
    refresh-trigger line above it (issue 29: "install the refresh hook" was printed
    right after "graphify's post-commit hook installed")."""
    project = _project(tmp_path)
    t = _telemetry(project)
    t.trigger("s1", "nathan", graph="stale")
    t.trigger("s1", "nathan", graph="fresh")
    _git(project, "init", "-q")
    if installed:
        hook = project / ".git" / "hooks" / "post-commit"
        hook.write_text("#!/bin/sh\n# graphify-hook-start\n# graphify-hook-end\n")
        hook.chmod(0o755)
    done = console.mishkan(
        "sprint-close",
        "--project",
        str(project),
        "--sprint",
        "2026-W50",
        "--extract",
        "print",
        env=_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    state = "installed" if installed else "missing"
    assert f"read     refresh trigger: graphify's post-commit hook {state}" in lines
    (note,) = [line for line in lines if "met a stale or absent graph" in line]
    assert note.startswith("  note: 50.0% of triggers (1 of 2) met a stale or absent graph")
    if installed:
        assert "the refresh trigger is installed, but it rebuilds only after a commit" in note
        assert "install the refresh" not in done.stdout
        assert "graphify hook install" not in done.stdout
    else:
        assert "install the refresh trigger (graphify hook install, printed below)" in note
        assert "  graphify hook install    # install the refresh trigger (D-008)" in lines


@pytest.mark.parametrize("planted", ["docs", "docs/sprint-close"])
def test_a_planted_link_in_the_report_path_is_not_followed(tmp_path: Path, planted: str) -> None:
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    victim = tmp_path / "victim_dir"
    victim.mkdir()
    (project / planted).parent.mkdir(parents=True, exist_ok=True)
    (project / planted).symlink_to(victim)
    argv = ("--project", str(project), "--sprint", "x", "--extract", "print")
    code, out, err = _close(_env(tmp_path), *argv)
    assert code == 2 and out == ""
    assert "is a symlink; refusing to follow it" in err and err.count("\n") == 1
    assert list(victim.iterdir()) == []


def test_a_fifo_at_the_artifact_does_not_block(tmp_path: Path) -> None:
    """In a subprocess with a timeout: a regression fails, it does not hang."""
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    reports = project / "docs" / "sprint-close"
    reports.mkdir(parents=True)
    os.mkfifo(reports / "x.md")
    argv = ["--project", str(project), "--sprint", "x", "--extract", "print"]
    done = subprocess.run(
        [sys.executable, "-m", "mishkan_core", "sprint-close", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "exists and is not a regular file: not overwritten" in done.stderr


def test_the_previous_report_is_never_read_through_a_link(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text(
        '---\ngenerator: mishkan sprint-close\nuntil: "2030-01-01T00:00:00Z"\n---\n'
    )
    (reports / "old.md").symlink_to(elsewhere)
    os.mkfifo(reports / "fifo.md")
    assert sprint_close.previous_until(reports) is None


def test_other_graphs_are_listed_but_the_link_is_one_graph(tmp_path: Path) -> None:
    """graphify-out -> .graphify names the graph the hook reads twice: not an
    other graph. Two real graphs are: the one not re-extracted is listed."""
    project = _project(tmp_path)
    _telemetry(project).trigger("s1", "nathan")
    (project / ".graphify").mkdir()
    (project / ".graphify" / "graph.json").write_text("{}")
    (project / "graphify-out").symlink_to(".graphify")
    code, _, err = _close(_env(tmp_path), "--project", str(project), "--extract", "print")
    assert code == 0, err
    text = next((project / "docs" / "sprint-close").glob("*.md")).read_text()
    assert "Other graphs present" not in text

    (project / "graphify-out").unlink()
    (project / "graphify-out").mkdir()
    (project / "graphify-out" / "graph.json").write_text("{}")
    code, _, err = _close(
        _env(tmp_path), "--project", str(project), "--extract", "print", "--sprint", "again"
    )
    assert code == 0, err
    text = (project / "docs" / "sprint-close" / "again.md").read_text()
    assert "- Other graphs present: `.graphify/graph.json`; the hook reads only one" in text


def test_a_sprint_whose_transcripts_hold_calls_the_telemetry_lacks_is_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19, drift: the project's own transcripts (CLI 2.1.332, captured
    in tests/metrics/fixtures) show hizkiah's six calls, the telemetry only
    the session start: the artifact says the hook did not run."""
    import shutil

    fixtures = Path(__file__).resolve().parents[1] / "metrics" / "fixtures"
    session = "c3b2293d-3c3d-4353-9eb4-3fb1a20c7633"
    project = _project(tmp_path)
    config = tmp_path / "claude-config"
    mangled = "".join(c if c.isalnum() else "-" for c in str(project))
    shutil.copytree(
        fixtures / "cc-2.1.332-transcripts" / "-tmp-e2e-advise-repo", config / "projects" / mangled
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    t = Telemetry(project / ".mishkan" / "telemetry")
    t.ts = 1796169600.0  # 2026-12-01T00:00:00Z, the day the transcripts were written
    t.start(session)
    code, _out, err = _close(
        _env(tmp_path), "--project", str(project), "--since", "2026-12-01",
        "--until", "2026-12-02", "--sprint", "drift", "--extract", "print",
    )  # fmt: skip
    assert code == 0, err
    text = (project / "docs" / "sprint-close" / "drift.md").read_text()
    assert "drift: the transcripts show 6 calls by the five agents in 1 session" in text
    assert _lint(project / "docs" / "sprint-close" / "drift.md").returncode == 0
