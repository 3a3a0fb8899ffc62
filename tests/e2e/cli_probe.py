"""Probe one Claude Code CLI for every behaviour the hook relies on.

One scripted session against the stub (no graphify hook at all; probe hooks
only), from which each feature of ``mishkan_core.claude_cli.FEATURES`` is read
off the evidence:

* the main thread reads a file, launches ``hizkiah`` and finishes;
* hizkiah reads ``src/overlay/core.py``, runs ``grep -rn apply_overlay .``
  and a Bash command that exits 3, then finishes.

Registered: :mod:`tests.e2e.context_hook` on PreToolUse (it answers each call
with an ``additionalContext`` naming it), evidence hooks on PostToolUse and
PostToolUseFailure, evidence handlers with ``if`` conditions, and a PreToolUse
evidence hook in hizkiah's frontmatter. The test ``test_e2e_versions.py``
checks the table against the probe for every CLI of the run; run as a
script, it probes any versions (the bisection in docs/versions.md)::

    python -m tests.e2e.cli_probe 2.1.69 2.1.85 ...   # JSON lines, one per version
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.context_hook import PROBE_MARKER
from tests.e2e.harness import (
    LOG_HOOK,
    SOURCE_REL,
    SYMBOL,
    Claude,
    Project,
    ScenarioRun,
    make_project,
    plugin_validate,
    run_scenario,
    scenario,
)
from tests.e2e.stub_api import Script, Text, ToolUse, iter_blocks

HERE = Path(__file__).resolve().parent
CONTEXT_HOOK = HERE / "context_hook.py"
FAILING = "sh -c 'echo probe-failure >&2; exit 3'"
SUB_KEYS = ("read", "grep", "fail")
#: ``if`` conditions of evidence handlers on PreToolUse, label -> condition
IF_CONDITIONS = {
    "if-bash-grep": "Bash(grep *)",
    "if-read-glob": "Read(**/*.py)",
    "if-read-rel": f"Read({SOURCE_REL})",
    "if-never": "Bash(no-such-program *)",
}
BACKGROUND = "Async agent launched"
#: what the CLI logs for a plugin agent whose frontmatter sets hooks
PLUGIN_NOTICE = "sets hooks, which is ignored for plugin agents"
#: matchers whose meaning changed across versions, label -> matcher
MATCHERS = {"m-comma": "Read, Grep"}


def script(repo: Path) -> dict[str, Script]:
    """The e2e scenario's main thread (harness.scenario), and a short subagent."""
    return {
        "main": scenario(repo)["main"],
        "sub": [
            ToolUse("read", "Read", {"file_path": str(repo / SOURCE_REL)}),
            ToolUse("grep", "Bash", {"command": f"grep -rn {SYMBOL} .", "description": "search"}),
            ToolUse("fail", "Bash", {"command": FAILING, "description": "fails"}),
            Text("done"),
        ],
    }


def _handler(command: str, condition: str | None = None) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command}
    if condition is not None:
        handler["if"] = condition
    return handler


def _evidence(project: Project, label: str) -> str:
    return f"{shlex.quote(sys.executable)} -I -S {LOG_HOOK} {project.hook_log} {label}"


