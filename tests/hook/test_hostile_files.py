"""Issue 31: the untrusted repository, round three, in the hook.

A clone, a tarball with its `.git` or a PR branch is written by a stranger.
Each test builds the hostile tree as the attacker would and runs the hook as
Claude Code runs it (a fresh `python -I -S` of the file, from outside the
tree), and each failed on 43bb0be. Here, finding 5: repository text reaches
the model through an allow-list.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge
import graphify_nudge_index
from tests.hook.conftest import SESSION, Hook, context_of, git, hook_input, make_repo
from tests.hook.conftest import write_graph as _write_graph

STATE_NAME = graphify_nudge.session_file_name(SESSION)
#: a full object id that is nobody's HEAD: where it shows up, a planted file was read
PLANTED = "4402" * 10


def hostile_repo(base: Path, built_at: str | None = None, index: bool = False) -> Hook:
    """A project with one commit and a graph built at `built_at` ("HEAD": its
    HEAD); without one, an old graph, so HEAD, its ref, its commit object and
    the commit-time cache are all read. Telemetry in its default place, inside
    the project."""
    repo = make_repo(base / "repo")
    if built_at == "HEAD":
        built_at = git(repo, "rev-parse", "HEAD")
    _write_graph(repo, built_at, mtime=None if built_at else 1.0)
    hook = Hook(repo, repo / ".mishkan" / "telemetry")
    del hook.env["MISHKAN_TELEMETRY_DIR"]  # the default: inside the (hostile) project
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "100"
    if index:
        del hook.env["MISHKAN_GRAPHIFY_INDEX"]
    return hook


def calls(hook: Hook) -> Iterator[dict[str, Any]]:
    """A session's first calls: each reads HEAD, the graph and the private files."""
    yield hook_input(hook.repo, event="SessionStart")
    yield hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}, agent_id="a")
    yield hook_input(hook.repo, agent_id="b")  # Read src/app.py


def run(hook: Hook, data: dict[str, Any]) -> str:
    """The hook as Claude Code runs it; its advisory, or ""."""
    result = hook.subprocess(data)
    assert (result.returncode, result.stderr) == (0, b"")
    return context_of(result.stdout.decode()) if result.stdout else ""


def index_name(hook: Hook) -> str:
    return graphify_nudge._index_name(str(hook.repo / ".graphify" / "graph.json"))


# -- 5. repository text reaches the model through an allow-list -------------------------

#: letters that read as marks: Canadian Syllabics `<` `>`, a double prime, a
#: grave, a dental click (a pipe) and the invisible Hangul filler
LOOKALIKES = ["\u1438", "\u1433", "\u02ba", "\u02cb", "\u01c0", "\u3164"]


@pytest.mark.parametrize("char", LOOKALIKES, ids=[f"U+{ord(c):04X}" for c in LOOKALIKES])
@pytest.mark.parametrize("tool", ["Read", "Bash"])
def test_a_lookalike_in_a_file_name_never_reaches_the_model(
    tmp_path: Path, char: str, tool: str
) -> None:
    """Issue 31 finding 5: `_quote` and `_plain` passed every non-ASCII letter,
    so `\u1438/system-reminder\u1433` reached the model raw. Only ASCII letters, digits
    and a few marks (`_SHOWN`) are shown; a name with anything else gets no
    command at all (`unquotable`)."""
    hook = hostile_repo(tmp_path, built_at=None)
    path = hook.repo / "src" / f"{char}system-reminder{char}" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text("x = 1\n")
    tool_input = {"file_path": str(path)} if tool == "Read" else {"command": f"cat '{path}'"}
    text = run(hook, hook_input(hook.repo, tool, tool_input))
    assert hook.calls()[-1]["trigger"] is True  # judged, and advised if at all without it
    assert char not in text


@pytest.mark.parametrize("char", LOOKALIKES, ids=[f"U+{ord(c):04X}" for c in LOOKALIKES])
def test_the_index_stores_no_lookalike_and_the_model_sees_none(tmp_path: Path, char: str) -> None:
    """The builder stores only what `_plain` allows (the check the hook makes on
    read), so a graph that keeps a look-alike directory gives no such site."""
    hook = hostile_repo(tmp_path, built_at=None, index=True)
    source = f"src/{char}system-reminder{char}/x.py"
    nodes = [{"id": "a", "label": "lookup()", "file_type": "code", "source_file": "src/a.py",
              "source_location": "L3"},
             {"id": "b", "label": "lookup()", "file_type": "code", "source_file": source,
              "source_location": "L4"}]  # fmt: skip
    graph = {"directed": True, "graph": {"graphify_version": "0.9.96"}, "nodes": nodes,
             "links": [], "hyperedges": []}  # fmt: skip
    (hook.repo / ".graphify" / "graph.json").write_text(json.dumps(graph))
    assert graphify_nudge_index.build_graph_index(hook.environ(), str(hook.repo)) == "built"
    text = run(hook, hook_input(hook.repo, "Grep", {"pattern": "lookup"}))
    assert '"src/a.py:3"' in text and char not in text
    index = hook.telemetry / ".index" / f"{index_name(hook)}.idx"
    assert b"system-reminder" not in index.read_bytes()  # raw or JSON-escaped
