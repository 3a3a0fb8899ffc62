"""Fixtures and scenarios of the cold-start benchmark.

Every scenario gets a real git repository in a temporary directory, a
graph.json in graphify 0.9.96's own compact shape (``built_at_commit`` last),
and hook inputs shaped exactly like the ones Claude Code CLI 2.1.197 sent
(captured in ``shared/reference/claude-code-hooks/*.jsonl``, ``stdin`` field).
Nothing here is timed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

# ---------------------------------------------------------------------------
# Hook inputs
# ---------------------------------------------------------------------------

# Key order of the captured inputs (Claude Code CLI 2.1.197). A subagent's call
# carries agent_id and agent_type between permission_mode and effort; the main
# thread's has neither. tests/bench checks these against the reference files.
SESSION_START_KEYS = ("session_id", "transcript_path", "cwd", "hook_event_name", "source")
PRE_TOOL_USE_KEYS = (
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "agent_id",
    "agent_type",
    "effort",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_use_id",
)
POST_TOOL_USE_KEYS = (
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "agent_id",
    "agent_type",
    "effort",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "duration_ms",
)

IN_SCOPE_AGENT = "hizkiah"
OUT_OF_SCOPE_AGENT = "hiram"
PROMPT_ID = "c6e21be8-678e-4488-9ed1-736255f9e0af"
FAKE_HOME = "/tmp/cchar/home"


def new_session_id() -> str:
    return str(uuid.uuid4())


def new_agent_id() -> str:
    # Claude Code's agent ids are 17 lowercase hex digits ("aa4daced19ec4f6fe").
    return f"{random.getrandbits(68):017x}"[-17:]


def transcript_path(root: str, session: str) -> str:
    slug = root.replace("/", "-").replace(".", "-")
    return f"{FAKE_HOME}/.claude/projects/{slug}/{session}.jsonl"


def session_start_input(root: str, session: str, source: str = "startup") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": transcript_path(root, session),
        "cwd": root,
        "hook_event_name": "SessionStart",
        "source": source,
    }


def tool_input(
    event: str,
    root: str,
    session: str,
    tool_name: str,
    tool_args: dict[str, Any],
    *,
    agent_type: str | None,
    agent_id: str | None,
    tool_use_id: str = "toolu_bench0001",
    tool_response: object | None = None,
) -> dict[str, Any]:
    """A PreToolUse or PostToolUse input in the captured key order."""
    data: dict[str, Any] = {
        "session_id": session,
        "transcript_path": transcript_path(root, session),
        "cwd": root,
        "prompt_id": PROMPT_ID,
        "permission_mode": "bypassPermissions",
    }
    if agent_type is not None:
        data["agent_id"] = agent_id if agent_id is not None else new_agent_id()
        data["agent_type"] = agent_type
    data["effort"] = {"level": "high"}
    data["hook_event_name"] = event
    data["tool_name"] = tool_name
    data["tool_input"] = tool_args
    if event == "PostToolUse":
        data["tool_response"] = tool_response if tool_response is not None else {}
    data["tool_use_id"] = tool_use_id
    if event == "PostToolUse":
        data["duration_ms"] = 3
    return data


def encode(data: dict[str, Any]) -> bytes:
    """Claude Code (node) sends JSON.stringify output: compact, non-ASCII as is."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------------------
# Fixtures: git repositories and graphs
# ---------------------------------------------------------------------------

_GIT_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
BASE_TIME = 1_790_000_000  # commit and file times are fixed in the past


def git_env(when: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _GIT_ENV_KEYS}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_AUTHOR_DATE=f"@{when} +0000",
        GIT_COMMITTER_DATE=f"@{when} +0000",
    )
    return env


def git(cwd: Path, *args: str, when: int = BASE_TIME) -> str:
    out = subprocess.run(
        ["git", *args],
        cwd=str(cwd),
        env=git_env(when),
        check=True,
        capture_output=True,
    )
    return out.stdout.decode().strip()


SOURCE_FILES: dict[str, str] = {
    "src/app.py": "from src.util import helper\n\n\ndef apply_overlay():\n    return helper()\n",
    "src/util.py": "def helper():\n    return 1\n",
    "web/index.ts": "export function renderOverlay(): number {\n  return 1;\n}\n",
    "README.md": "# fixture\n",
    "pyproject.toml": '[project]\nname = "fixture"\n',
}


def make_repo(path: Path) -> list[str]:
    """A repository with two commits on branch main; returns [first, second] shas.

    The commits are an hour apart and every work-tree file is dated at the
    second commit, so a graph written later is fresh for them.
    """
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    git(path, "symbolic-ref", "HEAD", "refs/heads/main")
    for rel, text in SOURCE_FILES.items():
        f = path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first", when=BASE_TIME)
    first = git(path, "rev-parse", "HEAD")
    with (path / "src/util.py").open("a") as fh:
        fh.write("\n\ndef other():\n    return 2\n")
    git(path, "commit", "-q", "-am", "second", when=BASE_TIME + 3600)
    second = git(path, "rev-parse", "HEAD")
    for rel in SOURCE_FILES:
        os.utime(path / rel, (BASE_TIME + 3600, BASE_TIME + 3600))
    return [first, second]


