"""Issue 29's "Done when": a newcomer's steps, as docs/install.md writes them,
on a real third-party project, with the real graphify at both ends of the
supported range and the real Claude Code CLI.

The project is a PyPI sdist (itsdangerous 2.2.0, pinned by version and
sha256, downloaded once into the e2e cache, never committed), made into a git
repository as a clone is, with MISHKAN's hizkiah agent. The test reads the
``console`` block under docs/install.md's first-contact marker and runs every
``$`` line through ``/bin/sh`` in the project, exactly as written: the doc and
the test cannot drift. Then it checks what a user would meet:

* the graph covers at least 90% of the project's tracked source files (git's
  own list, and the graph parsed whole: neither is this package's reader) and
  none of the hook's files;
* the steps install printed are the doc's;
* the first advisory for the project's main class, through the real CLI,
  names its definition (found by ``ast``) and every command it suggests exits 0;
* a second install with another HOME and another interpreter leaves
  ``settings.json`` byte-identical and ``git status`` clean; every registered
  command is at most 200 characters and names no path of one machine;
* with ``payload/`` missing, the registered command exits 0 with nothing on
  stdout or stderr, for each event, with the inputs the CLI sends;
* after a comment-only commit, no advisory says "stale" (issue 29 item 5:
  i30-answer's change; this test fails without it).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench import _env
from bench import advice_accuracy_projects as projects
from mishkan_core import graph_coverage, hook_chain, machine_config
from tests.e2e.cli_install import CACHE_DIR, graphify_bin_dir
from tests.e2e.graphify_axis import Release
from tests.e2e.harness import (
    AGENT_FILE,
    GIT_ENV,
    MARKER,
    Claude,
    Project,
    ScenarioRun,
    run,
    run_scenario,
)
from tests.e2e.stub_api import Text, ToolUse
from tests.event_inputs import inputs

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
DOC = REPO_ROOT / "docs" / "install.md"
STEPS_MARKER = "<!-- first-contact steps:"
#: the third-party project: a PyPI sdist, pinned
REQUIREMENT = "itsdangerous==2.2.0"
ARCHIVE = "itsdangerous-2.2.0.tar.gz"
SHA256 = "e0050c0b7da1eea53ffaf149c0cfbb5c6e2e2b69c4bef22c81fa6eb73e5f6173"
TOP = "itsdangerous-2.2.0"
#: its main class, and the file that defines it
MAIN_CLASS = "Signer"
MAIN_FILE = "src/itsdangerous/signer.py"
MIN_COVERAGE = 0.9
BACKTICKED = re.compile(r"`([^`]+)`")
#: graphify's detached commit rebuild of this project takes a few seconds; a loaded machine more
REBUILD_DEADLINE = 180.0
#: the hook's background index build of this project: well under a second; a loaded machine more
INDEX_DEADLINE = 60.0


def doc_steps() -> list[str]:
    """The ``$`` lines of the console block after the first-contact marker."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split(STEPS_MARKER, 1)[1].split("```console\n", 1)[1].split("\n```", 1)[0]
    steps = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    assert steps and steps[0].startswith("mishkan install"), steps
    return steps


def another_python() -> str:
    """An interpreter other than the one running mishkan, as a teammate has."""
    for version in ("3.12", "3.13", "3.10", "3.9"):
        try:
            found = _env.discover(version).path
        except _env.SetupError:
            continue
        if found != os.path.realpath(sys.executable):
            return found
    pytest.fail("no second Python 3.9+ for the teammate's install", pytrace=False)


@dataclass
class FirstContact:
    project: Project
    release: Release
    outputs: dict[str, str]  # step -> its stdout and stderr

    @property
    def repo(self) -> Path:
        return self.project.repo

    def env(self, **extra: str) -> dict[str, str]:
        """The user's shell: graphify first on PATH, then this env's mishkan."""
        path = f"{graphify_bin_dir()}:{Path(sys.executable).parent}:/usr/bin:/bin"
        return {"PATH": path, "HOME": str(self.project.home), "LANG": "C.UTF-8", **GIT_ENV,
                **extra}  # fmt: skip

    def commands(self) -> set[str]:
        doc = json.loads((self.repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
        return {str(h.command) for h in hook_chain.ours(doc["hooks"])}

    def registered(self, data: dict[str, Any], **env: str) -> subprocess.CompletedProcess[bytes]:
        """The registered command through /bin/sh, as the CLI starts it."""
        (command,) = self.commands()
        return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data).encode(),
                              env=self.env(CLAUDE_PROJECT_DIR=str(self.repo), **env),
                              cwd=str(self.repo), capture_output=True, timeout=120,
                              check=False)  # fmt: skip


