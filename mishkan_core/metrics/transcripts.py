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
  ``.meta.json``; without one (CLI 2.1.69 writes none), the ``subagent_type`` of
  the Agent call whose result names the agent id; else the lines'
  ``attributionAgent``) is one of ``graphify_nudge.SCOPE_AGENTS``.
  Main-thread calls and other agents are not counted (they are tallied
  under ``data_quality`` only).
* Nudges: a call counts as nudged when text starting with the hook's marker
  ``[graphify-nudge]`` is tied to its ``tool_use`` id, either in an
  ``attachment`` of type ``hook_additional_context`` (``toolUseID``) or in a
  ``<system-reminder>`` inside a user message that carries that id's
  ``tool_result``. Claude Code 2.1.259 and later write a subagent's
  attachments into its own transcript, so both ratios come out; before that
  (2.1.69 .. 2.1.258) no transcript records a subagent's advisory, the nudge
  count is 0 and the nudge-respect ratio ``null`` (docs/versions.md).
  Markers are honoured wherever they appear (main file or subagent file).
* Ordering: within one agent, file order; across the agents of a session,
  the lines' ``timestamp`` (files are merged lazily, one open file per agent).
* Not in transcripts at all: the graph state (``fresh``/``stale``/``absent``),
  the hook's mode (``sessions_off``) and self-disables. The report gives
  those as ``null``. Opt-outs are seen from ``tool_input.metadata``.
* Hostile input (:mod:`mishkan_core.metrics.files`): below the directory given,
  no link is followed and only regular files are read (a FIFO never blocks);
  a line longer than ``MAX_LINE`` is counted ``oversized`` and skipped;
  nesting deeper than the decoder allows is ``malformed``. Memory is bounded
  by ``MAX_LINE`` and, per agent, ``MAX_IN_FLIGHT`` calls awaiting a result.
"""

from __future__ import annotations

import heapq
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from typing import Any, Callable

from mishkan_core.metrics import files
from mishkan_core.metrics.telemetry import UnusableInput, decode_line, open_input_dir

MARKER = "[graphify-nudge]"
#: calls of one agent held back waiting for their tool_result (bounds memory)
MAX_IN_FLIGHT = 64
#: a transcript line carries whole tool results (a 5 MB image is 6.7 MB of
#: base64); a longer line is counted and skipped
MAX_LINE = 16 << 20
#: an ``agent-<id>.meta.json`` is a few dozen bytes
META_LIMIT = 64 << 10
#: Agent launches remembered per session (agent id -> type); bounds memory
MAX_LAUNCHES = 4096
#: the tool that launches a subagent, and its name before CLI 2.1.63
_LAUNCH_TOOLS = ("Agent", "Task")
_OPEN_TAG = "<system-reminder>"
_CLOSE_TAG = "</system-reminder>"

TRANSCRIPT_QUALITY_FIELDS = (
    "files",
    "lines",
    "events",
    "torn",
    "malformed",
    "oversized",
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


def _hook() -> tuple[Classify, Callable[[object], bool]]:
    """The hook's own classification and scope rule, so the two never disagree."""
    try:
        import graphify_nudge
    except ImportError:
        raise UnusableInput(
            "--from-transcripts needs the hook module graphify_nudge (classify_call); "
            "install mishkan-core or run from the repository root"
        ) from None
    return graphify_nudge.classify_call, graphify_nudge.in_scope


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
    """Every string inside a message/tool_result content (str or block list).

    Iterative: nesting depth costs no Python frames."""
    stack = [content]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            text = item.get("text")
            if isinstance(text, str):
                yield text
            inner = item.get("content")
            if inner is not None:
                stack.append(inner)


#: how an advisory that answered the question itself (issue 30) shows it: a
#: definition, or what a file defines (docs/hook.md, "What the advice says")
_ANSWER_LINES = ("\nDefinition", "\nDefines: ")


def _answers(text: str) -> bool:
    """Whether an advisory's text carries the answer (it then needs no lookup)."""
    return any(line in text for line in _ANSWER_LINES)


def _reminder_marker(text: str) -> bool:
    """Does a ``<system-reminder>`` block of ``text`` hold the hook's marker?

    Linear in ``len(text)``, however many opening tags lack a closing one."""
    at = text.find(_OPEN_TAG)
    while at >= 0:
        end = text.find(_CLOSE_TAG, at)
        if end < 0:
            return text.find(MARKER, at) >= 0
        if text.find(MARKER, at, end) >= 0:
            return True
        at = text.find(_OPEN_TAG, end)
    return False


