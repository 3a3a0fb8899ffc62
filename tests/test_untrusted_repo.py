"""The ``mishkan`` commands on an untrusted repository (issue 22).

Each test builds the hostile tree a second red team built against 9707cc6
and runs the installed console script from outside it, as a maintainer or CI
would. The rule is the hook's: the repository is data. Classes, as the issue
numbers them:

1. no write leaves the project through a committed link, for every writer;
2. no repository file is executed or imported;
3. crafted input is bounded and iterative: one line and exit 2, never a
   traceback and never the findings code;
4. a settings regex never runs unbounded, and a pathological one is a finding;
5. ingest-lint's walk: each real file once, inside the tree, within limits;
6. terminal output is escaped, and a printed fix is safe to paste: pasted
   into a real shell here;
7. a shim's version files in the clone never choose the interpreter.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.install._tree import fan_out

MISHKAN = Path(sys.executable).parent / "mishkan"
PYTHON = os.path.realpath(sys.executable)
IMPORT_CODE = (
    "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()"
)
#: what a terminal would act on: ESC, BEL, CR, a C1 CSI, a bidi override
CONTROLS = (b"\x1b", b"\x07", b"\r", b"\xc2\x9b", "\u202e".encode())


@dataclass
class Done:
    code: int
    out: bytes
    err: bytes

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", "replace")

    def one_line_exit_2(self, fragment: str = "") -> None:
        """Unusable input: exit 2, one line on stderr, no traceback."""
        assert self.code == 2, (self.stdout, self.stderr)
        assert len(self.stderr.strip().splitlines()) == 1, self.stderr
        assert "Traceback" not in self.stderr
        assert fragment in self.stderr, self.stderr


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """``tmp/`` holds the clone ``p/``, a ``victim`` file and ``victim_dir/``
    outside it (nothing may touch them), a ``home/`` and a ``bin/`` for PATH."""
    for name in ("p", "victim_dir", "home", "bin"):
        (tmp_path / name).mkdir()
    (tmp_path / "victim").write_bytes(b"VICTIM\n")
    if not MISHKAN.is_file():
        pytest.fail(f"the console script {MISHKAN} is not installed", pytrace=False)
    return tmp_path


def _env(world: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": f"{world / 'bin'}:/usr/bin:/bin",
        "HOME": str(world / "home"),
        "LC_ALL": "C.UTF-8",
        **extra,
    }


def mishkan(
    world: Path, *argv: str, cwd: Path | None = None, timeout: float = 120, **env: str
) -> Done:
    """The console script, run from ``cwd`` (default: outside the clone)."""
    done = subprocess.run(
        [str(MISHKAN), *argv],
        cwd=str(cwd or world),
        env=_env(world, **env),
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def _untouched(world: Path) -> None:
    assert (world / "victim").read_bytes() == b"VICTIM\n"
    assert list((world / "victim_dir").iterdir()) == []


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def _telemetry(project: Path) -> None:
    directory = project / ".mishkan" / "telemetry"
    directory.mkdir(parents=True, exist_ok=True)
    line = {"v": 1, "ts": time.time() - 3600, "event": "session_start", "session": "s1",
            "mode": "advise", "source": "startup"}  # fmt: skip
    (directory / "s1.jsonl").write_text(json.dumps(line) + "\n")


def _settings(project: Path, hooks: Mapping[str, object]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _ours(python: str = PYTHON) -> str:
    """Our registration, as install writes it, with ``python`` as the program."""
    hooks = '"$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"'
    return f"{shlex.quote(python)} -I -S -c '{IMPORT_CODE}' {hooks}"


# --------------------------------------------------------------------------- #
# 1. no write leaves the project through a committed link


#: a graphify stand-in that writes the way graphify does: through links
#: (graphify.paths._atomic_replace resolves them on purpose), graph.json,
#: GRAPH_REPORT.md and cache/; it records that it ran
FAKE_GRAPHIFY = """\
touch "{ran}"
mkdir -p "$GRAPHIFY_OUT/cache"
echo '{{"nodes": [], "links": []}}' > "$GRAPHIFY_OUT/graph.json"
echo report > "$GRAPHIFY_OUT/GRAPH_REPORT.md"
echo cached > "$GRAPHIFY_OUT/cache/ast.json"
echo "[graphify] wrote $GRAPHIFY_OUT/graph.json: 0 nodes, 0 edges"
"""


def _plant_graph_link(world: Path, planted: str) -> str:
    """Commit one hostile thing where graphify writes; return its name."""
    p = world / "p"
    if planted == "dir-link":
        (p / ".graphify").symlink_to("../victim_dir")
        return ".graphify"
    if planted == "linked-pair":  # graphify-out -> .graphify, and .graphify -> outside
        (p / ".graphify").symlink_to("../victim_dir")
        (p / "graphify-out").symlink_to(".graphify")
        return ".graphify"
    (p / ".graphify").mkdir()
    if planted == "file-link":
        (p / ".graphify" / "graph.json").symlink_to("../../victim")
        return "graph.json"
    if planted == "cache-link":
        (p / ".graphify" / "cache").symlink_to("../../victim_dir")
        return "cache"
    if planted == "hard-link":
        os.link(world / "victim", p / ".graphify" / "GRAPH_REPORT.md")
        return "hard links"
    assert planted == "none"
    return ""


@pytest.mark.parametrize(
    "planted", ["none", "dir-link", "linked-pair", "file-link", "cache-link", "hard-link"]
)
def test_sprint_close_never_lets_graphify_write_through_a_link(world: Path, planted: str) -> None:
    """Issue 22 #1 (High): ``.graphify -> /any/dir`` and one telemetry line;
    sprint-close ran graphify with ``GRAPHIFY_OUT=.graphify`` into the target."""
    _telemetry(world / "p")
    fragment = _plant_graph_link(world, planted)
    ran = world / "graphify-ran"
    _script(world / "bin" / "graphify", FAKE_GRAPHIFY.format(ran=ran))
    done = mishkan(world, "sprint-close", "--project", str(world / "p"), "--sprint", "s1")
    if planted == "none":  # the control: the same tree without the link re-extracts
        assert done.code == 0, done.stderr
        assert (world / "p" / ".graphify" / "graph.json").is_file() and ran.exists()
        return
    done.one_line_exit_2(fragment)
    assert "graphify would write there" in done.stderr
    assert not ran.exists()  # refused before graphify started
    assert (world / "victim").read_bytes() == b"VICTIM\n"
    assert list((world / "victim_dir").iterdir()) == []
    assert not (world / "p" / "docs").exists()  # exit 2: nothing written


def test_sprint_close_in_print_mode_refuses_the_link_it_would_print_for(world: Path) -> None:
    """The printed re-extract would write through the link when a human runs it."""
    _telemetry(world / "p")
    (world / "p" / ".graphify").symlink_to("../victim_dir")
    done = mishkan(world, "sprint-close", "--project", str(world / "p"), "--extract", "print")
    done.one_line_exit_2(".graphify is a symlink")


def test_sprint_close_artifact_never_goes_through_a_link(world: Path) -> None:
    _telemetry(world / "p")
    (world / "p" / "docs").symlink_to("../victim_dir")
    done = mishkan(world, "sprint-close", "--project", str(world / "p"), "--extract", "print")
    done.one_line_exit_2("docs is a symlink")
    _untouched(world)


def test_graph_index_never_writes_through_a_link(world: Path) -> None:
    p = world / "p"
    (p / ".graphify").mkdir()
    (p / ".graphify" / "graph.json").write_text('{"nodes": [], "links": []}')
    (p / ".mishkan").symlink_to("../victim_dir")
    done = mishkan(world, "graph-index", "--project", str(p))
    done.one_line_exit_2("cannot open the index directory")
    _untouched(world)


@pytest.mark.parametrize("uninstall", [False, True], ids=["install", "uninstall"])
def test_install_and_uninstall_never_write_through_a_link(world: Path, uninstall: bool) -> None:
    """The whole class is tests/install/test_hostile.py (a link at every
    component); this is the console script on one of them."""
    (world / "p" / ".claude").symlink_to("../victim_dir")
    extra = ["--uninstall"] if uninstall else []
    done = mishkan(world, "install", "--project", str(world / "p"), "--python", PYTHON, *extra)
    done.one_line_exit_2(".claude is a symlink")
    _untouched(world)


def test_ingest_lint_report_never_goes_through_a_link(world: Path) -> None:
    p = world / "p"
    (p / "notes.md").write_text("# notes\n")
    (p / "report.txt").symlink_to("../victim")
    done = mishkan(world, "ingest-lint", ".", "-o", "report.txt", cwd=p)
    done.one_line_exit_2("report.txt is a symlink")
    _untouched(world)
    (p / "report.txt").unlink()
    (p / "out").mkdir()
    done = mishkan(world, "ingest-lint", ".", "-o", "out/report.txt", cwd=p)
    assert done.code == 0, done.stderr
    assert (p / "out" / "report.txt").read_text().startswith("Nothing checked: none of the")


# --------------------------------------------------------------------------- #
# 2. no repository file is executed or imported


def test_routing_check_reads_a_hook_file_without_running_it(world: Path) -> None:
    """Issue 22 #2 (High): ``--hook payload/...`` as docs/routing_check.md
    suggests ``exec()``-ed the clone's file inside the mishkan process."""
    hook = world / "p" / "payload" / "mishkan" / "hooks" / "graphify_nudge.py"
    hook.parent.mkdir(parents=True)
    marker = world / "ran"
    hook.write_text(
        f"open({str(marker)!r}, 'w')\n"
        'SCOPE_AGENTS: "Final" = frozenset({"hizkiah", "salma", "oholiab", "nathan", "zadok"})\n'
        "_EXTRA = {'.go'}\n"
        "TRIGGER_EXTENSIONS = frozenset({'.py', '.ts'} | _EXTRA)\n"
    )
    done = mishkan(world, "routing", "check", "--hook", "payload/mishkan/hooks/graphify_nudge.py",
                   cwd=world / "p")  # fmt: skip
    assert done.code == 0, done.stderr
    assert "routing check: clean (matrix, hook" in done.stderr
    assert not marker.exists()
    hook.write_text("SCOPE_AGENTS = frozenset(__import__('os').listdir('/'))\n")
    done = mishkan(world, "routing", "check", "--hook", str(hook))
    done.one_line_exit_2("SCOPE_AGENTS is not defined from literals (line 1)")


