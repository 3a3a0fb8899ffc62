"""Issue 22, class 1, against the real graphify: what a committed link does to
its writes, and that ``mishkan sprint-close`` refuses before it starts it.

The unit test (tests/test_untrusted_repo.py) proves sprint-close never starts
graphify on such a tree with a stand-in; this proves the stand-in's premise
with graphifyy 0.9.96: graphify writes through a linked output directory and
through a linked ``graph.json`` (``graphify.paths._atomic_replace`` resolves
links on purpose; a JSON file of the user's is read as the old graph, then
overwritten), so the refusal is what keeps the user's files intact.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.harness import base_path, mishkan_command

pytestmark = pytest.mark.e2e


def _world(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def main() -> None:\n    helper()\n\n\n"
                                            "def helper() -> None:\n    pass\n")  # fmt: skip
    (tmp_path / "victim_dir").mkdir()
    (tmp_path / "victim").write_text("VICTIM\n")
    (tmp_path / "home").mkdir()
    telemetry = project / ".mishkan" / "telemetry"
    telemetry.mkdir(parents=True)
    line = {"v": 1, "ts": time.time() - 60, "event": "session_start", "session": "s1",
            "mode": "advise", "source": "startup"}  # fmt: skip
    (telemetry / "s1.jsonl").write_text(json.dumps(line) + "\n")
    return project


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PATH": base_path(), "HOME": str(tmp_path / "home"), "LC_ALL": "C.UTF-8", **extra}


def _graphify(graphify: Path, project: Path, env: dict[str, str]) -> None:
    subprocess.run(
        [str(graphify), "extract", ".", "--code-only", "--force"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip


def _sprint_close(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*mishkan_command(), "sprint-close", "--project", str(project), "--sprint", "s1"],
        cwd=project.parent, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("planted", ["dir-link", "file-link"])
def test_real_graphify_writes_through_the_link_and_sprint_close_refuses(
    graphify_bin: Path, tmp_path: Path, planted: str
) -> None:
    project = _world(tmp_path)
    env = _env(tmp_path, GRAPHIFY_OUT=".graphify")
    if planted == "dir-link":
        (project / ".graphify").symlink_to("../victim_dir")
        _graphify(graphify_bin, project, env)  # the premise: graphify follows the link
        assert (tmp_path / "victim_dir" / "graph.json").is_file()
        for child in sorted((tmp_path / "victim_dir").rglob("*"), reverse=True):
            child.unlink() if not child.is_dir() or child.is_symlink() else child.rmdir()
    else:  # a JSON file of the user's (graphify reads it as the old graph first)
        (tmp_path / "victim").write_text('{"theme": "dark"}\n')
        (project / ".graphify").mkdir()
        (project / ".graphify" / "graph.json").symlink_to("../../victim")
        _graphify(graphify_bin, project, env)  # the premise: through the file link too
        assert "graphify_version" in (tmp_path / "victim").read_text()
        (tmp_path / "victim").write_text("VICTIM\n")
    done = _sprint_close(project, _env(tmp_path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        len(done.stderr.strip().splitlines()) == 1 and "graphify would write there" in done.stderr
    )
    assert list((tmp_path / "victim_dir").iterdir()) == []
    assert (tmp_path / "victim").read_text() == "VICTIM\n"


def test_without_the_link_sprint_close_re_extracts_with_real_graphify(
    graphify_bin: Path, tmp_path: Path
) -> None:
    """The control: the same tree, a real ``.graphify/`` (and install's
    ``graphify-out -> .graphify``), re-extracted."""
    project = _world(tmp_path)
    (project / ".graphify").mkdir()
    (project / "graphify-out").symlink_to(".graphify")
    done = _sprint_close(project, _env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    graph = json.loads((project / ".graphify" / "graph.json").read_text())
    assert any("helper" in str(node.get("label", "")) for node in graph["nodes"])
    assert list((tmp_path / "victim_dir").iterdir()) == []