def _node(i: int, source_file: str) -> dict[str, Any]:
    name = f"symbol_{i}"
    return {
        "id": f"src_mod{i % 997}_{name}",
        "label": f"{name}()",
        "_callable": True,
        "_origin": "ast",
        "community": i % 53,
        "community_name": f"mod{i % 997}.py",
        "file_type": "code",
        "norm_label": f"{name}()",
        "source_file": source_file,
        "source_location": f"L{i % 400 + 1}",
    }


#: the nodes and edges graphify 0.9.96 makes of SOURCE_FILES (the lines they cite
#: are the ones that declare or name them: the index builder checks each)
REAL_NODES: list[dict[str, Any]] = [
    _node(0, "src/app.py") | {"id": "src_app_apply_overlay", "label": "apply_overlay()",
                               "source_location": "L4"},
    _node(1, "src/util.py") | {"id": "src_util_helper", "label": "helper()",
                               "source_location": "L1"},
    _node(2, "web/index.ts") | {"id": "web_index_renderoverlay", "label": "renderOverlay()",
                                "source_location": "L1"},
    _node(3, "src/app.py") | {"id": "src_app", "label": "app.py", "source_location": "L1"},
    _node(4, "src/util.py") | {"id": "src_util", "label": "util.py", "source_location": "L1"},
]  # fmt: skip


def _edge(source: str, target: str, relation: str, file: str, line: int) -> dict[str, Any]:
    return {"source": source, "target": target, "relation": relation, "_origin": "ast",
            "confidence": "EXTRACTED", "confidence_score": 1.0, "source_file": file,
            "source_location": f"L{line}", "weight": 1.0}  # fmt: skip


REAL_LINKS: list[dict[str, Any]] = [
    _edge("src_app", "src_app_apply_overlay", "contains", "src/app.py", 4),
    _edge("src_util", "src_util_helper", "contains", "src/util.py", 1),
    _edge("src_app", "src_util_helper", "imports_from", "src/app.py", 1),
    _edge("src_app_apply_overlay", "src_util_helper", "calls", "src/app.py", 5),
]


def _link(i: int) -> dict[str, Any]:
    return {
        "source": f"src_mod{i % 997}_symbol_{i}",
        "target": f"src_mod{(i + 1) % 997}_symbol_{i + 1}",
        "relation": "calls",
        "_origin": "ast",
        "confidence": "EXTRACTED",
        "confidence_score": 1.0,
        "context": "call",
        "source_file": f"src/mod{i % 997}.py",
        "source_location": f"L{i % 400 + 1}",
        "weight": 1.0,
    }


