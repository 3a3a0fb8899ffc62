"""``mishkan_core.graph_coverage``: the graph against the tracked source files.

Graphs here have graphify's shape (``source_file`` on nodes and links); the
real-graphify proof, on both ends of the supported range, is
tests/e2e/test_e2e_first_contact.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mishkan_core import graph_coverage

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
HOOKS = "payload/mishkan/hooks"


def project_with(root: Path, files: dict[str, str]) -> Path:
    project = root / "p"
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=GIT_ENV)
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True, env=GIT_ENV)
    return project


def graph_of(project: Path, sources: list[str], extra: str = "") -> Path:
    nodes = [{"id": f"n{i}", "label": "f()", "source_file": s} for i, s in enumerate(sources)]
    links = [{"source": "n0", "target": "n1", "source_file": s} for s in sources[:1]]
    graph = project / ".graphify" / "graph.json"
    graph.parent.mkdir(exist_ok=True)
    text = json.dumps({"nodes": nodes, "links": links})
    graph.write_text(text[:-1] + extra + "}" if extra else text)
    return graph


SOURCES = {f"src/m{i}.py": "x = 1\n" for i in range(10)}


def test_a_full_graph_covers_every_source_file(tmp_path: Path) -> None:
    project = project_with(tmp_path, {**SOURCES, "README.md": "# r\n", "src/__init__.py": ""})
    graph = graph_of(project, [*SOURCES, "README.md"])
    coverage = graph_coverage.measure(project, graph, [HOOKS])
    assert coverage is not None
    # the empty __init__.py and the README are not source files
    assert (coverage.covered, coverage.total, coverage.partial) == (10, 10, False)
    assert coverage.describe() == "covers 10 of 10 tracked source files (100%)"


def test_a_graph_of_one_commit_is_partial_and_says_how_much(tmp_path: Path) -> None:
    project = project_with(tmp_path, SOURCES)
    graph = graph_of(project, ["src/m0.py"])
    coverage = graph_coverage.measure(project, graph, [HOOKS])
    assert coverage is not None and coverage.partial
    assert coverage.describe() == "covers 1 of 10 tracked source files (10%)"
    half = graph_coverage.measure(project, graph_of(project, list(SOURCES)[:5]), [HOOKS])
    assert half is not None and not half.partial  # the bar: under half is partial


def test_the_hook_s_files_are_found_and_never_counted_as_the_project_s(tmp_path: Path) -> None:
    hook_files = {f"{HOOKS}/graphify_nudge.py": "x\n", f"{HOOKS}/graphify_nudge_index.py": "x\n",
                  f"{HOOKS}/model-route.py": "x\n"}  # fmt: skip
    project = project_with(tmp_path, {**SOURCES, **hook_files})
    graph = graph_of(project, list(hook_files))
    coverage = graph_coverage.measure(project, graph, [HOOKS])
    assert coverage is not None
    assert coverage.hook_files == [f"{HOOKS}/graphify_nudge.py", f"{HOOKS}/graphify_nudge_index.py"]
    # the harness's own model-route.py is the project's code; the hook's two are not
    assert (coverage.covered, coverage.total) == (1, 11)


def test_skipped_directories_and_absolute_paths(tmp_path: Path) -> None:
    project = project_with(
        tmp_path,
        {
            **SOURCES,
            "node_modules/x/i.js": "1\n",
            "build/lib/m.py": "1\n",
            "a.egg-info/s.py": "1\n",
        },
    )
    absolute = [str(project / s) for s in SOURCES]
    graph = graph_of(project, [*absolute, "/elsewhere/m.py", "../up.py"])
    coverage = graph_coverage.measure(project, graph, [HOOKS])
    assert coverage is not None and (coverage.covered, coverage.total) == (10, 10)


def test_a_source_file_spelled_inside_a_label_is_not_one(tmp_path: Path) -> None:
    """The scan matches keys only: a label quoting ``"source_file": "x"`` is data."""
    project = project_with(tmp_path, SOURCES)
    fake = ', "x": {"label": "\\"source_file\\": \\"src/m1.py\\""}'
    graph = graph_of(project, ["src/m0.py"], extra=fake)
    assert graph_coverage.graph_files(graph, project) == {"src/m0.py"}


@pytest.mark.parametrize("content", [b"", b"not json", b'{"source_file": 1}', b"\xff\xfe"])
def test_an_odd_graph_holds_nothing(tmp_path: Path, content: bytes) -> None:
    project = project_with(tmp_path, SOURCES)
    graph = project / "graph.json"
    graph.write_bytes(content)
    coverage = graph_coverage.measure(project, graph, [HOOKS])
    assert coverage is not None and coverage.covered == 0 and coverage.partial


def test_unknown_when_the_graph_or_the_index_cannot_be_read(tmp_path: Path) -> None:
    project = project_with(tmp_path, SOURCES)
    os.mkfifo(project / "fifo.json")
    assert graph_coverage.measure(project, project / "fifo.json", [HOOKS]) is None
    assert graph_coverage.measure(project, project / "missing.json", [HOOKS]) is None
    outside = tmp_path / "no-git"
    outside.mkdir()
    assert graph_coverage.measure(outside, graph_of(project, []), [HOOKS]) is None
