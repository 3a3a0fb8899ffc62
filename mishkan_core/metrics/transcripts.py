"""Backfill: the same events, read from Claude Code transcripts.

Layout (Claude Code 2.1.x, ``~/.claude/projects/<project>/``)::

    <session>.jsonl                               main thread
    <session>/subagents/agent-<id>.jsonl          one subagent
    <session>/subagents/agent-<id>.meta.json      {"agentType": "hizkiah", ...}

What the backfill sees and what it cannot:

* Tool calls are the ``tool_use`` blocks of assistant messages. Each is
  classified by the hook's own ``graphify_nudge.classify_call(tool_name,
  tool_input, root)`` with root = the line's ``cwd``, so trigger/lookup mean
  exactly what they mean in telemetry.
* Scope is the hook's: only subagent files whose ``agentType`` (from the
  ``.meta.json``, else the lines' ``attributionAgent``) is one of
  ``graphify_nudge.SCOPE_AGENTS``. Main-thread calls and other agents are not
  counted (they are tallied under ``data_quality`` only).
* Nudges: a call counts as nudged when text starting with the hook's marker
  ``[graphify-nudge]`` is tied to its ``tool_use`` id, either in an
  ``attachment`` of type ``hook_additional_context`` (``toolUseID``) or in a
  ``<system-reminder>`` inside a user message that carries that id's
  ``tool_result``. Claude Code 2.1.197 writes these attachments to the main
  session file only, for main-thread calls; the captured subagent transcript
  carries none, so for real 2.1.197 transcripts the nudge count is 0 and the
  nudge-respect ratio is ``null``. Markers are honoured wherever they appear
  (main file or subagent file), so a CLI that records them is counted.
* Ordering: within one agent, file order; across the agents of a session,
  the lines' ``timestamp`` (files are merged lazily, one open file per agent).
* Not in transcripts at all: the graph state (``fresh``/``stale``/``absent``),
  the hook's mode (``sessions_off``) and self-disables. The report gives
  those as ``null``. Opt-outs are seen from ``tool_input.metadata``.
"""

from __future__ import annotations

import heapq
import json
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Callable

from mishkan_core.metrics.telemetry import UnusableInput

MARKER = "[graphify-nudge]"
#: calls of one agent held back waiting for their tool_result (bounds memory)
MAX_IN_FLIGHT = 64

TRANSCRIPT_QUALITY_FIELDS = (
    "files",
    "lines",
    "events",
    "torn",
    "malformed",
    "foreign_files",
    "unreadable_files",
    "outside_window",
    "main_thread_calls",
    "out_of_scope_calls",
    "untied_nudge_markers",
)

Classify = Callable[[str, object, str], Any]


def new_quality() -> dict[str, int]:
    return dict.fromkeys(TRANSCRIPT_QUALITY_FIELDS, 0)


def _hook() -> tuple[Classify, frozenset[str]]:
    try:
        import graphify_nudge
    except ImportError:
        raise UnusableInput(
            "--from-transcripts needs the hook module graphify_nudge (classify_call); "
            "install mishkan-core or run from the repository root"
        ) from None
    return graphify_nudge.classify_call, frozenset(graphify_nudge.SCOPE_AGENTS)


def parse_timestamp(value: object) -> float | None:
    """ISO 8601 (``2026-11-30T05:08:53.243Z``) to Unix seconds; None if not one."""
    if not isinstance(value, str) or not value:
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _texts(content: object) -> Iterator[str]:
    """Every string inside a message/tool_result content (str or block list)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                yield block
            elif isinstance(block, dict):
                text = block.get("text")
                if isinstance(text, str):
                    yield text
                inner = block.get("content")
                if inner is not None:
                    yield from _texts(inner)


def _reminder_marker(text: str) -> bool:
    at = text.find("<system-reminder>")
    while at >= 0:
        end = text.find("</system-reminder>", at)
        body = text[at:] if end < 0 else text[at:end]
        if MARKER in body:
            return True
        at = text.find("<system-reminder>", at + 1)
    return False


def _lines(path: str, quality: dict[str, int]) -> Iterator[dict[str, Any]]:
    """JSON objects of one JSONL file; torn/malformed lines counted."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed in finally, generator
    except OSError:
        quality["unreadable_files"] += 1
        return
    quality["files"] += 1
    try:
        for raw in fh:
            quality["lines"] += 1
            if raw[-1:] != b"\n":
                # a last line without newline: complete JSON is still used
                try:
                    obj = json.loads(raw)
                except ValueError:
                    quality["torn"] += 1
                    continue
            else:
                try:
                    obj = json.loads(raw)
                except ValueError:
                    quality["malformed"] += 1
                    continue
            if isinstance(obj, dict):
                yield obj
            else:
                quality["malformed"] += 1
    except OSError:
        quality["unreadable_files"] += 1
    finally:
        fh.close()