def write_graph(
    path: Path,
    built_at_commit: str | None,
    mtime: float,
    size_bytes: int = 0,
    extra: list[dict[str, Any]] | None = None,
) -> int:
    """Write graph.json in graphify 0.9.96's compact shape; returns its size.

    The real nodes of the fixture come first, then ``extra``; with
    ``size_bytes`` it is padded with synthetic nodes and links of the same
    shape up to at least that size. ``built_at_commit`` is the last key, as
    graphify writes it; None omits it (graphs built before graphify recorded it).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    head = (
        '{"directed":false,"multigraph":false,'
        '"graph":{"schema_version":1,"graphify_version":"0.9.96"},"nodes":['
    )
    nodes = [dump(n) for n in REAL_NODES + (extra or [])]
    links = [dump(link) for link in [*REAL_LINKS, _link(0)]]
    total = len(head) + sum(len(s) + 1 for s in nodes) + sum(len(s) + 1 for s in links) + 120
    i = 3
    while total < size_bytes:
        n = dump(_node(i, f"src/mod{i % 997}.py"))
        link = dump(_link(i))
        nodes.append(n)
        links.append(link)
        total += len(n) + len(link) + 2
        i += 1
    tail = '],"hyperedges":[]'
    if built_at_commit is not None:
        tail += f',"built_at_commit":"{built_at_commit}"'
    tail += "}"
    text = head + ",".join(nodes) + '],"links":[' + ",".join(links) + tail
    data = text.encode("utf-8")
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return len(data)


def write_go_graph(path: Path, built_at_commit: str, mtime: float, size_bytes: int) -> int:
    """A graph of a large Go project in graphify 0.9.96's shape (issue 23),
    padded to at least ``size_bytes``: per package (its directory) types, each
    declared with a `contains` edge from its file's node, methods hanging off
    their type by `method` edges, half of them in another file of the package,
    and a test file per package whose receivers make a second node of the type
    there (the shape extractors/go.py writes). One type, `Command`, has
    methods in 40 files; `Handler` and `ServeHTTP` are defined in every
    package, so their index lines carry the most sites. (Other method names
    are unique: the 0.9.96-era builder is quadratic in a name's node count.) The fixture's own
    nodes (src/app.py, ...) come first, as in `write_graph`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    nodes = [dump(n) for n in REAL_NODES]
    links = [dump(link) for link in [*REAL_LINKS, _link(0)]]

    def node(nid: str, label: str, file: str, line: int) -> None:
        nodes.append(dump({"id": nid, "label": label, "_origin": "ast", "community": line % 53,
                           "file_type": "code", "norm_label": label.lower(),
                           "source_file": file, "source_location": f"L{line}"}))  # fmt: skip

    def link(source: str, target: str, relation: str, file: str, line: int) -> None:
        links.append(dump({"source": source, "target": target, "relation": relation,
                           "_origin": "ast", "confidence": "EXTRACTED", "confidence_score": 1.0,
                           "source_file": file, "source_location": f"L{line}",
                           "weight": 1.0}))  # fmt: skip

    def package(pkg: str, types: list[str]) -> None:
        files = [f"{pkg}/{t.lower()}.go" for t in types] + [f"{pkg}/{pkg}_test.go"]
        for file in files:
            node(file.replace("/", "_").replace(".", "_"), file.rsplit("/", 1)[-1], file, 1)
        for k, t in enumerate(types):
            file, other = files[k], files[(k + 1) % len(types)]
            tid, fid = f"{pkg}_{t.lower()}", file.replace("/", "_").replace(".", "_")
            node(tid, t, file, 10)
            link(fid, tid, "contains", file, 10)
            for m in range(6):
                where = file if m % 2 == 0 else other
                name = f"Method{m}" if pkg == "cmd" else f"{t}M{m}"
                node(f"{tid}_{name.lower()}", f".{name}()", where, 20 + 10 * m)
                link(tid, f"{tid}_{name.lower()}", "method", where, 20 + 10 * m)
            if k < 2 or pkg == "cmd":
                test = files[-1]
                node(f"{pkg}_{pkg}_test_go_{t.lower()}", t, test, 5 + k)  # a receiver's node
                node(f"{tid}_string", ".String()", test, 5 + k)
                link(f"{pkg}_{pkg}_test_go_{t.lower()}", f"{tid}_string", "method", test, 5 + k)

    package("cmd", ["Command"] + [f"Flag{k}" for k in range(39)])
    p = 0
    while sum(map(len, nodes)) + sum(map(len, links)) < size_bytes:
        for _ in range(50):  # measured every 50 packages (~0.5 MiB)
            package(f"pkg{p}", ["Handler", "ServeHTTP"] + [f"Type{p}x{k}" for k in range(10)])
            p += 1
    head = ('{"directed":false,"multigraph":false,'
            '"graph":{"schema_version":1,"graphify_version":"0.9.96"},"nodes":[')  # fmt: skip
    tail = f'],"hyperedges":[],"built_at_commit":"{built_at_commit}"}}'
    data = (head + ",".join(nodes) + '],"links":[' + ",".join(links) + tail).encode()
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return len(data)


GRAPH_DIR = ".graphify"  # where MISHKAN places graphify's artifacts
FRESH_GRAPH_TIME = BASE_TIME + 7200  # after both commits and every file
OLD_GRAPH_TIME = BASE_TIME - 3600  # before both commits
BIG_GRAPH_BYTES = 50 * 1024 * 1024
# 57,000 nodes, 1,350 packages: its index takes the builder about a minute on
# this 2-core VM (the builder is quadratic in a name's node count)
GO_GRAPH_BYTES = 20 * 1024 * 1024


@dataclass
class Fixture:
    name: str
    root: Path
    head: str
    graph: Path | None
    notes: str = ""

    @property
    def telemetry_dir(self) -> Path:
        return self.root / ".mishkan" / "telemetry"

    @property
    def commit_time_cache(self) -> Path:
        return self.telemetry_dir / ".state" / ".commit-times.json"

    @property
    def index_dir(self) -> Path:
        return self.telemetry_dir / ".index"


def build_fixture(name: str, base: Path, big_graph_bytes: int = BIG_GRAPH_BYTES) -> Fixture:
    """Build one named fixture under ``base`` (see FIXTURES), with the source
    lines its graph's synthetic nodes cite (`write_sources`)."""
    fixture = _build_fixture(name, base, big_graph_bytes)
    if fixture.graph is not None:
        write_sources(fixture.root, fixture.graph)
    return fixture


def write_sources(root: Path, graph: Path) -> None:
    """Give every node and edge of a synthetic graph the line it cites: for each
    file the repository lacks, at each cited line, a declaration (`const name`)
    of what the graph says is declared or used there (the index builder keeps only sites
    whose line names them, so the index of a synthetic graph has the size of a
    real one's). Dated with the work tree: no cited file is newer than the graph."""
    data = json.loads(graph.read_bytes())
    names: dict[str, dict[int, list[str]]] = {}
    labels = {n.get("id"): n.get("label") for n in data.get("nodes", ())}

    def add(file: object, location: object, label: object) -> None:
        if not (isinstance(file, str) and isinstance(location, str) and isinstance(label, str)):
            return
        name = label.removeprefix(".").removesuffix("()").rsplit("::", 1)[-1]
        if file and not (root / file).exists() and location[1:].isdigit() and len(name) < 512:
            names.setdefault(file, {}).setdefault(int(location[1:]), []).append(name)

    for node in data.get("nodes", ()):
        add(node.get("source_file"), node.get("source_location"), node.get("label"))
    for link in data.get("links", ()):
        add(link.get("source_file"), link.get("source_location"), labels.get(link.get("target")))
    for file, lines in names.items():
        # `const name` declares a name of any kind to the builder's line check
        # (a keyword right before it); the files are never code anyone runs
        text = "".join(
            "; ".join(f"const {name}" for name in lines[k]) + "\n" if k in lines else "\n"
            for k in range(1, max(lines) + 1)
        )
        path = root / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (BASE_TIME + 3600, BASE_TIME + 3600))


