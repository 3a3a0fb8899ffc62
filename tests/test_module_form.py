"""Issue 20 class 7: no documented command form imports from the working directory.

`python -m mishkan_core routing check`, run inside a repository as the docs
once showed it, imported the repository's `json.py`. A repository can ship a
module for any name the commands import; each planted module writes a marker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: names our commands import after start-up (and the hook modules they load)
PLANTED = (
    "json", "typing", "argparse", "re", "dataclasses", "pathlib", "enum", "functools",
    "collections", "shlex", "subprocess", "hashlib", "tempfile", "shutil", "secrets",
    "textwrap", "unicodedata", "contextlib", "importlib", "graphify_nudge",
    "graphify_nudge_index",
)  # fmt: skip


def _loaded_before_the_package(tmp_path: Path) -> set[str]:
    """What `python -m` imports before any code of the package it runs (runpy's
    own imports: importlib on 3.9 and 3.10): nothing a package does can keep a
    working directory's copy of those out; only -I can."""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "first_code.py").write_text("import sys\nprint(' '.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-m", "first_code"], cwd=probe, capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    return {name.split(".")[0] for name in done.stdout.split()}


def _hostile_repo(tmp_path: Path, skip: set[str] | None = None) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    marker = tmp_path / "imported"
    for name in set(PLANTED) - (skip or set()):
        (repo / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\nraise SystemExit(3)\n"
        )
    pkg = repo / "mishkan_core"  # the package itself, for forms that find it first
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('mishkan_core\\n')\n")
    (pkg / "__main__.py").write_text("raise SystemExit(3)\n")
    return repo, marker


@pytest.mark.parametrize(
    "argv",
    [
        ["-I", "-m", "mishkan_core", "routing", "check", "--project", "."],
        ["-I", "-m", "mishkan_core", "graph-index", "--project", "."],
        ["-I", "-m", "mishkan_core.metrics", "--help"],
        ["-I", "-m", "mishkan_core.ingest_lint", "--help"],
    ],
    ids=lambda argv: " ".join(argv[1:3]),
)
def test_the_documented_module_forms_import_nothing_from_the_repository(
    tmp_path: Path, argv: list[str]
) -> None:
    repo, marker = _hostile_repo(tmp_path)
    done = subprocess.run([sys.executable, *argv], cwd=repo, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("args", [["routing", "check", "--project", "."], ["--help"]])
def test_without_i_the_package_still_imports_nothing_else_from_the_repository(
    tmp_path: Path, args: list[str]
) -> None:
    """`python -m mishkan_core` (no -I) finds the package where it is installed
    when the repository has none; the working directory is then dropped before
    anything else is imported, so its `json.py` or `graphify_nudge.py` is not."""
    repo, marker = _hostile_repo(tmp_path, _loaded_before_the_package(tmp_path))
    for child in (repo / "mishkan_core").iterdir():
        child.unlink()
    (repo / "mishkan_core").rmdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run([sys.executable, "-m", "mishkan_core", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr


def test_the_mishkan_console_script_imports_nothing_from_the_repository(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "mishkan"
    if not script.is_file():
        pytest.skip("no mishkan console script in this environment")
    repo, marker = _hostile_repo(tmp_path)
    done = subprocess.run([str(script), "routing", "check", "--project", "."], cwd=repo,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    assert "Traceback" not in done.stderr, done.stderr


def test_what_the_commands_start_of_themselves_imports_nothing_from_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sprint-close runs `mishkan ingest-lint` in a child, from the project: it
    ran `python -m mishkan_core`, which put the project (and a `mishkan_core/`
    package in it) first on sys.path."""
    from mishkan_core import sprint_close
    from mishkan_core.child import mishkan_argv

    repo, marker = _hostile_repo(tmp_path)
    monkeypatch.chdir(repo)
    done = subprocess.run(mishkan_argv("--help"), capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("usage: mishkan"), done.stderr
    (repo / "note.md").write_text("# a note\n")
    code, output = sprint_close.lint(repo / "note.md")
    assert code in (0, 1) and "Traceback" not in output, output
    assert not marker.exists(), marker.read_text()