def test_sprint_close_never_imports_a_committed_package(world: Path) -> None:
    """Its ingest-lint step ran ``python -m mishkan_core`` from the project:
    ``-m`` puts the working directory first on sys.path."""
    p = world / "p"
    _telemetry(p)
    marker = world / "imported"
    (p / "mishkan_core").mkdir()
    for name in ("__init__.py", "__main__.py"):
        (p / "mishkan_core" / name).write_text(f"open({str(marker)!r}, 'w')\n")
    done = mishkan(world, "sprint-close", "--extract", "print", "--sprint", "s1", cwd=p)
    assert done.code == 0, done.stderr
    assert "passes mishkan ingest-lint" in done.stdout
    assert not marker.exists()


def test_sprint_close_never_runs_a_graphify_from_a_relative_path_entry(world: Path) -> None:
    """``.`` (or an empty entry) on PATH resolves against the clone."""
    p = world / "p"
    _telemetry(p)
    marker = world / "ran"
    _script(p / "graphify", f'touch "{marker}"')
    done = mishkan(world, "sprint-close", "--sprint", "s1", cwd=p, PATH=".::/usr/bin:/bin")
    done.one_line_exit_2("graphify not found on PATH")
    assert not marker.exists()


@pytest.mark.parametrize("entry", [".", "", "bin", "node_modules/.bin"])
def test_the_index_builder_never_takes_graphify_from_a_relative_path_entry(
    world: Path, entry: str
) -> None:
    """Issue 31: the builder's `graphify` lookup (`find_graphify_script`, also
    routing check's and install's) honoured relative PATH entries, which
    resolve against the clone: its `bin/graphify` and a planted
    `graphifyy-0.9.59.dist-info` chose the dialect of every advice. The
    script is never run either way."""
    p = world / "p"
    marker = world / "ran"
    where = p / (entry or ".")
    _script(where / "graphify", f'touch "{marker}"')
    site = where.parent / "lib" / "python3.11" / "site-packages" / "graphifyy-0.9.59.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: graphifyy\nVersion: 0.9.59\n\n")
    graph = {"graph": {"graphify_version": "0.9.96"}, "nodes": [NODE], "links": []}
    (p / ".graphify").mkdir()
    (p / ".graphify" / "graph.json").write_text(json.dumps(graph))
    done = mishkan(world, "graph-index", "--project", ".", cwd=p, PATH=f"{entry}:/usr/bin:/bin")
    assert done.code == 0, done.stderr
    (index,) = (p / ".mishkan" / "telemetry" / ".index").glob("*.idx")
    header = index.read_bytes().split(b"\n", 1)[0].decode()
    assert header.split("\t")[-1] == "0.9.96"  # the graph's own release, not the clone's
    assert not marker.exists()


