"""The end-to-end harness: a fixture repo, the hook install, one CLI run, its evidence.

One :class:`Project` is a temp directory with ``repo/`` (a fresh git repo made
from ``tests/e2e/fixture_repo``), ``home/`` (the CLI's ``HOME``),
``telemetry/`` (``MISHKAN_TELEMETRY_DIR``; outside the repo, so that the
scripted ``grep -rn`` never sees telemetry lines) and ``hook-stdin.jsonl`` (the
evidence hook's log). :func:`run_scenario` drives the real CLI against the
stub once and returns a :class:`ScenarioRun` holding everything the tests
assert on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mishkan_core import claude_cli
from tests.e2e.cli_install import REPO_ROOT, graphify_bin_dir
from tests.e2e.stub_api import SUBAGENT_MARKER, LoggedRequest, Script, StubAPI, Text, ToolUse

HERE = Path(__file__).resolve().parent
FIXTURE_REPO = HERE / "fixture_repo"
LOG_HOOK = HERE / "log_hook.py"

MARKER = "[graphify-nudge]"
SYMBOL = "apply_overlay"
SOURCE_REL = "src/overlay/core.py"  # read by hizkiah, before and after the lookup
MAIN_REL = "src/overlay/cli.py"  # read by the main agent
PROBE_REL = "src/overlay/util.py"  # never named by `graphify explain apply_overlay`
#: a Read trigger that writes a file: refused in default mode, run in bypass mode
PROBE_COMMAND = f"cat {PROBE_REL} > copy.txt"
PROBE_OUTPUT = "copy.txt"
LOOKUP_COMMAND = f'graphify explain "{SYMBOL}" --graph .graphify/graph.json'
PROMPT = f"Find where {SYMBOL} is defined and used."

#: every subprocess gets a generous timeout; a run takes a few seconds
CLI_TIMEOUT = 240
TOOL_TIMEOUT = 180

GIT_ENV = {
    "GIT_AUTHOR_NAME": "e2e",
    "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
    "GIT_COMMITTER_NAME": "e2e",
    "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    # fixed dates: every project gets the same commit shas, so that two runs'
    # tool results (graph.json names HEAD) can be compared byte for byte
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}

AGENT_FILE = f"""---
name: hizkiah
description: Backend implementation specialist. Use it for questions about backend code.
tools: Read, Grep, Bash
---
You are Hizkiah, the backend implementation specialist of the e2e fixture.
{SUBAGENT_MARKER}
"""

#: the calls of the scenario, in order; the keys name them in the tests
SUB_CALLS = ("read1", "grep", "bash_grep", "lookup", "read2", "probe")
MAIN_CALLS = ("main_read", "launch")


def scenario(repo: Path) -> dict[str, Script]:
    """The scripted conversation (issue 7), plus one permission probe at the end.

    main: Read a file, launch ``hizkiah`` through the ``Agent`` tool, finish.
    hizkiah: Read a source file, Grep a bare identifier, Bash ``grep -rn`` it,
    ``graphify explain`` it, Read the file again, then the probe (a Bash read of
    a file the lookup did not name, redirected into a new file), finish.
    """
    source = str(repo / SOURCE_REL)
    return {
        "main": [
            ToolUse("main_read", "Read", {"file_path": str(repo / MAIN_REL)}),
            ToolUse(
                "launch",
                "Agent",
                {
                    "subagent_type": "hizkiah",
                    "description": f"Find {SYMBOL}",
                    "prompt": f"Where is {SYMBOL} defined and who calls it?",
                },
            ),
            Text(f"{SYMBOL} is defined in {SOURCE_REL}."),
        ],
        "sub": [
            ToolUse("read1", "Read", {"file_path": source}),
            ToolUse(
                "grep", "Grep", {"pattern": SYMBOL, "path": str(repo), "output_mode": "content"}
            ),
            ToolUse(
                "bash_grep",
                "Bash",
                {"command": f"grep -rn {SYMBOL} .", "description": f"Search for {SYMBOL}"},
            ),
            ToolUse(
                "lookup",
                "Bash",
                {"command": LOOKUP_COMMAND, "description": f"Ask the code graph about {SYMBOL}"},
            ),
            ToolUse("read2", "Read", {"file_path": source}),
            ToolUse("probe", "Bash", {"command": PROBE_COMMAND, "description": "Copy util.py"}),
            Text(f"{SYMBOL} is defined in {source} and called from {repo / MAIN_REL}."),
        ],
    }


# --------------------------------------------------------------------------- #
# the CLI axis

#: what turns a background-capable CLI back to foreground subagents
FOREGROUND_ENV = {"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "1"}


@dataclass(frozen=True)
class Claude:
    """One CLI of the run's axis: a version and how its subagents run.

    ``foreground`` forces the pre-2.1.198 flow on a CLI that backgrounds its
    subagents (:data:`FOREGROUND_ENV`); on older CLIs every flow is the
    foreground one. ``binary`` is set by the fixture that installs it."""

    version: str
    foreground: bool = False
    binary: Path | None = field(default=None, compare=False)

    @property
    def background(self) -> bool:
        """Whether this run's subagents run in the background."""
        return not self.foreground and self.has("background_agents")

    def has(self, feature: str) -> bool:
        return claude_cli.has(self.version, feature)

    def env(self) -> dict[str, str]:
        return dict(FOREGROUND_ENV) if self.foreground else {}

    def __fspath__(self) -> str:
        if self.binary is None:
            raise RuntimeError(f"Claude Code {self.version} is not installed")
        return str(self.binary)

    def __str__(self) -> str:
        return self.__fspath__()

    @property
    def id(self) -> str:
        """The test id: ``cli-2.1.332`` or ``cli-2.1.332-foreground``."""
        return f"cli-{self.version}" + ("-foreground" if self.foreground else "")


