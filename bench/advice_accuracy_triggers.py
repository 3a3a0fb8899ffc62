"""The triggers the accuracy bench feeds the hook, chosen by a fixed procedure.

Per project (docs/advice_accuracy.md, "Choosing the triggers"):

* Reads: files sampled with the seed from the files the graph holds, and from
  each kind of noise outside it (build output, an installed copy, node_modules),
  plus the issue's own examples; most through the Read tool, a few as Bash
  `cat`/`head`/`sed -n`.
* Names: sampled with the seed from the project's own definitions (found
  without graphify), stratified by how many definitions a name has (1, 2-3,
  4 or more); the issue's examples; names the project imports but does not
  define (stdlib, external packages); `Class.method` and `module.name` forms;
  `def X`/`class X`/`function X`/`interface X` patterns. Each name is asked
  through one tool form, taken in turn: the Grep tool, `grep -rn`, `rg`,
  `git grep -n`.

The selection depends only on the seed, the project and the independent
definitions, never on the hook under test.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.advice_accuracy_defs import CODE_SUFFIXES, DefinitionIndex
from bench.advice_accuracy_judge import Target

DEFAULT_SEED = 20260101
AGENT_TYPE = "hizkiah"
STRATA = ((1, 1), (2, 3), (4, 1 << 30))  # definitions per name
PER_STRATUM = 5
READS_IN_GRAPH = 8
READS_PER_NOISE = 3

# The issues' examples (issue 10 for click and zod; issue 23's shapes for the
# others: types with impl blocks or receivers elsewhere, constructors, names
# whose case differs from another's, `?`/`!` methods, `$` properties), asked as
# written there.
ISSUE_NAMES: dict[str, tuple[str, ...]] = {
    "click": ("Option", "echo", "invoke", "__init__", "parse", "get_terminal_size"),
    "zod": ("$constructor", "$ZodType", "safeParse", "shape", "get", "parse", "$ZodObject"),
    "commander": ("Command", "Option", "Help", "constructor", "parse", "command", "Argument"),
    "cobra": ("Command", "Execute", "String", "Group", "ExecuteC", "NewCommand", "Name"),
    "semver": ("Version", "Comparator", "Prerelease", "VersionReq", "new", "parse", "Op"),
    "hashie": ("Mash", "Dash", "key?", "deep_merge!", "initialize", "Hashie", "DeepMerge"),
    "psr7": ("Uri", "Stream", "__construct", "getPath", "$stream", "Utils", "Request"),
    "bsh": ("Interpreter", "NameSpace", "eval", "BshMethod", "getName", "toString", "This"),
}
ISSUE_READS: dict[str, tuple[str, ...]] = {
    "click": ("build/lib/click/core.py",),
    "zod": ("v4/core/schemas.d.ts",),
}
# Bash searches the issue quotes, as written there: (command, the name it asks).
ISSUE_COMMANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "zod": (("rg '\\$ZodObject'", "$ZodObject"),),
}
# Bash searches issue 23 quotes for Ruby's identifier shapes, as written there.
ISSUE_COMMANDS["hashie"] = (
    ("rg -F 'key?'", "key?"),
    ("grep -rn 'deep_merge!' lib", "deep_merge!"),
)
# Qualified forms the issues name, as (qualifier, name, separator); `Class.method`
# ones are sampled too, with the language's separator (METHOD_SEPARATOR).
ISSUE_QUALIFIED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "click": (("click", "echo", "."),),
    "zod": (("core", "$constructor", "."),),
    "commander": (("Command", "parse", "."), ("Help", "formatHelp", ".")),
    "cobra": (("cobra", "Command", "."), ("Command", "Execute", ".")),
    "semver": (("Version", "parse", "::"), ("VersionReq", "matches", "::")),
    "hashie": (("Hashie", "Mash", "::"), ("Hashie::Extensions", "DeepMerge", "::")),
    "psr7": (("Utils", "streamFor", "::"), ("Uri", "withPath", "::")),
    "bsh": (("Interpreter", "eval", "."), ("NameSpace", "getVariable", ".")),
}
# The first-contact set's shapes (issue 30: overloads, interfaces and anonymous
# classes, traits, reopened modules, calls through objects), picked by reading
# each project's source when it was chosen, before the hook ever ran on it;
# asked like the issues' examples. Never changed to suit a result.
SHAPE_NAMES: dict[str, tuple[str, ...]] = {
    "httpx": ("Client", "AsyncClient", "send", "handle_request", "request", "get", "BaseTransport"),
    "mobx": ("observable", "autorun", "observe", "intercept", "ObservableValue",
             "IObservableArray", "get"),
    "ws": ("WebSocket", "send", "Sender", "Receiver", "handleUpgrade", "emitClose",
           "PerMessageDeflate"),
    "logrus": ("Entry", "Info", "Formatter", "Format", "Hook", "Fire", "WithField"),
    "bytes": ("Buf", "BufMut", "remaining", "chunk", "advance", "Bytes", "BytesMut"),
    "i18n": ("I18n", "Backend", "Base", "translate", "Simple", "Fallbacks", "exists?"),
    "monolog": ("Logger", "HandlerInterface", "handle", "write", "ProcessableHandlerTrait",
                "FormatterInterface", "AbstractProcessingHandler"),
    "cordova": ("CordovaPlugin", "PluginResult", "execute", "Result", "CordovaInterface",
                "OnlineEventsBridgeModeDelegate", "sendPluginResult"),
}  # fmt: skip
SHAPE_QUALIFIED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "httpx": (("Client", "send", "."), ("HTTPTransport", "handle_request", ".")),
    "mobx": (("ObservableValue", "get", "."), ("ObservableMap", "set", ".")),
    "ws": (("WebSocket", "send", "."), ("Sender", "send", ".")),
    "logrus": (("Entry", "Info", "."), ("logrus", "Logger", ".")),
    "bytes": (("Buf", "remaining", "::"), ("BytesMut", "freeze", "::")),
    "i18n": (("I18n::Backend", "Simple", "::"), ("Base", "translate", "#")),
    "monolog": (("Logger", "pushHandler", "::"), ("StreamHandler", "write", "::")),
    "cordova": (("CordovaPlugin", "execute", "."), ("PluginResult", "PluginResult", ".")),
}
METHOD_SEPARATOR = {"rust": "::", "ruby": "#", "php": "::"}  # default "."
KEYWORDS: dict[str, dict[str, str]] = {  # pattern keyword -> definition kind
    "python": {"def": "function", "class": "class"},
    "typescript": {"function": "function", "class": "class", "interface": "interface"},
    "javascript": {"function": "function", "class": "class"},
    "go": {"func": "function", "type": "class"},
    "rust": {"fn": "function", "struct": "class", "enum": "enum"},
    "ruby": {"def": "function", "class": "class", "module": "namespace"},
    "php": {"function": "function", "class": "class", "interface": "interface"},
    "java": {"class": "class", "interface": "interface", "enum": "enum"},
}
# Go's receiver pattern, as agents search for a method: `func (c *Command) Execute`.
RECEIVER_SEARCHES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "cobra": (("c", "Command", "Execute"), ("c", "Command", "Name")),
    "logrus": (("entry", "Entry", "Info"), ("logger", "Logger", "WithField")),  # first contact
}


@dataclass(frozen=True)
class Trigger:
    id: str
    kind: str  # "Read", "Grep", "Bash search", "Bash read"
    form: str  # how it is asked, e.g. "rg", "Read build/"
    origin: str  # why it was chosen, e.g. "sampled, 2-3 definitions"
    tool_name: str
    tool_input: dict[str, Any]
    target: Target


def _shell_word(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def regex_escape(name: str) -> str:
    """How an agent writes a literal name as a ripgrep/grep pattern."""
    return "".join("\\" + c if c in "$.^*+?()[]{}|\\" else c for c in name)


def _symbol_trigger(
    tid: str, turn: int, origin: str, *, pattern: str, target: Target, root: Path
) -> Trigger:
    """One name, asked through the tool form whose turn it is."""
    forms = ("Grep", "grep -rn", "rg", "git grep -n")
    form = forms[turn % len(forms)]
    if form == "Grep":
        tool_input: dict[str, Any] = {
            "pattern": pattern,
            "path": str(root),
            "output_mode": "content",
        }
        return Trigger(tid, "Grep", form, origin, "Grep", tool_input, target)
    if form == "grep -rn":
        command = f"grep -rn {_shell_word(pattern)} ."
    elif form == "rg":
        command = f"rg -n {_shell_word(pattern)}"
    else:
        command = f"git grep -n {_shell_word(pattern)}"
    description = f"Search the code for {target.describe()}"
    tool_input = {"command": command, "description": description}
    return Trigger(tid, "Bash search", form, origin, "Bash", tool_input, target)


def _read_trigger(tid: str, turn: int, origin: str, rel: str, root: Path) -> Trigger:
    """A Read through the Read tool, and every fourth one as a Bash read."""
    target = Target(file=rel)
    if turn % 4 != 3:
        return Trigger(tid, "Read", "Read", origin, "Read", {"file_path": str(root / rel)}, target)
    commands = (f"cat {rel}", f"head -n 80 {rel}", f"sed -n '1,120p' {rel}")
    command = commands[(turn // 4) % len(commands)]
    tool_input = {"command": command, "description": f"Show {rel}"}
    return Trigger(tid, "Bash read", command.split()[0], origin, "Bash", tool_input, target)


def _code_files(root: Path, under: str) -> list[str]:
    base = root / under
    if not base.is_dir():
        return []
    return sorted(
        str(p.relative_to(root))
        for p in base.rglob("*")
        if p.is_file() and p.name.endswith(CODE_SUFFIXES)
    )


def _is_name(name: str) -> bool:
    """An identifier as the languages write it: `$` prefixes (JS, PHP
    properties), Ruby's `?`/`!` suffixes."""
    body = name[1:] if name.startswith("$") else name
    body = body[:-1] if body.endswith(("?", "!")) else body
    return len(name) >= 3 and body.isascii() and body.isidentifier()