# --------------------------------------------------------------------------- #
# 3. bounded, iterative input handling


def _nest(top: Path, depth: int, leaf: str, text: str) -> None:
    """``depth`` nested directories under ``top`` (os.mkdir relative to each
    level: the path itself would outgrow nothing, but stay cheap)."""
    here = top
    for _ in range(depth):
        here = here / "d"
        here.mkdir(parents=True)
    (here / leaf).write_text(text)


def _unnest(top: Path) -> None:
    """Remove what :func:`_nest` made, deepest first (pytest's own clean-up
    recurses, and 1,100 levels are past its limit on 3.11)."""
    levels = [top]
    while (levels[-1] / "d").is_dir():
        levels.append(levels[-1] / "d")
    for level in reversed(levels[1:]):
        for child in level.iterdir():
            if not child.is_dir():
                child.unlink()
        level.rmdir()


def test_1100_nested_directories_are_walked_not_crashed(world: Path) -> None:
    """Issue 22 #3: RecursionError in pathlib's rglob (routing check's agents)
    and in ingest-lint's own walk, exit 1, which CI reads as findings. One
    tree for both (it is slow to build and to remove): an agent file that is
    also an ingest artifact, 1,100 directories down."""
    agents = world / "p" / ".claude" / "agents"
    _nest(agents, 1100, "helper.md", "---\nname: helper\nmishkan: ingest\nkind: note\n---\n# x\n")
    try:
        done = mishkan(world, "routing", "check", "--project", str(world / "p"))
        assert done.code == 1 and "Traceback" not in done.stderr, done.stderr
        assert re.search(r"routing check: \d+ finding\(s\)", done.stderr)
        done = mishkan(world, "ingest-lint", str(agents))
        assert done.code == 0 and "Traceback" not in done.stderr, done.stderr
        assert "(1 artifact(s) checked" in done.stdout
    finally:
        _unnest(agents)


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("1" * 5000, "a number of 5000 digits (at most 100)"),
     ("[" * 100_000, "nests deeper than 64 levels")],
    ids=["5000-digits", "100k-deep"],
)  # fmt: skip
@pytest.mark.parametrize("command", ["routing", "install", "uninstall"])
def test_an_agent_name_past_the_bounds_is_one_line(
    world: Path, name: str, fragment: str, command: str
) -> None:
    """``name:`` of 5,000 digits: ValueError from int(); 100k ``[``: RecursionError."""
    p = world / "p"
    (p / ".claude" / "agents").mkdir(parents=True)
    (p / ".claude" / "agents" / "zadok.md").write_text(f"---\nname: {name}\n---\nbody\n")
    if command == "routing":
        done = mishkan(world, "routing", "check", "--project", str(p))
    else:
        extra = ["--uninstall"] if command == "uninstall" else []
        done = mishkan(world, "install", "--project", str(p), "--python", PYTHON, *extra)
    done.one_line_exit_2(fragment)
    assert "zadok.md" in done.stderr