def cli_variants(versions: tuple[str, ...], both_flows: bool) -> list[Claude]:
    """The axis: each version in its own flow, and with ``both_flows``, each
    background-capable one in the foreground flow too."""
    out = [Claude(v) for v in versions]
    if both_flows:
        out += [
            Claude(v, foreground=True) for v in versions if claude_cli.has(v, "background_agents")
        ]
    return out


# --------------------------------------------------------------------------- #
# processes


def run(
    cmd: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = TOOL_TIMEOUT,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"`{' '.join(cmd)}` (cwd {cwd}) exited {proc.returncode}\n"
            f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
        )
    return proc


def base_path() -> str:
    """PATH for everything the CLI starts: graphify's env first, then the system."""
    return f"{graphify_bin_dir()}:/usr/local/bin:/usr/bin:/bin"


def plugin_validate(
    claude: Claude | Path, plugin: Path, home: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    """``claude plugin validate [flags] PLUGIN`` with ``home`` as HOME (never the user's)."""
    return subprocess.run(
        [str(claude), "plugin", "validate", *flags, str(plugin)],
        capture_output=True, text=True, timeout=120, check=False,
        env={"HOME": str(home), "PATH": base_path(), "DISABLE_AUTOUPDATER": "1"},
    )  # fmt: skip


def git(
    repo: Path, *args: str, date: str | None = None, extra_env: dict[str, str] | None = None
) -> str:
    env = {"PATH": base_path(), "HOME": str(repo.parent), **GIT_ENV, **(extra_env or {})}
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return run(["git", *args], cwd=repo, env=env).stdout.strip()


def head_sha(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


# --------------------------------------------------------------------------- #
# the project


@dataclass
class Project:
    root: Path

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def telemetry(self) -> Path:
        return self.root / "telemetry"

    @property
    def hook_log(self) -> Path:
        return self.root / "hook-stdin.jsonl"

    @property
    def graph(self) -> Path:
        return self.repo / ".graphify" / "graph.json"

    def transcripts_dir(self) -> Path:
        """``$HOME/.claude/projects/<mangled repo path>``: every non-alphanumeric
        character of the path becomes ``-``."""
        mangled = "".join(c if c.isalnum() else "-" for c in str(self.repo))
        return self.home / ".claude" / "projects" / mangled


def make_project(root: Path) -> Project:
    """Copy the fixture into a fresh git repo with the hizkiah agent; one commit."""
    project = Project(root)
    shutil.copytree(FIXTURE_REPO, project.repo)
    (project.repo / ".gitignore").write_text(".graphify/\n.mishkan/\n", encoding="utf-8")
    agents = project.repo / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "hizkiah.md").write_text(AGENT_FILE, encoding="utf-8")
    project.home.mkdir()
    project.telemetry.mkdir()
    git(project.repo, "init", "-q", "-b", "main")
    git(project.repo, "add", "-A")
    git(project.repo, "commit", "-q", "-m", "fixture: initial import")
    return project


def commit_change(project: Project, extra_env: dict[str, str] | None = None) -> str:
    """A new commit (so an existing graph goes stale); returns the new HEAD.

    ``extra_env``: more of the committing shell's environment (its git hooks
    see it), e.g. ``GRAPHIFY_OUT``."""
    util = project.repo / PROBE_REL
    util.write_text(
        util.read_text(encoding="utf-8")
        + '\n\ndef shout(text: str) -> str:\n    return text.upper() + "!"\n',
        encoding="utf-8",
    )
    git(project.repo, "add", PROBE_REL)
    git(
        project.repo,
        "commit",
        "-q",
        "-m",
        "util: add shout",
        date="2026-01-02T00:00:00+0000",
        extra_env=extra_env,
    )
    return head_sha(project.repo)


def build_graph(project: Project, graphify: Path) -> dict[str, Any]:
    """``graphify extract . --code-only`` (``update .`` on a release whose
    extract needs an LLM key) with ``GRAPHIFY_OUT=.graphify``; returns graph.json."""
    from mishkan_core import graph_refresh

    env = {"PATH": base_path(), "HOME": str(project.home), "GRAPHIFY_OUT": ".graphify"}
    argv = graph_refresh.build_argv(graph_refresh.graphify_at(str(graphify)))
    run([str(graphify), *argv[1:]], cwd=project.repo, env=env)
    graph: dict[str, Any] = json.loads(project.graph.read_text(encoding="utf-8"))
    return graph


def build_index(project: Project, graphify: Path) -> str:
    """The hook's graph index of the project's graph, built as `mishkan
    graph-index` builds it, with `graphify`'s release on PATH (its dialect).
    The hook answers only from a current index: without one it would build it
    in the background on the first trigger and answer from the next."""
    env = {"PATH": f"{graphify.parent}:{base_path()}", "HOME": str(project.home),
           "MISHKAN_TELEMETRY_DIR": str(project.telemetry)}  # fmt: skip
    done = run([*mishkan_command(), "graph-index", "--project", str(project.repo)],
               cwd=project.repo, env=env)  # fmt: skip
    return done.stdout


# --------------------------------------------------------------------------- #
# the hook


def _hook_command(python: str) -> str:
    return (
        f"{python} -I -S -c "
        "'import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()' "
        '"$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"'
    )


def mishkan_command() -> list[str]:
    """``mishkan``: the console script of this env, else ``python -m mishkan_core``."""
    script = Path(sys.executable).parent / "mishkan"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "mishkan_core"]


