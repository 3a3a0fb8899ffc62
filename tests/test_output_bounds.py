"""Every command's output is bounded by a multiple of its input (issue 31, class 10).

A clone shapes what the commands read (telemetry, sprint-close reports,
settings and agent files, the docs ingest-lint gates) and so how much they
print. Issue 31 found `metrics --trend` printing one cell per sprint for
every agent any report named: 300 crafted reports (0.9 MB) printed 80 MB of
text and 240 MB of HTML. The promise, for every command and format
(docs/threat_model.md, "The mishkan commands", class 10):

    bytes out <= K x bytes in + 64 KiB

*bytes out* is what the command prints (stdout and stderr) and the report it
writes (sprint-close's artifact); *bytes in* is the tree it reads: every file's
size plus its path, as the command would print it. Each test builds the
shape that makes its command print the most per byte a clone ships (many
tiny records, the longest names a reader accepts, every name repeated where
the output repeats it), runs the console script from outside the tree, and
measures. K is the command's documented multiple (:data:`K`).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_untrusted_repo import IMPORT_CODE, MISHKAN, PYTHON

#: the documented multiples: docs/threat_model.md and each command's own page
K = {
    "metrics": 16,
    "metrics --trend": 8,
    "sprint-close": 4,
    "routing check": 8,
    "route": 4,
    "ingest-lint": 32,
    "ingest-lint --format sarif": 128,
    "graph-index": 0,
    "install --dry-run": 4,
}
SLACK = 64 * 1024
FORMATS = ("text", "markdown", "json", "html")
AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")


def bytes_in(*roots: Path) -> int:
    """Every file's size plus its path relative to where the command is run."""
    total = 0
    for root in roots:
        for path in [root, *root.rglob("*")] if root.is_dir() else [root]:
            total += len(str(path.relative_to(root.parent))) + 1
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total


def run(cwd: Path, *argv: str, timeout: float = 300, **env: str) -> tuple[int, int, str]:
    """(exit code, bytes printed, stderr's start) of the console script from ``cwd``."""
    home = cwd / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run(
        [str(MISHKAN), *argv],
        cwd=str(cwd),
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C.UTF-8", **env},
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return done.returncode, len(done.stdout) + len(done.stderr), done.stderr[:300].decode()


def bounded(command: str, out: int, read: int) -> None:
    limit = K[command] * read + SLACK
    print(f"RATIO {command}: {out / read:.2f} ({out:,} / {read:,})", file=sys.stderr)
    assert out <= limit, f"{command}: {out:,} bytes out of {read:,} in (bound {limit:,})"


# --------------------------------------------------------------------------- #
# metrics --trend: agents x sprints was the output


def _reports(directory: Path, sprints: int, agents: int, name: int = 8) -> None:
    """Sprint-close reports as small as the trend reads, each naming ``agents``
    agents no other report names, with ``name``-character sprint names."""
    directory.mkdir(parents=True)
    counts = {"nudges": 1, "nudges_respected": 0, "triggers": 1, "triggers_consulted": 0}
    for i in range(sprints):
        per = {f"a{i}_{j}": counts for j in range(agents)}
        figures = json.dumps({"v": 1, **counts, "per_agent": per}, separators=(",", ":"))
        (directory / f"{i:04d}.md").write_text(
            f"---\nsprint: {f'S{i}'.ljust(name, 'x')}\ngenerator: mishkan sprint-close\n"
            f"until: 2026-03-{1 + i % 28:02d}\nphase: 2\nrecommendation: {'r' * name}\n"
            f"figures: {figures}\n---\n"
        )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("sprints", "agents", "name"),
    [(120, 32, 8), (400, 0, 8), (40, 32, 60_000)],
    ids=["agents-by-sprints", "many-sprints", "long-names"],
)
def test_metrics_trend(tmp_path: Path, fmt: str, sprints: int, agents: int, name: int) -> None:
    """The reported shape: each report names 32 agents of its own, so the
    per-agent table was every agent by every sprint (120 reports: 9 MB of
    text from 0.4 MB). Now at most 16 agents over the latest 12 sprints, and
    names cut to 120 characters."""
    reports = tmp_path / "reports"
    _reports(reports, sprints, agents, name)
    code, out, err = run(tmp_path, "metrics", "--trend", "reports", "--format", fmt, timeout=120)
    assert code == 0, err
    bounded("metrics --trend", out, bytes_in(reports))