def _build_fixture(name: str, base: Path, big_graph_bytes: int) -> Fixture:
    root = base / name
    if root.exists():
        shutil.rmtree(root)
    if name == "worktree":
        main = base / "worktree-main"
        if main.exists():
            shutil.rmtree(main)
        make_repo(main)
        git(main, "worktree", "add", "-q", "-b", "feature", str(root))
        head = git(root, "rev-parse", "HEAD")
        graph: Path | None = root / GRAPH_DIR / "graph.json"
        assert graph is not None
        write_graph(graph, head, FRESH_GRAPH_TIME)
        for rel in SOURCE_FILES:
            os.utime(root / rel, (BASE_TIME + 3600, BASE_TIME + 3600))
        return Fixture(name, root, head, graph, "linked worktree: .git is a file, commondir")
    first, head = make_repo(root)
    graph = root / GRAPH_DIR / "graph.json"
    if name in ("fresh", "session10k", *INDEX_STATES):
        write_graph(graph, head, FRESH_GRAPH_TIME)
        note = {"index_missing": "no index yet, its build already started (attempt recorded)",
                "index_spawn": "no index and no attempt before each call: every call starts "
                "the detached builder",
                "index_outdated": "an index of another version of the graph (rebuild started)",
                }.get(name, "")  # fmt: skip
        return Fixture(name, root, head, graph, note)
    if name == "stale":
        write_graph(graph, first, FRESH_GRAPH_TIME)
        return Fixture(name, root, head, graph, f"built_at_commit {first[:7]}, HEAD {head[:7]}")
    if name == "absent":
        return Fixture(name, root, head, None, "no graph.json anywhere")
    if name == "nobuilt":
        write_graph(graph, None, OLD_GRAPH_TIME)
        return Fixture(name, root, head, graph, "no built_at_commit; graph older than HEAD")
    if name == "nobuilt_packed":
        git(root, "gc", "-q", "--prune=now")
        write_graph(graph, None, OLD_GRAPH_TIME)
        note = "no built_at_commit, every object packed: HEAD's commit read from the pack"
        return Fixture(name, root, head, graph, note)
    if name == "big":
        size = write_graph(graph, head, FRESH_GRAPH_TIME, big_graph_bytes)
        return Fixture(name, root, head, graph, f"graph.json {size / 1048576:.1f} MiB")
    if name == "biggo":
        size = write_go_graph(graph, head, FRESH_GRAPH_TIME, min(big_graph_bytes, GO_GRAPH_BYTES))
        return Fixture(name, root, head, graph, f"Go-shaped graph.json {size / 1048576:.1f} MiB")
    if name in HOSTILE_GRAPHS:
        scale = big_graph_bytes / BIG_GRAPH_BYTES
        extra = hostile_nodes(name, scale)
        size = write_graph(graph, head, FRESH_GRAPH_TIME, extra=extra)
        note = f"{HOSTILE_GRAPHS[name]} ({size / 1048576:.1f} MiB)"
        return Fixture(name, root, head, graph, note)
    if name == "packed":
        git(root, "pack-refs", "--all", "--prune")
        write_graph(graph, head, FRESH_GRAPH_TIME)
        return Fixture(name, root, head, graph, "refs only in packed-refs")
    raise ValueError(f"unknown fixture {name!r}")


#: graphs a hostile repository can commit (issue 20): what each holds
HOSTILE_GRAPHS = {
    "huge_label": "one node labelled with a 40 MiB identifier (about 40 KB in git)",
    "duplicates": "16,000 nodes sharing the label apply_overlay() in one file",
}
HUGE_LABEL_BYTES = 40 << 20
DUPLICATES = 16_000


def hostile_nodes(name: str, scale: float = 1.0) -> list[dict[str, Any]]:
    """The nodes a hostile graph adds to the fixture's real ones. ``scale``
    shrinks the huge label (the harness test builds every fixture small)."""
    if name == "huge_label":
        label = "a" * max(1024, int(HUGE_LABEL_BYTES * scale)) + "()"
        return [_node(3, "src/huge.py") | {"id": "src_huge_a", "label": label}]
    return [
        _node(i, "src/app.py") | {"id": f"src_app_apply_overlay_{i}", "label": "apply_overlay()"}
        for i in range(3, 3 + DUPLICATES)
    ]


#: fixtures whose index is deliberately not current (every other graph gets
#: its index built by `build_index` before it is timed)
INDEX_STATES = ("index_missing", "index_spawn", "index_outdated")
FIXTURES = (
    "fresh", "stale", "absent", "nobuilt", "nobuilt_packed", "big", "biggo", "packed",
    "worktree", "session10k",
    *INDEX_STATES, *HOSTILE_GRAPHS,
)  # fmt: skip

