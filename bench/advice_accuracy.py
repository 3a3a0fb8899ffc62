"""How often the hook's advice is right, on real code (issue 10, item 5).

Builds code graphs of pinned third-party projects with the real graphify,
feeds the hook (a checkout given by `--tree`) realistic Read, Grep and Bash
triggers exactly as Claude Code would, runs every command each advisory
suggests, and judges each advisory against definitions found without
graphify. docs/advice_accuracy.md defines the verdicts and the bar:

    python bench/advice_accuracy.py                       # this checkout's hook
    python bench/advice_accuracy.py --tree /path/to/checkout --no-bar
    tox -e advice

Exit status: 0 the bar is met (or --no-bar), 1 it is not, 2 the bench could
not run (one line on stderr).
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import graphify_nudge_index
from bench import advice_accuracy_projects as projects
from bench.advice_accuracy_claims import Advisory, format_errors
from bench.advice_accuracy_defs import CODE_SUFFIXES, DefinitionIndex, project_index
from bench.advice_accuracy_judge import (
    MISLEADING,
    PARTIAL,
    SILENT_MISSED,
    USEFUL,
    USELESS,
    CommandResult,
    Evidence,
    GraphView,
    Verdict,
    hook_context,
    judge,
    parse_advisory,
)
from bench.advice_accuracy_sites import SourceAt
from bench.advice_accuracy_triggers import DEFAULT_SEED, Trigger, generate, hook_input

RESULTS = projects.REPO / "bench" / "results"
BAR_USEFUL = 0.90
BAR_ANSWERED = 0.80  # of the triggers whose target the graph shows used elsewhere
HOOK_TIMEOUT = 30.0
COMMAND_TIMEOUT = 60.0
OUTPUT_KEPT = 4000  # characters of each command's output kept in the JSON
# The registered command (docs/install.md), with the hooks directory as argv[1].
HOOK_CODE = "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()"
KINDS = ("Read", "Bash read", "Grep", "Bash search")
INDEX_DIR = ".index"  # under the telemetry directory (the only place the hook writes)
INDEX_WAIT = 120.0
ARMS = ("index", "changed", "no-index")
CHANGED_SHARE = 3  # the changed arm edits one graph file in this many
CHANGED_TAIL = "\n"  # appended, so that every line keeps its number


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------
# Running the hook and the commands it suggests


@dataclass
class Outcome:
    trigger: Trigger
    project: str
    advisory: str | None
    hook_exit: int
    hook_stderr: str
    telemetry: dict[str, Any]
    commands: list[CommandResult]
    verdict: Verdict

    def row(self) -> dict[str, Any]:
        t = self.trigger
        return {
            "id": t.id,
            "project": self.project,
            "kind": t.kind,
            "form": t.form,
            "origin": t.origin,
            "target": t.target.describe(),
            "tool_name": t.tool_name,
            "tool_input": t.tool_input,
            "advisory": self.advisory,
            "hook_exit": self.hook_exit,
            "hook_stderr": self.hook_stderr,
            "telemetry": self.telemetry,
            "commands": [
                {"command": c.command, "exit_code": c.exit_code, "output": c.output[:OUTPUT_KEPT]}
                for c in self.commands
            ],
            **asdict(self.verdict),
        }


@dataclass
class Runner:
    tree: Path
    python: str
    graphify: Path
    layout: str
    commands_run: dict[tuple[str, str], CommandResult] = field(default_factory=dict)

    def env(self, root: Path, telemetry: Path, session: str) -> dict[str, str]:
        env = {
            k: os.environ[k]
            for k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
            if k in os.environ
        }
        # graphify on PATH, as in the agent's shell: the index builder reads its
        # release to write the advice in its dialect (graphify_nudge_index, section 5)
        env["PATH"] = f"{self.graphify.parent}{os.pathsep}{env.get('PATH', '')}"
        env.update(  # as CLI 2.1.197 sets them for a hook (the captured env)
            CLAUDECODE="1",
            CLAUDE_CODE_ENTRYPOINT="sdk-cli",
            CLAUDE_CODE_CHILD_SESSION="1",
            CLAUDE_EFFORT="high",
            CLAUDE_CODE_SESSION_ID=session,
            CLAUDE_PROJECT_DIR=str(root),
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            MISHKAN_TELEMETRY_DIR=str(telemetry),
        )
        return env

    def has_index_builder(self) -> bool:
        return (self.tree / "mishkan_core" / "graph_index.py").is_file()

    def build_index(self, root: Path, telemetry: Path) -> tuple[int, str]:
        env = self.env(root, telemetry, "graph-index")
        env["PYTHONPATH"] = str(self.tree)
        done = subprocess.run(
            [self.python, "-m", "mishkan_core", "graph-index", "--project", str(root)],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            check=False,
            timeout=600,
        )
        return done.returncode, done.stdout.decode(errors="replace").strip()

    def hook(
        self, trigger: Trigger, root: Path, telemetry: Path, index: bool = True
    ) -> tuple[str, int, str, dict[str, Any]]:
        stdin = hook_input(trigger, root)
        env = self.env(root, telemetry, stdin["session_id"])
        if not index:
            # the no-index arm measures the hook without an index: it must not
            # start a detached build per trigger either (a hook without the
            # switch ignores it)
            env["MISHKAN_GRAPHIFY_INDEX"] = "off"
        try:
            done = subprocess.run(
                [self.python, "-I", "-S", "-c", HOOK_CODE, str(self.tree), "--mode=advise"],
                input=json.dumps(stdin).encode(),
                cwd=root,
                env=env,
                capture_output=True,
                check=False,
                timeout=HOOK_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return "", -1, "timed out", {}
        return (
            done.stdout.decode(errors="replace"),
            done.returncode,
            done.stderr.decode(errors="replace"),
            _telemetry_line(telemetry, stdin["tool_use_id"]),
        )

    def command(self, command: str, root: Path) -> CommandResult:
        """Run a suggested command as written, in the project, as an agent's
        Bash tool would (bash -c), with the pinned graphify first on PATH."""
        key = (str(root), command)
        if key in self.commands_run:
            return self.commands_run[key]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHIFY_", "MISHKAN_"))}
        env["PATH"] = f"{self.graphify.parent}{os.pathsep}{env.get('PATH', '')}"
        try:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
                timeout=COMMAND_TIMEOUT,
            )
            output = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
            result = CommandResult(command, done.returncode, output)
        except subprocess.TimeoutExpired:
            result = CommandResult(command, -1, f"timed out after {COMMAND_TIMEOUT:.0f} s")
        self.commands_run[key] = result
        return result


def _telemetry_line(telemetry: Path, tool_use_id: str) -> dict[str, Any]:
    """The hook's own record of the call (decision and reason), if it wrote one."""
    for path in sorted(telemetry.rglob("*.jsonl")) if telemetry.is_dir() else ():
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if tool_use_id not in line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("tool_use_id") == tool_use_id:
                return {k: record.get(k) for k in ("decision", "reason", "kind", "target")}
    return {}


