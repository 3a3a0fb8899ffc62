"""``mishkan sprint-close``: the D-009 sprint-close agenda item in one command.

D-008 asks for a full re-extract of the graph at ``/sprint-close``; D-009
makes ``/sprint-close`` the place where the conformance numbers are reviewed
and phase 2 is decided. This command:

1. **runs** the full re-extract with real graphify (``graphify extract
   <project> --code-only --force``), writing where the hook reads, as
   :func:`mishkan_core.graph_refresh.out_dir_for` decides for every command
   (with ``graphify-out -> .graphify``, graphify's default, so no
   ``GRAPHIFY_OUT``; else the graph the hook would pick, ``$GRAPHIFY_OUT``, or
   ``.graphify/``), and checks the new graph is built at HEAD;
2. **reads** whether the refresh trigger, graphify's post-commit hook, is
   where git runs hooks from (graphify's markers, as ``routing check`` and
   ``install`` read them: ``core.hooksPath`` and Husky honoured);
3. **runs** the conformance report of ``mishkan metrics`` for the sprint's
   window, and derives from it the sessions with the hook off, the opt-outs,
   the share of triggers that met a stale or absent graph and the phase
   recommendation (D-009's rules);
4. **writes** the report as a Cognee work ingest artifact (Markdown, front
   matter ``mishkan: ingest``, ``kind: sprint-report``) and checks it with
   ``mishkan ingest-lint``;
5. **prints, never runs**, what D-008 leaves to a human ("AI prepares the
   command, Y4NN runs it"): ``mishkan install`` where it would link
   ``graphify-out -> .graphify``, ``graphify hook install`` (the post-commit
   hook is local to the engineer's machine, run by his shell), the phase switch
   ``mishkan install --mode advise``, the Cognee ingest of the artifact (only
   agents write Cognee work, through the ingest gate), a follow-up ADR; and
   the re-extract itself when ``--extract print`` is given or when the
   command runs in an agent's shell (``CLAUDECODE=1``, ``--extract auto``).

Exit codes: 0 the artifact was written and passed ingest-lint; 1 it was
written but ingest-lint rejected it; 2 nothing was written: no telemetry in
the window's directory, graphify missing or failing, an artifact path that is
not ours to overwrite. Every problem is one line on stderr. See
docs/sprint_close.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from mishkan_core import graph_refresh, safe_files
from mishkan_core.graph_refresh import Layout
from mishkan_core.metrics.sprint_reports import (
    DEFAULT_REPORT_DIR,
    FIGURES_KEY,
    GENERATOR,
    MAX_FIGURE_AGENTS,
    REPORT_DIR_ENV,
    busiest,
    figures_line,
    front_matter,
    read_reports,
)
from mishkan_core.safe_files import Directory, UnsafeFile

EXTRACT_TIMEOUT = 3600.0
LINT_TIMEOUT = 120.0
#: session rows in the artifact; the full table is one `mishkan metrics` away
MAX_SESSION_ROWS = 30
#: above this share of triggers on a stale or absent graph, fix freshness first
FRESHNESS_FLOOR = 0.2
_ISO_WEEK = re.compile(r"(\d{4})-W(\d{2})")


class Unusable(Exception):
    """Nothing can be written (exit 2, one line on stderr)."""


# --------------------------------------------------------------------------- #
# arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from mishkan_core.metrics.cli import _iso_date

    parser.add_argument(
        "--sprint",
        metavar="NAME",
        help="sprint name, also the artifact's file name; an ISO week (2026-W49) "
        "sets the window to that week (default: the window's end date)",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project root (default: $CLAUDE_PROJECT_DIR, else the current directory)",
    )
    parser.add_argument(
        "--telemetry-dir",
        metavar="DIR",
        help="hook telemetry (default: $MISHKAN_TELEMETRY_DIR, else <project>/.mishkan/telemetry)",
    )
    parser.add_argument(
        "--since",
        type=_iso_date,
        metavar="ISO-DATE",
        help="window start (default: the ISO week of --sprint, else the end of the "
        "previous sprint-close report, else the first event)",
    )
    parser.add_argument(
        "--until",
        type=_iso_date,
        metavar="ISO-DATE",
        help="window end; a bare date includes its day (default: now)",
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        help=f"the artifact: a .md file or a directory (default: ${REPORT_DIR_ENV}, "
        f"else <project>/{DEFAULT_REPORT_DIR}/<sprint>.md)",
    )
    parser.add_argument(
        "--extract",
        choices=("auto", "run", "print"),
        default="auto",
        help="the full re-extract: run it, or print it for a human (auto: print "
        "in an agent's shell, CLAUDECODE=1, else run)",
    )
    parser.add_argument(
        "--graphify", metavar="PATH", help="the graphify executable (default: from PATH)"
    )


# --------------------------------------------------------------------------- #
# the window


@dataclass
class Window:
    since: str | None  # ISO 8601, UTC, or None for "from the first event"
    until: str
    why: str


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_week(name: str) -> tuple[datetime, datetime] | None:
    """Monday 00:00 UTC and the next Monday of ISO week ``YYYY-Www``."""
    match = _ISO_WEEK.fullmatch(name.strip())
    if match is None:
        return None
    try:
        monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
    except ValueError:
        return None
    start = datetime(monday.year, monday.month, monday.day, tzinfo=timezone.utc)
    return start, start + timedelta(days=7)


def choose_window(
    sprint: str | None,
    since: str | None,
    until: str | None,
    report_dir: Path,
    now: datetime,
) -> Window:
    """Explicit dates win; then an ISO-week sprint name; then the sprint that
    starts where the previous sprint-close report ended; then everything."""
    week = iso_week(sprint) if sprint else None
    if since or until:
        return Window(
            _instant(since, end=False), _instant(until, end=True) or _iso(now), "as given"
        )
    if week is not None:
        end = min(week[1], now) if week[0] < now else week[1]
        return Window(_iso(week[0]), _iso(end), f"ISO week {sprint}")
    previous = previous_until(report_dir)
    if previous is not None:
        return Window(previous, _iso(now), "from the end of the previous sprint-close report")
    return Window(None, _iso(now), "no earlier sprint-close report: all telemetry up to now")


def _instant(value: str | None, *, end: bool) -> str | None:
    """An ISO date as the UTC instant ``mishkan metrics`` reads it (a bare
    ``--until`` date is the end of its day), so reports chain without a gap."""
    from mishkan_core.metrics.cli import _bound

    if not value:
        return None
    seconds = _bound(value, end=end)
    return value if seconds is None else _iso(datetime.fromtimestamp(seconds, timezone.utc))


def previous_until(report_dir: Path) -> str | None:
    """The latest ``until`` of the sprint-close reports already in ``report_dir``."""
    latest: tuple[float, str] | None = None
    for report in read_reports(report_dir):
        until = report.front.get("until")
        moment = _seconds(until) if until else None
        if until and moment is not None and (latest is None or moment > latest[0]):
            latest = (moment, until)
    return None if latest is None else latest[1]


def _seconds(text: str) -> float | None:
    from mishkan_core.metrics.transcripts import parse_timestamp

    return parse_timestamp(text)


# --------------------------------------------------------------------------- #
# the graph


@dataclass
class Extract:
    """The full re-extract: where it writes, how it ran, what it left."""

    graphify: str | None
    graph_path: str  # graph.json the hook will read after the re-extract
    out_dir: str  # GRAPHIFY_OUT for graphify ("graphify-out": none), project-relative
    seconds: float | None = None
    summary: str | None = None  # graphify's counts: "19 nodes, 27 edges, 4 communities"
    built_at: str | None = None
    head: str | None = None
    problem: str | None = None
    others: list[str] = field(default_factory=list)  # other graphs present, newest first

    @property
    def release(self) -> graph_refresh.Graphify:
        """The graphify that runs it: its release picks the command (docs/versions.md)."""
        return graph_refresh.graphify_at(self.graphify)

    def command(self) -> str:
        """What a human types in the project root to run it."""
        return graph_refresh.extract_command(self.out_dir, self.release)

    def words(self) -> str:
        """The command as it runs, without the GRAPHIFY_OUT it is given."""
        return " ".join(graph_refresh.extract_argv(self.release))


def plan_extract(
    root: str, environ: Mapping[str, str], graphify: str | None, layout: Layout | None
) -> Extract:
    """Write where the hook reads: the directory every command chooses
    (:func:`mishkan_core.graph_refresh.out_dir_for`) for ``layout``."""
    project = Path(root)
    out_dir = graph_refresh.out_dir_for(project, environ, layout)
    target = str(graph_refresh.graph_path_for(project, out_dir, layout))
    extract = Extract(graphify, target, out_dir)
    pinned = environ.get("MISHKAN_GRAPHIFY_GRAPH")
    if pinned and os.path.basename(pinned) != "graph.json":
        extract.problem = (
            f"MISHKAN_GRAPHIFY_GRAPH names {pinned}, but graphify always writes "
            f"<dir>/graph.json: point it at a graph.json"
        )
    return extract


def _other_graphs(graph_path: str, project: str, environ: Mapping[str, str]) -> list[str]:
    """The graphs besides ``graph_path`` the hook could pick, newest first.
    graph_refresh counts two names of one file (``graphify-out -> .graphify``)
    as one graph, so ``graph_path`` is left out by identity, not by name."""

    def same(path: Path) -> bool:
        try:
            return os.path.samefile(path, graph_path)
        except OSError:
            return False

    found = graph_refresh.existing_graphs(environ, Path(project))
    return [str(path) for path, _ in found if not same(path)]


def find_graphify(explicit: str | None, environ: Mapping[str, str]) -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) and os.path.isfile(explicit) else None
    return graph_refresh.find_program("graphify", environ)


def check_out_dir(extract: Extract, project: str) -> None:
    """Refuse a re-extract that would write outside the project. graphify
    follows links when it writes (graph.json, GRAPH_REPORT.md, graph.html,
    cache/, manifest.json, ...), so a committed ``.graphify -> /any/dir`` or
    ``.graphify/graph.json -> ~/.bashrc`` would carry its writes out: the
    directory it writes into, by the name the hook reads it (the sanctioned
    ``graphify-out -> .graphify`` resolved), is checked by the one rule
    before graphify starts, for the command printed for a human too."""
    target = Path(extract.graph_path).parent
    try:
        safe_files.check_writable_tree(Path(project), target)
    except (UnsafeFile, safe_files.LimitExceeded) as exc:
        raise Unusable(f"{exc}; graphify would write there: not re-extracted") from None
    except OSError as exc:
        raise Unusable(f"cannot check {target}: {exc.strerror or exc}") from None


def run_extract(extract: Extract, root: str, environ: Mapping[str, str]) -> None:
    """Run graphify; fill in how long it took, its summary line and the new
    graph's ``built_at_commit`` against HEAD. Problems land in ``problem``."""
    import graphify_nudge

    if extract.graphify is None:
        extract.problem = (
            "graphify not found on PATH (pip install graphifyy, or --graphify PATH); "
            "--extract print writes the report and prints the re-extract instead"
        )
        return
    env = dict(environ)
    env["GRAPHIFY_OUT"] = extract.out_dir  # "graphify-out" is graphify's own default
    words = graph_refresh.extract_argv(extract.release)
    argv = [extract.graphify, *words[1:]]
    verb = " ".join(words[:2])  # "graphify extract" or "graphify update"
    started = time.perf_counter()
    try:
        proc = _run(argv, root, env, EXTRACT_TIMEOUT)
    except subprocess.TimeoutExpired:
        extract.problem = f"{verb} did not finish within {EXTRACT_TIMEOUT:.0f} s"
        return
    except OSError as exc:
        extract.problem = f"cannot run {extract.graphify}: {exc.strerror}"
        return
    extract.seconds = time.perf_counter() - started
    output = (proc.stdout + "\n" + proc.stderr).strip().splitlines()
    # graphify's own account: "... wrote <dir>/graph.json: 19 nodes, 27 edges, 4 communities"
    # (extract), "[graphify watch] Rebuilt: 19 nodes, 27 edges, 4 communities" (update)
    wrote = [line for line in output if "wrote" in line and "graph.json:" in line]
    rebuilt = [line for line in output if "Rebuilt:" in line]
    extract.summary = (
        wrote[-1].rpartition("graph.json:")[2].strip()
        if wrote
        else rebuilt[-1].rpartition("Rebuilt:")[2].strip()
        if rebuilt
        else None
    )
    if proc.returncode != 0:
        last = output[-1].strip() if output else "no output"
        extract.problem = f"{verb} exited {proc.returncode}: {last}"
        return
    extract.head = graphify_nudge.resolve_head(root)
    extract.built_at = graphify_nudge.built_at_commit(extract.graph_path)
    if not os.path.isfile(extract.graph_path):
        extract.problem = f"{verb} exited 0 but wrote no {extract.graph_path}"


