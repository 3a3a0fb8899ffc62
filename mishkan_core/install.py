"""``mishkan install``: put the graphify-nudge hook into a project.

What it does, in order:

1. Finds the hook source without importing it
   (``importlib.util.find_spec("graphify_nudge").origin``) and copies it to
   ``<project>/<hooks-dir>/graphify_nudge.py``.
2. Precompiles the copy with the *target* interpreter, so the import-based
   registration below loads a ``.pyc`` and never compiles at run time.
3. Merges three entries into ``<project>/.claude/settings.json``:
   PreToolUse (matcher ``*``, placed after the security and model-route hooks),
   PostToolUse (matcher ``*``) and SessionStart, each running::

       /abs/python -I -S -c '<IMPORT_CODE>' "$CLAUDE_PROJECT_DIR/<hooks-dir>"

   where ``IMPORT_CODE`` puts the hooks directory on ``sys.path`` and calls
   ``graphify_nudge.main()``, so the interpreter loads the cached ``.pyc``.

   and records the mode as ``env.MISHKAN_GRAPHIFY_NUDGE``.

Idempotent (a second run writes nothing), preserving (every other key and
hook stays where it was; the file's indent and newline style are kept),
atomic (temp file + ``os.replace``). Before the first change it keeps the
settings as they were in ``settings.json.mishkan-backup``; ``--uninstall``
removes exactly what was added and, when nothing else changed in between,
restores that copy byte for byte. ``--dry-run`` prints a unified diff and
writes nothing.

The interpreter is an absolute path to a real interpreter, never a pyenv
shim: a shim is a shell script that costs ~50 ms per call and may pick a
different Python per directory.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOOK_MODULE = "graphify_nudge"
HOOK_FILE = "graphify_nudge.py"
DEFAULT_HOOKS_DIR = "payload/mishkan/hooks"
ENV_KEY = "MISHKAN_GRAPHIFY_NUDGE"
MODES = ("telemetry", "advise")
TIMEOUT = 10
EVENTS = ("PreToolUse", "PostToolUse", "SessionStart")
MATCHERS: dict[str, str | None] = {"PreToolUse": "*", "PostToolUse": "*", "SessionStart": None}
CHAIN_BEFORE = ("pre-tool-security", "model-route")
BACKUP_SUFFIX = ".mishkan-backup"
IMPORT_CODE = (
    "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()"
)
COMPILE_CODE = "import py_compile,sys; py_compile.compile(sys.argv[1], doraise=True)"
PROBE_CODE = (
    "import os,sys;print(os.path.realpath(sys.executable));print('%d.%d' % sys.version_info[:2])"
)
MIN_PYTHON = (3, 9)


class InstallError(Exception):
    """Unusable input or environment: one line, exit 2."""


# ---------------------------------------------------------------------------
# The interpreter


def is_shim(path: str) -> bool:
    """A version-manager shim: under a ``shims`` directory, or a ``#!`` script
    rather than an interpreter binary."""
    if "shims" in Path(path).parts:
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _probe(python: str, cwd: Path) -> tuple[str, tuple[int, int]]:
    try:
        proc = subprocess.run(
            [python, "-I", "-S", "-c", PROBE_CODE],
            cwd=str(cwd),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallError(f"cannot run {python}: {exc}") from None
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) != 2:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise InstallError(f"{python} is not a usable Python interpreter: {detail}")
    major, minor = (int(p) for p in lines[1].split("."))
    return lines[0], (major, minor)


def resolve_python(explicit: str | None, project: Path) -> tuple[str, list[str]]:
    """Return the absolute interpreter to register, and notes for the user.

    Default: ``os.path.realpath(sys.executable)``, refused if it is a shim.
    ``--python``: taken as given (made absolute, found on PATH if bare); a
    shim is resolved to the interpreter it runs *in the project directory*,
    which is the one Claude Code would have got, and that path is registered.
    """
    notes: list[str] = []
    if explicit is None:
        if not sys.executable:
            raise InstallError("cannot tell which Python runs mishkan; pass --python /abs/python3")
        python = os.path.realpath(sys.executable)
        if is_shim(python):
            raise InstallError(
                f"{python} is a shim (a shell script: ~50 ms per call, version chosen per "
                "directory); pass --python with the real interpreter, e.g. "
                "$(pyenv which python3)"
            )
    else:
        python = explicit
        if os.sep not in python:
            found = shutil.which(python)
            if found is None:
                raise InstallError(f"--python {explicit}: not found on PATH")
            python = found
        python = os.path.abspath(python)
        if not os.path.isfile(python) or not os.access(python, os.X_OK):
            raise InstallError(f"--python {explicit}: not an executable file")
        if is_shim(python):
            real, _version = _probe(python, project)
            notes.append(f"{python} is a shim; registering the interpreter it runs here: {real}")
            python = real
    _real, version = _probe(python, project)
    if version < MIN_PYTHON:
        raise InstallError(
            f"{python} is Python {version[0]}.{version[1]}; the hook needs 3.9 or newer"
        )
    return python, notes


# ---------------------------------------------------------------------------
# The hook file


def hook_source() -> Path:
    """Where the hook's source is, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(HOOK_MODULE)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise InstallError(f"cannot find {HOOK_FILE}: is mishkan-core installed?")
    return Path(spec.origin)