# Run by the interpreter under test: builds the hook's graph index of one
# fixture (what `mishkan graph-index` does), then, for the index_* fixtures,
# puts it in the state the fixture is named after.
INDEX_DRIVER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import graphify_nudge as g
try:
    import graphify_nudge_index as builder  # the hook's companion, copied beside it
except ImportError:
    builder = g  # a hook from before the builder moved out of it built its own
root, state = sys.argv[2], sys.argv[3]
env = {b"CLAUDE_PROJECT_DIR": root.encode()}
if not hasattr(builder, "build_graph_index"):  # a hook from before the index
    print("no index in this hook")
    sys.exit(0)
print(builder.build_graph_index(env, root))
graph = g.find_graph(env, root)
directory = root + "/.mishkan/telemetry/.index/"
name = directory + g._index_name(graph.path)
if state in ("index_missing", "index_spawn"):
    import os
    os.unlink(name + ".idx")
if state == "index_outdated":
    data = open(name + ".idx", "rb").read()
    head, rest = data.split(b"\n", 1)
    fields = head.split(b"\t")
    fields[1] = b"0" * 40 + b":1"  # built for another graph
    open(name + ".idx", "wb").write(b"\t".join(fields) + b"\n" + rest)
if state in ("index_missing", "index_outdated"):
    if getattr(graph, "stat", None) is not None:  # keyed to the graph's inode and ctime
        key = g._graph_key(g.built_at_commit(graph.path), graph.stat)
    else:  # a hook from before issue 20
        key = g._graph_key(g.built_at_commit(graph.path), graph.size, graph.mtime_ns)
    open(name + ".attempt", "wb").write(key.encode() + b"\tspawned")
"""


def build_index(fixture: Fixture, python: str, hooks_dir: Path) -> str:
    """Build (and for the index_* fixtures, stage) the fixture's graph index."""
    if fixture.graph is None:
        return "no graph"
    out = subprocess.run(
        [python, "-I", "-S", "-c", INDEX_DRIVER, str(hooks_dir), str(fixture.root), fixture.name],
        check=True,
        cwd=fixture.root,
        capture_output=True,
        timeout=1800,
    )
    return out.stdout.decode().strip()


def keep_index_attempt_recent(fixture: Fixture) -> None:
    """index_missing, index_outdated: the staged attempt stays recent (its mtime
    now), so the state lasts the whole run: an attempt older than the hook's
    retry delay (10 minutes, shorter than a full run) would start a real build,
    and the index would then be current."""
    now = time.time()
    for path in fixture.index_dir.glob("*.attempt"):
        os.utime(path, (now, now))


def reset_index_attempt(fixture: Fixture) -> None:
    """index_spawn: no index, no attempt, so the next call spawns the builder."""
    for path in fixture.index_dir.glob("*"):
        if path.suffix in (".idx", ".attempt"):
            path.unlink()


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------

READ = "read"
SEARCH = "search"


@dataclass(frozen=True)
class Scenario:
    """One measured situation.

    ``session``: "fixed" reuses one session (and agent) for every call of an
    arm; "fresh" gives every call its own session, so that in advise mode each
    call is a first call and prints its advisory (the heavier path: caps,
    shown-once and once-per-target rules would otherwise silence it after a
    few calls); "agents" keeps the session but gives every call a new agent
    (a busy session's state is read, and each call still advises).
    ``expect``: "advisory" (stdout is the additionalContext JSON) or "silent".
    ``extra_env``: more environment for every arm of this scenario.
    """

    name: str
    mode: str
    fixture: str
    event: str
    tool_name: str | None
    tool_args: Callable[[str], dict[str, Any]] = field(compare=False)
    agent: str | None = IN_SCOPE_AGENT
    session: str = "fixed"
    expect: str = "silent"
    cold_commit_cache: bool = False
    peer: str | None = None
    naive: bool = False
    naive_calls: int | None = None
    tool_response: Callable[[str], object] | None = field(default=None, compare=False)
    extra_env: tuple[tuple[str, str], ...] = ()
    index_spawn: bool = False
    what: str = ""

    @property
    def key(self) -> str:
        return f"{self.name}/{self.mode}"


def _read_app(root: str) -> dict[str, Any]:
    return {"file_path": f"{root}/src/app.py"}


def _grep_symbol(root: str) -> dict[str, Any]:
    return {"pattern": "apply_overlay", "path": root, "output_mode": "content"}


BASH_TRIGGER = "cd src && grep -rn 'apply_overlay' . | head -n 20"
BASH_NON_TRIGGER = 'git commit -m "grep apply_overlay" && echo grep apply_overlay'
LOOKUP = 'graphify query "who calls apply_overlay"'


def _bash(command: str, description: str) -> Callable[[str], dict[str, Any]]:
    def args(root: str) -> dict[str, Any]:
        return {"command": command, "description": description}

    return args


