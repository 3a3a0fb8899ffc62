"""The published hook works under the real pre-commit (pinned in tests/e2e/requirements.txt).

``pre-commit try-repo`` builds the hook's environment from this checkout exactly
as a harness repo's ``rev:`` would (a virtualenv with ``pip install`` of the
repository, so it needs PyPI for the build backend), then runs the hook over a
throwaway git repository that holds one accepted and one rejected artifact.
Uncommitted changes in this checkout are included: try-repo snapshots the
working tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ingest_lint.helpers import FRONT, PROSE, fence

REPO = Path(__file__).resolve().parents[2]
HOOK_ID = "mishkan-ingest-lint"
ACCEPT = FRONT + "# Decision\n\n" + PROSE * 3
REJECT = FRONT + "# calls\n\n" + fence("\n".join(f"pkg.a.f{i} -> pkg.b.g{i}" for i in range(40)))
#: what most commits hold: Markdown that is not bound for Cognee work
UNMARKED = "# Contributing\n\n" + PROSE * 2
SKIP = 'skipped: no "mishkan: ingest" marker (only marked files are Cognee work artifacts)'

# The real pre-commit builds a virtualenv from PyPI: a real-counterpart run,
# like the CLI and graphify ones, so it runs once, in `tox -e e2e`.
pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def _pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),  # a private cache: never the user's, built fresh
        "PRE_COMMIT_COLOR": "never",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _harness(tmp_path: Path, files: dict[str, str]) -> Path:
    """A throwaway harness repository with `files` written and staged."""
    if shutil.which("git") is None:
        pytest.fail("git is required to drive pre-commit (apt-get install git)")
    project = tmp_path / "harness"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", *files], cwd=project, check=True)
    return project


def test_the_manifest_is_valid(tmp_path: Path) -> None:
    done = _pre_commit(
        "validate-manifest", str(REPO / ".pre-commit-hooks.yaml"), cwd=REPO, home=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_try_repo_accepts_prose_and_rejects_a_dump(tmp_path: Path) -> None:
    project = _harness(tmp_path, {"decision.md": ACCEPT, "calls.md": REJECT})
    home = tmp_path / "pre-commit-home"

    accepted = _pre_commit(
        "try-repo", str(REPO), HOOK_ID, "--files", "decision.md", cwd=project, home=home
    )
    output = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, output
    assert "mishkan ingest-lint" in output and "Passed" in output, output

    both = _pre_commit("try-repo", str(REPO), HOOK_ID, "--all-files", cwd=project, home=home)
    output = both.stdout + both.stderr
    assert both.returncode == 1, output
    assert "Failed" in output and f"hook id: {HOOK_ID}" in output, output
    assert "calls.md:8:1: IL401 call graph: 40 edge lines" in output, output
    assert "decision.md" not in output.split(f"hook id: {HOOK_ID}", 1)[1], output


def test_unmarked_markdown_in_a_commit_passes_and_is_named_when_the_hook_fails(
    tmp_path: Path,
) -> None:
    """pre-commit passes every staged Markdown file by name (and splits them into
    batches), so a commit of unmarked files only must pass: the skip is said, and
    not a failure. ``try-repo`` with neither --files nor --all-files runs on the staged
    files, as the commit's own hook run does."""
    project = _harness(tmp_path, {"CONTRIBUTING.md": UNMARKED, "notes.txt": UNMARKED})
    home = tmp_path / "pre-commit-home"

    unmarked = _pre_commit("try-repo", str(REPO), HOOK_ID, "--verbose", cwd=project, home=home)
    output = unmarked.stdout + unmarked.stderr
    assert unmarked.returncode == 0, output
    assert "Passed" in output, output
    assert f"CONTRIBUTING.md: {SKIP}" in output and f"notes.txt: {SKIP}" in output, output
    assert "All checks passed" not in output, output

    (project / "calls.md").write_text(REJECT, encoding="utf-8")
    subprocess.run(["git", "add", "calls.md"], cwd=project, check=True)
    failed = _pre_commit("try-repo", str(REPO), HOOK_ID, cwd=project, home=home)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "calls.md:8:1: IL401 call graph: 40 edge lines" in output, output
    # (pre-commit may lint the three in separate batches: each batch says its own skips)
    assert f"CONTRIBUTING.md: {SKIP}" in output and f"notes.txt: {SKIP}" in output, output


#: the README's pre-commit block follows this line
README_MARK = "<!-- pre-commit config: tests/ingest_lint/test_pre_commit.py runs it -->"


def _readme_config() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert README_MARK in text, "the README lost its pre-commit block"
    block = text.split(README_MARK, 1)[1].split("```yaml\n", 1)[1]
    return block.split("```", 1)[0]


def test_the_readmes_pre_commit_config_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's `.pre-commit-config.yaml`, copied as written into a harness
    repository, with `mishkan` on PATH as the README says: prose passes, a
    call-graph dump fails on its rule."""
    mishkan = Path(sys.executable).parent / "mishkan"
    assert mishkan.exists(), "the mishkan console script is installed beside this Python"
    project = _harness(
        tmp_path, {".pre-commit-config.yaml": _readme_config(), "decision.md": ACCEPT}
    )
    home = tmp_path / "pre-commit-home"
    monkeypatch.setenv("PATH", f"{mishkan.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    clean = _pre_commit("run", "--all-files", cwd=project, home=home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (project / "calls.md").write_text(REJECT, encoding="utf-8")
    subprocess.run(["git", "add", "calls.md"], cwd=project, check=True)
    dump = _pre_commit("run", "--all-files", cwd=project, home=home)
    output = dump.stdout + dump.stderr
    assert dump.returncode == 1, output
    assert "calls.md:8:1: IL401 call graph: 40 edge lines" in output, output
