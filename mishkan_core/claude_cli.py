"""The Claude Code CLI versions this project supports, and what each one does.

One table (:data:`FEATURES`), measured with the real CLI binaries from npm
against the e2e stub (docs/versions.md says how; ``tests/e2e/test_e2e_versions.py``
re-proves it for every CLI the e2e run uses). ``mishkan routing check`` reports
the CLI it finds against :data:`FLOOR` .. :data:`NEWEST`; ``mishkan install``
writes a registration that works across the whole range; the e2e harness runs
the two ends.

Finding the version never runs the CLI: a check of an untrusted repository
executes nothing, and ``claude`` on PATH is found by the files an install
leaves (:func:`installed_version`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mishkan_core import safe_files

#: the oldest CLI the hook works with: the first one that gives a subagent's
#: calls ``agent_type`` *and* delivers a PreToolUse ``additionalContext`` to
#: the subagent's model (docs/versions.md)
FLOOR = "2.1.69"
#: the newest CLI the e2e run proves (npm ``latest`` when it was pinned)
NEWEST = "2.1.332"

Version = tuple[int, ...]
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def parse(text: str) -> Version | None:
    """``2.1.69`` -> ``(2, 1, 69)``; ``2.1.69 (Claude Code)`` too; else None."""
    head = text.strip().split(" ", 1)[0]
    match = _VERSION.match(head)
    return tuple(int(part) for part in match.groups()) if match else None


def _key(version: str) -> Version:
    parsed = parse(version)
    if parsed is None:
        raise ValueError(f"not a Claude Code version: {version!r}")
    return parsed


def at_least(version: str, first: str | None) -> bool:
    """Whether ``version`` has a feature that ``first`` introduced (None: never)."""
    return first is not None and _key(version) >= _key(first)


@dataclass(frozen=True)
class Feature:
    """One CLI behaviour the hook or its tools rely on."""

    key: str
    #: the first version where it works, measured; None: not in any supported version
    first: str | None
    what: str
    #: what depends on it, and what happens before ``first``
    without: str
    #: the last version with it, when a later release took it away (or replaced it)
    last: str | None = None

    def in_version(self, version: str) -> bool:
        if not at_least(version, self.first):
            return False
        return self.last is None or _key(version) <= _key(self.last)


FEATURES: tuple[Feature, ...] = (
    Feature(
        "agent_type",
        "2.1.69",
        "a subagent's tool calls carry top-level `agent_type` and `agent_id` in the hook input",
        "the hook cannot tell a subagent from the main thread: it records and advises nothing",
    ),
    Feature(
        "additional_context",
        "2.1.69",  # and earlier: 2.1.63 delivers it too
        "a PreToolUse hook's `additionalContext` reaches the subagent's model with the tool result",
        "the advisory never reaches the model",
    ),
    Feature(
        "reminder_envelope",
        "2.1.69",
        "`additionalContext` arrives inside a `<system-reminder>` text block of the user "
        "message that carries the tool result",
        "(replaced by `context_message`)",
        last="2.1.227",
    ),
    Feature(
        "context_message",
        "2.1.228",
        "`additionalContext` arrives as a message of its own after the tool result, "
        "`PreToolUse:<tool> hook additional context: ...`, with no `<system-reminder>`",
        "(the `<system-reminder>` envelope)",
    ),
    Feature(
        "context_on_failure",
        "2.1.110",
        "the `additionalContext` of a call that then fails (a command exiting non-zero) "
        "still reaches the model",
        "the advisory on a failing call is dropped (the call is still recorded)",
    ),
    Feature(
        "post_tool_use_failure",
        "2.1.69",
        "a tool call that fails (a lookup exiting non-zero) fires PostToolUseFailure, "
        "not PostToolUse",
        "a failed lookup is never recorded",
    ),
    Feature(
        "frontmatter_hooks",
        "2.1.69",
        "hooks in an agent file's frontmatter run for that agent's calls (`--scope agents`)",
        "`--scope agents` registers nothing that runs",
    ),
    Feature(
        "frontmatter_needs_trust",
        "2.1.218",
        "an agent's frontmatter hooks run only in a project whose trust dialog was accepted "
        "(`claude -p` in an untrusted folder skips them silently; settings hooks still run)",
        "frontmatter hooks run in any folder",
    ),
    Feature(
        "if_field",
        "2.1.85",
        "a handler's `if` (permission-rule syntax, `Bash(graphify *)`) skips it, and its process "
        "start, for calls that do not match; Bash rules match any subcommand "
        "(`cd src && graphify ...`), after `VAR=value` prefixes",
        "`if` is ignored: the handler runs for every call its matcher selects",
    ),
    Feature(
        "if_read_paths",
        "2.1.176",
        "an `if` path relative to the project (`Read(src/app.py)`) matches a Read call "
        "(a glob, `Read(**/*.py)`, matches from 2.1.85)",
        "a relative path pattern never matches",
    ),
    Feature(
        "matcher_comma_list",
        "2.1.191",
        "a matcher such as `Read, Grep` is a list of names (before: a regular expression "
        "that matches no tool)",
        "only `|` separates names in a list",
    ),
    Feature(
        "plugin_hooks_notice",
        "2.1.78",
        "the debug log says when a plugin agent's frontmatter sets hooks, which the CLI ignores "
        "(in every supported version)",
        "the hooks are ignored silently",
    ),
    Feature(
        "plugin_validate_hooks",
        "2.1.77",
        "`claude plugin validate` checks the plugin's `hooks/hooks.json` against the CLI's "
        "schema (a string `timeout` fails it)",
        "only the manifest is checked: `routing check --plugin-dir` is the check of the hooks",
    ),
    Feature(
        "plugin_validate_strict",
        "2.1.145",
        "`claude plugin validate --strict` treats warnings as errors, for CI",
        "`--strict` is an unknown option (exit 1): validate without it",
    ),
    Feature(
        "background_agents",
        "2.1.198",
        "an Agent call returns at once (`Async agent launched successfully`) and the subagent "
        "runs in the background; `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1` restores the old flow",
        "the Agent call blocks until the subagent finishes",
    ),
    Feature(
        "transcript_context",
        "2.1.259",
        "a subagent's transcript records each PreToolUse `additionalContext` as an "
        "`attachment` of type `hook_additional_context`, tied to its `toolUseID`",
        "`metrics --from-transcripts` sees no advisory, so no nudge-respect ratio",
    ),
)
_BY_KEY = {feature.key: feature for feature in FEATURES}


def feature(key: str) -> Feature:
    return _BY_KEY[key]


def has(version: str, key: str) -> bool:
    """Whether CLI ``version`` has feature ``key`` (per the measured table)."""
    return _BY_KEY[key].in_version(version)


def supported(version: str) -> bool:
    return _key(FLOOR) <= _key(version) <= _key(NEWEST)


def range_text() -> str:
    return f"{FLOOR} to {NEWEST}"


# -- finding the installed CLI without running it -----------------------------

_PACKAGES = ("@anthropic-ai/claude-code",)
_NATIVE_DIR = re.compile(r"^claude-code-(linux|darwin|win32)-")


def _package_version(package_json: Path) -> str | None:
    try:
        data = safe_files.read_regular(package_json)
    except OSError:
        return None
    if data is None or len(data) > 1 << 20:
        return None
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    name, version = doc.get("name"), doc.get("version")
    if not isinstance(name, str) or not isinstance(version, str) or parse(version) is None:
        return None
    if name in _PACKAGES or _NATIVE_DIR.match(name.rsplit("/", 1)[-1]):
        return version
    return None


def version_of(binary: str) -> str | None:
    """The version of the CLI at ``binary`` (a path or a link to it), read from
    the files its install left: the npm package's ``package.json`` beside the
    resolved binary (``cli.js``, ``bin/claude.exe`` or the platform package's
    ``claude``), or the native installer's ``versions/<version>`` file name."""
    real = Path(os.path.realpath(binary))
    if parse(real.name) is not None and real.parent.name == "versions":
        return real.name
    for directory in (real.parent, real.parent.parent):
        found = _package_version(directory / "package.json")
        if found is not None:
            return found
    return None


def installed_version(environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(path of ``claude`` on ``environ``'s PATH, its version); either may be None."""
    path = shutil.which("claude", path=environ.get("PATH", os.defpath))
    if path is None:
        return None, None
    return path, version_of(path)