def _lookup_response(root: str) -> object:
    return {
        "stdout": "apply_overlay() [src/app.py:L4]\n  <- called by main() [src/util.py:L1]\n",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }


def _none(root: str) -> dict[str, Any]:
    return {}


def _both(**kw: Any) -> list[Scenario]:
    """The same scenario in telemetry mode (fixed session) and advise mode."""
    name = kw.pop("name")
    peer = kw.pop("peer", None)
    naive = kw.pop("naive", False)
    naive_calls = kw.pop("naive_calls", None)
    expect = kw.pop("expect", "advisory")
    session = kw.pop("session", "fresh")
    return [
        Scenario(name=name, mode="telemetry", expect="silent", **kw),
        Scenario(
            name=name,
            mode="advise",
            expect=expect,
            session=session,
            peer=peer,
            naive=naive,
            naive_calls=naive_calls,
            **kw,
        ),
    ]


def _read_post(root: str) -> object:
    return {
        "type": "text",
        "file": {
            "filePath": f"{root}/src/app.py",
            "content": SOURCE_FILES["src/app.py"],
            "numLines": 5,
            "startLine": 1,
            "totalLines": 5,
        },
    }


GO_RECEIVER = "rg -n 'func \\(c \\*Command\\) Method3' cmd"


def _grep_go(name: str) -> Callable[[str], dict[str, Any]]:
    def args(root: str) -> dict[str, Any]:
        return {"pattern": name, "path": root, "output_mode": "content"}

    return args


def _read_util(root: str) -> dict[str, Any]:
    return {"file_path": f"{root}/src/util.py"}


def _grep_callers(root: str) -> dict[str, Any]:
    return {"pattern": "helper\\(", "path": root, "output_mode": "content"}


def _grep_missing(root: str) -> dict[str, Any]:
    return {"pattern": "not_in_this_graph", "path": root, "output_mode": "content"}


PRE, POST, START = "PreToolUse", "PostToolUse", "SessionStart"
BOTH = "both"  # telemetry mode (one session) and advise mode (a fresh session per call)
ArgsFn = Callable[[str], dict[str, Any]]

#: Every measured situation, one row each:
#: (name, modes, fixture, event, tool, tool arguments, more Scenario fields, what).
#: `modes` BOTH expands to a telemetry arm and an advise arm (see `_both`).
SCENARIO_TABLE: tuple[tuple[str, str, str, str, str | None, ArgsFn, dict[str, Any], str], ...] = (
    ("out_of_scope", "advise", "fresh", PRE, "Read", _read_app,
     {"agent": OUT_OF_SCOPE_AGENT, "naive": True}, "Read of a .py by agent_type hiram: no-op"),
    ("main_thread", "advise", "fresh", PRE, "Read", _read_app,
     {"agent": None}, "Read of a .py with no agent_type: no-op"),
    ("read_fresh", BOTH, "fresh", PRE, "Read", _read_app,
     {"peer": READ, "naive": True}, "Read trigger, graph fresh (built_at_commit == HEAD)"),
    ("grep_stale", BOTH, "stale", PRE, "Grep", _grep_symbol,
     {"peer": SEARCH, "naive": True}, "Grep trigger, graph stale by commit"),
    ("graph_absent", BOTH, "absent", PRE, "Read", _read_app,
     {"naive": True}, "Read trigger, no graph.json"),
    ("no_built_at_cold", BOTH, "nobuilt", PRE, "Read", _read_app, {"cold_commit_cache": True},
     "graph without built_at_commit, HEAD commit-time cache deleted before each call"),
    ("no_built_at_warm", BOTH, "nobuilt", PRE, "Read", _read_app,
     {}, "graph without built_at_commit, HEAD commit-time cache warm"),
    ("no_built_at_packed", BOTH, "nobuilt_packed", PRE, "Read", _read_app,
     {"cold_commit_cache": True},
     "graph without built_at_commit, HEAD packed, cache deleted: the pack's index searched"),
    ("bash_trigger", BOTH, "fresh", PRE, "Bash", _bash(BASH_TRIGGER, "Find apply_overlay"),
     {"peer": SEARCH, "naive": True}, f"Bash `{BASH_TRIGGER}`"),
    ("bash_non_trigger", "advise", "fresh", PRE, "Bash", _bash(BASH_NON_TRIGGER, "Commit"),
     {"naive": True}, f"Bash `{BASH_NON_TRIGGER}`: parsed, not a trigger"),
    ("mode_off", "off", "fresh", PRE, "Read", _read_app,
     {}, "MISHKAN_GRAPHIFY_NUDGE=off, Read trigger"),
    ("session_start", "telemetry", "fresh", START, None, _none,
     {"session": "fresh"}, "SessionStart (records session_start)"),
    ("session_start", "off", "fresh", START, None, _none,
     {"session": "fresh"}, "SessionStart with the hook off (still recorded)"),
    ("post_lookup", "advise", "fresh", POST, "Bash", _bash(LOOKUP, "Ask the graph"),
     {"tool_response": _lookup_response}, "PostToolUse of a graphify lookup (lookup_result)"),
    ("post_other", "advise", "fresh", POST, "Read", _read_app,
     {"tool_response": _read_post}, "PostToolUse of a Read"),
    ("session_10k", BOTH, "session10k", PRE, "Read", _read_app,
     {"session": "agents"},
     "Read trigger by a new agent of a session with >= 10,000 earlier events"),
    ("graph_50mb", BOTH, "big", PRE, "Read", _read_app,
     {"naive": True, "naive_calls": 20}, "Read trigger, 50 MiB graph.json, its index current"),
    ("index_50mb", BOTH, "big", PRE, "Grep", _grep_symbol,
     {}, "Grep trigger answered from the index of a 50 MiB graph (a unique definition)"),
    ("index_go_type", BOTH, "biggo", PRE, "Grep", _grep_go("Command"),
     {}, "Grep of a Go type with methods and receivers in 40 files, 20 MiB Go-shaped graph"),
    ("index_go_receiver", BOTH, "biggo", PRE, "Bash", _bash(GO_RECEIVER, "Find the method"),
     {}, f"Bash `{GO_RECEIVER}` (qualified by the receiver type), same graph"),
    ("index_go_many", BOTH, "biggo", PRE, "Grep", _grep_go("Handler"),
     {}, "Grep of a name every package defines (the longest index line), same graph"),
    ("index_not_in_graph", BOTH, "fresh", PRE, "Grep", _grep_missing,
     {"expect": "silent"}, "Grep of a name the graph does not hold: silent, not_in_graph"),
    ("index_missing", BOTH, "index_missing", PRE, "Grep", _grep_symbol,
     {"expect": "silent"}, "Grep trigger, no index yet (its build already started): silent"),
    ("index_spawn", BOTH, "index_spawn", PRE, "Grep", _grep_symbol,
     {"index_spawn": True, "expect": "silent"},
     "Grep trigger, no index: every call spawns the detached builder, silent"),
    ("index_outdated", BOTH, "index_outdated", PRE, "Grep", _grep_symbol,
     {"expect": "silent"},
     "Grep trigger, index of another graph version (its rebuild already started): silent"),
    ("answer_read", BOTH, "fresh", PRE, "Read", _read_util,
     {}, "Read answered: the file's importer, its dependent (a caller) and its definitions"),
    ("answer_callers", BOTH, "fresh", PRE, "Grep", _grep_callers,
     {}, "Grep `helper\\(`: who calls it, first, then its definition"),
    ("hostile_label", BOTH, "huge_label", PRE, "Grep", _grep_symbol,
     {}, "Grep trigger, index of a graph holding a 40 MiB label (issue 20)"),
    ("hostile_duplicates", BOTH, "duplicates", PRE, "Grep", _grep_symbol,
     {}, "Grep trigger for a name 16,000 nodes define in one file (issue 20): ambiguous"),
    ("packed_refs", BOTH, "packed", PRE, "Read", _read_app,
     {}, "Read trigger, HEAD's branch only in packed-refs"),
    ("worktree", BOTH, "worktree", PRE, "Read", _read_app,
     {}, "Read trigger in a linked worktree"),
)  # fmt: skip