def _lines(fd: int, quality: dict[str, int]) -> Iterator[dict[str, Any]]:
    """JSON objects of one open JSONL file (closed at the end); damage counted.

    A last line without its newline is still used when it is complete JSON."""
    quality["files"] += 1
    reader = files.Lines(fd, MAX_LINE)
    for raw in reader:
        quality["lines"] += 1
        try:
            obj = decode_line(raw)
        except ValueError:
            quality["malformed"] += 1
            continue
        if isinstance(obj, dict):
            yield obj
        else:
            quality["malformed"] += 1
    quality["lines"] += reader.oversized
    quality["oversized"] += reader.oversized
    if reader.error is not None:
        quality["unreadable_files"] += 1
    if reader.tail:
        quality["lines"] += 1
        try:
            obj = decode_line(reader.tail)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            yield obj
        else:
            quality["torn"] += 1


class _Scan:
    """Nudge markers tied to tool_use ids, collected from one file's lines."""

    def __init__(self, nudged: dict[str, bool], quality: dict[str, int]) -> None:
        self.nudged = nudged  # tool_use id -> its advisory answered the question
        self.quality = quality

    def mark(self, tool_id: str, answered: bool) -> None:
        self.nudged[tool_id] = self.nudged.get(tool_id, False) or answered

    def attachment(self, obj: dict[str, Any]) -> None:
        att = obj.get("attachment")
        if not isinstance(att, dict) or att.get("type") != "hook_additional_context":
            return
        texts = [t for t in _texts(att.get("content")) if t.lstrip().startswith(MARKER)]
        if texts:
            tool_id = att.get("toolUseID")
            if isinstance(tool_id, str):
                self.mark(tool_id, any(_answers(t) for t in texts))
            else:
                self.quality["untied_nudge_markers"] += 1

    def user(self, obj: dict[str, Any]) -> list[str]:
        """Mark nudges in a user message; return the tool_use ids it answers."""
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        answered: list[str] = []
        marked = advice = False
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    tool_id = block.get("tool_use_id")
                    if isinstance(tool_id, str):
                        answered.append(tool_id)
                reminders = [t for t in _texts([block]) if _reminder_marker(t)]
                if reminders:
                    marked = True
                    advice = advice or any(_answers(t) for t in reminders)
        elif isinstance(content, str):
            marked = _reminder_marker(content)
            advice = marked and _answers(content)
        if marked:
            if answered:
                for tool_id in answered:
                    self.mark(tool_id, advice)
            else:
                self.quality["untied_nudge_markers"] += 1
        return answered


def _main_file_scan(
    fd: int, quality: dict[str, int], nudged: dict[str, bool], launched: dict[str, str]
) -> tuple[str | None, float | None]:
    """Collect nudge markers of the main session file; count its calls; fill
    ``launched`` (agent id -> the ``subagent_type`` it was launched as).

    Returns the session id and the first timestamp found in the file."""
    scan = _Scan(nudged, quality)
    session: str | None = None
    first_ts: float | None = None
    launches: dict[str, str] = {}  # Agent tool_use id -> subagent_type
    for obj in _lines(fd, quality):
        if session is None and isinstance(obj.get("sessionId"), str):
            session = obj["sessionId"]
        if first_ts is None:
            first_ts = parse_timestamp(obj.get("timestamp"))
        kind = obj.get("type")
        if kind == "attachment":
            scan.attachment(obj)
        elif kind == "user":
            answered = scan.user(obj)
            _launched_agent(obj, answered, launches, launched)
        elif kind == "assistant":
            for block in _tool_uses(obj):
                quality["main_thread_calls"] += 1
                tool_input = block.get("input")
                agent = tool_input.get("subagent_type") if isinstance(tool_input, dict) else None
                tool_id = block.get("id")
                if (
                    block.get("name") in _LAUNCH_TOOLS
                    and isinstance(agent, str)
                    and isinstance(tool_id, str)
                    and len(launches) < MAX_LAUNCHES
                ):
                    launches[tool_id] = agent
    return session, first_ts


def _launched_agent(
    obj: dict[str, Any], answered: list[str], launches: dict[str, str], launched: dict[str, str]
) -> None:
    """The Agent call a user line answers names the agent id it started
    (``toolUseResult.agentId``): tie that id to the launch's ``subagent_type``.
    CLI 2.1.69 writes no ``.meta.json``, so this is its agent type."""
    result = obj.get("toolUseResult")
    agent_id = result.get("agentId") if isinstance(result, dict) else None
    if not isinstance(agent_id, str) or len(launched) >= MAX_LAUNCHES:
        return
    for tool_id in answered:
        if tool_id in launches:
            launched.setdefault(agent_id, launches[tool_id])