def install_probe(project: Project) -> None:
    """Settings with the probe hooks, and hizkiah's frontmatter hook."""
    python = shlex.quote(sys.executable)
    context = f"{python} -I -S {CONTEXT_HOOK} {project.hook_log} PreToolUse"
    pre = [{"matcher": "*", "hooks": [_handler(context)]}]
    pre += [
        {"matcher": "*", "hooks": [_handler(_evidence(project, label), condition)]}
        for label, condition in IF_CONDITIONS.items()
    ]
    pre += [
        {"matcher": matcher, "hooks": [_handler(_evidence(project, label))]}
        for label, matcher in MATCHERS.items()
    ]
    hooks = {
        "PreToolUse": pre,
        "PostToolUse": [{"matcher": "*", "hooks": [_handler(_evidence(project, "PostToolUse"))]}],
        "PostToolUseFailure": [
            {"matcher": "*", "hooks": [_handler(_evidence(project, "PostToolUseFailure"))]}
        ],
        "SessionStart": [{"hooks": [_handler(_evidence(project, "SessionStart"))]}],
    }
    settings = project.repo / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n", encoding="utf-8")
    agent = project.repo / ".claude" / "agents" / "hizkiah.md"
    front = json.dumps({"matcher": "*", "hooks": [_handler(_evidence(project, "fm-PreToolUse"))]})
    text = agent.read_text(encoding="utf-8")
    agent.write_text(
        text.replace("tools: Read, Grep, Bash\n", f"tools: Read, Grep, Bash\nhooks:\n"
                     f"  PreToolUse:\n    - {front}\n", 1),
        encoding="utf-8",
    )  # fmt: skip


def probe_plugin(root: Path) -> Path:
    """A plugin whose agent sets frontmatter hooks (the CLI ignores them, and
    from some version says so in its debug log)."""
    plugin = root / "plugin-probe"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "probe", "version": "0.0.1", "description": "probe"})
    )
    (plugin / "agents").mkdir()
    (plugin / "agents" / "salma.md").write_text(
        "---\nname: salma\ndescription: probe agent\ntools: Read\nhooks:\n  PreToolUse:\n"
        '    - {"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}\n'
        "---\nProbe agent.\n",
        encoding="utf-8",
    )
    return plugin


@dataclass
class Probe:
    version: str
    run: ScenarioRun
    features: dict[str, bool | None] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


def _fired(run_: ScenarioRun, label: str) -> set[str]:
    keys = {run_.key_of(str(c["input"].get("tool_use_id"))) for c in run_.hook_calls
            if c["event_arg"] == label}  # fmt: skip
    return {k for k in keys if k is not None}


def _inputs(run_: ScenarioRun, label: str, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        c["input"]
        for c in run_.hook_calls
        if c["event_arg"] == label and run_.key_of(str(c["input"].get("tool_use_id"))) in keys
    ]


def _context_sites(run_: ScenarioRun, key: str) -> list[dict[str, Any]]:
    """Where the probe's context for call ``key`` appears in the model's input:
    in the first request after the call, each message that holds it, by
    role, and whether it is inside a ``<system-reminder>`` and in the message
    that carries the call's tool_result."""
    tid = run_.tool_use_id(key)
    needle = f"{PROBE_MARKER} {tid}"
    try:
        request = run_.request_after(key)
    except AssertionError:
        return []
    sites = []
    body: Any = request.body
    messages = body.get("messages") if isinstance(body, dict) else None
    for index, message in enumerate(messages or []):
        if not isinstance(message, dict):
            continue
        texts = [b.get("text", "") for _r, b in iter_blocks({"messages": [message]})]
        texts += [
            json.dumps(b.get("content")) for _r, b in iter_blocks({"messages": [message]})
            if b.get("type") == "tool_result"
        ]  # fmt: skip
        holding = [t for t in texts if isinstance(t, str) and needle in t]
        if not holding:
            continue
        content = message.get("content")
        carries = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("tool_use_id") == tid for b in content
        )
        sites.append(
            {
                "message": index,
                "role": message.get("role"),
                "reminder": any("<system-reminder>" in t for t in holding),
                "with_result": carries,
                "text": holding[0][:200],
            }
        )
    system = body.get("system") if isinstance(body, dict) else None
    if needle in json.dumps(system):
        sites.append({"message": "system", "role": "system", "reminder": False})
    return sites


def _transcript_context(run_: ScenarioRun) -> bool | None:
    """Whether a subagent transcript records the probe's context as a
    ``hook_additional_context`` attachment (None: no subagent transcript)."""
    files = list(run_.project.transcripts_dir().glob("*/subagents/agent-*.jsonl"))
    if not files:
        return None
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            att = obj.get("attachment") if isinstance(obj, dict) else None
            if (
                isinstance(att, dict)
                and att.get("type") == "hook_additional_context"
                and PROBE_MARKER in json.dumps(att)
            ):
                return True
    return False