def install_available() -> bool:
    """``mishkan install`` has landed (mishkan_core/install.py is in the tree)."""
    import importlib.util

    try:
        return importlib.util.find_spec("mishkan_core.install") is not None
    except ImportError:
        return False


def _write_settings_by_hand(project: Project, mode: str, python: str) -> None:
    """Stand-in for ``mishkan install`` with the same registration, used only
    until mishkan_core/install.py exists."""
    hooks_dir = project.repo / "payload" / "mishkan" / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    for name in ("graphify_nudge.py", "graphify_nudge_index.py"):
        shutil.copy2(REPO_ROOT / name, hooks_dir / name)
    entry = {"type": "command", "command": _hook_command(python)}
    settings = {
        "env": {"MISHKAN_GRAPHIFY_NUDGE": mode},
        "hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [entry]}],
            "PostToolUse": [{"matcher": "*", "hooks": [entry]}],
            "SessionStart": [{"hooks": [entry]}],
        },
    }
    path = project.repo / ".claude" / "settings.json"
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def install_hook(
    project: Project,
    mode: str | None,
    allow: list[str] | None = None,
    cap: int | None = None,
    log_events: tuple[str, ...] = ("PreToolUse", "PostToolUse", "SessionStart"),
) -> dict[str, Any]:
    """Install graphify_nudge in ``mode`` (None: no graphify hook at all, the
    baseline), then add the evidence hook, the telemetry dir, the cap and the
    permission allow rules. Returns the final settings."""
    python = sys.executable
    settings_path = project.repo / ".claude" / "settings.json"
    if mode is not None:
        if install_available():
            run(
                [
                    *mishkan_command(),
                    "install",
                    "--project",
                    str(project.repo),
                    "--mode",
                    mode,
                    "--python",
                    python,
                ],
                cwd=project.root,
                env={"PATH": base_path(), "HOME": str(project.home)},
            )
        else:
            _write_settings_by_hand(project, mode, python)
    settings: dict[str, Any] = (
        json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else {}
    )
    hooks = settings.setdefault("hooks", {})
    for event in log_events:
        command = f"{python} -I -S {LOG_HOOK} {project.hook_log} {event}"
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        if event != "SessionStart":
            group = {"matcher": "*", **group}
        hooks.setdefault(event, []).append(group)
    env = settings.setdefault("env", {})
    env["MISHKAN_TELEMETRY_DIR"] = str(project.telemetry)
    if cap is not None:
        env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = str(cap)
    if allow is not None:
        settings.setdefault("permissions", {}).setdefault("allow", []).extend(allow)
    settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return settings


