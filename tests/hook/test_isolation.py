"""Requirement 14: standard library only, `python -I -S` on 3.9-3.13, never
imports mishkan_core, and stays inside its import budget."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import graphify_nudge
from tests.hook.conftest import HOOK, Hook, hook_input

BUILDER = HOOK.with_name("graphify_nudge_index.py")

# What the hook may load beyond a bare `python -I -S`: the C JSON scanner and,
# on the rare path that reads a loose git object, zlib. json, re and os each
# cost 20-100% of an interpreter start (bench/), so they stay out.
ALLOWED_EXTRA = {"graphify_nudge", "_json", "zlib"}


#: imports allowed inside a function, and where: the hot path may load only
#: the C JSON scanner (and zlib for a loose git object, hashlib for an odd
#: session id); json, re and friends belong to the index builder
#: (graphify_nudge_index.py), which runs in its own process.
FUNCTION_IMPORTS = {"_json": None, "zlib": {"_commit_time"}, "hashlib": {"_digest"}}


def test_imports_are_standard_library_only() -> None:
    tree = ast.parse(HOOK.read_text())
    top = {
        alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert top == {"posix", "sys", "time"}, top
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                for name in names or [getattr(node, "module", "")]:
                    assert name in FUNCTION_IMPORTS, (function.name, name)
                    where = FUNCTION_IMPORTS[name]
                    assert where is None or function.name in where, (function.name, name)


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names - {"TYPE_CHECKING", "__all__"}


def test_the_hook_does_not_carry_its_index_builder() -> None:
    """The builder (graphify's resolution rules, json, re: half the compiled
    size) is never used by a call, so a call never unmarshals it; the two
    files define nothing twice."""
    for name in ("_Resolver", "build_graph_index", "GraphIndexError", "_index_lines"):
        assert not hasattr(graphify_nudge, name), name
    assert BUILDER.stem == graphify_nudge.INDEX_BUILDER
    # each has its own entry point; nothing else is defined in both
    assert _top_level_names(HOOK) & _top_level_names(BUILDER) == {"main"}


def test_the_builder_imports_the_hook_and_nothing_of_the_package() -> None:
    tree = ast.parse(BUILDER.read_text())
    top = {
        (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert top == {"bisect", "contextlib", "graphify_nudge", "json", "posix", "re", "sys"}, top


def test_modules_loaded_at_run_time(hook: Hook, fresh_graph: Path) -> None:
    probe = textwrap.dedent(
        f"""
        import sys
        before = set(sys.modules)
        sys.path.insert(0, {str(HOOK.parent)!r})
        import graphify_nudge
        env = {{k.encode(): v.encode() for k, v in {hook.env!r}.items()}}
        for raw in sys.argv[1:]:
            graphify_nudge.run(raw.encode(), env)
        print(sorted(set(sys.modules) - before))
        """
    )
    inputs = [
        json.dumps(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})),
        json.dumps(hook_input(hook.repo, "Bash", {"command": "grep -rn x . && cat src/app.py"})),
        json.dumps(hook_input(hook.repo, event="SessionStart")),
        json.dumps(hook_input(hook.repo, "Read", agent_type=None, agent_id=None)),
    ]
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, *inputs],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(ast.literal_eval(out.stdout))
    assert loaded <= ALLOWED_EXTRA, loaded
    assert not loaded & {"json", "re", "os", "typing", "subprocess", "mishkan_core"}


VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]


@pytest.mark.parametrize("version", VERSIONS)
def test_runs_under_every_supported_python(hook: Hook, fresh_graph: Path, version: str) -> None:
    python = shutil.which(f"python{version}")
    if python is None:
        if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
            python = sys.executable
        else:
            pytest.skip(f"python{version} is not on PATH (tox runs each version itself)")
    result = hook.subprocess(
        hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}), python=python
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_recommended_registration_runs_the_same_hook(hook: Hook, fresh_graph: Path) -> None:
    from mishkan_core.hook_chain import IMPORT_CODE

    command = [sys.executable, "-I", "-S", "-B", "-c", IMPORT_CODE, str(HOOK.parent)]
    data = json.dumps(hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})).encode()
    hook.index()
    result = subprocess.run(
        command, input=data, capture_output=True, env=hook.env, timeout=30, check=False
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert b'Definition: \\"src/app.py:1\\" \\"apply_overlay\\"' in result.stdout
