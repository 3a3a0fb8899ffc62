"""Read the hook's telemetry directory (schema v1, docs/telemetry.md).

Streams: one file at a time, one line at a time, never more than
``MAX_LINE`` bytes of a line in memory; nothing is kept per event. Files are
opened as :mod:`mishkan_core.metrics.files` says: only regular files, never
through a link, never blocking on a FIFO. Damage is counted, never fatal:

* ``torn``: a last line without its trailing newline (a writer mid-append);
* ``malformed``: a line that is not JSON (nesting deeper than the decoder
  allows and ``NaN``/``Infinity`` included), not an object, or lacks a field
  the contract requires, or has one of the wrong type (``ts`` must be a number
  between 0 and ``TS_MAX``; ``mode``, ``decision``, ``graph``, ``reason`` and
  ``agent`` a string when present);
* ``oversized``: a line longer than ``MAX_LINE`` (skipped, not held);
* ``unknown_schema``: a well-formed object whose ``v`` is not 1;
* ``other_events``: a schema-1 line whose ``event`` this reader does not know
  (a newer hook's additive event): skipped, not damage;
* ``foreign_files``: anything in the directory that is not a regular
  ``*.jsonl`` file (a link, FIFO, directory; the hook's private ``.state/``
  and ``.index/`` directories excepted), and ``*.jsonl`` files in which no
  line is a telemetry object at all (e.g. a transcript dropped there);
* ``unreadable_files``: files that could not be opened or read;
* ``outside_window``: valid events dropped by ``--since``/``--until``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any, Callable

from graphify_nudge import DEFAULT_TELEMETRY_DIR, INDEX_DIR, MAX_FIELD_CHARS, STATE_DIR
from mishkan_core.metrics import files

SCHEMA_VERSION = 1
#: the hook's private directories inside the telemetry dir: not telemetry
PRIVATE_DIRS = frozenset({STATE_DIR, INDEX_DIR})
EVENTS = frozenset({"session_start", "call", "lookup_result", "self_disable", "slow_call"})
#: a telemetry line is a few hundred bytes; anything past this is not one
MAX_LINE = 1 << 20
#: the largest ``ts`` accepted (year 5138): no NaN, no infinity, no 5000-digit int
TS_MAX = 1e11
#: the hook cuts `session` and `agent_type` to this many characters
#: (docs/telemetry.md); a longer one is no line the hook wrote: malformed. Every
#: report prints each name in several places (the HTML in each of a row's cells)
MAX_NAME = MAX_FIELD_CHARS

QUALITY_FIELDS = (
    "files",
    "lines",
    "events",
    "torn",
    "malformed",
    "oversized",
    "unknown_schema",
    "other_events",
    "foreign_files",
    "unreadable_files",
    "outside_window",
)


class UnusableInput(Exception):
    """The input cannot give a report at all (exit 2, one line on stderr)."""


def new_quality() -> dict[str, int]:
    return dict.fromkeys(QUALITY_FIELDS, 0)


def default_dir(environ: dict[str, str] | None = None) -> str:
    """The directory the hook writes to: $MISHKAN_TELEMETRY_DIR, else
    ``<root>/.mishkan/telemetry`` with root = $CLAUDE_PROJECT_DIR or the cwd."""
    env = os.environ if environ is None else environ
    explicit = env.get("MISHKAN_TELEMETRY_DIR")
    if explicit:
        return explicit
    root = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return os.path.join(root, DEFAULT_TELEMETRY_DIR)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: one decoder for every line: the C scanner (no per-line Python frames), and
#: NaN/Infinity refused (Python's json accepts them; JSON does not)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_OTHER_EVENTS = EVENTS - {"call"}
#: events whose agent fields are optional
_AGENT_EVENTS = frozenset({"self_disable", "slow_call", "lookup_result"})


def decode_line(raw: bytes) -> object:
    """One JSON value from one line; ValueError for anything that is not one.

    Deep nesting (RecursionError) and NaN/Infinity are ValueErrors here."""
    try:
        text = raw.decode("utf-8")
        try:
            obj, end = _SCAN(text, 0)
        except StopIteration:  # leading blanks or not JSON: the full decoder decides
            return _DECODER.decode(text)
        if end != len(text) and text[end:].strip():
            raise ValueError("extra data after the JSON value")
        return obj
    except RecursionError:
        raise ValueError("nested deeper than the decoder allows") from None


def open_input_dir(directory: str, what: str) -> int:
    """A descriptor for the input directory the user named, or UnusableInput
    with the one line that says why not."""
    try:
        return files.open_top(directory)
    except FileNotFoundError:
        raise UnusableInput(f"{what} directory not found: {directory}") from None
    except NotADirectoryError:
        raise UnusableInput(f"{what} path is not a directory: {directory}") from None
    except OSError as exc:
        raise UnusableInput(f"cannot read {what} directory {directory}: {exc.strerror}") from None


def read_dir(
    directory: str,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every valid event of every telemetry file of ``directory``, file by file
    in name order (raises UnusableInput when the directory cannot be listed)."""
    top = open_input_dir(directory, "telemetry")
    try:
        try:
            names = sorted(entry.name for entry in os.scandir(top))
        except OSError as exc:
            raise UnusableInput(
                f"cannot read telemetry directory {directory}: {exc.strerror}"
            ) from None
        for name in names:
            if name in PRIVATE_DIRS:
                continue
            if not name.endswith(".jsonl"):
                quality["foreign_files"] += 1
                continue
            yield from read_file(name, top, quality, keep)
    finally:
        os.close(top)