def test_settings_with_raw_and_escaped_non_ascii_and_a_duplicate_key_install(world: Path) -> None:
    """Raw "é", an escaped lone surrogate and a duplicate key: the splice
    cannot keep the text, the re-serialisation kept ensure_ascii=False, and
    encoding the surrogate raised UnicodeEncodeError."""
    p = world / "p"
    (p / ".claude").mkdir()
    settings = p / ".claude" / "settings.json"
    original = '{"hooks": {}, "a": "é", "b": "\\ud800", "hooks": {}}\n'
    settings.write_text(original, encoding="utf-8")
    done = mishkan(world, "install", "--project", str(p), "--python", PYTHON)
    assert done.code == 0 and "Traceback" not in done.stderr, done.stderr
    text = settings.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert doc["a"] == "é" and doc["b"] == "\ud800" and "\\ud800" in text
    assert len(doc["hooks"]["PreToolUse"]) == 1
    done = mishkan(world, "install", "--project", str(p), "--uninstall")
    assert done.code == 0 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(settings.read_text(encoding="utf-8")) == json.loads(original)


# --------------------------------------------------------------------------- #
# 4. settings regexes never run unbounded


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_catastrophic_matcher_is_a_finding_not_a_hang(world: Path, event: str) -> None:
    """Issue 22 #4: ``(\\w|\\w|\\w)*!`` made routing check run re.search on
    ``mcp__graphify__query_graph``: about 3^26 steps. It never finished."""
    p = world / "p"
    hooks = {event: [{"matcher": r"(\w|\w|\w)*!", "hooks": [{"type": "command",
                                                           "command": _ours()}]}]}  # fmt: skip
    _settings(p, hooks)
    started = time.monotonic()
    done = mishkan(world, "routing", "check", "--project", str(p), timeout=60)
    assert time.monotonic() - started < 60
    assert done.code == 1, done.stderr
    finding = next(line for line in done.stdout.splitlines() if "catastrophically" in line)
    assert f"{event} matcher '(\\\\w|\\\\w|\\\\w)*!' backtracks catastrophically" in finding
    assert "more than 1000000 backtracking steps" in finding


# --------------------------------------------------------------------------- #
# 5. ingest-lint walks that cannot explode


def test_a_40_level_symlink_fan_out_is_walked_once(world: Path) -> None:
    """Issue 22 #5: ``L_i/a`` and ``L_i/b`` both link to ``../L_{i+1}``: the
    walk visited 2^40 paths (it refused only links back to an ancestor)."""
    p = world / "p"
    (fan_out(p) / "note.md").write_text("---\nmishkan: ingest\nkind: note\n---\n# note\n")
    done = mishkan(world, "ingest-lint", str(p), timeout=60)
    assert done.code == 0, done.stderr
    assert "(1 artifact(s) checked" in done.stdout


def test_ingest_lint_stays_inside_the_tree_it_was_given(world: Path) -> None:
    p = world / "p"
    (world / "victim_dir" / "secret.md").write_text("---\nmishkan: ingest\n---\nSECRET\n")
    (p / "docs").mkdir()
    (p / "docs" / "out").symlink_to("../../victim_dir")
    (p / "docs" / "key.md").symlink_to("../../victim_dir/secret.md")
    done = mishkan(world, "ingest-lint", str(p / "docs"))
    assert done.code == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("IL906") == 2 and "SECRET" not in done.stdout + done.stderr
    done = mishkan(world, "ingest-lint", "--follow-outside", str(p / "docs"))
    assert done.code == 0, done.stderr  # told otherwise: linted (once: one real file)
    assert "(1 artifact(s) checked" in done.stdout


def test_ingest_lint_limits_files_and_bytes(world: Path) -> None:
    p = world / "p"
    for i in range(5):
        (p / f"n{i}.md").write_text("x" * 100)
    mishkan(world, "ingest-lint", str(p), "--max-files", "3").one_line_exit_2(
        "more than 3 files to lint"
    )
    mishkan(world, "ingest-lint", str(p), "--max-total-bytes", "250").one_line_exit_2(
        "more than 250 bytes to lint"
    )
    assert mishkan(world, "ingest-lint", str(p), "--max-files", "5").code == 0


# --------------------------------------------------------------------------- #
# 6. terminal output is escaped; printed fixes are safe to paste

HOSTILE = "x\x1b]52;c;aGk=\x07\x1b[2K\rrouting check: clean\x9b2J\u202e"


def _no_controls(done: Done, shown: str = "\\u001b]52;c;aGk=\\u0007\\u001b[2K\\u000d") -> None:
    """Nothing a terminal acts on, and the hostile text visible as escapes."""
    for stream in (done.out, done.err):
        for control in CONTROLS:
            assert control not in stream, (control, stream[-400:])
    assert shown in done.stdout + done.stderr