# --------------------------------------------------------------------------- #
# one run


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.stdout.splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out


def cli_env(project: Project, base_url: str) -> dict[str, str]:
    """The whole environment of the CLI (``env -i`` plus exactly these)."""
    return {
        "HOME": str(project.home),
        "PATH": base_path(),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-e2e-stub",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "IS_SANDBOX": "1",  # bypassPermissions as root
        # CLIs of early 2026 (2.1.69) defer every tool behind ToolSearch by
        # default; the scripted model calls tools directly, as the hook sees them
        "ENABLE_TOOL_SEARCH": "false",
    }


def tool_env(project: Project) -> dict[str, str]:
    """What a Bash tool call sees, for re-running a suggested command ourselves."""
    return {"HOME": str(project.home), "PATH": base_path(), "LANG": "C.UTF-8"}


def trust_project(project: Project) -> None:
    claude_json = project.home / ".claude.json"
    state: dict[str, Any] = (
        json.loads(claude_json.read_text(encoding="utf-8")) if claude_json.exists() else {}
    )
    state.setdefault("projects", {}).setdefault(str(project.repo), {})["hasTrustDialogAccepted"] = (
        True
    )
    claude_json.write_text(json.dumps(state), encoding="utf-8")


@dataclass
class ScenarioRun:
    """Everything one CLI run left behind."""

    name: str
    project: Project
    permission_mode: str
    claude: Claude | None
    cli: CliResult
    requests: list[LoggedRequest]
    ids: dict[str, str]  # scenario key -> tool_use_id
    artifacts: Path
    hook_calls: list[dict[str, Any]] = field(default_factory=list)
    telemetry: list[dict[str, Any]] = field(default_factory=list)

    # --- ids and requests ------------------------------------------------

    def tool_use_id(self, key: str) -> str:
        return self.ids[key]

    def key_of(self, tool_use_id: str) -> str | None:
        for key, value in self.ids.items():
            if value == tool_use_id:
                return key
        return None

    def role_requests(self, role: str) -> list[LoggedRequest]:
        return [r for r in self.requests if r.role == role]

    def request_after(self, key: str) -> LoggedRequest:
        """The first request whose conversation carries ``key``'s tool_result."""
        tid = self.tool_use_id(key)
        for request in self.requests:
            if any(b.get("tool_use_id") == tid for b in tool_result_blocks(request.body)):
                return request
        raise AssertionError(f"no request carries the tool_result of {key} ({tid})")

    def tool_results(self) -> dict[str, dict[str, Any]]:
        """tool_use_id -> its tool_result block, from the latest request of each role."""
        out: dict[str, dict[str, Any]] = {}
        for request in self.requests:
            for block in tool_result_blocks(request.body):
                out[str(block.get("tool_use_id"))] = block
        return out

    def advisories_after(self, key: str) -> list[str]:
        """The hook's advisories the model received with ``key``'s tool result,
        in any envelope the CLI uses (:func:`advisories_with`)."""
        return advisories_with(self.request_after(key).body, self.tool_use_id(key))

    def results(self) -> list[dict[str, Any]]:
        """The CLI's ``result`` events: one per turn of the main thread, so two
        when a background subagent's completion starts a second turn."""
        return [e for e in self.cli.events() if e.get("type") == "result"]

    def permission_denials(self) -> list[str | None]:
        """The calls the CLI reports as permission denials, over every result
        event (a background subagent's denial is in the first, CLI 2.1.198+)."""
        out: list[str | None] = []
        for result in self.results():
            for denial in result.get("permission_denials") or []:
                key = self.key_of(str(denial.get("tool_use_id")))
                if key not in out:
                    out.append(key)
        return out

    # --- hook evidence ---------------------------------------------------

    def hook_inputs(self, event: str, key: str) -> list[dict[str, Any]]:
        tid = self.tool_use_id(key)
        return [
            c["input"]
            for c in self.hook_calls
            if c["event_arg"] == event and c["input"].get("tool_use_id") == tid
        ]

    def telemetry_calls(self) -> list[dict[str, Any]]:
        return [e for e in self.telemetry if e.get("event") == "call"]

    def telemetry_call(self, key: str) -> dict[str, Any]:
        tid = self.tool_use_id(key)
        found = [e for e in self.telemetry_calls() if e.get("tool_use_id") == tid]
        assert len(found) == 1, f"{key}: {len(found)} telemetry call lines\n{self.diagnostics()}"
        return found[0]

    def session_id(self) -> str:
        for event in self.cli.events():
            if event.get("type") == "system" and event.get("subtype") == "init":
                return str(event["session_id"])
        raise AssertionError(f"no init event in the CLI output\n{self.diagnostics()}")

    def diagnostics(self) -> str:
        lines = [
            f"=== e2e run {self.name!r} ({self.permission_mode}); artifacts in {self.artifacts}",
            f"CLI exit {self.cli.returncode} after {self.cli.seconds:.1f}s",
            "--- stub log (seq role tool_results -> reply)",
        ]
        for r in self.requests:
            reply = json.dumps(r.reply)[:160] if r.reply else ""
            lines.append(f"{r.seq:3d} {r.method} {r.path} {r.role} {r.tool_results} -> {reply}")
        lines.append("--- hook calls (event tool agent_type tool_use_id)")
        for c in self.hook_calls:
            i = c["input"]
            tool, agent, tid = i.get("tool_name"), i.get("agent_type"), i.get("tool_use_id")
            lines.append(f"{c['event_arg']} {tool} {agent} {tid}")
        lines.append("--- telemetry")
        lines.extend(json.dumps(e)[:300] for e in self.telemetry)
        lines.append("--- CLI stderr (tail)")
        lines.append(self.cli.stderr[-3000:])
        lines.append("--- CLI stdout (tail)")
        lines.append(self.cli.stdout[-2000:])
        return "\n".join(lines)