def fresh_clone(root: Path) -> Project:
    """The sdist as a clone: a git repository with one commit, and MISHKAN's agent."""
    archive = projects.fetch("pip", REQUIREMENT, ARCHIVE, SHA256, CACHE_DIR / "first-contact")
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(root, filter="data")
        else:  # its sha256 was checked
            tar.extractall(root)
    project = Project(root)
    (root / TOP).rename(project.repo)
    agents = project.repo / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "hizkiah.md").write_text(AGENT_FILE, encoding="utf-8")
    project.home.mkdir()
    project.telemetry.mkdir()
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "import"]):
        run(["git", *argv], cwd=project.repo, env={"PATH": "/usr/bin:/bin", **GIT_ENV})
    return project


@pytest.fixture(scope="module")
def first_contact(
    graphify_release: Release, tmp_path_factory: pytest.TempPathFactory
) -> FirstContact:
    root = tmp_path_factory.mktemp(f"first-contact-{graphify_release.version}")
    contact = FirstContact(fresh_clone(root), graphify_release, {})
    for step in doc_steps():
        done = run(["/bin/sh", "-c", step], cwd=contact.repo, env=contact.env())
        contact.outputs[step] = done.stdout + done.stderr
    return contact


def test_install_prints_the_steps_the_doc_gives(first_contact: FirstContact) -> None:
    (install,) = [out for step, out in first_contact.outputs.items() if "mishkan install" in step]
    lines = install.splitlines()
    printed = [
        lines[i + 1].strip().split(" && ", 1)[1]
        for i, line in enumerate(lines)
        if re.match(r"  \d\. ", line)
    ]
    assert printed == [s for s in doc_steps() if s.startswith("graphify ")], install
    assert all(lines[i + 1].strip().startswith(f"cd {first_contact.repo} && ")
               for i, line in enumerate(lines) if re.match(r"  \d\. ", line))  # fmt: skip


def _tracked_sources(repo: Path) -> set[str]:
    """git's own list of tracked, non-empty source files the hook advises on."""
    listed = run(["git", "ls-files", "-z"], cwd=repo, env={"PATH": "/usr/bin:/bin", **GIT_ENV})
    return {
        path
        for path in listed.stdout.split("\0")
        if path and graph_coverage.is_source(path) and (repo / path).stat().st_size > 0
    }


def test_the_graph_covers_the_project_s_code_and_none_of_the_hook_s(
    first_contact: FirstContact,
) -> None:
    repo = first_contact.repo
    graph = json.loads((repo / ".graphify" / "graph.json").read_text(encoding="utf-8"))
    in_graph = {n["source_file"] for n in graph["nodes"] if n.get("source_file")}
    hook_files = {
        p.relative_to(repo).as_posix() for p in (repo / hook_chain.DEFAULT_HOOKS_DIR).iterdir()
    }
    shipped = (hook_chain.HOOK_FILE, hook_chain.BUILDER_FILE, hook_chain.SHIM_FILE)
    assert hook_files == {f"{hook_chain.DEFAULT_HOOKS_DIR}/{name}" for name in shipped}
    assert not in_graph & hook_files
    assert not any(f.startswith("payload/") for f in in_graph)
    sources = _tracked_sources(repo) - hook_files
    covered = sources & in_graph
    assert len(covered) >= MIN_COVERAGE * len(sources), sorted(sources - covered)
    # this package's reader (the git index, the graph scanned) says the same
    measured = graph_coverage.measure(repo, repo / ".graphify" / "graph.json",
                                      [hook_chain.DEFAULT_HOOKS_DIR])  # fmt: skip
    assert measured is not None
    assert (measured.covered, measured.total, measured.hook_files) == (
        len(covered),
        len(sources),
        [],
    )
    check = run(["mishkan", "routing", "check", "--project", str(repo)], cwd=repo,
                env=first_contact.env(), check=False)  # fmt: skip
    assert "graph-coverage" not in check.stdout, check.stdout


def test_every_registered_command_is_short_and_names_no_path_of_one_machine(
    first_contact: FirstContact,
) -> None:
    for command in first_contact.commands():
        assert len(command) <= 200, command
        machine = (str(first_contact.project.root), "/root", "/home/", sys.prefix,
                   os.path.realpath(sys.executable), "python", ".cache", ".config")  # fmt: skip
        for machine_path in machine:
            assert machine_path not in command, (machine_path, command)
        assert command.startswith('mode=advise hooks="$CLAUDE_PROJECT_DIR/'), command