# ---------------------------------------------------------------------------
# One project, one arm


@dataclass
class Prepared:
    checkout: projects.Checkout
    graph: GraphView
    index: DefinitionIndex
    triggers: list[Trigger]
    source: SourceAt

    def evidence(self, changed: frozenset[str] = frozenset()) -> Evidence:
        return Evidence(self.index, self.graph, self.source, changed)


def prepare_project(
    project: projects.Project,
    *,
    cache: Path,
    layout: str,
    graphify: Path,
    node: str | None,
    seed: int,
    rebuild: bool,
    version: str = graphify_nudge_index.GRAPHIFY_NEWEST,
    ctags: str = "ctags",
) -> Prepared:
    checkout = projects.prepare(project, cache, layout, graphify, rebuild, version=version)
    graph = GraphView.load(checkout.graph)
    code_files = [f for f in graph.files if f.endswith(CODE_SUFFIXES)]
    scripts = project.language in ("typescript", "javascript")
    ts_dir = projects.ensure_typescript(cache / "tools") if scripts else None
    index = project_index(checkout.root, code_files, node, ts_dir, ctags)
    triggers = generate(
        project.name,
        project.language,
        root=checkout.root,
        graph_files=graph.files,
        noise_dirs=project.noise_dirs,
        index=index,
        seed=seed,
    )
    return Prepared(checkout, graph, index, triggers, SourceAt(checkout.root, checkout.commit))


def run_arm(
    runner: Runner, prepared: Prepared, arm: str, work: Path, seed: int = DEFAULT_SEED
) -> tuple[list[Outcome], dict[str, Any]]:
    """Feed every trigger to the hook. `arm` is "index" (the graph index built
    first, one telemetry directory for the run), "changed" (a copy of the
    checkout, its index built, then one in CHANGED_SHARE of the graph's code
    files edited: the advisory must mark each cited one; the cached checkout
    is never touched) or "no-index" (a fresh telemetry directory per trigger
    and MISHKAN_GRAPHIFY_INDEX=off, so no index exists or is started when the
    hook runs)."""
    root = prepared.checkout.root
    name = prepared.checkout.project.name
    info: dict[str, Any] = {}
    shared = work / name / arm / "telemetry"
    triggers = prepared.triggers
    changed: frozenset[str] = frozenset()
    if arm == "changed":
        copy = work / name / arm / root.name  # named as the checkout (Go keys packages by it)
        shutil.copytree(root, copy, symlinks=True)  # copy2: the graph stays newer than its files
        triggers = [_rebased(t, root, copy) for t in triggers]
        root = copy
    if arm != "no-index":
        info = _build_index(runner, root, triggers, shared, prepared.graph)
    if arm == "changed":
        changed = changed_files(prepared, seed)
        for rel in sorted(changed):
            with (root / rel).open("ab") as f:
                f.write(CHANGED_TAIL.encode())
        info["changed_files"] = sorted(changed)
    outcomes = []
    for i, trigger in enumerate(triggers):
        per_call = work / name / arm / f"telemetry-{i:03d}"
        telemetry = per_call if arm == "no-index" else shared
        stdout, code, stderr, record = runner.hook(trigger, root, telemetry, arm != "no-index")
        context = hook_context(stdout)
        advisory = parse_advisory(context) if context else None
        results = [runner.command(c, root) for c in advisory.commands] if advisory else []
        verdict = _judged(trigger, advisory, results, prepared.evidence(changed))
        outcomes.append(Outcome(trigger, name, context, code, stderr, record, results, verdict))
    return outcomes, info