def all_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for name, modes, fixture, event, tool, args, options, what in SCENARIO_TABLE:
        fields = {"fixture": fixture, "event": event, "tool_name": tool, "tool_args": args,
                  "what": what, **options}  # fmt: skip
        if modes == BOTH:
            out += _both(name=name, **fields)
        else:
            out.append(Scenario(name=name, mode=modes, **fields))
    return out


@dataclass
class CallMaker:
    """Makes the stdin of each call of one arm of one scenario."""

    scenario: Scenario
    root: str
    fixed_session: str = field(default_factory=new_session_id)
    fixed_agent: str = field(default_factory=new_agent_id)
    seq: int = 0

    def next(self) -> bytes:
        sc = self.scenario
        self.seq += 1
        session, agent_id = self.fixed_session, self.fixed_agent
        if sc.session == "fresh":
            session, agent_id = new_session_id(), new_agent_id()
        elif sc.session == "agents":
            agent_id = new_agent_id()
        if sc.event == "SessionStart":
            return encode(session_start_input(self.root, session))
        assert sc.tool_name is not None
        response = sc.tool_response(self.root) if sc.tool_response is not None else None
        return encode(
            tool_input(
                sc.event,
                self.root,
                session,
                sc.tool_name,
                sc.tool_args(self.root),
                agent_type=sc.agent,
                agent_id=agent_id,
                tool_use_id=f"toolu_bench{self.seq:06d}",
                tool_response=response,
            )
        )


# ---------------------------------------------------------------------------
# A session with 10,000 earlier events
# ---------------------------------------------------------------------------

PREFILL_EVENTS = 10_000
PREFILL_AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")
PREFILL_AGENT_IDS = (
    "a10000000000000a1",
    "a20000000000000a2",
    "a30000000000000a3",
    "a40000000000000a4",
    "a50000000000000a5",
)