def tool_result_blocks(body: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(body, dict):
        return
    for message in body.get("messages") or []:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield block


def advisories_with(body: Any, tool_use_id: str) -> list[str]:
    """The advisories (from the marker to the end of their text or of their
    ``<system-reminder>``: an answer has several lines) that a request gives
    the model with one tool result, whatever the envelope: inside a
    ``<system-reminder>`` in the message that carries the result (CLI up to
    2.1.227), or in a message of its own after it, before the next assistant
    turn (2.1.229+: ``PreToolUse:Read hook additional context: [graphify-nudge] ...``)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return []
    start = None
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict)
            and b.get("type") == "tool_result"
            and b.get("tool_use_id") == tool_use_id
            for b in content
        ):
            start = i
            break
    if start is None:
        return []
    found: list[str] = []
    for message in messages[start:]:
        if message is not messages[start] and message.get("role") == "assistant":
            break
        content = message.get("content")
        # a tool's own output is not advice, even when it quotes the marker
        blocks = content if isinstance(content, list) else [content]
        kept = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        for text in strings_in(kept):
            at = text.find(MARKER)
            while at >= 0:
                end = text.find("</system-reminder>", at)
                advisory = text[at : end if end >= 0 else len(text)].rstrip()
                found.append(advisory)
                at = text.find(MARKER, at + len(advisory))
    return found


def strings_in(value: Any) -> Iterator[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def nudge_count(body: Any) -> int:
    """How many nudge markers a request carries, wherever they are."""
    return sum(s.count(MARKER) for s in strings_in(body))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def read_telemetry(directory: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.jsonl")):
        events.extend(read_jsonl(path))
    events.sort(key=lambda e: float(e.get("ts") or 0))
    return events


def read_hook_log(path: Path) -> list[dict[str, Any]]:
    calls = []
    for entry in read_jsonl(path):
        try:
            entry["input"] = json.loads(entry["stdin"])
        except (KeyError, ValueError):
            entry["input"] = {}
        calls.append(entry)
    return calls


def run_scenario(
    name: str,
    project: Project,
    claude: Claude | Path,
    permission_mode: str,
    *,
    script: dict[str, Script] | None = None,
    extra_env: dict[str, str] | None = None,
    extra_args: list[str] | None = None,
    trusted: bool = True,
) -> ScenarioRun:
    """Start the stub, run the CLI once through the scenario, collect the evidence.

    ``script`` replaces :func:`scenario`; ``extra_env`` is exported in the
    shell that runs ``claude`` (as a user's ``export`` would be);
    ``extra_args`` go on the CLI's command line (``--plugin-dir``, ...).
    A :class:`Claude` adds its flow's environment (foreground or not).
    ``trusted``: whether ``$HOME/.claude.json`` has accepted the project's
    trust dialog (as a user who opened it once has)."""
    if trusted:
        trust_project(project)
    flow_env = claude.env() if isinstance(claude, Claude) else {}
    artifacts = project.root / f"run-{name}"
    artifacts.mkdir()
    # an earlier run in the same project left telemetry: keep it out of this one
    for old in project.telemetry.glob("*.jsonl"):
        old.rename(artifacts / f"telemetry-before-{old.name}")
    with StubAPI(script if script is not None else scenario(project.repo)) as stub:
        cmd = [
            str(claude),
            "-p",
            PROMPT,
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Grep,Glob",
            "--permission-mode",
            permission_mode,
            *(extra_args or []),
        ]
        started = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                cwd=str(project.repo),
                env={**cli_env(project, stub.base_url), **flow_env, **(extra_env or {})},
                capture_output=True,
                text=True,
                timeout=CLI_TIMEOUT,
                check=False,
            )
            cli = CliResult(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else ""
            err = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else ""
            cli = CliResult(-1, out, err + f"\n[e2e] timed out after {CLI_TIMEOUT}s", CLI_TIMEOUT)
        stub.dump(str(artifacts / "stub-requests.jsonl"))
        requests = stub.messages()
        ids = {key: tid for tid, key in stub.state.ids.items()}
    (artifacts / "cli-stdout.jsonl").write_text(cli.stdout, encoding="utf-8")
    (artifacts / "cli-stderr.txt").write_text(cli.stderr, encoding="utf-8")
    hook_log = artifacts / "hook-stdin.jsonl"
    if project.hook_log.exists():
        project.hook_log.rename(hook_log)
    return ScenarioRun(
        name=name,
        project=project,
        permission_mode=permission_mode,
        claude=claude if isinstance(claude, Claude) else None,
        cli=cli,
        requests=requests,
        ids=ids,
        artifacts=artifacts,
        hook_calls=read_hook_log(hook_log),
        telemetry=read_telemetry(project.telemetry),
    )