def test_a_teammate_s_install_leaves_settings_byte_identical_and_git_clean(
    first_contact: FirstContact, tmp_path: Path
) -> None:
    repo = first_contact.repo
    settings = repo / ".claude" / "settings.json"
    committed = settings.read_bytes()
    python = another_python()
    teammate = tmp_path / "teammate-home"
    teammate.mkdir()
    install = doc_steps()[0] + f" --python {python}"
    done = run(["/bin/sh", "-c", install], cwd=repo, env=first_contact.env(HOME=str(teammate)))
    assert settings.read_bytes() == committed, done.stdout + done.stderr
    status = run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                 env={"PATH": "/usr/bin:/bin", **GIT_ENV})  # fmt: skip
    # graphify's own `hook install` wrote .gitattributes (its merge driver); nothing of install's
    assert [line for line in status.stdout.splitlines() if line != "?? .gitattributes"] == []
    config = machine_config.read({"HOME": str(teammate)})
    assert config is not None and config.python == python
    # and on the teammate's machine the same line runs the hook with their Python
    start = inputs(repo)["SessionStart"]
    telemetry = tmp_path / "telemetry"
    result = first_contact.registered(
        start, HOME=str(teammate), MISHKAN_TELEMETRY_DIR=str(telemetry)
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert [json.loads(line)["event"] for p in telemetry.glob("*.jsonl")
            for line in p.read_text().splitlines()] == ["session_start"]  # fmt: skip


def test_with_payload_missing_the_registered_command_exits_0_and_says_nothing(
    first_contact: FirstContact, tmp_path: Path
) -> None:
    """A branch without payload/, a partial checkout, a moved project: before
    issue 29, a traceback and exit 1 on every tool call."""
    clone = tmp_path / "branch"
    shutil.copytree(first_contact.repo, clone, symlinks=True)
    shutil.rmtree(clone / "payload")
    (command,) = first_contact.commands()
    for event, data in inputs(clone).items():
        done = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data).encode(),
                              env=first_contact.env(CLAUDE_PROJECT_DIR=str(clone)),
                              cwd=str(clone), capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), event


def _definition_line(repo: Path) -> int:
    """Where the main class is defined, by Python's own parser."""
    tree = ast.parse((repo / MAIN_FILE).read_text(encoding="utf-8"))
    (line,) = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == MAIN_CLASS
    ]
    return line


def _grep_session(contact: FirstContact, claude: Claude, name: str) -> ScenarioRun:
    script = {
        "main": [
            ToolUse(
                "launch",
                "Agent",
                {
                    "subagent_type": "hizkiah",
                    "description": f"Find {MAIN_CLASS}",
                    "prompt": f"Where is {MAIN_CLASS} defined?",
                },
            ),
            Text("done"),
        ],
        "sub": [
            ToolUse(
                "grep",
                "Grep",
                {
                    "pattern": f"class {MAIN_CLASS}",
                    "path": str(contact.repo),
                    "output_mode": "content",
                },
            ),
            Text(f"{MAIN_CLASS} is defined in {MAIN_FILE}."),
        ],
    }
    env = {"MISHKAN_TELEMETRY_DIR": str(contact.project.telemetry)}
    return run_scenario(name, contact.project, claude, "bypassPermissions", script=script,
                        extra_env=env)  # fmt: skip


def _commands_run(contact: FirstContact, advisory: str) -> list[tuple[str, int, str]]:
    out = []
    for command in BACKTICKED.findall(advisory):
        if command.startswith("graphify "):
            done = run(["/bin/sh", "-c", command], cwd=contact.repo, env=contact.env(), check=False)
            out.append((command, done.returncode, (done.stdout + done.stderr)[-400:]))
    return out


def _wait_for_the_index(telemetry: Path) -> None:
    """The index the hook's first trigger started building, built (its attempt says so)."""
    deadline = time.monotonic() + INDEX_DEADLINE
    while time.monotonic() < deadline:
        attempts = sorted((telemetry / ".index").glob("*.attempt"))
        if attempts and all(a.read_text().endswith("\tbuilt") for a in attempts):
            return
        time.sleep(0.1)
    raise AssertionError(f"the hook's index was not built: {telemetry}")


def _lines_name(repo: Path, advisory: str, name: str) -> list[str]:
    """The `Use:` and `Importer:` sites of an advisory whose line does not name `name`."""
    wrong = []
    for line in advisory.splitlines():
        site = re.match(r'(?:Use|Importer): "([^"]+):(\d+)"', line)
        if site:
            text = (repo / site.group(1)).read_text(encoding="utf-8").splitlines()
            if not re.search(rf"\b{name}\b", text[int(site.group(2)) - 1]):
                wrong.append(line)
    return wrong