class _Scan:
    """Nudge markers tied to tool_use ids, collected from one file's lines."""

    def __init__(self, nudged: set[str], quality: dict[str, int]) -> None:
        self.nudged = nudged
        self.quality = quality

    def attachment(self, obj: dict[str, Any]) -> None:
        att = obj.get("attachment")
        if not isinstance(att, dict) or att.get("type") != "hook_additional_context":
            return
        if any(t.lstrip().startswith(MARKER) for t in _texts(att.get("content"))):
            tool_id = att.get("toolUseID")
            if isinstance(tool_id, str):
                self.nudged.add(tool_id)
            else:
                self.quality["untied_nudge_markers"] += 1

    def user(self, obj: dict[str, Any]) -> list[str]:
        """Mark nudges in a user message; return the tool_use ids it answers."""
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        answered: list[str] = []
        marked = False
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    tool_id = block.get("tool_use_id")
                    if isinstance(tool_id, str):
                        answered.append(tool_id)
                if any(_reminder_marker(t) for t in _texts([block])):
                    marked = True
        elif isinstance(content, str):
            marked = _reminder_marker(content)
        if marked:
            if answered:
                self.nudged.update(answered)
            else:
                self.quality["untied_nudge_markers"] += 1
        return answered


def _main_file_scan(
    path: str, quality: dict[str, int], nudged: set[str]
) -> tuple[str | None, float | None]:
    """Collect nudge markers of the main session file; count its calls.

    Returns the session id and the first timestamp found in the file."""
    scan = _Scan(nudged, quality)
    session: str | None = None
    first_ts: float | None = None
    for obj in _lines(path, quality):
        if session is None and isinstance(obj.get("sessionId"), str):
            session = obj["sessionId"]
        if first_ts is None:
            first_ts = parse_timestamp(obj.get("timestamp"))
        kind = obj.get("type")
        if kind == "attachment":
            scan.attachment(obj)
        elif kind == "user":
            scan.user(obj)
        elif kind == "assistant":
            quality["main_thread_calls"] += sum(1 for _ in _tool_uses(obj))
    return session, first_ts


def _tool_uses(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                yield block


def _agent_type(meta_path: str) -> str | None:
    try:
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError):
        return None
    value = meta.get("agentType") if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


def _agent_calls(
    path: str,
    *,
    agent_type: str | None,
    session_hint: str,
    nudged: set[str],
    scope: frozenset[str],
    classify: Classify,
    quality: dict[str, int],
) -> Iterator[tuple[float, int, dict[str, Any]]]:
    """Call events of one subagent file, in file order, each yielded once the
    lines that could mark it nudged (up to its tool_result) have been read."""
    scan = _Scan(nudged, quality)
    base = os.path.basename(path)
    agent_id = base[len("agent-") : -len(".jsonl")] if base.startswith("agent-") else base
    pending: dict[str, dict[str, Any]] = {}  # tool_use id -> event, insertion order
    done: set[str] = set()
    seq = 0
    last_ts = 0.0
    in_scope: bool | None = None if agent_type is None else agent_type.lower() in scope

    def release(final: bool) -> Iterator[tuple[float, int, dict[str, Any]]]:
        nonlocal seq
        while pending:
            tool_id = next(iter(pending))
            if not final and tool_id not in done and len(pending) <= MAX_IN_FLIGHT:
                return  # wait for its result (a call never answered waits at most this long)
            ev = pending.pop(tool_id)
            done.discard(tool_id)
            if tool_id in nudged and ev["decision"] is None and ev["trigger"]:
                ev["decision"] = "nudge"
            seq += 1
            yield ev["ts"], seq, ev

    for obj in _lines(path, quality):
        kind = obj.get("type")
        if kind == "assistant":
            if agent_type is None:
                attributed = obj.get("attributionAgent")
                if isinstance(attributed, str):
                    agent_type = attributed
                    in_scope = attributed.lower() in scope
            line_agent = obj.get("agentId")
            if isinstance(line_agent, str) and line_agent:
                agent_id = line_agent
            ts = parse_timestamp(obj.get("timestamp"))
            if ts is None:
                ts = last_ts
            last_ts = ts
            session = obj.get("sessionId")
            for block in _tool_uses(obj):
                if not in_scope or agent_type is None:
                    quality["out_of_scope_calls"] += 1
                    continue
                ev = _call_event(
                    block,
                    obj,
                    agent_type=agent_type,
                    agent_id=agent_id,
                    session=session,
                    session_hint=session_hint,
                    ts=ts,
                    classify=classify,
                )
                if ev is None:
                    quality["malformed"] += 1
                    continue
                tool_id = block.get("id")
                key = tool_id if isinstance(tool_id, str) else f"#anon{seq}-{len(pending)}"
                pending[key] = ev
        elif kind == "attachment":
            scan.attachment(obj)
        elif kind == "user":
            done.update(t for t in scan.user(obj) if t in pending)
            yield from release(final=False)
    yield from release(final=True)


