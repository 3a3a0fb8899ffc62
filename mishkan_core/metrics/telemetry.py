"""Read the hook's telemetry directory (schema v1, docs/telemetry.md).

Streams: one file at a time, one line at a time; nothing is kept per event.
Damage is counted, never fatal:

* ``torn``: a last line without its trailing newline (a writer mid-append);
* ``malformed``: a line that is not JSON, not an object, or lacks a field the
  contract requires (with its right type);
* ``unknown_schema``: a well-formed object whose ``v`` is not 1;
* ``foreign_files``: anything in the directory that is not ``*.jsonl``
  (the hook's ``.state/`` directory excepted), and ``*.jsonl`` files in which
  no line is a telemetry object at all (e.g. a transcript dropped there);
* ``unreadable_files``: files that could not be opened or read;
* ``outside_window``: valid events dropped by ``--since``/``--until``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any, Callable

SCHEMA_VERSION = 1
#: the hook's default, relative to the project root (graphify_nudge.DEFAULT_TELEMETRY_DIR)
DEFAULT_TELEMETRY_DIR = ".mishkan/telemetry"
STATE_DIR = ".state"
EVENTS = frozenset({"session_start", "call", "lookup_result", "self_disable"})

QUALITY_FIELDS = (
    "files",
    "lines",
    "events",
    "torn",
    "malformed",
    "unknown_schema",
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


def list_files(directory: str, quality: dict[str, int]) -> list[str]:
    """The ``*.jsonl`` files of ``directory``, sorted; counts foreign entries."""
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        raise UnusableInput(f"telemetry directory not found: {directory}") from None
    except NotADirectoryError:
        raise UnusableInput(f"telemetry path is not a directory: {directory}") from None
    except OSError as exc:
        raise UnusableInput(
            f"cannot read telemetry directory {directory}: {exc.strerror}"
        ) from None
    files: list[str] = []
    for entry in entries:
        if entry.name == STATE_DIR:
            continue
        try:
            regular = entry.is_file(follow_symlinks=False)
        except OSError:
            regular = False
        if regular and entry.name.endswith(".jsonl"):
            files.append(entry.path)
        else:
            quality["foreign_files"] += 1
    files.sort()
    return files


# the C scanner (json.scanner.c_make_scanner): no per-line Python frames
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_OTHER_EVENTS = EVENTS - {"call"}


def read_file(
    path: str,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the valid schema-1 events of one file, in file order.

    This is the hot loop of the report (bench/metrics_aggregate.py): JSON is
    decoded by the C scanner directly and the contract checks are inlined.
    """
    loads = json.loads
    scan = _SCAN
    other_events = _OTHER_EVENTS
    lines = torn = malformed = unknown = outside = events = foreign = 0
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed in finally, generator
    except OSError:
        quality["unreadable_files"] += 1
        return
    try:
        try:
            for raw in fh:
                lines += 1
                if raw[-1:] != b"\n":
                    torn += 1
                    continue
                try:
                    text = raw.decode("utf-8")
                    obj, end = scan(text, 0)
                    if end != len(text) - 1 and text[end:].strip():
                        raise ValueError("extra data")
                except (ValueError, StopIteration):
                    try:  # the slow path decides (leading blanks, real damage)
                        obj = loads(raw)
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
                if (
                    type(obj.get("session")) is not str
                    or (type(ts) is not float and type(ts) is not int)
                    or (
                        (
                            type(obj.get("agent_type")) is not str
                            or type(obj.get("agent_id")) is not str
                            or type(obj.get("kind")) is not str
                            or type(obj.get("trigger")) is not bool
                        )
                        if event == "call"
                        else event not in other_events
                    )
                ):
                    malformed += 1
                    continue
                if keep is not None and not keep(ts):
                    outside += 1
                    continue
                events += 1
                yield obj
        except OSError:
            quality["unreadable_files"] += 1
    finally:
        fh.close()
        if foreign and not events and not outside and not unknown:
            # not a telemetry file at all (its objects carry no schema version)
            quality["foreign_files"] += 1
        else:
            malformed += foreign
            quality["files"] += 1
        quality["lines"] += lines
        quality["torn"] += torn
        quality["malformed"] += malformed
        quality["unknown_schema"] += unknown
        quality["outside_window"] += outside
        quality["events"] += events


def read_dir(
    directory: str,
    quality: dict[str, int],
    keep: Callable[[float], bool] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every valid event of every telemetry file of ``directory``."""
    for path in list_files(directory, quality):
        yield from read_file(path, quality, keep)