def probe(
    version: str, claude: Claude | Path, root: Path, extra_env: dict[str, str] | None = None
) -> Probe:
    project = make_project(root / "trusted")
    install_probe(project)
    run_ = run_scenario(
        f"probe-{version}",
        project,
        claude,
        "bypassPermissions",
        script=script(project.repo),
        extra_env=extra_env,
        extra_args=["--debug", "--plugin-dir", str(probe_plugin(project.root))],
    )
    result = Probe(version, run_)
    f = result.features
    reached = all(k in run_.ids for k in ("launch", *SUB_KEYS))
    result.notes["completed"] = run_.cli.returncode == 0 and reached
    result.notes["cli_exit"] = run_.cli.returncode
    sub_pre = _inputs(run_, "PreToolUse", SUB_KEYS)
    main_pre = _inputs(run_, "PreToolUse", ("main_read", "launch"))
    result.notes["hook_input_keys"] = sorted({k for i in sub_pre for k in i})
    f["agent_type"] = (
        bool(sub_pre)
        and all(i.get("agent_type") == "hizkiah" and i.get("agent_id") for i in sub_pre)
        and not any("agent_type" in i for i in main_pre)
    )
    sites = {key: _context_sites(run_, key) for key in SUB_KEYS if key in run_.ids}
    result.notes["context_sites"] = sites
    read_sites = sites.get("read", [])
    f["additional_context"] = bool(read_sites)
    f["reminder_envelope"] = any(s.get("reminder") and s.get("with_result") for s in read_sites)
    f["context_message"] = any(
        not s.get("reminder") and not s.get("with_result") for s in read_sites
    )
    f["context_on_failure"] = bool(sites.get("fail"))
    main_sites = {key: _context_sites(run_, key) for key in ("main_read",) if key in run_.ids}
    result.notes["main_context_sites"] = main_sites
    failure = _fired(run_, "PostToolUseFailure")
    post = _fired(run_, "PostToolUse")
    f["post_tool_use_failure"] = "fail" in failure and "fail" not in post
    f["frontmatter_hooks"] = _fired(run_, "fm-PreToolUse") == set(SUB_KEYS)
    fired_if = {label: sorted(_fired(run_, label)) for label in IF_CONDITIONS}
    result.notes["if_fired"] = fired_if
    every = sorted({"main_read", "launch", *SUB_KEYS} & set(run_.ids))
    f["if_field"] = fired_if["if-bash-grep"] == ["grep"] and fired_if["if-never"] == []
    result.notes["if_ignored"] = all(v == every for v in fired_if.values())
    # a path relative to the project: CLI 2.1.176 (a glob on the absolute path works from 2.1.85)
    f["if_read_paths"] = fired_if["if-read-rel"] == ["read"]
    result.notes["if_read_glob"] = {"read", "main_read"} <= set(fired_if["if-read-glob"])
    launch = run_.tool_results().get(run_.ids.get("launch", ""), {})
    f["background_agents"] = BACKGROUND in json.dumps(launch.get("content"))
    f["transcript_context"] = _transcript_context(run_)
    f["matcher_comma_list"] = {"read", "grep"} & _fired(run_, "m-comma") == {"read"}
    logs = run_.cli.stderr + "".join(
        p.read_text(errors="replace") for p in (project.home / ".claude" / "debug").glob("*")
    )
    f["plugin_hooks_notice"] = PLUGIN_NOTICE in logs
    # the same session in a project whose trust dialog was never accepted
    untrusted = make_project(root / "untrusted")
    install_probe(untrusted)
    bare = run_scenario(
        f"probe-{version}-untrusted",
        untrusted,
        claude,
        "bypassPermissions",
        script=script(untrusted.repo),
        extra_env=extra_env,
        trusted=False,
    )
    result.notes["untrusted_completed"] = all(k in bare.ids for k in ("launch", *SUB_KEYS))
    f["frontmatter_needs_trust"] = bool(_fired(bare, "PreToolUse")) and not _fired(
        bare, "fm-PreToolUse"
    )
    result.notes["results"] = sum(1 for e in run_.cli.events() if e.get("type") == "result")
    f.update(_probe_validate(claude, root / "validate", project.home))
    return result