def prefill_inputs(root: str, session: str, n: int = PREFILL_EVENTS) -> list[bytes]:
    """``n`` hook inputs of one busy session: the five agents reading, grepping,
    running Bash and looking symbols up (never apply_overlay or src/app.py, so
    the timed calls are not silenced as already consulted)."""
    rng = random.Random(9)
    agents = list(zip(PREFILL_AGENTS, PREFILL_AGENT_IDS))
    out: list[bytes] = []
    i = 0

    def call(event: str, tool: str, args: dict[str, Any], response: object = None) -> bytes:
        return encode(
            tool_input(
                event,
                root,
                session,
                tool,
                args,
                agent_type=agent,
                agent_id=agent_id,
                tool_use_id=f"toolu_pre{i:06d}",
                tool_response=response,
            )
        )

    while len(out) < n:
        i += 1
        agent, agent_id = agents[i % len(agents)]
        choice = rng.randrange(10)
        if choice < 4:
            args: dict[str, Any] = {"file_path": f"{root}/src/mod{rng.randrange(400)}.py"}
            tool = "Read"
        elif choice < 6:
            args = {"pattern": f"symbol_{rng.randrange(5000)}", "path": root}
            tool = "Grep"
        elif choice < 8:
            args = {"command": f"rg -n symbol_{rng.randrange(5000)} src", "description": "search"}
            tool = "Bash"
        elif choice < 9:
            args = {"command": "ls -la src && git status", "description": "look"}
            tool = "Bash"
        else:
            sym = f"symbol_{rng.randrange(5000)}"
            args = {"command": f'graphify explain "{sym}"', "description": "graph"}
            out.append(call("PreToolUse", "Bash", args))
            resp = {"stdout": f"{sym}() [src/mod{rng.randrange(400)}.py:L3]\n", "stderr": ""}
            out.append(call("PostToolUse", "Bash", args, resp))
            continue
        out.append(call("PreToolUse", tool, args))
    return out[:n]


# Run by the interpreter under test: drives the hook in-process through its
# importable entry point run(stdin, environ), one call per input line.
PREFILL_DRIVER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import graphify_nudge
env = {b"CLAUDE_PROJECT_DIR": sys.argv[2].encode(), b"MISHKAN_GRAPHIFY_NUDGE": b"telemetry"}
n = 0
with open(sys.argv[3], "rb") as f:
    for line in f:
        graphify_nudge.run(line.rstrip(b"\n"), env)
        n += 1
print(n)
"""


def count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def telemetry_file(fixture: Fixture, session: str) -> Path:
    return fixture.telemetry_dir / f"{session}.jsonl"


def schema_lines(root: str, session: str, inputs: list[bytes]) -> list[bytes]:
    """Fallback for a hook without run(): schema-v1 `call` and `lookup_result`
    lines (docs/telemetry.md), one per input."""
    out = []
    ts = float(BASE_TIME)
    for raw in inputs:
        d = json.loads(raw)
        ts += 0.5
        if d.get("hook_event_name") == "PostToolUse":
            post = {
                "v": 1,
                "ts": ts,
                "event": "lookup_result",
                "session": session,
                "mode": "telemetry",
                "agent_type": d["agent_type"],
                "agent_id": d["agent_id"],
                "tool": d["tool_name"],
                "tool_use_id": d["tool_use_id"],
                "files": 1,
            }
            out.append(json.dumps(post, separators=(",", ":")).encode() + b"\n")
            continue
        line = {
            "v": 1,
            "ts": ts,
            "event": "call",
            "session": session,
            "mode": "telemetry",
            "agent_type": d["agent_type"],
            "agent_id": d["agent_id"],
            "tool": d["tool_name"],
            "tool_use_id": d["tool_use_id"],
            "kind": "other",
            "trigger": False,
            "via": None,
            "target": None,
            "symbols": [],
            "graph": None,
            "stale_by": None,
            "built_at": None,
            "decision": None,
            "reason": None,
        }
        out.append(json.dumps(line, separators=(",", ":")).encode() + b"\n")
    return out


def prefill_session(
    fixture: Fixture, python: str, hooks_dir: Path, n: int = PREFILL_EVENTS
) -> tuple[str, int, str]:
    """Give ``fixture`` a session with at least ``n`` earlier telemetry lines.

    Drives the real hook in-process (its run() entry point) with ``python``;
    returns (session_id, lines in its telemetry file, how it was made).
    """
    session = new_session_id()
    root = str(fixture.root)
    inputs = prefill_inputs(root, session, n)
    feed = fixture.root.parent / f"prefill-{session}.jsonl"
    feed.write_bytes(b"".join(x + b"\n" for x in inputs))
    how = "driven through graphify_nudge.run()"
    try:
        subprocess.run(
            [python, "-I", "-S", "-c", PREFILL_DRIVER, str(hooks_dir), root, str(feed)],
            check=True,
            cwd=root,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError):
        how = "written as schema-v1 call lines (the hook's run() was unusable)"
    path = telemetry_file(fixture, session)
    lines = count_lines(path)
    if lines < n:
        how = "topped up with schema-v1 call lines: " + how
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = schema_lines(root, session, inputs)[: n - lines]
        with path.open("ab") as f:
            f.write(b"".join(extra))
        lines = count_lines(path)
    feed.unlink()
    return session, lines, how
