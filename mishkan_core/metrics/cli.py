"""``mishkan metrics``: the command line of the conformance report (the
package docstring says what it computes).

Reads ``--telemetry-dir`` (default the hook's own directory) or
``--from-transcripts``; ``--trend`` reads the reports sprint-close wrote
instead (:mod:`mishkan_core.metrics.trend`). Exit codes: 0 a report was printed (whatever it says:
neither number is a gate); 2 usage error or unusable input: the directory is
missing, not a directory or unreadable, or not one valid event (telemetry) /
no transcript (backfill) could be read from it. Damaged lines are counted,
never fatal.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable

FORMATS = ("text", "markdown", "json", "html")


def _iso_date(value: str) -> str:
    if _bound(value, end=False) is None:
        raise argparse.ArgumentTypeError(
            f"not an ISO date: {value!r} (use YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+HH:MM])"
        )
    return value


def _bound(value: str, *, end: bool) -> float | None:
    """Unix seconds for an ISO date (UTC unless it says otherwise).

    A bare date as ``--until`` means the end of that day (inclusive)."""
    from mishkan_core.metrics.transcripts import parse_timestamp

    text = value.strip()
    moment = parse_timestamp(text)
    if moment is not None and end and len(text) == 10:
        return moment + 86400.0
    return moment


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--telemetry-dir",
        metavar="DIR",
        help="hook telemetry directory (default: $MISHKAN_TELEMETRY_DIR, else "
        "<project root>/.mishkan/telemetry, root = $CLAUDE_PROJECT_DIR or the cwd)",
    )
    source.add_argument(
        "--from-transcripts",
        metavar="DIR",
        help="backfill from Claude Code transcripts instead: a project directory "
        "(~/.claude/projects/<project>) or ~/.claude/projects itself",
    )
    source.add_argument(
        "--trend",
        nargs="?",
        const="",
        metavar="DIR",
        help="the phase-2 decision sprint over sprint, from the reports `mishkan sprint-close` "
        "wrote (default DIR: $MISHKAN_SPRINT_CLOSE_DIR, else <project root>/docs/sprint-close); "
        "--since/--until keep the sprints that ended between them",
    )
    parser.add_argument(
        "--transcripts",
        metavar="DIR",
        help="with telemetry: also read these Claude Code transcripts and flag the five agents' "
        "calls that the telemetry never recorded (default: the project's own transcript "
        "directory, ~/.claude/projects/<project>, when it exists; 'none' to skip)",
    )
    parser.add_argument(
        "--since",
        type=_iso_date,
        metavar="ISO-DATE",
        help="only events at or after this time (UTC unless stated)",
    )
    parser.add_argument(
        "--until",
        type=_iso_date,
        metavar="ISO-DATE",
        help="only events up to this time; a bare date includes the whole day",
    )
    parser.add_argument("--sprint", metavar="NAME", help="sprint label printed in the report")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")


def _window(since: str | None, until: str | None) -> Callable[[float], bool] | None:
    """The ``--since``/``--until`` filter on event times (None: keep everything)."""
    lo = _bound(since, end=False) if since else None
    hi = _bound(until, end=True) if until else None
    if lo is None and hi is None:
        return None
    low = float("-inf") if lo is None else lo
    high = float("inf") if hi is None else hi
    if until and len(until.strip()) == 10:  # a bare date: up to the next midnight
        return lambda ts: low <= ts < high
    return lambda ts: low <= ts <= high


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Read, aggregate and build the report dictionary (raises UnusableInput)."""
    from mishkan_core.metrics import report as report_mod
    from mishkan_core.metrics.aggregate import Aggregator
    from mishkan_core.metrics.telemetry import UnusableInput

    since = getattr(args, "since", None)
    until = getattr(args, "until", None)
    keep = _window(since, until)
    agg = Aggregator()
    transcripts_dir = getattr(args, "from_transcripts", None)
    if transcripts_dir:
        from mishkan_core.metrics import transcripts

        quality = transcripts.new_quality()
        agg.feed_all(transcripts.read_dir(transcripts_dir, quality, keep, agg.touch))
        source, input_path = "transcripts", transcripts_dir
    else:
        from mishkan_core.metrics import telemetry

        input_path = getattr(args, "telemetry_dir", None) or telemetry.default_dir()
        quality = telemetry.new_quality()
        agg.feed_all(telemetry.read_dir(input_path, quality, keep))
        if quality["events"] + quality["outside_window"] == 0:
            detail = ", ".join(f"{k} {v}" for k, v in quality.items() if v)
            raise UnusableInput(
                f"no readable telemetry in {input_path}" + (f" ({detail})" if detail else "")
            )
        source = "telemetry"
    drift = None
    if source == "telemetry":
        drift = _drift(getattr(args, "transcripts", None), keep, getattr(args, "project", None))
    return report_mod.build(
        agg,
        source=source,
        input_path=input_path,
        sprint=getattr(args, "sprint", None),
        since=since,
        until=until,
        quality=quality,
        drift=drift,
    )


def _drift(
    directory: str | None, keep: Callable[[float], bool] | None, project: str | None = None
) -> tuple[str, dict[str, int]] | None:
    """(transcript dir, session -> in-scope calls) to hold the telemetry
    against, or None: 'none', or no transcripts there (the default dir
    missing is normal: another machine, or transcripts cleaned up).
    ``project``: the root whose own transcripts are the default."""
    from mishkan_core.metrics import transcripts
    from mishkan_core.metrics.telemetry import UnusableInput

    if directory == "none":
        return None
    environ = dict(os.environ, CLAUDE_PROJECT_DIR=project) if project else None
    path = directory if directory is not None else transcripts.default_dir(environ)
    if directory is None and not os.path.isdir(path):
        return None
    try:
        return path, transcripts.in_scope_calls(path, keep)
    except UnusableInput:
        if directory is not None:
            raise
        return None


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        from mishkan_core.metrics import fmt_json as mod
    elif fmt == "markdown":
        from mishkan_core.metrics import fmt_markdown as mod  # type: ignore[no-redef]
    elif fmt == "html":
        from mishkan_core.metrics import fmt_html as mod  # type: ignore[no-redef]
    else:
        from mishkan_core.metrics import fmt_text as mod  # type: ignore[no-redef]
    return mod.render(report)


def trend(args: argparse.Namespace) -> dict[str, Any]:
    """The trend report for ``--trend`` (raises UnusableInput)."""
    from pathlib import Path

    from mishkan_core.metrics import sprint_reports
    from mishkan_core.metrics import trend as trend_mod

    since, until = getattr(args, "since", None), getattr(args, "until", None)
    directory = Path(args.trend) if args.trend else sprint_reports.default_dir()
    return trend_mod.build(
        directory,
        _bound(since, end=False) if since else None,
        _bound(until, end=True) if until else None,
    )


def render_trend(report: dict[str, Any], fmt: str) -> str:
    from mishkan_core.metrics import fmt_trend

    if fmt == "json":
        return render(report, "json")
    renderers = {
        "markdown": fmt_trend.render_markdown,
        "html": fmt_trend.render_html,
        "text": fmt_trend.render_text,
    }
    return renderers[fmt](report)


def run(args: argparse.Namespace) -> int:
    from mishkan_core.metrics.telemetry import UnusableInput

    fmt = getattr(args, "format", "text") or "text"
    try:
        if getattr(args, "trend", None) is not None:
            sys.stdout.write(render_trend(trend(args), fmt))
            sys.stdout.flush()
            return 0
        report = collect(args)
    except UnusableInput as exc:
        print(f"mishkan metrics: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render(report, fmt))
    sys.stdout.flush()
    return 0