def test_routing_check_escapes_hook_commands(world: Path) -> None:
    """Issue 22 #6: hook commands from settings were printed verbatim."""
    command = f"graphify hook-guard {HOSTILE}"
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}
    _settings(world / "p", hooks)
    done = mishkan(world, "routing", "check", "--project", str(world / "p"))
    assert done.code == 1
    _no_controls(done)


def test_metrics_escapes_session_ids(world: Path) -> None:
    directory = world / "p" / ".mishkan" / "telemetry"
    directory.mkdir(parents=True)
    line = {"v": 1, "ts": time.time(), "event": "session_start", "session": HOSTILE,
            "mode": "advise", "source": "startup"}  # fmt: skip
    (directory / "s.jsonl").write_text(json.dumps(line) + "\n")
    for fmt in ("text", "markdown", "json"):
        done = mishkan(world, "metrics", "--telemetry-dir", str(directory), "--format", fmt)
        assert done.code == 0, done.stderr
        if fmt == "json":  # JSON escapes C0 itself; C1 and bidi stay JSON escapes
            _no_controls(done, shown="\\u009b2J\\u202e")
            assert list(json.loads(done.stdout)["per_session"]) == [HOSTILE]
        else:  # markdown neutralises its table cells itself
            _no_controls(done, shown="" if fmt == "markdown" else "\\u001b]52")


def test_install_dry_run_diff_is_escaped(world: Path) -> None:
    """The diff shows agent files' lines, which may hold raw controls (JSON
    cannot: a settings file holds them as escapes already)."""
    agents = world / "p" / ".claude" / "agents"
    agents.mkdir(parents=True)
    for agent in ("hizkiah", "salma", "oholiab", "nathan", "zadok"):
        (agents / f"{agent}.md").write_text(f"---\nname: {agent}\ndescription: {HOSTILE}\n---\n")
    done = mishkan(world, "install", "--project", str(world / "p"), "--python", PYTHON,
                   "--scope", "agents", "--dry-run")  # fmt: skip
    assert done.code == 0, done.stderr
    assert "+hooks:" in done.stdout
    _no_controls(done)


def test_ingest_lint_escapes_file_names(world: Path) -> None:
    """A name with ESC and one that is not UTF-8 (printing it raised
    UnicodeEncodeError under a UTF-8 locale)."""
    p = os.fsencode(world / "p")
    with open(p + b"/x\x1b]52;c;aGk=\x07\x1b[2K\rrouting check: clean.md", "wb") as f:
        f.write(b"\xff binary\n")
    with open(p + b"/y\xff.md", "wb") as f:
        f.write(b"\xff binary\n")
    done = mishkan(world, "ingest-lint", str(world / "p"))
    assert done.code == 2 and "Traceback" not in done.stderr, done.stderr
    _no_controls(done)
    assert "y\\udcff.md" in done.stdout + done.stderr


def _stub(world: Path, name: str) -> Path:
    """A program that records its argv, one word a line, and does nothing else."""
    log = world / f"{name}.argv"
    _script(world / "stubs" / name, f"printf '%s\\n' \"$@\" > {log}")
    return log


def _paste(world: Path, command: str) -> None:
    """Paste ``command`` into a real shell, in a scratch directory, with only
    the stubs and the system's programs on PATH."""
    scratch = world / "scratch"
    scratch.mkdir(exist_ok=True)
    env = {"PATH": f"{world / 'stubs'}:/usr/bin:/bin", "HOME": str(world / "home")}
    subprocess.run(["/bin/sh", "-c", command], cwd=scratch, env=env, check=False, timeout=30)


def test_a_printed_interpreter_fix_is_safe_to_paste(world: Path) -> None:
    """Issue 22 #7: ``/usr/$(touch X)/python3.9`` passed the interpreter checks
    and the fix printed ``mishkan install --python /usr/$(touch X)/python3.9``."""
    p = world / "p"
    interpreter = "/usr/$(touch X)/python3.9"
    hook = p / "payload" / "mishkan" / "hooks" / "graphify_nudge.py"
    hook.parent.mkdir(parents=True)
    hook.write_text("# the hook\n")
    handler = {"type": "command", "command": _ours(interpreter)}
    _settings(p, {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]})
    done = mishkan(world, "routing", "check", "--project", str(p))
    fixes = [
        command
        for line in done.stdout.splitlines()
        if "interpreter is Python 3.9" in line
        for command in re.findall(r"`([^`]*)`", line.partition("; fix: ")[2])
    ]
    assert fixes, done.stdout
    log = _stub(world, "mishkan")
    for command in fixes:
        _paste(world, command)
        assert not (world / "scratch" / "X").exists(), command
        assert log.read_text().splitlines() == ["install", "--python", interpreter]