def precompile(python: str, target: Path) -> None:
    proc = subprocess.run(
        [python, "-I", "-S", "-c", COMPILE_CODE, str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise InstallError(f"{python} cannot compile {target}: {detail}")


# ---------------------------------------------------------------------------
# settings.json: style


_NON_ASCII_ESCAPE = re.compile(
    r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


@dataclass(frozen=True)
class Style:
    indent: int | str | None = 2
    separators: tuple[str, str] = (",", ": ")
    ensure_ascii: bool = False
    final_newline: bool = True
    crlf: bool = False


def detect_style(text: str) -> Style:
    if not text.strip():
        return Style()
    crlf = "\r\n" in text
    body = text.replace("\r\n", "\n")
    indent: int | str | None = None
    lines = body.split("\n")
    for previous, line in zip(lines, lines[1:]):
        if previous.rstrip().endswith(("{", "[")) and line.strip():
            lead = line[: len(line) - len(line.lstrip())]
            indent = "\t" if lead.startswith("\t") else len(lead)
            break
    if indent is None:
        separators = (", " if ", " in body else ",", ": " if '": ' in body else ":")
    else:
        separators = (",", ": ")
    has_non_ascii = any(ord(ch) > 127 for ch in body)
    has_escapes = _NON_ASCII_ESCAPE.search(body)
    return Style(
        indent=indent,
        separators=separators,
        ensure_ascii=bool(has_escapes) and not has_non_ascii,
        final_newline=body.endswith("\n"),
        crlf=crlf,
    )


def dump(doc: Any, style: Style) -> str:
    text = json.dumps(
        doc, indent=style.indent, separators=style.separators, ensure_ascii=style.ensure_ascii
    )
    if style.final_newline:
        text += "\n"
    return text.replace("\n", "\r\n") if style.crlf else text


# ---------------------------------------------------------------------------
# settings.json: minimal text edits
#
# Re-serialising the whole file would reflow every hand-formatted line. So the
# new document is written as a few splices into the old text: members and
# items that were added or removed, and values that changed; everything else
# keeps its bytes. Inserting an item copies the whitespace of its neighbours,
# and deleting it removes exactly that, so install followed by uninstall gives
# the same text back. The result is parsed again and compared with the wanted
# document; on any mismatch the whole file is re-serialised instead.


@dataclass
class _Span:
    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    items: list[_Span]
    keys: list[str]
    key_starts: list[int]


_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _spans(text: str, i: int) -> tuple[_Span, int]:
    i = _skip(text, i)
    opener = text[i]
    if opener not in "{[":
        _value, end = _DECODER.raw_decode(text, i)
        return _Span(i, end, "scalar", [], [], []), end
    closer = "}" if opener == "{" else "]"
    span = _Span(i, i, "object" if opener == "{" else "array", [], [], [])
    i = _skip(text, i + 1)
    if text[i] == closer:
        span.end = i + 1
        return span, i + 1
    while True:
        i = _skip(text, i)
        if span.kind == "object":
            key, after = _DECODER.raw_decode(text, i)
            span.keys.append(key)
            span.key_starts.append(i)
            i = _skip(text, after)
            if text[i] != ":":
                raise ValueError("expected ':'")
            i += 1
        item, i = _spans(text, i)
        span.items.append(item)
        i = _skip(text, i)
        if text[i] == ",":
            i += 1
            continue
        if text[i] != closer:
            raise ValueError(f"expected {closer!r}")
        span.end = i + 1
        return span, i + 1


class _Splicer:
    def __init__(self, text: str, style: Style) -> None:
        self.text = text
        self.style = style
        self.edits: list[tuple[int, int, str]] = []
        indent = style.indent
        self.unit = "\t" if indent == "\t" else " " * indent if isinstance(indent, int) else ""

    # -- helpers ------------------------------------------------------------

    def _line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def _starts_line(self, pos: int) -> bool:
        start = self.text.rfind("\n", 0, pos) + 1
        return self.text[start:pos].strip() == "" and start > 0

    def _render(self, value: Any, base: str | None) -> str:
        """``value`` as JSON; multi-line at indentation ``base``, or inline."""
        if base is None or not self.unit:
            seps = self.style.separators if not self.unit else (", ", ": ")
            return json.dumps(value, separators=seps, ensure_ascii=self.style.ensure_ascii)
        text = json.dumps(
            value, indent=self.unit, separators=(",", ": "), ensure_ascii=self.style.ensure_ascii
        )
        return text.replace("\n", "\n" + base)

    def _key_sep(self, span: _Span) -> str:
        if span.keys:
            key_end = _DECODER.raw_decode(self.text, span.key_starts[0])[1]
            return self.text[key_end : span.items[0].start]
        return self.style.separators[1] if not self.unit else ": "

    def _starts(self, span: _Span) -> list[int]:
        return span.key_starts if span.kind == "object" else [item.start for item in span.items]

    def _entry(self, span: _Span, key: str | None, value: Any, base: str | None) -> str:
        rendered = self._render(value, base)
        if key is None:
            return rendered
        return (
            json.dumps(key, ensure_ascii=self.style.ensure_ascii) + self._key_sep(span) + rendered
        )

    def _fresh(self, span: _Span, entries: Sequence[tuple[str | None, Any]]) -> None:
        """Fill an empty container."""
        opener, closer = self.text[span.start], self.text[span.end - 1]
        if not self.unit:
            body = self.style.separators[0].join(self._entry(span, k, v, None) for k, v in entries)
            self.edits.append((span.start, span.end, opener + body + closer))
            return
        outer = self._line_indent(span.start)
        inner = outer + self.unit
        body = ",\n".join(inner + self._entry(span, k, v, inner) for k, v in entries)
        self.edits.append((span.start, span.end, f"{opener}\n{body}\n{outer}{closer}"))

    # -- the diff -------------------------------------------------------------

    def replace(self, span: _Span, value: Any) -> None:
        inline = "\n" not in self.text[span.start : span.end] and span.kind != "scalar"
        base = None if inline else self._line_indent(span.start)
        self.edits.append((span.start, span.end, self._render(value, base)))

    def diff(self, span: _Span, old: Any, new: Any) -> None:
        if _same(old, new):
            return
        if isinstance(old, dict) and isinstance(new, dict) and span.kind == "object":
            self._diff_object(span, old, new)
        elif isinstance(old, list) and isinstance(new, list) and span.kind == "array":
            self._diff_array(span, old, new)
        else:
            self.replace(span, new)

    def _diff_object(self, span: _Span, old: dict[str, Any], new: dict[str, Any]) -> None:
        kept = [k for k in old if k in new]
        added = [k for k in new if k not in old]
        if list(new) != kept + added:
            self.replace(span, new)
            return
        removed = [i for i, k in enumerate(old) if k not in new]
        if not kept and old:
            if added:
                self.replace(span, new)
            else:
                self.edits.append((span.start, span.end, "{}"))
            return
        for i, key in enumerate(old):
            if key in new:
                self.diff(span.items[i], old[key], new[key])
        self._delete(span, removed)
        if added:
            if not old:
                self._fresh(span, [(k, new[k]) for k in added])
            else:
                self._append(span, [(k, new[k]) for k in added])

    def _diff_array(self, span: _Span, old: list[Any], new: list[Any]) -> None:
        a = [json.dumps(x) for x in old]
        b = [json.dumps(x) for x in new]
        ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
        if not old:
            self._fresh(span, [(None, v) for v in new])
            return
        if not new:
            self.edits.append((span.start, span.end, "[]"))
            return
        if not any(tag == "equal" for tag, *_ in ops) and len(old) != len(new):
            self.replace(span, new)
            return
        deleted: list[int] = []
        for tag, i1, i2, j1, j2 in ops:
            if tag == "replace" and i2 - i1 == j2 - j1:
                for k in range(i2 - i1):
                    self.diff(span.items[i1 + k], old[i1 + k], new[j1 + k])
            elif tag == "replace":
                self.replace(span, new)
                return
            elif tag == "delete":
                deleted.extend(range(i1, i2))
            elif tag == "insert":
                values = [(None, v) for v in new[j1:j2]]
                if i1 < len(old):
                    self._insert_before(span, i1, values)
                else:
                    self._append(span, values)
        self._delete(span, deleted)

    # -- splices ----------------------------------------------------------------

    def _insert_before(
        self, span: _Span, index: int, entries: Sequence[tuple[str | None, Any]]
    ) -> None:
        starts = self._starts(span)
        at = starts[index]
        before = self.text[:at].rstrip(_WS)
        gap = self.text[len(before) : at]
        base = self._line_indent(at) if self._starts_line(at) else None
        text = "".join(self._entry(span, k, v, base) + "," + gap for k, v in entries)
        self.edits.append((at, at, text))

    def _append(self, span: _Span, entries: Sequence[tuple[str | None, Any]]) -> None:
        starts = self._starts(span)
        last_start = starts[-1]
        before = self.text[:last_start].rstrip(_WS)
        gap = self.text[len(before) : last_start]
        base = self._line_indent(last_start) if self._starts_line(last_start) else None
        at = span.items[-1].end
        text = "".join("," + gap + self._entry(span, k, v, base) for k, v in entries)
        self.edits.append((at, at, text))

    def _delete(self, span: _Span, indexes: list[int]) -> None:
        if not indexes:
            return
        starts = self._starts(span)
        count = len(span.items)
        gone = set(indexes)
        i = 0
        while i < count:
            if i not in gone:
                i += 1
                continue
            j = i
            while j + 1 < count and j + 1 in gone:
                j += 1
            if j + 1 < count:  # a kept entry follows: take this run and the gap after it
                self.edits.append((starts[i], starts[j + 1], ""))
            else:  # the run ends the container: take the comma and gap before it
                prev_end = span.items[i - 1].end
                self.edits.append((prev_end, span.items[j].end, ""))
            i = j + 1

    def result(self) -> str:
        text = self.text
        for start, end, replacement in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:start] + replacement + text[end:]
        return text


def render(old: bytes | None, doc: Any, new_doc: Any, style: Style) -> bytes:
    """The new file: ``old`` with minimal edits when possible, else a dump."""
    if old is not None:
        try:
            raw = old.decode("utf-8")
            bom = "\ufeff" if raw.startswith("\ufeff") else ""
            text = raw[len(bom) :].replace("\r\n", "\n")
            span, end = _spans(text, 0)
            if text[end:].strip():
                raise ValueError("trailing data")
            splicer = _Splicer(text, style)
            splicer.diff(span, doc, new_doc)
            out = splicer.result()
            if _same(json.loads(out), new_doc):
                if style.crlf:
                    out = out.replace("\n", "\r\n")
                return (bom + out).encode("utf-8")
        except (ValueError, IndexError, KeyError):
            pass
    return dump(new_doc, style).encode("utf-8")


# ---------------------------------------------------------------------------
# settings.json: merge


def hook_command(python: str, hooks_dir: Path, project: Path) -> str:
    try:
        rel = hooks_dir.relative_to(project)
    except ValueError:
        where = shlex.quote(str(hooks_dir))
    else:
        text = rel.as_posix()
        escaped = re.sub(r'(["\\$`])', r"\\\1", text)
        where = f'"$CLAUDE_PROJECT_DIR/{escaped}"' if text != "." else '"$CLAUDE_PROJECT_DIR"'
    return f"{shlex.quote(python)} -I -S -c '{IMPORT_CODE}' {where}"


def is_ours(handler: Any) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(handler.get("command"), str)
        and HOOK_MODULE in handler["command"]
    )


def _handler(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": TIMEOUT}


def _group(event: str, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {}
    matcher = MATCHERS[event]
    if matcher is not None:
        group["matcher"] = matcher
    group["hooks"] = [_handler(command)]
    return group


def _shape(doc: Any, label: str) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise InstallError(f"{label}: expected a JSON object at the top level")
    hooks = doc.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InstallError(f"{label}: 'hooks' is not an object")
    for event in EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        if groups is None:
            continue
        if not isinstance(groups, list):
            raise InstallError(f"{label}: 'hooks.{event}' is not a list")
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise InstallError(f"{label}: 'hooks.{event}[{i}]' is not a matcher group")
    env = doc.get("env")
    if env is not None and not isinstance(env, dict):
        raise InstallError(f"{label}: 'env' is not an object")
    return doc


def _chain_index(groups: list[Any]) -> int:
    """Index of the last PreToolUse group holding the security or model-route hook."""
    last = -1
    for i, group in enumerate(groups):
        for handler in group.get("hooks", []):
            command = handler.get("command") if isinstance(handler, dict) else None
            if isinstance(command, str) and any(m in command for m in CHAIN_BEFORE):
                last = i
    return last


def _remove_ours(groups: list[Any]) -> bool:
    """Remove our handlers (and the groups that held nothing else). True if any."""
    removed = False
    for group in list(groups):
        handlers = group.get("hooks", [])
        keep = [h for h in handlers if not is_ours(h)]
        if len(keep) != len(handlers):
            removed = True
            if keep:
                group["hooks"] = keep
            else:
                groups.remove(group)
    return removed


def _already_right(groups: list[Any], event: str, command: str) -> bool:
    ours = [
        (i, group)
        for i, group in enumerate(groups)
        if any(is_ours(h) for h in group.get("hooks", []))
    ]
    if len(ours) != 1:
        return False
    index, group = ours[0]
    if group != _group(event, command):
        return False
    return event != "PreToolUse" or index > _chain_index(groups)


def install_doc(doc: dict[str, Any], command: str, mode: str) -> dict[str, Any]:
    """Return a copy of ``doc`` with our hooks and env key in place."""
    new = copy.deepcopy(doc)
    hooks = new.setdefault("hooks", {})
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if _already_right(groups, event, command):
            continue
        _remove_ours(groups)
        at = _chain_index(groups) + 1 if event == "PreToolUse" else len(groups)
        if at == 0:
            at = len(groups)
        groups.insert(at, _group(event, command))
    new.setdefault("env", {})[ENV_KEY] = mode
    return new


def uninstall_doc(doc: dict[str, Any], original: dict[str, Any] | None) -> dict[str, Any]:
    """Return a copy of ``doc`` without our hooks and env key. Containers that
    only held our entries go too. ``original`` (the pre-install settings, if
    known) gives back an env value that was there before."""
    new = copy.deepcopy(doc)
    hooks = new.get("hooks")
    if isinstance(hooks, dict):
        for event in EVENTS:
            groups = hooks.get(event)
            if isinstance(groups, list) and _remove_ours(groups) and not groups:
                del hooks[event]
        if not hooks and "hooks" in doc and doc["hooks"]:
            del new["hooks"]
    env = new.get("env")
    if isinstance(env, dict) and ENV_KEY in env:
        before = original.get("env") if isinstance(original, dict) else None
        if isinstance(before, dict) and ENV_KEY in before:
            env[ENV_KEY] = before[ENV_KEY]
        else:
            del env[ENV_KEY]
            if not env:
                del new["env"]
    return new


def has_ours(doc: Any) -> bool:
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(hooks, dict):
        return False
    for event in EVENTS:
        groups = hooks.get(event)
        if isinstance(groups, list):
            for group in groups:
                if isinstance(group, dict) and any(is_ours(h) for h in group.get("hooks", [])):
                    return True
    return False


def _core(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without anything install adds, and without empty containers:
    what must be unchanged for uninstall to give back the backup's bytes."""
    core = uninstall_doc(doc, None)
    hooks = core.get("hooks")
    if isinstance(hooks, dict):
        for event in [e for e, groups in hooks.items() if groups == []]:
            del hooks[event]
        if not hooks:
            del core["hooks"]
    if core.get("env") == {}:
        del core["env"]
    return core


def _same(a: Any, b: Any) -> bool:
    """Equal including key order."""
    return json.dumps(a) == json.dumps(b)


# ---------------------------------------------------------------------------
# Files


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    if path.is_symlink():
        path = path.resolve()  # write through the link, keep the link
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read: {exc}") from None


def _parse(data: bytes, label: str) -> tuple[dict[str, Any], Style]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InstallError(f"{label}: not UTF-8") from None
    if not text.strip():
        return {}, Style()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{label}: not valid JSON ({exc.msg}, line {exc.lineno}); fix it first"
        ) from None
    return _shape(doc, label), detect_style(text)


def _diff(label: str, old: bytes | None, new: bytes | None) -> str:
    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        a,
        b,
        fromfile=f"a/{label}" if old is not None else "/dev/null",
        tofile=f"b/{label}" if new is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _remove_empty_dirs(start: Path, stop: Path) -> None:
    current = start
    while current != stop and stop in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


# ---------------------------------------------------------------------------
# CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", type=Path, default=Path("."), help="project root (default .)")
    parser.add_argument(
        "--hooks-dir",
        default=DEFAULT_HOOKS_DIR,
        help=f"where the hook file goes, relative to the project (default {DEFAULT_HOOKS_DIR})",
    )
    parser.add_argument("--mode", choices=MODES, default="telemetry", help="default telemetry")
    parser.add_argument(
        "--python",
        help="interpreter to register (default: the real path of the one running mishkan)",
    )
    parser.add_argument("--uninstall", action="store_true", help="remove what install added")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the settings diff; write nothing"
    )


@dataclass
class _Plan:
    project: Path
    hooks_dir: Path
    settings: Path
    backup: Path

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.project).as_posix()
        except ValueError:
            return str(path)


def _plan(args: argparse.Namespace) -> _Plan:
    project = Path(args.project).resolve()
    if not project.is_dir():
        raise InstallError(f"--project {args.project}: not a directory")
    hooks_dir = Path(os.path.normpath(project / Path(args.hooks_dir).expanduser()))
    settings = project / ".claude" / "settings.json"
    return _Plan(project, hooks_dir, settings, settings.with_name(settings.name + BACKUP_SUFFIX))


def run(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
        if args.uninstall:
            return _uninstall(plan, args.dry_run)
        return _install(plan, args)
    except InstallError as exc:
        print(f"mishkan install: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mishkan install: {exc}", file=sys.stderr)
        return 2


def _install(plan: _Plan, args: argparse.Namespace) -> int:
    source = hook_source()
    python, notes = resolve_python(args.python, plan.project)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    command = hook_command(python, plan.hooks_dir, plan.project)
    label = plan.rel(plan.settings)
    old = _read(plan.settings)
    doc, style = _parse(old, label) if old is not None else ({}, Style())
    new_doc = install_doc(doc, command, args.mode)
    changed = not _same(doc, new_doc) or old is None
    new = render(old, doc, new_doc, style) if changed else old
    target = plan.hooks_dir / HOOK_FILE
    source_bytes = source.read_bytes()
    copy_needed = _read(target) != source_bytes

    if args.dry_run:
        if copy_needed:
            print(f"would copy {source} -> {plan.rel(target)}", file=sys.stderr)
        print(f"would compile {plan.rel(target)} with {python}", file=sys.stderr)
        if changed:
            sys.stdout.write(_diff(label, old, new))
        else:
            print(f"{label}: already up to date", file=sys.stderr)
        return 0

    if copy_needed:
        atomic_write(target, source_bytes, 0o644)
        print(f"copied {source} -> {plan.rel(target)}")
    precompile(python, target)
    print(f"compiled {plan.rel(target)} with {python}")
    if changed and new is not None:
        if old is not None and (not has_ours(doc) or not plan.backup.exists()):
            atomic_write(plan.backup, old)
            print(f"saved the previous settings as {plan.rel(plan.backup)}")
        atomic_write(plan.settings, new)
        print(f"updated {label}: {', '.join(EVENTS)}; env {ENV_KEY}={args.mode}")
    else:
        print(f"{label}: already up to date")
    return 0


def _uninstall(plan: _Plan, dry_run: bool) -> int:
    label = plan.rel(plan.settings)
    old = _read(plan.settings)
    backup = _read(plan.backup)
    original: dict[str, Any] | None = None
    if backup is not None:
        try:
            original = _parse(backup, plan.rel(plan.backup))[0]
        except InstallError:
            original = None
    new: bytes | None = old
    exact = False
    ours_before = False
    if old is not None:
        doc, style = _parse(old, label)
        ours_before = has_ours(doc)
        pristine = original if original is not None and not has_ours(original) else None
        new_doc = uninstall_doc(doc, pristine)
        if not ours_before and ENV_KEY not in (doc.get("env") or {}):
            new = old
        elif backup is not None and original is not None and _same(_core(doc), _core(original)):
            new, exact = backup, True  # nothing but our entries changed since install
        elif not new_doc and backup is None:
            new = None  # install created the file; nothing else is in it
        else:
            new = render(old, doc, new_doc, style)
    target = plan.hooks_dir / HOOK_FILE
    cache = plan.hooks_dir / "__pycache__"
    compiled = sorted(cache.glob(f"{HOOK_MODULE}.*.pyc")) if cache.is_dir() else []
    files = [p for p in (target, *compiled) if p.exists()]

    if dry_run:
        for path in files:
            print(f"would remove {plan.rel(path)}", file=sys.stderr)
        if new != old:
            sys.stdout.write(_diff(label, old, new))
        else:
            print(f"{label}: nothing to remove", file=sys.stderr)
        return 0

    for path in files:
        path.unlink()
        print(f"removed {plan.rel(path)}")
    _remove_empty_dirs(cache, plan.project)
    _remove_empty_dirs(plan.hooks_dir, plan.project)
    if new != old:
        if new is None:
            plan.settings.unlink()
            _remove_empty_dirs(plan.settings.parent, plan.project)
            print(f"removed {label} (install had created it)")
        else:
            atomic_write(plan.settings, new)
            how = "restored byte for byte" if exact else "removed the graphify-nudge entries"
            print(f"updated {label}: {how}")
    else:
        print(f"{label}: nothing to remove")
    if backup is not None and (exact or not ours_before):
        plan.backup.unlink()
    elif backup is not None:
        print(
            f"note: {label} changed since install; the pre-install copy stays at "
            f"{plan.rel(plan.backup)}",
            file=sys.stderr,
        )
    return 0