def _probe_validate(claude: Claude | Path, root: Path, home: Path) -> dict[str, bool]:
    """`claude plugin validate` on a plugin whose hooks.json has a string
    timeout: does it read hooks.json, and does it know `--strict`?"""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "probe", "version": "1.0.0", "description": "probe"})
    )
    (root / "hooks").mkdir()
    broken = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "true", "timeout": "10"}]}]}}  # fmt: skip
    (root / "hooks" / "hooks.json").write_text(json.dumps(broken))
    plain = plugin_validate(claude, root, home)
    strict = plugin_validate(claude, root, home, "--strict")
    return {
        "plugin_validate_hooks": plain.returncode == 1 and "timeout" in plain.stdout,
        "plugin_validate_strict": "unknown option '--strict'" not in strict.stderr,
    }


def _npm_versions() -> list[str]:
    import subprocess

    done = subprocess.run(
        ["npm", "view", "@anthropic-ai/claude-code", "versions", "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    versions: list[str] = json.loads(done.stdout)
    return versions


def bisect(key: str, low: str, high: str, keep: str | None) -> int:
    """The first version in (low, high] of the npm list that has feature
    ``key``, assuming ``low`` lacks it and it stays once it comes."""
    from bench import graphify_versions  # one bisection for both axes
    from mishkan_core.claude_cli import parse
    from tests.e2e.cli_install import ensure_claude_cli

    lo, hi = parse(low), parse(high)
    assert lo is not None and hi is not None
    span = [v for v in _npm_versions() if (p := parse(v)) is not None and lo <= p <= hi]
    seen: dict[str, bool | None] = {}

    def has(version: str) -> bool | None:
        if version not in seen:
            with tempfile.TemporaryDirectory(prefix=f"cli-probe-{version}-", dir=keep) as tmp:
                got = probe(version, ensure_claude_cli(version), Path(tmp))
            seen[version] = got.features.get(key)
            print(json.dumps({"version": version, key: seen[version],
                              "completed": got.notes["completed"]}), flush=True)  # fmt: skip
        return seen[version]

    last, first = graphify_versions.bisect(span, lambda version: bool(has(version)))
    if last is None or first is None:
        print(f"bisect: {key} is not absent at {span[0]} and present at {span[-1]}")
        return 1
    print(json.dumps({"feature": key, "last_without": last, "first": first}), flush=True)
    return 0


def main(argv: list[str]) -> int:
    from tests.e2e.cli_install import ensure_claude_cli

    if argv[:1] == ["bisect"]:  # bisect FEATURE LOW HIGH [KEEP=dir]
        keep_dir = next((a.split("=", 1)[1] for a in argv if a.startswith("KEEP=")), None)
        args = [a for a in argv[1:] if not a.startswith("KEEP=")]
        return bisect(args[0], args[1], args[2], keep_dir)

    env: dict[str, str] = {}
    versions = []
    for arg in argv:
        if "=" in arg:
            key, value = arg.split("=", 1)
            env[key] = value
        else:
            versions.append(arg)
    keep = env.pop("KEEP", None)  # KEEP=dir: leave each run's files there
    for version in versions:
        claude = ensure_claude_cli(version)
        with tempfile.TemporaryDirectory(prefix=f"cli-probe-{version}-", dir=keep) as tmp:
            result = probe(version, claude, Path(tmp), extra_env=env or None)
            print(
                json.dumps({"version": version, **result.features, "notes": result.notes}),
                flush=True,
            )
            if keep:
                shutil.copytree(tmp, Path(keep) / f"probe-{version}", dirs_exist_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