def test_a_printed_chmod_fix_is_safe_to_paste(world: Path) -> None:
    """The refresh check's ``chmod +x <hooks dir>/post-commit``: the hooks
    directory is the repository's (``core.hooksPath``)."""
    p = world / "p"
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    hooks = p / "hooks$(touch Y)"
    hooks.mkdir()
    subprocess.run(["git", "-C", str(p), "config", "core.hooksPath", hooks.name], check=True)
    post_commit = hooks / "post-commit"
    post_commit.write_text("#!/bin/sh\n# graphify-hook-start\n# graphify-hook-end\n")
    post_commit.chmod(0o644)
    done = mishkan(world, "routing", "check", "--project", str(p))
    line = next(line for line in done.stdout.splitlines() if "is not executable" in line)
    command = line.partition("; fix: ")[2]
    assert command.startswith("chmod +x "), line
    _paste(world, command)
    assert not (world / "scratch" / "Y").exists() and not (p / "Y").exists()
    assert os.access(post_commit, os.X_OK)


# --------------------------------------------------------------------------- #
# 7. a shim in the clone's version files never chooses the interpreter


def test_a_shim_is_resolved_outside_the_clone(world: Path) -> None:
    """An asdf/mise shim picks what it runs from the version files of its
    working directory (mise's ``path:`` versions can name a file in the clone).
    install probed the shim inside the project: the clone chose, and ran."""
    p = world / "p"
    marker = world / "evil-ran"
    _script(p / "tools" / "python3", f'touch "{marker}"\nexec {PYTHON} "$@"')
    (p / ".tool-versions").write_text("./tools/python3\n")
    shim = _script(
        world / "home" / ".asdf" / "shims" / "python3",
        f'if [ -f .tool-versions ]; then exec "$(cat .tool-versions)" "$@"; fi\nexec {PYTHON} "$@"',
    )
    done = mishkan(world, "install", "--project", str(p), "--python", str(shim))
    assert done.code == 0, done.stderr
    assert not marker.exists()
    assert "registering the interpreter it runs outside the project" in done.stderr
    config = world / "home" / ".config" / "mishkan" / "graphify-nudge.conf"
    assert f"python={PYTHON}\n" in config.read_text()  # this machine's, outside the clone


# --------------------------------------------------------------------------- #
# 8. nothing install reads back from the repository is its own record (issue 31)

PWNED = "touch /tmp/PWNED"
#: a handler install's "ours" test accepts (it names the hook), running anything
LOOKALIKE = {"matcher": "*", "hooks": [{"type": "command", "command": f"{PWNED} # graphify_nudge"}]}
AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")


def _registered(hooks_ref: str = '"$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"') -> str:
    """Settings with our registration, as a team commits an install."""
    command = f"{shlex.quote(PYTHON)} -I -S -c '{IMPORT_CODE}' {hooks_ref} --mode=advise"
    handler = {"type": "command", "command": command}
    return json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]}}) + "\n"


def _plant_agents(p: Path) -> None:
    for agent in AGENTS:
        _write(p / ".claude" / "agents" / f"{agent}.md", f"---\nname: {agent}\n---\nbody\n")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _agent_text(p: Path) -> None:
    """The reported attack: the record's "before" for hizkiah carries a hook."""
    _plant_agents(p)
    evil = f"---\nname: hizkiah\nhooks:\n  PreToolUse:\n    - {json.dumps(LOOKALIKE)}\n---\nbody\n"
    record = {".claude/agents/hizkiah.md": {"before": evil, "after": "0" * 64}}
    _write(p / ".mishkan" / "install.json", json.dumps({"v": 1, "agents": record}))


def _settings_backup(p: Path) -> None:
    """A committed registration and a "pre-install copy" beside it with a look-alike hook."""
    _write(p / ".claude" / "settings.json", _registered())
    _write(p / ".claude" / "settings.json.mishkan-backup",
           json.dumps({"hooks": {"PreToolUse": [LOOKALIKE]}}))  # fmt: skip


def _plugin_backup(p: Path) -> None:
    _write(p / ".claude-plugin" / "plugin.json", '{"name": "harness"}\n')
    _write(p / "hooks" / "hooks.json", _registered('"${CLAUDE_PLUGIN_ROOT}/hooks"'))
    _write(p / "hooks" / "hooks.json.mishkan-backup",
           json.dumps({"hooks": {"PreToolUse": [LOOKALIKE]}}))  # fmt: skip


def _gitignore_lines(p: Path) -> None:
    """The user's own ignore lines, which a planted record says install added."""
    _write(p / ".gitignore", ".graphify/\n.mishkan/\n")
    _write(p / ".mishkan" / "install.json", json.dumps({"v": 1, "gitignore": {
        "added": [".graphify/", ".mishkan/"], "created": True, "terminated": True}}))  # fmt: skip


def _graph_link(p: Path) -> None:
    """The user's own graph link and directory, which a planted record says install made."""
    (p / ".graphify").mkdir()
    (p / "graphify-out").symlink_to(".graphify")
    _write(p / ".mishkan" / "install.json",
           json.dumps({"v": 1, "layout": {"link": True, "directory": True}}))  # fmt: skip


def _hook_files(p: Path) -> None:
    """The user's own hook file (uninstall alone), which a planted record claims."""
    mine = "# my own graphify_nudge\n"
    _write(p / "payload" / "mishkan" / "hooks" / "graphify_nudge.py", mine)
    digest = hashlib.sha256(mine.encode()).hexdigest()
    _write(p / ".mishkan" / "install.json", json.dumps(
        {"v": 1, "files": {"payload/mishkan/hooks/graphify_nudge.py": digest}}))  # fmt: skip