def _run(
    argv: list[str], cwd: str | None, environ: Mapping[str, str] | None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """A child with no stdin, its output captured as text, bounded in time."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env=None if environ is None else dict(environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        check=False,
    )


# --------------------------------------------------------------------------- #
# the recommendation (D-009 "Phase 1" / "Phase 2")


@dataclass
class Recommendation:
    verdict: str  # a short code: stay-phase-1, enable-phase-2, keep-phase-2, follow-up-adr, no-data
    text: str
    notes: list[str] = field(default_factory=list)


def stale_share(report: Mapping[str, Any]) -> tuple[float | None, int, int]:
    """(share, stale + absent, triggers with a known graph state)."""
    fresh, stale, absent = report["fresh"] or 0, report["stale"] or 0, report["absent"] or 0
    known = fresh + stale + absent
    return ((stale + absent) / known if known else None), stale + absent, known


def recommend(report: Mapping[str, Any], refresh: str) -> Recommendation:
    """The ADR's phase rules applied to one sprint's report. ``refresh`` is the
    refresh trigger's state (:func:`graph_refresh.trigger_status`): the note on a
    stale graph says what the console and the artifact say about it."""
    from mishkan_core.metrics.aggregate import CONSULTATION_TARGET, RESPECT_FLOOR
    from mishkan_core.metrics.glossary import FOLLOW_UP
    from mishkan_core.metrics.report import pct

    rate = report["pre_read_consultation_rate"]
    respect = report["nudge_respect_ratio"]
    served = report.get("graph_served_rate")  # a report from before issue 30 has none
    triggers = report["triggers"]
    if report["sessions"] == 0:
        rec = Recommendation("no-data", "no session in this window: nothing to decide")
    elif report["phase"] == 1:
        if not triggers:
            rec = Recommendation(
                "stay-phase-1",
                "stay in phase 1: no triggering Read/Grep call yet, so the baseline is "
                "not measured (D-009: phase 2 is conditional on the phase-1 baseline)",
            )
        else:
            rec = Recommendation(
                "enable-phase-2",
                f"enable phase 2: the phase-1 baseline is measured (pre-Read consultation "
                f"rate {pct(rate)} over {triggers} triggers); turn the advisory on",
            )
    elif respect is not None and respect < RESPECT_FLOOR:
        rec = Recommendation(
            "follow-up-adr",
            f"nudge-respect ratio {pct(respect)} < 50% after a sprint of phase 2: agents "
            f"followed under half of the advice: {FOLLOW_UP}",
        )
    elif rate is None:
        rec = Recommendation(
            "keep-phase-2", "keep phase 2: no triggering call, the target is not measurable"
        )
    elif rate >= CONSULTATION_TARGET:
        rec = Recommendation(
            "keep-phase-2",
            f"keep phase 2: target met, pre-Read consultation rate {pct(rate)} >= 80%; "
            "making the hook block calls would take a separate, dated decision (D-009)",
        )
    elif served is not None and served >= CONSULTATION_TARGET:
        rec = Recommendation(
            "keep-phase-2",
            f"keep phase 2: target met by the graph's answers, {pct(served)} of triggers "
            f"consulted the graph or were answered from it in the advisory (answered share "
            f"{pct(report.get('answered_share'))}); hard-deny stays deferred (D-009)",
        )
    else:
        rec = Recommendation(
            "keep-phase-2",
            f"keep phase 2 and re-measure: pre-Read consultation rate {pct(rate)} < 80%",
        )
    share, bad, known = stale_share(report)
    if share is not None and share > FRESHNESS_FLOOR:
        fix = {
            "installed": "the refresh trigger is installed, but it rebuilds only after a "
            "commit: edits not yet committed, and rebuilds that fail, leave the graph behind",
            "missing": "install the refresh trigger (graphify hook install, printed below)",
        }.get(refresh, "whether a refresh trigger rebuilds it is unknown (no git hooks directory)")
        rec.notes.append(
            f"{pct(share)} of triggers ({bad} of {known}) met a stale or absent graph, so the "
            f"numbers understate what a fresh graph would give; {fix}"
        )
    off = report["off_sessions"]
    if off:
        rec.notes.append(
            f"the hook was off in {len(off)} session{'' if len(off) == 1 else 's'}: "
            "review the opt-out (D-009 "
            "names this review as the mitigation for the off switch)"
        )
    return rec


# --------------------------------------------------------------------------- #
# the artifact


def _yaml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar


def _safe_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.")
    return cleaned[:100] or "sprint"


@dataclass
class Close:
    """Everything one run found, for the artifact and the console."""

    sprint: str
    project: str
    window: Window
    telemetry_dir: str
    report: dict[str, Any]
    extract: Extract
    extract_mode: str  # run | print
    refresh_hook: str
    recommendation: Recommendation
    prepared: list[tuple[str, str]]  # (shell command in the project root, why)


def render_artifact(close: Close) -> str:
    """The Markdown ingest artifact (front matter ``mishkan: ingest``)."""
    from mishkan_core.metrics import fmt_markdown
    from mishkan_core.metrics.fmt_markdown import cell
    from mishkan_core.metrics.report import pct

    report = close.report
    rec = close.recommendation
    ex = close.extract
    share, bad, known = stale_share(report)
    lines = [
        "---",
        "mishkan: ingest",
        "kind: sprint-report",
        f"title: {_yaml('D-009 sprint close: ' + close.sprint)}",
        f"sprint: {_yaml(close.sprint)}",
        f"generator: {GENERATOR}",
        f"since: {_yaml(close.window.since or '')}",
        f"until: {_yaml(close.window.until)}",
        f"phase: {report['phase']}",
        f"recommendation: {rec.verdict}",
        f"{FIGURES_KEY}: {figures_line(report)}",
        "---",
        "",
        f"# D-009 sprint close: {close.sprint}",
        "",
        f"Window: {close.window.since or 'the first event'} to {close.window.until} "
        f"({close.window.why}). Telemetry: `{_rel(close.telemetry_dir, close.project)}`.",
        "",
        "## Recommendation",
        "",
        f"**{rec.text}.**",
        "",
    ]
    lines.extend(f"- {note}." for note in rec.notes)
    if rec.notes:
        lines.append("")
    lines += ["## Hook off and opt-outs", ""]
    off = report["off_sessions"]
    disabled = report["self_disabled_sessions"]
    lines.append(f"- Sessions with the hook off ({len(off)}): {_listing(off)}.")
    lines.append(
        f"- Sessions where the hook disabled itself ({len(disabled)}): {_listing(disabled)}."
    )
    by_agent = [
        f"{cell(a)} {f['opt_outs']}" for a, f in report["per_agent"].items() if f["opt_outs"]
    ]
    by_session = [s for s, f in report["per_session"].items() if f["opt_outs"]]
    lines.append(
        f"- Slow calls (over the 200 ms budget in wall time, not in the hook's own CPU "
        f"time, so recorded without disabling): {report['slow_calls']}."
    )
    lines.append(f"- Opt-outs: {report['opt_outs']}.")
    if by_agent:
        lines.append(f"- Opt-outs by agent: {', '.join(by_agent)}.")
        lines.append(f"- Sessions with opt-outs ({len(by_session)}): {_listing(by_session)}.")
    lines += ["", "## Graph freshness", ""]
    if share is None:
        lines.append("- No trigger recorded a graph state in this window.")
    else:
        lines.append(
            f"- {pct(share)} of the triggers met a stale or absent graph ({bad} of {known}: "
            f"{report['stale']} stale, {report['absent']} absent)."
        )
    lines.append(f"- Re-extract: {_extract_sentence(ex, close.extract_mode, close.project)}")
    lines.append(f"- Refresh trigger (graphify's post-commit hook): {close.refresh_hook}.")
    if ex.others:
        lines.append(
            "- Other graphs present: "
            + ", ".join(f"`{_rel(c, close.project)}`" for c in ex.others)
            + "; the hook reads only one of them."
        )
    lines += ["", "## Conformance", ""]
    shown = dict(_trimmed(report), input=_rel(close.telemetry_dir, close.project))
    lines.append(_shift_headings(fmt_markdown.render(shown)).rstrip("\n"))
    lines += ["", "## Steps", "", "| step | how |", "| --- | --- |"]
    lines.append(
        f"| full re-extract | {'ran' if close.extract_mode == 'run' else 'printed for a human'} |"
    )
    lines.append("| refresh-trigger status (graphify's hook markers where git runs hooks) | ran |")
    lines.append("| conformance report (`mishkan metrics`) | ran |")
    lines.append("| this artifact, checked by `mishkan ingest-lint` | ran |")
    for command, why in close.prepared:
        lines.append(f"| {why} | printed for a human: `{command}` |")
    lines.append(
        "| the Cognee work ingest of this artifact | left to an agent, through the "
        "ingest gate (D-008: only agents write Cognee work) |"
    )
    return "\n".join(lines) + "\n"


def _listing(sessions: list[str], limit: int = 50) -> str:
    """Session ids as code spans, at most ``limit`` of them."""
    from mishkan_core.metrics.fmt_markdown import code

    if not sessions:
        return "none"
    shown = ", ".join(code(s) for s in sessions[:limit])
    more = len(sessions) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _rel(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def _extract_sentence(ex: Extract, mode: str, project: str) -> str:
    if mode != "run":
        return "prepared for a human, not run (see Steps)."
    head = (ex.head or "")[:7]
    at = (ex.built_at or "")[:7]
    where = f"`{_rel(ex.graph_path, project)}`"
    timing = f" in {ex.seconds:.1f} s" if ex.seconds is not None else ""
    if at and head and at == head:
        state = f"built at `{at}`, which is HEAD"
    elif at:
        state = f"built at `{at}`, HEAD is `{head or 'unknown'}`"
    else:
        state = "no built_at_commit recorded"
    counts = f" ({ex.summary})" if ex.summary else ""
    return f"ran `{ex.words()}`{timing}, wrote {where}{counts}, {state}."


def _trimmed(report: dict[str, Any]) -> dict[str, Any]:
    """The report with at most MAX_FIGURE_AGENTS agents (the most triggering)
    and MAX_SESSION_ROWS sessions (off, self-disabled and opting-out sessions
    first, then the most triggering): the artifact stays a note its own gate
    passes, whatever the telemetry holds."""
    agents = report["per_agent"]
    if len(agents) > MAX_FIGURE_AGENTS:
        report = dict(report, per_agent=busiest(agents), verdict=[
            *report["verdict"],
            f"{len(agents) - MAX_FIGURE_AGENTS} more agents: run mishkan metrics on this window",
        ])  # fmt: skip
    sessions = report["per_session"]
    if len(sessions) <= MAX_SESSION_ROWS:
        return report

    def weight(item: tuple[str, dict[str, Any]]) -> tuple[int, int]:
        fig = item[1]
        flagged = bool(fig.get("off") or fig.get("self_disabled") or fig["opt_outs"])
        return (0 if flagged else 1, -(fig["triggers"] or 0))

    kept = dict(sorted(sessions.items(), key=weight)[:MAX_SESSION_ROWS])
    trimmed = dict(report)
    trimmed["per_session"] = {s: f for s, f in sessions.items() if s in kept}
    trimmed["verdict"] = [
        *report["verdict"],
        f"{len(sessions) - MAX_SESSION_ROWS} more sessions: run mishkan metrics on this window",
    ]
    return trimmed


def _shift_headings(markdown: str) -> str:
    return "\n".join(
        ("#" + line) if line.startswith("## ") else line for line in markdown.split("\n")
    )


def write_artifact(path: Path, text: str, project: str) -> None:
    """Write atomically, without following a link at any component inside the
    project (a clone commits those) nor at the artifact itself; refuse to
    replace a file that is not an earlier sprint-close artifact."""
    try:
        with Directory.anchor(Path(project)) as root:
            base, parts = safe_files.locate(Path(project), root, path.parent)
            try:
                with base.walk(parts, create=True) as where:
                    _replace_ours(where, path, text)
            finally:
                if base is not root:
                    base.close()
    except UnsafeFile as exc:
        raise Unusable(f"{exc}: not written") from None
    except OSError as exc:
        raise Unusable(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace_ours(where: Directory, path: Path, text: str) -> None:
    try:
        old = where.read(path.name)
    except UnsafeFile:
        raise Unusable(f"{path} exists and is not a regular file: not overwritten") from None
    if old is not None and (
        front_matter(old.decode("utf-8", "replace")).get("generator") != GENERATOR
    ):
        raise Unusable(f"{path} exists and was not written by {GENERATOR}: not overwritten")
    where.write(path.name, text.encode("utf-8"), 0o644)


def lint(path: Path) -> tuple[int, str]:
    """``mishkan ingest-lint PATH`` as a user runs it: (exit code, its output)."""
    from mishkan_core.child import mishkan_argv

    argv = mishkan_argv("ingest-lint", str(path))  # never `-m`: that imports from the cwd
    try:
        proc = _run(argv, os.sep, None, LINT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 2, f"ingest-lint could not run: {exc}"
    return proc.returncode, (proc.stdout + proc.stderr).strip()


# --------------------------------------------------------------------------- #
# the run


def _report_path(out: str | None, project: str, sprint: str, environ: Mapping[str, str]) -> Path:
    if out:
        target = Path(out)
        if out.endswith(os.sep) or target.is_dir() or target.suffix != ".md":
            return target / f"{_safe_name(sprint)}.md"
        return target
    base = environ.get(REPORT_DIR_ENV) or os.path.join(project, DEFAULT_REPORT_DIR)
    return Path(base) / f"{_safe_name(sprint)}.md"


def _extract_mode(choice: str, environ: Mapping[str, str]) -> str:
    if choice == "auto":
        return "print" if environ.get("CLAUDECODE") == "1" else "run"
    return choice


def close_sprint(
    args: argparse.Namespace, environ: Mapping[str, str], now: datetime | None = None
) -> tuple[Close, Path]:
    """Do every step that runs; raise Unusable when no artifact can be written."""
    from mishkan_core.metrics import telemetry as telemetry_mod
    from mishkan_core.metrics.cli import collect
    from mishkan_core.metrics.telemetry import UnusableInput

    moment = now or datetime.now(timezone.utc)
    project = os.path.abspath(args.project or environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    if not os.path.isdir(project):
        raise Unusable(f"project directory not found: {project}")
    telemetry_dir = args.telemetry_dir or telemetry_mod.default_dir(
        {**environ, "CLAUDE_PROJECT_DIR": project}
    )
    provisional = args.sprint or "sprint"
    report_dir = _report_path(args.out, project, provisional, environ).parent
    window = choose_window(args.sprint, args.since, args.until, report_dir, moment)
    sprint = args.sprint or window.until[:10]
    path = _report_path(args.out, project, sprint, environ)

    namespace = argparse.Namespace(
        telemetry_dir=telemetry_dir,
        from_transcripts=None,
        project=project,  # its own transcripts, when here, are held against the telemetry
        since=window.since,
        until=window.until,
        sprint=sprint,
    )
    try:
        report = collect(namespace)  # no telemetry: stop before a long re-extract
    except UnusableInput as exc:
        raise Unusable(str(exc)) from None

    graphify = find_graphify(getattr(args, "graphify", None), environ)
    layout = graph_refresh.layout_of(Path(project))
    extract = plan_extract(project, environ, graphify, layout)
    mode = _extract_mode(args.extract, environ)
    if extract.problem is None:
        check_out_dir(extract, project)
    if extract.problem is None and mode == "run":
        run_extract(extract, project, environ)
    if extract.problem is not None:
        raise Unusable(extract.problem)
    extract.others = _other_graphs(extract.graph_path, project, environ)
    refresh = graph_refresh.trigger_status(Path(project))
    rec = recommend(report, refresh)

    prepared: list[tuple[str, str]] = []
    if mode == "print":
        prepared.append((extract.command(), "the full re-extract (D-008)"))
    linked = graph_refresh.after_install(layout)
    if layout is not None and linked is not layout:
        prepared.append(
            (
                "mishkan install --project .",
                f"link {graph_refresh.DEFAULT_OUT} -> {graph_refresh.D008_OUT}: one graph, "
                "refreshed from every shell (D-008)",
            )
        )
    if refresh != "installed":
        out = graph_refresh.out_dir_for(Path(project), environ, linked)
        prepared.append(
            (graph_refresh.hook_install_command(out), "install the refresh trigger (D-008)")
        )
    if rec.verdict == "enable-phase-2":
        prepared.append(
            (
                "mishkan install --project . --mode advise",
                "switch to phase 2 (D-009)",
            )
        )
    close = Close(
        sprint, project, window, telemetry_dir, report, extract, mode, refresh, rec, prepared
    )
    write_artifact(path, render_artifact(close), project)
    return close, path


def _console(close: Close, path: Path, lint_rc: int) -> list[str]:
    ex = close.extract
    out = [
        f"sprint-close {close.sprint}: window {close.window.since or 'first event'} "
        f"to {close.window.until} ({close.window.why})"
    ]
    if close.extract_mode == "run":
        out.append(f"ran      full re-extract: {_extract_sentence(ex, 'run', close.project)}")
    out.append(f"read     refresh trigger: graphify's post-commit hook {close.refresh_hook}")
    sessions, triggers = close.report["sessions"], close.report["triggers"]
    out.append(
        f"ran      conformance report: {sessions} session{'' if sessions == 1 else 's'}, "
        f"{triggers} trigger{'' if triggers == 1 else 's'}, telemetry {close.telemetry_dir}"
    )
    lint_state = {0: "passes", 1: "REJECTED by"}.get(lint_rc, "could not be checked by")
    out.append(f"wrote    {_rel(str(path), os.getcwd())} ({lint_state} mishkan ingest-lint)")
    out.append(f"recommendation: {close.recommendation.text}")
    out.extend(f"  note: {note}" for note in close.recommendation.notes)
    if close.prepared:
        out.append(
            f"for a person to run in {close.project} (D-008: an agent prepares these "
            "commands, a person runs them):"
        )
        out.extend(f"  {command}    # {why}" for command, why in close.prepared)
    out.append(f"next: an agent ingests {_rel(str(path), close.project)} into Cognee work")
    return out


def run(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if environ is None else environ)
    try:
        close, path = close_sprint(args, env)
    except Unusable as exc:
        print(f"mishkan sprint-close: {exc}", file=sys.stderr)
        return 2
    lint_rc, lint_output = lint(path)
    print("\n".join(_console(close, path, lint_rc)))
    if lint_rc != 0:
        first = lint_output.splitlines()[0] if lint_output else "no output"
        print(f"mishkan sprint-close: ingest-lint: {first}", file=sys.stderr)
        return 1
    return 0