def generate(
    project: str,
    language: str,
    *,
    root: Path,
    graph_files: frozenset[str],
    noise_dirs: Sequence[str],
    index: DefinitionIndex,
    seed: int = DEFAULT_SEED,
) -> list[Trigger]:
    rng = random.Random(f"{seed}:{project}")
    triggers: list[Trigger] = []

    def add_read(origin: str, rel: str) -> None:
        n = sum(1 for t in triggers if t.target.file is not None)
        triggers.append(_read_trigger(f"{project}-read-{n + 1:02d}", n, origin, rel, root))

    def add_symbol(origin: str, pattern: str, target: Target) -> None:
        n = sum(1 for t in triggers if t.target.file is None)
        triggers.append(
            _symbol_trigger(
                f"{project}-name-{n + 1:02d}", n, origin, pattern=pattern, target=target, root=root
            )
        )

    # Reads: in the graph, then each kind of noise, then the issue's examples.
    in_graph = sorted(f for f in graph_files if f.endswith(CODE_SUFFIXES))
    for rel in rng.sample(in_graph, min(READS_IN_GRAPH, len(in_graph))):
        add_read("sampled, in the graph", rel)
    for under in noise_dirs:
        candidates = [f for f in _code_files(root, under) if f not in ISSUE_READS.get(project, ())]
        for rel in rng.sample(candidates, min(READS_PER_NOISE, len(candidates))):
            add_read(f"sampled, {under}", rel)
    for rel in ISSUE_READS.get(project, ()):
        add_read("issue example", rel)

    # Names the project defines, stratified by how many definitions they have.
    names = sorted(n for n in index.definitions if _is_name(n))
    fixed = set(ISSUE_NAMES.get(project, ())) | set(SHAPE_NAMES.get(project, ()))
    for low, high in STRATA:
        stratum = [n for n in names if low <= len(index.definitions[n]) <= high and n not in fixed]
        label = f"{low}" if low == high else f"{low}-{high}" if high < 1 << 30 else f"{low}+"
        for name in rng.sample(stratum, min(PER_STRATUM, len(stratum))):
            add_symbol(f"sampled, {label} definition(s)", regex_escape(name), Target(name=name))
    for name in ISSUE_NAMES.get(project, ()):
        add_symbol("issue example", regex_escape(name), Target(name=name))
    for name in SHAPE_NAMES.get(project, ()):
        add_symbol("shape example", regex_escape(name), Target(name=name))

    for command, name in ISSUE_COMMANDS.get(project, ()):
        n = sum(1 for t in triggers if t.target.file is None)
        tool_input = {"command": command, "description": f"Search the code for {name}"}
        triggers.append(
            Trigger(f"{project}-name-{n + 1:02d}", "Bash search", command.split()[0],
                    "issue example, as written", "Bash", tool_input, Target(name=name))
        )  # fmt: skip

    # Names the project imports but does not define.
    foreign = sorted(n for n in index.bindings if _is_name(n) and n not in index.definitions)
    for name in rng.sample(foreign, min(3, len(foreign))):
        add_symbol("imported, not defined here", regex_escape(name), Target(name=name))

    # Qualified forms: the issue's module.name, and sampled Class.method.
    for qualifier, name, separator in ISSUE_QUALIFIED.get(project, ()):
        target = Target(name=name, qualifier=qualifier)
        add_symbol("issue example, qualified", f"{qualifier}{separator}{name}", target)
    for qualifier, name, separator in SHAPE_QUALIFIED.get(project, ()):
        target = Target(name=name, qualifier=qualifier)
        add_symbol("shape example, qualified", f"{qualifier}{separator}{name}", target)
    methods = sorted(
        {
            (d.container[-1], d.name)
            for defs in index.definitions.values()
            for d in defs
            if d.container
            and "function" in d.kinds
            and _is_name(d.name)
            and _is_name(d.container[-1])
            and d.container[-1][:1].isupper()
        }
    )
    separator = METHOD_SEPARATOR.get(language, ".")
    for qualifier, name in rng.sample(methods, min(2, len(methods))):
        add_symbol(
            "sampled, Class.method",
            regex_escape(f"{qualifier}{separator}{name}"),
            Target(name=name, qualifier=qualifier),
        )
    for variable, type_name, name in RECEIVER_SEARCHES.get(project, ()):
        pattern = f"func \\({variable} \\*{type_name}\\) {name}"
        origin = "shape example, receiver" if project in SHAPE_NAMES else "issue example, receiver"
        add_symbol(origin, pattern, Target(name=name, qualifier=type_name))

    # `def X` / `class X` / `function X` / `interface X`.
    for keyword, kind in KEYWORDS[language].items():
        of_kind = [n for n in names if any(kind in d.kinds for d in index.definitions[n])]
        if of_kind:
            name = rng.choice(of_kind)
            target = Target(name=name, kinds=(kind,))
            add_symbol(f"sampled, `{keyword} X`", f"{keyword} {regex_escape(name)}", target)
    return triggers


# ---------------------------------------------------------------------------
# The hook's input, shaped like CLI 2.1.197's (captured in
# ../shared/reference/claude-code-hooks)


def hook_input(trigger: Trigger, root: Path, session_id: str | None = None) -> dict[str, Any]:
    session = session_id or str(uuid.uuid4())
    return {
        "session_id": session,
        "transcript_path": f"/tmp/advice-bench/home/.claude/projects/{str(root).replace('/', '-')}"
        f"/{session}.jsonl",
        "cwd": str(root),
        "prompt_id": str(uuid.uuid4()),
        "permission_mode": "bypassPermissions",
        "agent_id": uuid.uuid4().hex[:17],
        "agent_type": AGENT_TYPE,
        "effort": {"level": "high"},
        "hook_event_name": "PreToolUse",
        "tool_name": trigger.tool_name,
        "tool_input": trigger.tool_input,
        "tool_use_id": "toolu_" + uuid.uuid4().hex[:24],
    }