#: what a clone plants, and the maintainer's commands after it
PLANTED = {
    "agent-text": (_agent_text, [["install", "--scope", "agents"], ["install", "--uninstall"]]),
    "settings-backup": (_settings_backup, [["install"], ["install", "--uninstall"]]),
    "plugin-backup": (_plugin_backup, [["install", "--scope", "plugin", "--plugin-dir", "{p}"],
                                       ["install", "--scope", "plugin", "--plugin-dir", "{p}",
                                        "--uninstall"]]),
    "gitignore-lines": (_gitignore_lines, [["install"], ["install", "--uninstall"]]),
    "graph-link": (_graph_link, [["install"], ["install", "--uninstall"]]),
    "hook-files": (_hook_files, [["install", "--uninstall"]]),
}  # fmt: skip
PLANTS = (".mishkan/install.json", ".claude/settings.json.mishkan-backup",
          "hooks/hooks.json.mishkan-backup")  # fmt: skip


def _outcome(world: Path, name: str, plant: bool) -> dict[str, bytes | str]:
    """The project after the maintainer's commands, with or without the planted
    record (the planted files themselves left out of the comparison)."""
    build, commands = PLANTED[name]
    p = world / ("planted" if plant else "clean")
    p.mkdir()
    build(p)
    if not plant:
        for rel in PLANTS:
            (p / rel).unlink(missing_ok=True)
    for argv in commands:
        args = [a.replace("{p}", str(p)) for a in argv]
        if "--plugin-dir" not in args:
            args += ["--project", str(p)]
        done = mishkan(world, *args, "--python", PYTHON)
        assert done.code == 0 and "Traceback" not in done.stderr, done.stderr
    found = _tree_of(p)
    return {rel: v for rel, v in found.items() if rel not in PLANTS and rel != ".mishkan"}


def _tree_of(root: Path) -> dict[str, bytes | str]:
    from tests.install._tree import tree

    return tree(root)


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_install_record_changes_nothing_uninstall_does(world: Path, name: str) -> None:
    """Issue 31, finding 1 and its class: whatever a clone plants as install's
    own record (.mishkan/install.json: agent texts, file hashes, .gitignore
    lines, the graph link; the settings and plugin backups), install then
    uninstall, run by the console script, leave the project exactly as they
    leave it without the plant, and never write its text. Before, uninstall
    wrote the planted agent file (a hook running any command) or settings
    backup, and removed the user's own ignore lines, link and hook file."""
    with_plant = _outcome(world, name, plant=True)
    without = _outcome(world, name, plant=False)
    assert with_plant == without
    assert not any(PWNED.encode() in v for v in with_plant.values() if isinstance(v, bytes))


# --------------------------------------------------------------------------- #
# 9. every failure of the index builder is recorded and backs off (issue 31)

#: a node graphify 0.9.96 writes, for shapes built around it
NODE = {"id": "a", "label": "a()", "norm_label": "a()", "source_file": "a.py",
        "source_location": "L1", "file_type": "code"}  # fmt: skip
LINK = {"source": "a", "target": "a", "relation": "calls", "source_file": "a.py",
        "source_location": "L1"}  # fmt: skip
_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=8,
)  # fmt: skip


def _shaped(template: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """``template`` with any of its keys left out and any value replaced: by
    the same value in a list or an object (what graphify never writes there),
    or by any JSON."""

    def values(value: Any) -> st.SearchStrategy[Any]:
        wrapped = st.lists(st.just(value), min_size=1, max_size=2) | st.just({"id": value})
        return st.just(value) | wrapped | _ANY_JSON

    required: dict[str, st.SearchStrategy[Any]] = {}
    return st.fixed_dictionaries(
        required, optional={key: values(value) for key, value in template.items()}
    )


_GRAPH_KEYS: dict[str, st.SearchStrategy[Any]] = {
    "links": st.lists(_shaped(LINK) | _ANY_JSON, max_size=4) | _ANY_JSON,
    "edges": st.lists(_shaped(LINK), max_size=2),
    "graph": _ANY_JSON | st.fixed_dictionaries({"graphify_version": _ANY_JSON}),
    "built_at_commit": st.text(max_size=12),
}
_NODES: dict[str, st.SearchStrategy[Any]] = {
    "nodes": st.lists(_shaped(NODE) | _ANY_JSON, max_size=4)
}
GRAPHS = st.one_of(_ANY_JSON, st.fixed_dictionaries(_NODES, optional=_GRAPH_KEYS))


def _attempt(p: Path) -> str:
    index = p / ".mishkan" / "telemetry" / ".index"
    found = sorted(index.glob("*.attempt")) if index.is_dir() else []
    return found[0].read_text() if found else ""


@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=GRAPHS)
@example(graph={"nodes": [NODE], "links": [{**LINK, "source": ["a"]}]})  # the reported one
@example(graph={"nodes": [NODE], "links": [{**LINK, "relation": ["contains"]}]})
def test_graph_index_is_built_or_one_line_whatever_graph_json_holds(
    world: Path, graph: Any
) -> None:
    """Issue 31, finding 2, as a property over graph shapes: a link whose
    `source` was a list raised TypeError, which nothing caught (a traceback,
    exit 1, and the attempt left "building", so the hook retried every ten
    minutes). Now: built, or exit 2 with one line and the attempt "failed: why"."""
    p = world / "p"
    shutil.rmtree(p / ".mishkan", ignore_errors=True)
    (p / ".graphify").mkdir(exist_ok=True)
    (p / ".graphify" / "graph.json").write_text(json.dumps(graph))
    done = mishkan(world, "graph-index", "--project", str(p))
    if done.code == 0:
        assert done.stdout.startswith("graph index built: ") and done.stderr == ""
        assert _attempt(p).endswith("\tbuilt")
    else:
        done.one_line_exit_2("mishkan graph-index: ")
        assert "\tfailed: " in _attempt(p) or "no `nodes` list" in done.stderr or (
            "graph.json" in done.stderr)  # fmt: skip
        assert len(_attempt(p)) < 600