def read_file(
    name: str,
    dir_fd: int,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the valid schema-1 events of the file ``name`` in ``dir_fd``, in
    file order (anything but a regular file counts as foreign).

    This is the hot loop of the report (bench/metrics_aggregate.py): JSON is
    decoded by the C scanner directly and the contract checks are inlined.
    """
    try:
        fd = files.open_regular(name, dir_fd)
    except OSError:
        quality["unreadable_files"] += 1
        return
    if fd is None:
        quality["foreign_files"] += 1
        return
    scan = _SCAN
    decode = decode_line
    other_events = _OTHER_EVENTS
    agent_events = _AGENT_EVENTS
    ts_max = TS_MAX
    name_max = MAX_NAME
    str_ = str
    lines = malformed = unknown = outside = events = foreign = others = 0
    reader = files.Lines(fd, MAX_LINE)
    try:
        for raw in reader:
            lines += 1
            try:
                text = raw.decode("utf-8")
                obj, end = scan(text, 0)
                if end != len(text):
                    raise ValueError("extra data")
            except (ValueError, StopIteration, RecursionError):
                try:  # the slow path decides (leading/trailing blanks, real damage)
                    obj = decode(raw)
                except ValueError:
                    malformed += 1
                    continue
            if type(obj) is not dict:
                malformed += 1
                continue
            v = obj.get("v")
            if v != SCHEMA_VERSION or type(v) is not int:
                if v is None:
                    foreign += 1
                else:
                    unknown += 1
                continue
            ts = obj.get("ts")
            event = obj.get("event")
            mode = obj.get("mode")
            session = obj.get("session")
            if (
                type(session) is not str_
                or len(session) > name_max
                or (type(ts) is not float and type(ts) is not int)
                or not 0 <= ts <= ts_max
                or (mode is not None and type(mode) is not str_)
            ):
                malformed += 1
                continue
            if event == "call":
                decision = obj.get("decision")
                graph = obj.get("graph")
                reason = obj.get("reason")
                agent = obj.get("agent")
                agent_type = obj.get("agent_type")
                if (
                    type(agent_type) is not str_
                    or len(agent_type) > name_max
                    or type(obj.get("agent_id")) is not str_
                    or type(obj.get("kind")) is not str_
                    or type(obj.get("trigger")) is not bool
                    or (decision is not None and type(decision) is not str_)
                    or (graph is not None and type(graph) is not str_)
                    or (reason is not None and type(reason) is not str_)
                    or (agent is not None and type(agent) is not str_)
                ):
                    malformed += 1
                    continue
            elif type(event) is not str_:
                malformed += 1
                continue
            elif event not in other_events:
                others += 1  # a newer hook's additive event: not ours to count
                continue
            elif event in agent_events:
                agent_type = obj.get("agent_type")
                agent = obj.get("agent")
                failed = obj.get("failed")
                if (
                    (
                        agent_type is not None
                        and (type(agent_type) is not str_ or len(agent_type) > name_max)
                    )
                    or (agent is not None and type(agent) is not str_)
                    or (failed is not None and type(failed) is not bool)
                ):
                    malformed += 1
                    continue
            if keep is not None and not keep(ts):
                outside += 1
                continue
            events += 1
            yield obj
    finally:
        if reader.error is not None:
            quality["unreadable_files"] += 1
        torn = 1 if reader.tail else 0  # None: an over-long last line, in oversized
        lines += reader.oversized + torn
        if foreign and not events and not outside and not unknown and not others:
            # not a telemetry file at all (its objects carry no schema version)
            quality["foreign_files"] += 1
        else:
            malformed += foreign
            quality["files"] += 1
        quality["lines"] += lines
        quality["torn"] += torn
        quality["malformed"] += malformed
        quality["oversized"] += reader.oversized
        quality["unknown_schema"] += unknown
        quality["other_events"] += others
        quality["outside_window"] += outside
        quality["events"] += events