def _call_event(
    block: dict[str, Any],
    line: dict[str, Any],
    *,
    agent_type: str,
    agent_id: str,
    session: object,
    session_hint: str,
    ts: float,
    classify: Classify,
) -> dict[str, Any] | None:
    name = block.get("name")
    if not isinstance(name, str):
        return None
    tool_input = block.get("input")
    cwd = line.get("cwd")
    try:
        call = classify(name, tool_input, cwd if isinstance(cwd, str) else "")
    except Exception:  # the hook fails open; so does its reuse here (counted malformed)
        return None
    decision: str | None = None
    if call.trigger and isinstance(tool_input, dict):
        metadata = tool_input.get("metadata")
        if isinstance(metadata, dict) and metadata.get("skip_graphify_nudge") is True:
            decision = "opt_out"
    return {
        "event": "call",
        "session": session if isinstance(session, str) else session_hint,
        "ts": ts,
        "mode": None,
        "agent_type": agent_type,
        "agent_id": agent_id,
        "kind": call.kind,
        "trigger": bool(call.trigger),
        "decision": decision,
        "graph": None,
    }


def find_sessions(directory: str, quality: dict[str, int]) -> list[tuple[str, str]]:
    """(session stem, project dir) for every session under ``directory``.

    ``directory`` may be one project dir or ``~/.claude/projects`` itself.
    A session is a ``<stem>.jsonl`` file or a ``<stem>/subagents/`` dir.
    """
    if not os.path.isdir(directory):
        if os.path.exists(directory):
            raise UnusableInput(f"transcript path is not a directory: {directory}")
        raise UnusableInput(f"transcript directory not found: {directory}")
    found: set[tuple[str, str]] = set()
    try:
        for root, dirs, files in os.walk(directory, onerror=_raise):
            stems = set()
            for name in files:
                if name.endswith(".jsonl"):
                    stems.add(name[: -len(".jsonl")])
                elif not name.endswith(".json"):
                    quality["foreign_files"] += 1
            found.update((stem, root) for stem in stems)
            walk_on = []
            for name in dirs:
                if os.path.isdir(os.path.join(root, name, "subagents")):
                    found.add((name, root))  # its subagents are read with the session
                elif name not in stems:
                    walk_on.append(name)  # a project dir, or ~/.claude/projects
            dirs[:] = walk_on  # never descend into a session's own directory
    except OSError as exc:
        raise UnusableInput(f"cannot read transcript directory {directory}: {exc}") from None
    return sorted(found, key=lambda pair: (pair[1], pair[0]))


def _raise(exc: OSError) -> None:
    raise exc


def read_dir(
    directory: str,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
    touch: Callable[[str, float], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Call events of every session under ``directory``, one session at a time.

    ``touch(session, ts)`` is called once per session seen, so sessions with
    no in-scope call still count (as they would through SessionStart).
    """
    classify, scope = _hook()
    sessions = find_sessions(directory, quality)
    if not sessions:
        raise UnusableInput(f"no Claude Code transcripts under {directory}")
    for stem, project in sessions:
        nudged: set[str] = set()
        main = os.path.join(project, stem + ".jsonl")
        session = stem
        first_ts: float | None = None
        if os.path.isfile(main):
            found_session, first_ts = _main_file_scan(main, quality, nudged)
            session = found_session or stem
        sub_dir = os.path.join(project, stem, "subagents")
        streams = []
        try:
            names = sorted(os.listdir(sub_dir)) if os.path.isdir(sub_dir) else []
        except OSError:
            quality["unreadable_files"] += 1
            names = []
        for name in names:
            if not (name.startswith("agent-") and name.endswith(".jsonl")):
                continue
            path = os.path.join(sub_dir, name)
            agent_type = _agent_type(path[: -len(".jsonl")] + ".meta.json")
            streams.append(
                _agent_calls(
                    path,
                    agent_type=agent_type,
                    session_hint=session,
                    nudged=nudged,
                    scope=scope,
                    classify=classify,
                    quality=quality,
                )
            )
        if touch is not None and first_ts is not None and (keep is None or keep(first_ts)):
            touch(session, first_ts)
        for ts, _, ev in heapq.merge(*streams, key=lambda item: (item[0], item[1])):
            if keep is not None and not keep(ts):
                quality["outside_window"] += 1
                continue
            quality["events"] += 1
            yield ev