@pytest.mark.parametrize(
    "graph",
    [{"nodes": [NODE], "links": [{**LINK, "source": ["a"]}]},
     {"nodes": [NODE], "links": [{**LINK, "relation": ["contains"]}]},
     {"nodes": [NODE], "links": [{**LINK, "target": {"id": "a"}}]}],
    ids=["list-source", "list-relation", "object-target"],
)  # fmt: skip
def test_a_failed_build_is_recorded_and_the_hook_waits_a_day(world: Path, graph: Any) -> None:
    """The process the hook spawns, on the graphs of finding 2: its attempt
    says `failed: <why>`, and the installed hook, called again eleven minutes
    later (past the ten of a build that left no word), spawns no new build
    (docs/hook.md: a failed graph version is retried after a day)."""
    from tests.hook.conftest import hook_input

    p = world / "p"
    (p / ".graphify").mkdir()
    (p / ".graphify" / "graph.json").write_text(json.dumps(graph))
    (p / "a.py").write_text("def a():\n    pass\n")
    assert mishkan(world, "install", "--project", str(p), "--python", PYTHON).code == 0
    command = json.loads((p / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    registered = command[-1]["hooks"][0]["command"]

    def call() -> None:
        stdin = json.dumps(hook_input(p, "Read", {"file_path": str(p / "a.py")}))
        subprocess.run(["/bin/sh", "-c", registered], input=stdin.encode(), cwd=str(p),
                       env=_env(world, CLAUDE_PROJECT_DIR=str(p)), capture_output=True,
                       timeout=60, check=True)  # fmt: skip

    call()
    deadline = time.monotonic() + 60
    while "\tfailed: " not in _attempt(p):
        assert time.monotonic() < deadline, f"no failure recorded: {_attempt(p)!r}"
        time.sleep(0.1)
    attempt = next((p / ".mishkan" / "telemetry" / ".index").glob("*.attempt"))
    eleven_minutes_ago = time.time() - 660
    os.utime(attempt, (eleven_minutes_ago, eleven_minutes_ago))
    call()
    time.sleep(1.0)  # a spawned builder would have written "spawned" at once
    assert "\tfailed: not a graph this builder reads" in attempt.read_text()
    assert abs(attempt.stat().st_mtime - eleven_minutes_ago) < 1


# --------------------------------------------------------------------------- #
# 10. output is bounded by input (tests/test_output_bounds.py, every command);
# repository names in Markdown are text, not markup (issue 31)

HTML_NAME = '<img src="https://evil.example/p.png" onerror="alert(1)">'
LINK_NAME = "[review approved](https://evil.example)"


def test_names_from_the_repository_are_text_in_markdown(world: Path) -> None:
    """The trend's Markdown (a note for the sprint review, pasted into a PR)
    printed a sprint or agent name from a report as it was: raw HTML and links
    GitHub renders. The same for metrics' verdict lines (an off session's id)."""
    reports = world / "p" / "reports"
    reports.mkdir()
    counts = {"nudges": 1, "nudges_respected": 0, "triggers": 1, "triggers_consulted": 0}
    figures = json.dumps({"v": 1, **counts, "per_agent": {LINK_NAME: counts}})
    (reports / "s1.md").write_text(
        f"---\nsprint: {json.dumps(HTML_NAME)}\ngenerator: mishkan sprint-close\n"
        f"until: 2026-03-01\nphase: 2\nfigures: {figures}\n---\n"
    )
    telemetry = world / "p" / "telemetry"
    telemetry.mkdir()
    line = {"v": 1, "ts": 1.0, "event": "session_start", "session": HTML_NAME, "mode": "off"}
    (telemetry / "s.jsonl").write_text(json.dumps(line) + "\n")
    trend = mishkan(world, "metrics", "--trend", str(reports), "--format", "markdown")
    report = mishkan(world, "metrics", "--telemetry-dir", str(telemetry), "--transcripts",
                     "none", "--format", "markdown")  # fmt: skip
    for done in (trend, report):
        assert done.code == 0, done.stderr
        outside_code = re.sub(r"`[^`\n]*`", "", done.stdout)  # code spans hold no markup
        assert re.search(r"(?<!\\)<img", outside_code) is None, done.stdout
        assert re.search(r"(?<!\\)\]\(https://evil", outside_code) is None, done.stdout
        assert "\\<img" in done.stdout
    assert "\\[review approved\\](https://evil.example)" in trend.stdout
