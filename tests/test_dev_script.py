"""``scripts/dev``: the first command a newcomer runs changes nothing outside the
checkout, and the demo runs on whatever Python 3.9+ the machine has.

It used to run ``pyenv global 3.11.7 3.9.18 ...`` (rewriting ``$(pyenv root)/version``
for every shell of the user) and to need those exact patch releases. Each test runs
the real script with ``/bin/bash``, on a PATH that holds only what the test says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench import _env

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "dev"


def _python(version: str) -> str:
    try:
        return _env.discover(version).path
    except _env.SetupError as exc:
        pytest.fail(f"{exc}: every supported Python is needed (docs/development.md)")


def _only(tmp_path: Path, **programs: str) -> Path:
    """A PATH directory holding only ``programs`` (name -> absolute path)."""
    bin_dir = tmp_path / "only-bin"
    bin_dir.mkdir(exist_ok=True)
    for name, target in programs.items():
        (bin_dir / name).symlink_to(target)
    return bin_dir


def _git() -> str:
    git = shutil.which("git")
    if git is None:
        pytest.fail("git is required (apt-get install git)")
    return git


def _pyenv_root(tmp_path: Path, *versions: str) -> Path:
    """A pyenv root whose ``versions/`` holds these Pythons, each as pyenv lays one
    out (``versions/3.12.1/bin/python3.12``), linked to the real binary."""
    root = tmp_path / "pyenv"
    for version in versions:
        real = _env.discover(version)
        bin_dir = root / "versions" / real.full_version / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / f"python{version}").symlink_to(real.path)
    (root / "versions").mkdir(parents=True, exist_ok=True)
    return root


def _dev(*args: str, env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    script = cwd / "scripts" / "dev"
    return subprocess.run(["/bin/bash", str(script), *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip


def _snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every entry directly in ``directory``, itself included."""
    entries = {".": directory.stat()}
    for entry in os.scandir(directory):
        entries[entry.name] = entry.stat(follow_symlinks=False)
    return {name: (st.st_size, st.st_mtime_ns) for name, st in entries.items()}


def _demo_ran(done: subprocess.CompletedProcess[str], python: str) -> None:
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"compiled payload/mishkan/hooks/graphify_nudge.py with {python}" in done.stdout
    assert "answered share:              75.0% (3/4)" in done.stdout
    assert "-> no advice: " in done.stdout


def test_the_demo_leaves_pyenv_global_and_home_untouched(tmp_path: Path) -> None:
    """On the developer's own PATH and pyenv: ``$(pyenv root)/version`` (what
    ``pyenv global`` writes) and the root's other entries keep their bytes and times,
    and an empty HOME stays empty."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        pytest.skip("pyenv is not installed: there is no global version to protect")
    root = Path(subprocess.run([pyenv, "root"], capture_output=True, text=True,
                               check=True).stdout.strip())  # fmt: skip
    version_file = root / "version"
    before = (version_file.read_bytes() if version_file.exists() else None, _snapshot(root))
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYENV_ROOT": str(root)}
    done = _dev("demo", env=env)
    assert done.returncode == 0, done.stderr
    after = (version_file.read_bytes() if version_file.exists() else None, _snapshot(root))
    assert after == before
    assert list(home.iterdir()) == []


def test_the_demo_picks_the_newest_python_when_3_11_is_absent(tmp_path: Path) -> None:
    """No python3.11 anywhere (pyenv has 3.9 and 3.12, PATH has only git): the demo
    runs on 3.12, found by its absolute path."""
    root = _pyenv_root(tmp_path, "3.9", "3.12")
    env = {"PATH": str(_only(tmp_path, git=_git())), "HOME": str(tmp_path),
           "PYENV_ROOT": str(root)}  # fmt: skip
    _demo_ran(_dev("demo", env=env), _env.discover("3.12").path)


def test_the_demo_runs_on_the_python_mishkan_dev_python_names(tmp_path: Path) -> None:
    python = _python("3.9")
    env = {"PATH": str(_only(tmp_path, git=_git())), "HOME": str(tmp_path),
           "PYENV_ROOT": str(tmp_path / "no-pyenv"), "MISHKAN_DEV_PYTHON": python}  # fmt: skip
    _demo_ran(_dev("demo", env=env), python)


def test_no_python_at_all_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {"PATH": str(_only(tmp_path, git=_git())), "HOME": str(tmp_path),
           "PYENV_ROOT": str(_pyenv_root(tmp_path))}  # fmt: skip
    done = _dev("demo", env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("scripts/dev demo: no Python 3.9 or newer found")
    assert done.stderr.count("\n") == 1 and "MISHKAN_DEV_PYTHON" in done.stderr


def _checkout(tmp_path: Path) -> Path:
    """scripts/dev and its pins in a checkout of their own: these tests never touch
    this checkout's .venv."""
    copy = tmp_path / "checkout"
    (copy / "scripts").mkdir(parents=True)
    (copy / "requirements").mkdir()
    shutil.copy2(SCRIPT, copy / "scripts" / "dev")
    shutil.copy2(REPO / "requirements" / "dev.txt", copy / "requirements" / "dev.txt")
    return copy


def test_setup_refuses_a_host_the_pinned_tools_cannot_run_on(tmp_path: Path) -> None:
    copy = _checkout(tmp_path)
    env = {"PATH": str(_only(tmp_path, git=_git())), "HOME": str(tmp_path),
           "MISHKAN_DEV_PYTHON": _python("3.9")}  # fmt: skip
    done = _dev("setup", env=env, cwd=copy)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "older than 3.11" in done.stderr and "scripts/dev demo" in done.stderr
    assert not (copy / ".venv").exists()


def test_the_tests_see_every_python_on_a_path_of_their_own(tmp_path: Path) -> None:
    """``scripts/dev test`` hands tox python3.9 .. python3.13 on PATH for its own
    process only: links to the real binaries in .venv/interpreters. tox is stood in
    for by a script that reports what it was given."""
    copy = _checkout(tmp_path)
    venv_bin = copy / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    shutil.copy2(copy / "requirements" / "dev.txt", copy / ".venv" / ".dev-pins")
    report = tmp_path / "tox-saw.txt"
    (venv_bin / "tox").write_text(
        f"#!/bin/sh\nfor v in 3.9 3.10 3.11 3.12 3.13; do command -v python$v >> {report}; done\n"
    )
    (venv_bin / "tox").chmod(0o755)
    roots = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    env = {"PATH": f"{_only(tmp_path, git=_git())}:/usr/bin:/bin", "HOME": str(tmp_path),
           "PYENV_ROOT": roots}  # fmt: skip
    done = _dev("test", env=env, cwd=copy)
    assert done.returncode == 0, done.stderr
    seen = report.read_text().splitlines()
    links = copy / ".venv" / "interpreters"
    assert seen == [str(links / f"python{v}") for v in _env.VERSIONS] * 2  # run-parallel, e2e
    for version in _env.VERSIONS:
        assert os.path.realpath(links / f"python{version}") == _env.discover(version).path