def _tool_uses(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                yield block


def _agent_type(meta: bytes | None) -> str | None:
    """``agentType`` from the bytes of an ``agent-<id>.meta.json``."""
    if meta is None:
        return None
    try:
        value = decode_line(meta)
    except ValueError:
        return None
    agent_type = value.get("agentType") if isinstance(value, dict) else None
    return agent_type if isinstance(agent_type, str) else None


def _agent_calls(
    fd: int,
    name: str,
    *,
    agent_type: str | None,
    session_hint: str,
    nudged: dict[str, bool],
    in_scope: Callable[[object], bool],
    classify: Classify,
    quality: dict[str, int],
) -> Iterator[tuple[float, int, dict[str, Any]]]:
    """Call events of one open subagent file ``name``, in file order, each
    yielded once the lines that could mark it nudged (up to its tool_result)
    have been read, or once ``MAX_IN_FLIGHT`` later calls wait behind it."""
    scan = _Scan(nudged, quality)
    agent_id = name[len("agent-") : -len(".jsonl")]
    # tool_use id -> event, oldest first; an OrderedDict, so that taking the
    # oldest is O(1) however many were taken before (a dict's first key is not)
    pending: OrderedDict[str, dict[str, Any]] = OrderedDict()
    done: set[str] = set()
    seq = 0
    anonymous = 0
    last_ts = 0.0
    scoped: bool | None = None if agent_type is None else in_scope(agent_type)

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
                ev["answered"] = "answer" if nudged[tool_id] else None
            seq += 1
            yield ev["ts"], seq, ev

    for obj in _lines(fd, quality):
        kind = obj.get("type")
        if kind == "assistant":
            if agent_type is None:
                attributed = obj.get("attributionAgent")
                if isinstance(attributed, str):
                    agent_type = attributed
                    scoped = in_scope(attributed)
            line_agent = obj.get("agentId")
            if isinstance(line_agent, str) and line_agent:
                agent_id = line_agent
            ts = parse_timestamp(obj.get("timestamp"))
            if ts is None:
                ts = last_ts
            last_ts = ts
            session = obj.get("sessionId")
            for block in _tool_uses(obj):
                if not scoped or agent_type is None:
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
                if not isinstance(tool_id, str) or tool_id in pending:
                    anonymous += 1  # no id, or a repeated one: never tied to a result
                    tool_id = f"#{anonymous}"
                pending[tool_id] = ev
            yield from release(final=False)  # keeps at most MAX_IN_FLIGHT waiting
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


def read_dir(
    directory: str,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
    touch: Callable[[str, float], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Call events of every session under ``directory``, one session at a time.

    ``directory`` may be one project dir or ``~/.claude/projects`` itself: its
    sessions are read, then those of its sub-directories (one level, no more).
    A session is a ``<stem>.jsonl`` file or a ``<stem>/subagents/`` dir.
    ``touch(session, ts)`` is called once per session seen, so sessions with
    no in-scope call still count (as they would through SessionStart).
    """
    run = _Run(quality, keep, touch)
    top = open_input_dir(directory, "transcript")
    found = 0
    try:
        try:
            stems, subdirs = _list_dir(top, quality)
        except OSError as exc:
            raise UnusableInput(
                f"cannot read transcript directory {directory}: {exc.strerror}"
            ) from None
        for stem in stems:
            found += 1
            yield from _session(top, stem, run)
        for name in subdirs:  # project directories under ~/.claude/projects
            project = files.open_subdir(name, top)
            if project is None:
                quality["unreadable_files"] += 1
                continue
            try:
                try:
                    stems, _ = _list_dir(project, quality)
                except OSError:
                    quality["unreadable_files"] += 1
                    continue
                for stem in stems:
                    found += 1
                    yield from _session(project, stem, run)
            finally:
                os.close(project)
    finally:
        os.close(top)
    if not found:
        raise UnusableInput(f"no Claude Code transcripts under {directory}")


def _list_dir(dir_fd: int, quality: dict[str, int]) -> tuple[list[str], list[str]]:
    """(session stems, other sub-directories) of one directory, sorted."""
    stems: set[str] = set()
    dirs: list[str] = []
    for entry in os.scandir(dir_fd):
        name = entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            dirs.append(name)
        elif name.endswith(".jsonl"):
            stems.add(name[: -len(".jsonl")])  # a link or FIFO is caught at open
        elif not name.endswith(".json"):
            quality["foreign_files"] += 1
    others: list[str] = []
    for name in dirs:
        session_dir = files.open_subdir(name, dir_fd)
        subagents = None if session_dir is None else files.open_subdir("subagents", session_dir)
        if session_dir is not None:
            os.close(session_dir)
        if subagents is not None:
            os.close(subagents)
            stems.add(name)  # its subagents are read with the session
        elif name not in stems:
            others.append(name)  # a project dir; never a session's own directory
    return sorted(stems), sorted(others)


class _Run:
    """What every session of one read shares."""

    def __init__(
        self,
        quality: dict[str, int],
        keep: Callable[[float], bool] | None,
        touch: Callable[[str, float], None] | None,
    ) -> None:
        self.classify, self.in_scope = _hook()
        self.quality = quality
        self.keep = keep
        self.touch = touch


def _session(project: int, stem: str, run: _Run) -> Iterator[dict[str, Any]]:
    """The call events of one session: its main file, then its subagents merged."""
    quality, keep, touch = run.quality, run.keep, run.touch
    nudged: dict[str, bool] = {}
    launched: dict[str, str] = {}
    session = stem
    first_ts: float | None = None
    main = _open(stem + ".jsonl", project, quality)
    if main is not None:
        found_session, first_ts = _main_file_scan(main, quality, nudged, launched)
        session = found_session or stem
    streams = []
    session_dir = files.open_subdir(stem, project)
    subagents = None if session_dir is None else files.open_subdir("subagents", session_dir)
    if session_dir is not None:
        os.close(session_dir)
    if subagents is not None:
        try:
            names = sorted(os.listdir(subagents))
        except OSError:
            quality["unreadable_files"] += 1
            names = []
        for name in names:
            if not (name.startswith("agent-") and name.endswith(".jsonl")):
                continue
            fd = _open(name, subagents, quality)
            if fd is None:
                continue
            meta = files.read_small(name[: -len(".jsonl")] + ".meta.json", subagents, META_LIMIT)
            streams.append(
                _agent_calls(
                    fd,
                    name,
                    agent_type=_agent_type(meta)
                    or launched.get(name[len("agent-") : -len(".jsonl")]),
                    session_hint=session,
                    nudged=nudged,
                    in_scope=run.in_scope,
                    classify=run.classify,
                    quality=quality,
                )
            )
        os.close(subagents)
    if touch is not None and first_ts is not None and (keep is None or keep(first_ts)):
        touch(session, first_ts)
    for ts, _, ev in heapq.merge(*streams, key=lambda item: (item[0], item[1])):
        if keep is not None and not keep(ts):
            quality["outside_window"] += 1
            continue
        quality["events"] += 1
        yield ev


def _open(name: str, dir_fd: int, quality: dict[str, int]) -> int | None:
    """A regular file's descriptor; a missing file is None, anything else is counted."""
    try:
        fd = files.open_regular(name, dir_fd)
    except FileNotFoundError:
        return None
    except OSError:
        quality["unreadable_files"] += 1
        return None
    if fd is None:
        quality["foreign_files"] += 1
    return fd


# -- drift: what the transcripts hold that the telemetry does not --------------


def default_dir(environ: Mapping[str, str] | None = None) -> str:
    """The project's own transcript directory, as Claude Code names it:
    ``<config dir>/projects/<root>`` with every character of the root that is
    not a letter or digit turned into ``-`` (root = $CLAUDE_PROJECT_DIR or the
    cwd; config dir = $CLAUDE_CONFIG_DIR, else ~/.claude)."""
    from mishkan_core.hook_chain import config_dir

    env = os.environ if environ is None else environ
    root = os.path.abspath(env.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    mangled = "".join(c if c.isalnum() else "-" for c in root)
    return str(config_dir(env) / "projects" / mangled)


def in_scope_calls(directory: str, keep: Callable[[float], bool] | None = None) -> dict[str, int]:
    """Session -> the number of tool calls the five agents made in it, per the
    transcripts under ``directory`` (same scope and window rules as the
    backfill). Raises UnusableInput like :func:`read_dir`."""
    counts: dict[str, int] = {}
    for event in read_dir(directory, new_quality(), keep):
        session = str(event.get("session"))
        counts[session] = counts.get(session, 0) + 1
    return counts