def test_the_trend_says_what_it_left_out(tmp_path: Path) -> None:
    _reports(tmp_path / "reports", 20, 32)
    done = subprocess.run([str(MISHKAN), "metrics", "--trend", str(tmp_path / "reports")],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert (
        "per agent: 16 of 640 agents (the most triggers in these sprints) over the latest 12 "
        "of 20 sprints; --format json has them all"
    ) in done.stdout


# --------------------------------------------------------------------------- #
# metrics: a row per session and per agent, every name in each of its cells


def _call(session: str, agent: str, i: int) -> dict[str, object]:
    return {"v": 1, "ts": 1796017363.0 + i, "event": "call", "session": session, "mode": "advise",
            "agent_type": agent, "agent_id": "x", "tool": "Read", "tool_use_id": f"t{i}",
            "kind": "read", "trigger": True, "via": "Read", "target": "a.py", "symbols": [],
            "graph": "fresh", "stale_by": None, "built_at": None, "decision": "nudge",
            "reason": "fresh"}  # fmt: skip


def _telemetry(directory: Path, shape: str) -> None:
    directory.mkdir(parents=True)
    lines: list[dict[str, object]] = []
    if shape == "sessions":  # the shortest line that makes a session row
        lines = [{"v": 1, "ts": 1.0 + i, "event": "session_start", "session": f"{i}", "mode": "off"}
                 for i in range(20_000)]  # fmt: skip
    elif shape == "long-names":  # the longest session and agent names a reader accepts
        lines = [_call(f"S{i}".ljust(256, "y"), f"A{i}".ljust(256, "z"), i) for i in range(4_000)]
    elif shape == "agents":
        lines = [_call(f"s{i % 50}", f"agent{i}", i) for i in range(10_000)]
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    (directory / "x.jsonl").write_text(text)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", ["sessions", "long-names", "agents"])
def test_metrics(tmp_path: Path, fmt: str, shape: str) -> None:
    telemetry = tmp_path / "telemetry"
    _telemetry(telemetry, shape)
    argv = ("metrics", "--telemetry-dir", "telemetry", "--transcripts", "none", "--format", fmt)
    code, out, err = run(tmp_path, *argv)
    assert code == 0, err
    bounded("metrics", out, bytes_in(telemetry))


def test_metrics_from_transcripts(tmp_path: Path) -> None:
    """Backfill: one tiny subagent transcript per session."""
    project = tmp_path / "transcripts" / "-repo"
    for i in range(2_000):
        sub = project / f"s{i}" / "subagents"
        sub.mkdir(parents=True)
        (sub / "agent-a.meta.json").write_text('{"agentType":"hizkiah"}')
        use = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": "a.py"}}
        line = {"type": "assistant", "agentId": "a", "sessionId": f"s{i}", "cwd": "/r",
                "timestamp": "2026-11-30T05:08:53.242Z", "message": {"content": [use]}}  # fmt: skip
        (sub / "agent-a.jsonl").write_text(json.dumps(line) + "\n")
    whole = [str(MISHKAN), "metrics", "--from-transcripts", "transcripts", "--format", "json"]
    done = subprocess.run(whole, cwd=tmp_path, capture_output=True, check=True)
    assert json.loads(done.stdout)["sessions"] == 2_000
    for fmt in FORMATS:
        argv = ("metrics", "--from-transcripts", "transcripts", "--format", fmt)
        code, out, err = run(tmp_path, *argv)
        assert code == 0, err
        bounded("metrics", out, bytes_in(tmp_path / "transcripts"))


# --------------------------------------------------------------------------- #
# sprint-close: its report and what it prints


def test_sprint_close(tmp_path: Path) -> None:
    p = tmp_path / "p"
    _telemetry(p / ".mishkan" / "telemetry", "long-names")
    _reports(p / "docs" / "sprint-close", 200, 32)
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    read = bytes_in(p)
    argv = ("sprint-close", "--project", "p", "--sprint", "s", "--extract", "print",
            "--until", "2027-01-01")  # fmt: skip
    code, out, err = run(tmp_path, *argv)
    # written; names of 256 characters in every row make ingest-lint call the
    # tables machine-shaped (exit 1, docs/sprint_close.md)
    assert code in (0, 1) and "Traceback" not in err, err
    artifact = (p / "docs" / "sprint-close" / "s.md").read_text()
    assert "3968 more agents: run mishkan metrics on this window" in artifact  # 32 shown
    out += len(artifact.encode())
    bounded("sprint-close", out, read)


# --------------------------------------------------------------------------- #
# routing check: one line per finding


def _ours(hooks: str) -> str:
    return f"{shlex.quote(PYTHON)} -I -S -c '{IMPORT_CODE}' \"$CLAUDE_PROJECT_DIR/{hooks}\""


def _handler(command: str, matcher: str = "*") -> dict[str, object]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


@pytest.mark.parametrize("shape", ["hooks-dir-spellings", "handlers", "agent-files"])
def test_routing_check(tmp_path: Path, shape: str) -> None:
    """``hooks-dir-spellings``: N registrations naming one hooks directory by N
    spellings (``d/../payload/...``), with M stray bytecode files in it, were N
    x M findings (300 and 300: 104 MB from 0.3 MB); the directory is one now."""
    p = tmp_path / "p"
    hooks = p / "payload" / "mishkan" / "hooks"
    (hooks / "__pycache__").mkdir(parents=True)
    (p / "d").mkdir()
    (p / ".claude" / "agents").mkdir(parents=True)
    settings: dict[str, list[dict[str, object]]] = {}
    if shape == "hooks-dir-spellings":
        (hooks / "graphify_nudge.py").write_text("SCOPE_AGENTS = frozenset()\n")
        for j in range(200):
            (hooks / "__pycache__" / f"graphify_nudge.{j}.pyc").write_bytes(b"")
        spelled = ["d/../" * i + "payload/mishkan/hooks" for i in range(200)]
        settings["PreToolUse"] = [_handler(_ours(where)) for where in spelled]
    elif shape == "handlers":
        for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart"):
            settings[event] = [_handler(_ours("payload/mishkan/hooks") + f" #{i}", "(a|a)*")
                               for i in range(500)]  # fmt: skip
    else:
        for i in range(300):
            group = json.dumps(_handler(_ours("payload/mishkan/hooks") + f" #{i}"))
            (p / ".claude" / "agents" / f"a{i}.md").write_text(
                f"---\nname: {AGENTS[i % 5]}\nhooks:\n  PreToolUse:\n    - {group}\n---\n"
            )
    (p / ".claude" / "settings.json").write_text(json.dumps({"hooks": settings}))
    code, out, err = run(tmp_path, "routing", "check", "--project", "p")
    assert code == 1, err
    bounded("routing check", out, bytes_in(p))


def test_route(tmp_path: Path) -> None:
    """The question and a rules file the user names: the answer names the
    rules that matched, once each."""
    rules = json.loads((Path(__file__).parents[1] / "mishkan_core" / "data" /
                        "route_rules.json").read_text())  # fmt: skip
    many = [dict(rules["rules"][0], id=f"r{i}" * 20) for i in range(2_000)]
    rules["rules"] = [*rules["rules"], *many]
    (tmp_path / "rules.json").write_text(json.dumps(rules))
    question = "what calls parse_config " * 200
    for fmt in ("text", "json"):
        code, out, err = run(tmp_path, "route", "--rules", "rules.json", "--format", fmt, question)
        assert code == 0, err
        bounded("route", out, bytes_in(tmp_path / "rules.json") + len(question))


# --------------------------------------------------------------------------- #
# ingest-lint: one finding per rule and file, one per suppression entry


def _tiny_files(root: Path) -> None:
    """The cheapest finding: a one-byte file that is not UTF-8, 4,000 times."""
    root.mkdir()
    for i in range(4_000):
        (root / f"{i}.md").write_bytes(b"\xff")


def _deep_files(root: Path) -> None:
    """Every path 4,000 characters long: the path is printed with each finding."""
    where = str(root)
    for _ in range(15):
        where = os.path.join(where, "d" * 250)
    os.makedirs(where)
    for i in range(1_000):
        Path(where, f"{i}.md").write_bytes(b"\xff")


def _suppressions(root: Path) -> None:
    """Each front-matter suppression that nothing needed is a finding (IL003)."""
    root.mkdir()
    entries = "".join(f"  - allow IL{101 + i % 5} -- r\n" for i in range(150))
    for i in range(200):
        (root / f"{i}.md").write_text(f"---\nmishkan: ingest\nmishkan-lint:\n{entries}---\nok.\n")


@pytest.mark.parametrize("fmt", ["text", "github", "json", "sarif"])
@pytest.mark.parametrize("shape", ["tiny-files", "deep-paths", "suppressions"])
def test_ingest_lint(tmp_path: Path, fmt: str, shape: str) -> None:
    docs = tmp_path / "docs"
    {"tiny-files": _tiny_files, "deep-paths": _deep_files, "suppressions": _suppressions}[shape](
        docs
    )
    code, out, err = run(tmp_path, "ingest-lint", "--all", "--format", fmt, "docs")
    assert code in (1, 2) and "Traceback" not in err, err  # findings; a file not UTF-8: 2
    command = "ingest-lint --format sarif" if fmt == "sarif" else "ingest-lint"
    bounded(command, out, bytes_in(docs))


# --------------------------------------------------------------------------- #
# graph-index: one line, whatever the graph; install --dry-run: a diff per file


def test_graph_index(tmp_path: Path) -> None:
    p = tmp_path / "p"
    (p / ".graphify").mkdir(parents=True)
    label = "n" * 100_000
    nodes = [{"id": f"{i}", "label": label, "source_file": label} for i in range(100)]
    (p / ".graphify" / "graph.json").write_text(json.dumps({"nodes": nodes, "links": []}))
    code, out, err = run(tmp_path, "graph-index", "--project", "p")
    assert code == 0, err
    bounded("graph-index", out, bytes_in(p / ".graphify"))


def test_install_dry_run(tmp_path: Path) -> None:
    """Settings install cannot splice (a duplicate key: rewritten whole) and
    agent files of 1 MiB, their frontmatter one long line each."""
    p = tmp_path / "p"
    (p / ".claude" / "agents").mkdir(parents=True)
    filler = ", ".join(f'"k{i}": "{"v" * 60}"' for i in range(12_000))
    (p / ".claude" / "settings.json").write_text(f'{{"hooks": {{}}, {filler}, "hooks": {{}}}}\n')
    for agent in AGENTS:
        (p / ".claude" / "agents" / f"{agent}.md").write_text(
            f"---\nname: {agent}\ndescription: {'d' * 1_000_000}\n---\nbody\n"
        )
    argv = ("install", "--project", "p", "--scope", "agents", "--dry-run", "--python", PYTHON)
    code, out, err = run(tmp_path, *argv, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert code == 0, err
    bounded("install --dry-run", out, bytes_in(p))