def test_the_first_advisory_for_the_main_class_is_right_and_its_commands_run(
    first_contact: FirstContact, claude_bin: Claude, runs: list[ScenarioRun]
) -> None:
    """The agent's first Grep, right after the README's steps: the graph is
    built, its index not yet, so the hook says nothing it cannot stand by
    (silent, `no_index`: no command that fails, no nudge spent) and starts the
    index in the background; the next Grep gets the answer, and it is right:
    the definition where Python's parser puts it, each use line naming the
    class, and every command exiting 0."""
    tag = f"{first_contact.release.version}-{claude_bin.id}"
    # one project per graphify release, for both CLIs: each starts where a newcomer does
    shutil.rmtree(first_contact.project.telemetry / ".index", ignore_errors=True)
    first = _grep_session(first_contact, claude_bin, f"first-{tag}")
    runs.append(first)
    assert first.advisories_after("grep") == [], first.diagnostics()
    assert first.telemetry_call("grep")["reason"] == "no_index", first.diagnostics()
    _wait_for_the_index(first_contact.project.telemetry)
    scenario = _grep_session(first_contact, claude_bin, f"answer-{tag}")
    runs.append(scenario)
    advisories = scenario.advisories_after("grep")
    assert len(advisories) == 1 and advisories[0].startswith(MARKER), scenario.diagnostics()
    advisory = advisories[0]
    assert "payload/" not in advisory and "graphify_nudge" not in advisory, advisory
    definitions = re.findall(r'^Definition[^:]*: "([^"]+):(\d+)"', advisory, re.M)
    expected = (MAIN_FILE, str(_definition_line(first_contact.repo)))
    assert definitions == [expected], advisory
    assert _lines_name(first_contact.repo, advisory, MAIN_CLASS) == [], advisory
    ran = _commands_run(first_contact, advisory)
    assert ran and all(code == 0 for _c, code, _o in ran), ran


def _wait_for_the_commit_rebuild(contact: FirstContact, started: float) -> str:
    log = contact.project.home / ".cache" / "graphify-rebuild.log"
    while time.monotonic() < started + REBUILD_DEADLINE:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        if text.count("[graphify hook]") and (
            "updated" in text.rsplit("[graphify hook]", 1)[1]
            or "No code-graph topology changes" in text.rsplit("[graphify hook]", 1)[1]
        ):
            return text
        time.sleep(0.2)
    raise AssertionError(f"graphify's commit rebuild did not finish:\n{log}")


#: a plain comment of the project's, reworded in place: graphify 0.9.96
#: re-extracts the file, finds the same nodes and edges, and leaves the graph
#: and its built_at_commit as they were ("No code-graph topology changes
#: detected; outputs left untouched"); 0.8.31 rebuilds it at the new HEAD
COMMENT = ("src/itsdangerous/encoding.py", "# The alphabet used by base64.urlsafe_*")


def test_after_a_comment_only_commit_no_advisory_says_stale(first_contact: FirstContact) -> None:
    """Issue 29 item 5 (i30-answer's): graphify declares the commit unchanged
    and leaves built_at_commit behind; the graph still holds every definition."""
    repo = first_contact.repo
    path, comment = COMMENT
    text = (repo / path).read_text(encoding="utf-8")
    assert text.count(comment) == 1
    (repo / path).write_text(text.replace(comment, "# The alphabet of base64.urlsafe_*"))
    git_env = first_contact.env()
    run(["git", "add", path], cwd=repo, env=git_env)
    started = time.monotonic()
    run(["git", "commit", "-q", "-m", "a comment, reworded"], cwd=repo, env=git_env)
    _wait_for_the_commit_rebuild(first_contact, started)
    telemetry = first_contact.project.root / "telemetry-stale"
    data = inputs(repo)["PreToolUse"]
    data.update(session_id="stale-index", agent_type="hizkiah", agent_id="a",
                tool_name="Grep", tool_input={"pattern": MAIN_CLASS})  # fmt: skip
    assert first_contact.registered(data, MISHKAN_TELEMETRY_DIR=str(telemetry)).returncode == 0
    _wait_for_the_index(telemetry)  # the first trigger starts it; the answers need it
    advisories = []
    for n, name in enumerate((MAIN_CLASS, "Serializer", "want_bytes", "base64_decode")):
        data = inputs(repo)["PreToolUse"]
        data.update(session_id=f"stale-{n}", agent_type="hizkiah", agent_id=f"a{n}",
                    tool_name="Grep", tool_input={"pattern": name})  # fmt: skip
        done = first_contact.registered(data, MISHKAN_TELEMETRY_DIR=str(telemetry))
        assert done.returncode == 0
        advisories.append(done.stdout.decode())
    assert any(advisories), "no advisory at all"
    assert not [a for a in advisories if "stale" in a], advisories