def _judged(
    trigger: Trigger, advisory: Advisory | None, results: list[CommandResult], evidence: Evidence
) -> Verdict:
    """The verdict; a judge that fails names the trigger (exit 2, one line)."""
    try:
        return judge(trigger.target, advisory, results, evidence)
    except Exception as e:  # a judge bug must not pass for a verdict
        raise RuntimeError(f"judging {trigger.id} failed: {type(e).__name__}: {e}") from e


def _rebased(trigger: Trigger, old: Path, new: Path) -> Trigger:
    """The trigger asked in the copy `new` of the checkout `old` (absolute paths moved)."""
    tool_input = {
        k: v.replace(str(old), str(new)) if isinstance(v, str) else v
        for k, v in trigger.tool_input.items()
    }
    return replace(trigger, tool_input=tool_input)


def changed_files(prepared: Prepared, seed: int) -> frozenset[str]:
    """The graph's code files the changed arm edits: one in CHANGED_SHARE,
    chosen with the seed, never by what the hook cites."""
    files = sorted(f for f in prepared.graph.files if f.endswith(CODE_SUFFIXES))
    rng = random.Random(f"{seed}:{prepared.checkout.project.name}:changed")
    return frozenset(rng.sample(files, len(files) // CHANGED_SHARE))


def _build_index(
    runner: Runner, root: Path, triggers: Sequence[Trigger], shared: Path, graph: GraphView
) -> dict[str, Any]:
    name = root.name
    started = time.perf_counter()
    if runner.has_index_builder():
        code, out = runner.build_index(root, shared)
        info: dict[str, Any] = {
            "index_built_by": "mishkan graph-index",
            "graph_index_exit": code,
            "graph_index_output": out[-400:],
        }
        if code != 0:
            raise projects.SetupError(f"{name}: `mishkan graph-index` exited {code}: {out[-200:]}")
    else:
        info = {"index_built_by": "the hook's own background build, after one warm-up call"}
        warm_up = next(t for t in triggers if t.target.file in graph.files)
        runner.hook(warm_up, root, shared)
        if not wait_until_settled(shared / INDEX_DIR, INDEX_WAIT):
            raise projects.SetupError(
                f"{name}: the hook built no index in {shared / INDEX_DIR} within {INDEX_WAIT:.0f} s"
            )
    info["index_seconds"] = round(time.perf_counter() - started, 2)
    return info


def wait_until_settled(directory: Path, timeout: float, quiet: float = 2.0) -> bool:
    """Wait until `directory` holds files and has not changed for `quiet`
    seconds (the detached builder is done), or `timeout` passes."""
    deadline = time.monotonic() + timeout
    last: list[tuple[str, int, int]] = []
    since = time.monotonic()
    while time.monotonic() < deadline:
        try:
            now = sorted(
                (p.name, p.stat().st_size, p.stat().st_mtime_ns)
                for p in directory.iterdir()
                if p.is_file()
            )
        except OSError:
            now = []
        if now != last:
            last, since = now, time.monotonic()
        elif now and time.monotonic() - since >= quiet:
            return True
        time.sleep(0.2)
    return False


# ---------------------------------------------------------------------------
# Tables


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    verdicts = Counter(o.verdict.verdict for o in outcomes)
    nudged = [o for o in outcomes if o.verdict.nudged]
    exits = Counter(str(o.commands[0].exit_code) if o.commands else "none" for o in nudged)
    useful = verdicts[USEFUL]
    used = [o for o in outcomes if o.verdict.used_elsewhere]
    answered = sum(1 for o in used if o.verdict.answered)
    return {
        "triggers": len(outcomes),
        "in_graph": sum(1 for o in outcomes if o.verdict.in_graph),
        "nudged": len(nudged),
        "exit_codes": dict(sorted(exits.items())),
        USEFUL: useful,
        PARTIAL: verdicts[PARTIAL],
        MISLEADING: verdicts[MISLEADING],
        USELESS: verdicts[USELESS],
        "outside_graph": sum(1 for o in nudged if not o.verdict.in_graph),
        "silent_in_graph": verdicts[SILENT_MISSED],
        "useful_share": round(useful / len(nudged), 4) if nudged else None,
        # issue 30: triggers whose target the graph shows used from another
        # place, and of those, the ones the advisory itself answered
        "used_elsewhere": len(used),
        "answered": answered,
        "answered_share": round(answered / len(used), 4) if used else None,
        "lines_judged": sum(o.verdict.lines_judged for o in outcomes),
        # the hook's contract, checked on the side: exit 0 and a quiet stderr on
        # every call; advisories in the format (marker, at most 1,200 characters,
        # every line one the format knows)
        "hook_errors": sum(1 for o in outcomes if o.hook_exit != 0 or o.hook_stderr.strip()),
        "bad_format": sum(1 for o in nudged if format_errors(o.advisory or "")),
    }


def _project(name: str) -> projects.Project:
    return projects.PROJECTS[name]


def table_rows(outcomes: Sequence[Outcome]) -> list[tuple[str, str, dict[str, Any]]]:
    """Per set, per project (one per language), per kind of trigger; then each
    set's total and the total of all. The first cell names the row:
    `click`, `tuning`, `total`."""
    rows = []
    names = [n for n in projects.PROJECTS if any(o.project == n for o in outcomes)]
    for bench_set in projects.SETS:
        in_set = [o for o in outcomes if _project(o.project).set == bench_set]
        if not in_set:
            continue
        for project in (n for n in names if _project(n).set == bench_set):
            mine = [o for o in in_set if o.project == project]
            for kind in KINDS:
                of_kind = [o for o in mine if o.trigger.kind == kind]
                if of_kind:
                    rows.append((project, kind, summarize(of_kind)))
            rows.append((project, "all", summarize(mine)))
        rows.append((bench_set, "all", summarize(in_set)))
    rows.append(("total", "all", summarize(outcomes)))
    return rows


COLUMNS = (
    "set",
    "project",
    "trigger",
    "triggers",
    "in graph",
    "nudged",
    "exit codes",
    "useful",
    "partial",
    "misleading",
    "useless",
    "outside graph",
    "silent in graph",
    "useful %",
    "used elsewhere",
    "answered",
    "answered %",
)


def _share(value: float | None) -> str:
    return f"{100 * value:.0f}%" if value is not None else "-"


def _label(row: str) -> tuple[str, str]:
    """(set, project with its language) for a table row's first cell."""
    if row in projects.PROJECTS:
        p = _project(row)
        return p.set, f"{projects.LANGUAGE_NAMES[p.language]} ({row})"
    return ("", row) if row == "total" else (row, "total")


def _cells(project: str, kind: str, s: dict[str, Any]) -> list[str]:
    exits = " ".join(f"{k}:{v}" for k, v in s["exit_codes"].items()) or "-"
    return [
        *_label(project),
        kind,
        str(s["triggers"]),
        str(s["in_graph"]),
        str(s["nudged"]),
        exits,
        str(s[USEFUL]),
        str(s[PARTIAL]),
        str(s[MISLEADING]),
        str(s[USELESS]),
        str(s["outside_graph"]),
        str(s["silent_in_graph"]),
        _share(s["useful_share"]),
        str(s["used_elsewhere"]),
        str(s["answered"]),
        _share(s["answered_share"]),
    ]


def origin_rows(outcomes: Sequence[Outcome]) -> list[tuple[str, dict[str, Any]]]:
    """The totals by why a trigger was chosen (sampling stratum, issue example...)."""
    origins = sorted({o.trigger.origin for o in outcomes})
    return [
        (origin, summarize([o for o in outcomes if o.trigger.origin == origin]))
        for origin in origins
    ]


def markdown_table(rows: Sequence[tuple[str, str, dict[str, Any]]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for project, kind, s in rows:
        cells = _cells(project, kind, s)
        if kind == "all":
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def text_table(rows: Sequence[tuple[str, str, dict[str, Any]]]) -> str:
    grid = [list(COLUMNS)] + [_cells(p, k, s) for p, k, s in rows]
    widths = [max(len(r[i]) for r in grid) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in grid)


def bar(total: dict[str, Any], full: bool = True) -> dict[str, Any]:
    """Issue 30's bar for one project: on graphify 0.9.96 (`full`) at least
    90% useful, none misleading (so none outside the graph), and answered for
    at least 80% of the triggers whose target the graph shows used elsewhere;
    on 0.8.31 none misleading."""
    checks = {"none_misleading": total[MISLEADING] == 0}
    if full:
        share, answered = total["useful_share"], total["answered_share"]
        checks["useful_at_least_90_percent"] = share is not None and share >= BAR_USEFUL
        checks["answered_at_least_80_percent"] = answered is None or answered >= BAR_ANSWERED
    return {"met": all(checks.values()), **checks}


def bar_per_project(
    rows: Sequence[tuple[str, str, dict[str, Any]]], full: bool = True
) -> dict[str, Any]:
    """The bar per language, so per project, in each set; a set meets it when
    every one of its projects does."""
    per_project = {p: bar(s, full) for p, k, s in rows if k == "all" and p in projects.PROJECTS}
    sets: dict[str, dict[str, Any]] = {}
    for bench_set in projects.SETS:
        mine = {p: b for p, b in per_project.items() if _project(p).set == bench_set}
        if mine:
            failing = sorted(p for p, b in mine.items() if not b["met"])
            sets[bench_set] = {"met": not failing, "projects_not_met": failing}
    failing = sorted(p for p, b in per_project.items() if not b["met"])
    return {"met": not failing, "sets": sets, "projects_not_met": failing,
            "projects": per_project}  # fmt: skip


# ---------------------------------------------------------------------------
# Provenance and output


def tree_provenance(tree: Path) -> dict[str, Any]:
    def git(*args: str) -> str | None:
        return projects.output_of(["git", "-C", str(tree), *args], timeout=30)

    status = git("status", "--porcelain", "--", "graphify_nudge.py", "mishkan_core")
    return {
        "path": str(tree),
        "commit": git("rev-parse", "HEAD"),
        "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }


def snapshot(tree: Path, rev: str, into: Path) -> dict[str, Any]:
    """Export commit `rev` of the repository at `tree` into `into` (git
    archive: the committed state, whatever the worktree holds)."""
    sha = projects.output_of(["git", "-C", str(tree), "rev-parse", "--verify", f"{rev}^{{commit}}"])
    if not sha:
        raise UsageError(f"--rev {rev}: not a commit in {tree}")
    try:
        done = subprocess.run(
            ["git", "-C", str(tree), "archive", "--format=tar", sha],
            capture_output=True,
            check=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError) as e:
        raise UsageError(f"--rev {rev}: git archive failed: {e}") from None
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # our own repository's commit
    return {"path": str(tree), "commit": sha, "branch": rev, "dirty": False, "snapshot": True}


def write_markdown(
    path: Path, report: dict[str, Any], runs: dict[str, dict[str, list[Outcome]]]
) -> None:
    """One section per graphify release: its projects' graphs, then each arm's tables."""
    tree = report["tree"]
    lines = [
        "# Advice accuracy",
        "",
        f"Hook tree `{tree['path']}` at {str(tree['commit'])[:7]}"
        f"{' (uncommitted changes)' if tree['dirty'] else ''}; graphify "
        f"{', '.join(report['graphify'])}, layout `{report['layout']}`, seed {report['seed']}. "
        f"Judged by {str(report['judge'])[:7]}"
        + (
            " (`--rejudge`: the hook's stored outputs, judged again)"
            if "rejudged_from" in report
            else ""
        )
        + ". Verdicts and bar: docs/advice_accuracy.md.",
    ]
    lines += ["", "## Per language, every release and arm", "", *summary_table(report)]
    for version, arms in runs.items():
        run = report["runs"][version]
        lines += [
            "",
            f"## graphify {version}",
            "",
            f"Graphs built with `{run['build_command']}`.",
            "",
            "| set | project | pinned | sha256 | commit | graph nodes | files in graph |",
            "|---|---|---|---|---|---|---|",
        ]
        for p in run["projects"]:
            lines.append(
                f"| {p['set']} | {p['name']} | `{p['requirement']}` | `{p['sha256'][:12]}` | "
                f"{p['commit'][:7]} | {p['graph_nodes']} | {p['graph_files']} |"
            )
        for arm, outcomes in arms.items():
            lines += _arm_markdown(f"{arm}, graphify {version}", run["arms"][arm], outcomes)
    lines += [
        "",
        f"Run time: {report['timing']['total_seconds']} s "
        f"({'cold' if report['timing']['cold'] else 'warm'} cache).",
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


def summary_table(report: dict[str, Any]) -> list[str]:
    """One row per project and set: for each release, the first arm's useful
    share, misleading and answered, and the changed arm's misleading."""
    cells: dict[str, list[str]] = {}
    header = ["set", "language (project)"]
    for version, run in report["runs"].items():
        arms = list(run["arms"])
        first = arms[0]
        header += [f"{version} useful", "misleading", "answered / used elsewhere"]
        if "changed" in arms:
            header.append("changed: misleading")
        for row in run["arms"][first]["table"]:
            if row["trigger"] != "all":
                continue
            out = cells.setdefault(row["project"], list(_label(row["project"])))
            out += [
                f"{row[USEFUL]}/{row['nudged']} ({_share(row['useful_share'])})",
                str(row[MISLEADING]),
                f"{row['answered']}/{row['used_elsewhere']} ({_share(row['answered_share'])})",
            ]
            if "changed" in arms:
                changed = next(
                    r for r in run["arms"]["changed"]["table"]
                    if r["project"] == row["project"] and r["trigger"] == "all"
                )  # fmt: skip
                out.append(str(changed[MISLEADING]))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, row_cells in cells.items():
        bold = name not in projects.PROJECTS
        lines.append("| " + " | ".join(f"**{c}**" if bold and c else c for c in row_cells) + " |")
    return lines


def _arm_markdown(title: str, result: dict[str, Any], outcomes: list[Outcome]) -> list[str]:
    b = result["bar"]
    sets = "; ".join(
        f"{name} {'met' if s['met'] else 'NOT met (' + ', '.join(s['projects_not_met']) + ')'}"
        for name, s in b["sets"].items()
    )
    rows = table_rows(outcomes)
    lines = [
        "",
        f"### {title}",
        "",
        markdown_table([r for r in rows if r[1] == "all"]),
        "",
        f"Bar ({b['rule']}; per language, in each set): {sets}.",
        "",
        "By kind of trigger:",
        "",
        markdown_table(rows),
        "",
        "By why a trigger was chosen (all projects):",
        "",
        "| chosen as | triggers | in graph | nudged | useful | partial | misleading "
        "| useless | outside graph | used elsewhere | answered |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for origin, s in origin_rows(outcomes):
        lines.append(
            f"| {origin} | {s['triggers']} | {s['in_graph']} | {s['nudged']} | {s[USEFUL]} "
            f"| {s[PARTIAL]} | {s[MISLEADING]} | {s[USELESS]} | {s['outside_graph']} "
            f"| {s['used_elsewhere']} | {s['answered']} |"
        )
    flawed = [o for o in outcomes if o.verdict.verdict in (PARTIAL, MISLEADING, USELESS)]
    if flawed:
        lines += ["", "| trigger | asked | verdict | why |", "|---|---|---|---|"]
        for o in flawed:
            asked = _asked(o.trigger).replace("|", "\\|")
            why = o.verdict.reason.replace("|", "\\|")
            lines.append(f"| {o.trigger.id} | `{asked}` | {o.verdict.verdict} | {why} |")
    unanswered = [o for o in outcomes if o.verdict.used_elsewhere and not o.verdict.answered]
    if unanswered:
        listed = ", ".join(f"{o.trigger.id} ({o.verdict.verdict})" for o in unanswered)
        lines += ["", f"Used elsewhere, not answered ({len(unanswered)}): {listed}."]
    return lines


def _asked(trigger: Trigger) -> str:
    inp = trigger.tool_input
    if trigger.tool_name == "Read":
        return f"Read {inp['file_path'].rsplit('/', 1)[-1]} ({trigger.target.file})"
    if trigger.tool_name == "Grep":
        return f"Grep {inp['pattern']}"
    return str(inp["command"])


# ---------------------------------------------------------------------------
# main


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="advice_accuracy", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    p.add_argument(
        "--tree",
        type=Path,
        default=projects.REPO,
        help="checkout holding graphify_nudge.py and mishkan_core (default: this one)",
    )
    p.add_argument(
        "--projects",
        default=",".join(projects.PROJECTS),
        help=f"comma-separated, of: {', '.join(projects.PROJECTS)}",
    )
    p.add_argument(
        "--set",
        choices=("all", *projects.SETS),
        default="all",
        help="only the projects of one set: tuning (the hook was developed on them) or "
        "first-contact (never tuned on); default all",
    )
    p.add_argument(
        "--layout",
        choices=sorted(projects.LAYOUTS),
        default=".graphify",
        help="where graphify writes the graph (default .graphify, MISHKAN's)",
    )
    p.add_argument(
        "--rev",
        help="measure this commit of --tree (exported with git archive), not its worktree",
    )
    p.add_argument(
        "--arms",
        default="auto",
        help="of index,changed,no-index (index: built by `mishkan graph-index` when the tree "
        "has it, else by the hook's own background build; changed: that index, with a third "
        "of the graph's files edited after the graph); auto: all three when the tree has the "
        "command, else no-index",
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--cache", type=Path, default=projects.DEFAULT_CACHE)
    p.add_argument(
        "--graphify-versions",
        default=",".join(projects.GRAPHIFY_VERSIONS),
        help="the graphifyy releases to measure, each with its own graphs and table "
        f"(default: {','.join(projects.GRAPHIFY_VERSIONS)}, the supported range's ends)",
    )
    p.add_argument(
        "--graphify", type=Path, help="a graphify console script of the one release measured"
    )
    p.add_argument("--python", default=sys.executable, help="the interpreter the hook runs on")
    p.add_argument("--node", default="node", help="node, for the TypeScript compiler API")
    p.add_argument(
        "--ctags", default="ctags", help="Universal Ctags, the judge for Go, Rust, Ruby and PHP"
    )
    p.add_argument(
        "--rebuild", action="store_true", help="rebuild the project checkouts and graphs"
    )
    p.add_argument("--json", type=Path, default=RESULTS / "advice_accuracy.json")
    p.add_argument("--markdown", type=Path, default=RESULTS / "advice_accuracy.md")
    p.add_argument("--no-bar", action="store_true", help="report only: exit 0 whatever the result")
    p.add_argument(
        "--rejudge",
        type=Path,
        help="judge again the hook outputs a results JSON holds (its tree, releases, projects "
        "and arms), with this checkout's judge; the hook and its commands are not run again",
    )
    p.add_argument("--quiet", action="store_true", help="print only the tables")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _main(args, started)
    except (projects.SetupError, UsageError, RuntimeError, OSError) as e:
        print(f"advice_accuracy: {e}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace, started: float) -> int:
    stored = _load_stored(args) if args.rejudge else None
    tree = args.tree.resolve()
    provenance = stored["tree"] if stored else tree_provenance(tree)
    if args.rev and not stored:
        exported = Path(tempfile.mkdtemp(prefix="advice-tree-"))
        atexit.register(shutil.rmtree, exported, True)
        provenance = snapshot(tree, args.rev, exported)
        tree = exported
    if not (tree / "graphify_nudge.py").is_file():
        raise UsageError(f"--tree {tree}: no graphify_nudge.py there")
    names = [n.strip() for n in args.projects.split(",") if n.strip()]
    if args.set != "all":
        names = [
            n for n in names if n in projects.PROJECTS and projects.PROJECTS[n].set == args.set
        ]
    unknown = [n for n in names if n not in projects.PROJECTS]
    if unknown or not names:
        raise UsageError(f"--projects: unknown {', '.join(unknown) or '(none given)'}")
    languages = {projects.PROJECTS[n].language for n in names}
    fetchers = {projects.PROJECTS[n].fetcher for n in names}
    needed = ["git", "bash"]
    needed += [args.node] if languages & {"typescript", "javascript"} else []
    needed += [args.ctags] if languages - {"python", "typescript", "javascript"} else []
    needed += ["apt-get", "dpkg-deb"] if "apt" in fetchers else []
    for tool in needed:
        if shutil.which(tool) is None:
            raise UsageError(f"{tool} is not on PATH")
    cache = args.cache.resolve()
    versions = [v.strip() for v in args.graphify_versions.split(",") if v.strip()]
    if not versions or any(graphify_nudge_index.version_tuple(v) is None for v in versions):
        raise UsageError(f"--graphify-versions {args.graphify_versions}: expected releases")
    if args.graphify is not None and len(versions) != 1:
        raise UsageError("--graphify names one release's script: give one --graphify-versions")
    report: dict[str, Any] = {
        "bench": "advice_accuracy",
        "run_id": uuid.uuid4().hex[:12],
        "tree": provenance,
        "graphify": versions,
        "typescript": projects.TYPESCRIPT_VERSION,
        "python": sys.version.split()[0],
        "layout": args.layout,
        "seed": args.seed,
        "judge": tree_provenance(projects.REPO)["commit"],
        "runs": {},
    }
    if stored:
        report["rejudged_from"] = {"file": str(args.rejudge), "judge": stored.get("judge")}
    runs: dict[str, dict[str, list[Outcome]]] = {}
    cold = False
    setup_seconds = 0.0
    met = True
    for version in versions:
        measured = time.perf_counter()
        graphify = projects.ensure_graphify(cache / "tools", version, args.graphify)
        runner = Runner(tree, args.python, graphify, args.layout)
        old = stored["runs"][version] if stored else None
        run, results, built = _measure(args, names, cache, runner, version, old=old)
        setup_seconds += run.pop("setup_seconds")
        run["seconds"] = round(time.perf_counter() - measured, 1)
        cold = cold or built
        report["runs"][version] = run
        runs[version] = results
        met = met and all(a["bar"]["met"] for a in run["arms"].values() if a["bar"]["counts"])
        for arm, outcomes in results.items():
            rows = table_rows(outcomes)
            if not args.quiet:
                print(f"\n== {arm}, graphify {version} (hook tree {provenance['path']}, "
                      f"{str(provenance['commit'])[:7]})")  # fmt: skip
            print(text_table(rows))
            total = rows[-1][2]
            if total["hook_errors"] or total["bad_format"]:
                print(
                    f"hook contract: {total['hook_errors']} call(s) with a non-zero exit or "
                    f"stderr, {total['bad_format']} advisory(ies) out of the format "
                    "(marker, 1,200 characters, known lines)"
                )
            b = run["arms"][arm]["bar"]
            print(
                f"bar ({b['rule']}{'' if b['counts'] else ', reported only'}): "
                f"{'met' if b['met'] else 'NOT met'}; "
                + "; ".join(f"{k} {'met' if v['met'] else 'NOT met ' + str(v['projects_not_met'])}"
                            for k, v in b["sets"].items())
            )  # fmt: skip
    total_seconds = time.perf_counter() - started
    report["timing"] = {
        "cold": cold,
        "setup_seconds": round(setup_seconds, 1),
        "total_seconds": round(total_seconds, 1),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n")
    write_markdown(args.markdown, report, runs)
    if not args.quiet:
        print(
            f"\n{'cold' if cold else 'warm'} run: {total_seconds:.1f} s "
            f"(setup {setup_seconds:.1f} s); wrote {args.json} and {args.markdown}"
        )
    return 0 if args.no_bar or met else 1


def _load_stored(args: argparse.Namespace) -> dict[str, Any]:
    """A results JSON to judge again; its projects, releases, arms and seed
    replace the command line's."""
    try:
        stored: dict[str, Any] = json.loads(args.rejudge.read_text())
        runs = stored["runs"]
        first = next(iter(runs.values()))
        args.projects = ",".join(p["name"] for p in first["projects"])
        args.graphify_versions = ",".join(runs)
        args.arms = ",".join(first["arms"])
        args.seed, args.layout = stored["seed"], stored["layout"]
    except (OSError, ValueError, KeyError, StopIteration, TypeError) as e:
        raise UsageError(f"--rejudge {args.rejudge}: not a results JSON ({e})") from None
    args.set = "all"
    return stored


def rejudged(old: dict[str, Any], arm: str, prepared: Prepared) -> list[Outcome]:
    """The outcomes of `arm` as the stored run recorded them, judged again."""
    by_id = {t.id: t for t in prepared.triggers}
    info = old["arms"][arm]["info"].get(prepared.checkout.project.name, {})
    changed = frozenset(info.get("changed_files", ()))
    outcomes = []
    for row in old["arms"][arm]["triggers"]:
        trigger = by_id.get(row["id"])
        if row["project"] != prepared.checkout.project.name:
            continue
        if trigger is None or trigger.target.describe() != row["target"]:
            raise UsageError(
                f"--rejudge: {row['id']} asked about {row['target']}; the trigger procedure now "
                "asks about something else (the definitions changed): run the bench again"
            )
        context = row["advisory"]
        advisory = parse_advisory(context) if context else None
        results = [
            CommandResult(c["command"], c["exit_code"], c["output"]) for c in row["commands"]
        ]
        verdict = _judged(trigger, advisory, results, prepared.evidence(changed))
        hook = (row["hook_exit"], row["hook_stderr"], row["telemetry"])
        outcomes.append(Outcome(trigger, row["project"], context, *hook, results, verdict))
    return outcomes


def _measure(
    args: argparse.Namespace,
    names: list[str],
    cache: Path,
    runner: Runner,
    version: str,
    *,
    old: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, list[Outcome]], bool]:
    """Every arm on every project with graphify `version`: (its part of the
    report, the outcomes by arm, whether a graph was built in this run)."""
    started = time.perf_counter()
    arms = choose_arms(args.arms, runner.has_index_builder())
    prepared = [
        prepare_project(
            projects.PROJECTS[n],
            cache=cache,
            layout=args.layout,
            graphify=runner.graphify,
            node=args.node,
            seed=args.seed,
            rebuild=args.rebuild,
            version=version,
            ctags=args.ctags,
        )
        for n in names
    ]
    setup_seconds = time.perf_counter() - started
    results: dict[str, list[Outcome]] = {}
    arm_info: dict[str, dict[str, Any]] = {}
    # Not a TemporaryDirectory: a hook may leave a detached index build writing
    # into a telemetry directory; removing the tree ignores what it races with.
    work = Path(tempfile.mkdtemp(prefix="advice-"))
    try:
        for arm in arms:
            results[arm] = []
            arm_info[arm] = {}
            for p in prepared:
                if old is not None:
                    outcomes = rejudged(old, arm, p)
                    info = old["arms"][arm]["info"].get(p.checkout.project.name, {})
                else:
                    outcomes, info = run_arm(runner, p, arm, work, args.seed)
                results[arm].extend(outcomes)
                arm_info[arm][p.checkout.project.name] = info
    finally:
        shutil.rmtree(work, ignore_errors=True)
    run: dict[str, Any] = {
        "graphify": projects.graphify_version(runner.graphify),
        "build_command": projects.build_command(version),
        "projects": [
            {
                "name": p.checkout.project.name,
                "set": p.checkout.project.set,
                "language": p.checkout.project.language,
                "chosen_for": p.checkout.project.chosen_for,
                "requirement": p.checkout.project.requirement,
                "sha256": p.checkout.project.sha256,
                "commit": p.checkout.commit,
                "graph": str(p.checkout.graph.relative_to(p.checkout.root)),
                "graph_nodes": sum(len(v) for v in p.graph.symbols.values()),
                "graph_files": len(p.graph.files),
                "noise": list(p.checkout.noise),
                "definitions": sum(len(v) for v in p.index.definitions.values()),
                "triggers": len(p.triggers),
            }
            for p in prepared
        ],
        "arms": {},
        "commands_run": len(runner.commands_run),
        "setup_seconds": round(setup_seconds, 1),
    }
    for arm, outcomes in results.items():
        rows = table_rows(outcomes)
        run["arms"][arm] = {
            "info": arm_info[arm],
            "table": [{"project": p, "trigger": k, **s} for p, k, s in rows],
            "bar": arm_bar(rows, arm, arms[0], version),
            "by_origin": [{"origin": o, **s} for o, s in origin_rows(outcomes)],
            "triggers": [o.row() for o in outcomes],
        }
    return run, results, any(p.checkout.built for p in prepared)


def choose_arms(given: str, has_index_builder: bool) -> list[str]:
    """`auto`: index, then changed, then no-index, where the tree has `mishkan
    graph-index`; else no-index alone (a hook that predates the index)."""
    if given == "auto":
        return list(ARMS) if has_index_builder else ["no-index"]
    arms = [a.strip() for a in given.split(",") if a.strip()]
    if not arms or set(arms) - set(ARMS):
        raise UsageError(f"--arms {given}: expected {', '.join(ARMS)} or auto")
    return arms


def arm_bar(
    rows: Sequence[tuple[str, str, dict[str, Any]]], arm: str, primary: str, version: str
) -> dict[str, Any]:
    """The bar an arm is held to. The first arm (index, where the tree has it):
    issue 30's whole bar on graphify 0.9.96, none misleading on older
    releases. The changed arm: none misleading (every changed file it cites
    marked). The no-index arm is reported only."""
    full = arm == primary and version == graphify_nudge_index.GRAPHIFY_NEWEST
    result = bar_per_project(rows, full)
    result["counts"] = arm in (primary, "changed")
    result["rule"] = (
        f">= {BAR_USEFUL:.0%} useful, none misleading, answered >= {BAR_ANSWERED:.0%} of "
        "those used elsewhere"
        if full
        else "none misleading"
    )
    return result


if __name__ == "__main__":
    sys.exit(main())
