"""Ready to publish: the sdist and the wheel as a user gets them (``tox -e dist``).

``python -m build`` makes the sdist, then the wheel *from the sdist* (so the
sdist is complete), with the pinned setuptools; ``twine check --strict``
reads both as PyPI would. Then, for every supported Python, a clean venv
(no pip, nothing but the interpreter) gets the wheel from pip, offline, and
its ``mishkan`` installs the hook into a project and into a plugin; the
registered commands run as Claude Code would run them, and uninstall leaves
both as they were.

Every interpreter must be there (pyenv's, else ``python3.X`` on PATH), as
tox's own ``skip_missing_interpreters = false`` asks.
"""

from __future__ import annotations

import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

import mishkan_core
from bench import _env
from tests.install._tree import tree

pytestmark = pytest.mark.dist

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "requirements" / "build-constraints.txt"
NAME = "mishkan_core"
VERSION = mishkan_core.__version__
TIMEOUT = 600


def _run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, check=False,
                          **kwargs)  # fmt: skip
    assert done.returncode == 0, f"{' '.join(argv)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _source_tree(dest: Path) -> Path:
    """The checkout as git sees it (tracked and new files, nothing ignored),
    copied: the build never writes into the worktree, where tox may be
    building its own wheel at the same time."""
    files = _run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                  "--exclude-standard"]).stdout.split("\0")  # fmt: skip
    for rel in filter(None, files):
        source = REPO / rel
        if source.is_file():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    source = _source_tree(tmp_path_factory.mktemp("source"))
    env = {**os.environ, "PIP_CONSTRAINT": str(CONSTRAINTS)}
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], env=env)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_twine_check_strict(dist: dict[str, Path]) -> None:
    done = _run([sys.executable, "-m", "twine", "check", "--strict",
                 str(dist["sdist"]), str(dist["wheel"])])  # fmt: skip
    assert done.stdout.count("PASSED") == 2, done.stdout


def _metadata(text: str) -> Any:
    return email.parser.Parser().parsestr(text)


def test_one_version_everywhere(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as whl:
        meta = _metadata(whl.read(f"{NAME}-{VERSION}.dist-info/METADATA").decode())
    with tarfile.open(dist["sdist"]) as sdist:
        member = sdist.extractfile(f"{NAME}-{VERSION}/PKG-INFO")
        assert member is not None
        pkg_info = _metadata(member.read().decode())
    assert meta["Version"] == pkg_info["Version"] == VERSION
    assert (meta["License-Expression"], meta["Requires-Python"]) == ("MIT", ">=3.9")
    assert meta["Description-Content-Type"] == "text/markdown"
    assert dist["wheel"].name == f"{NAME}-{VERSION}-py3-none-any.whl"
    # pyproject.toml names no version of its own, and the changelog has this one
    project = (REPO / "pyproject.toml").read_text().split("\n[project]\n")[1].split("\n[")[0]
    assert 'dynamic = ["version"]' in project
    assert not re.search(r"^version\s*=", project, re.MULTILINE)
    assert f"## [{VERSION}]" in (REPO / "CHANGELOG.md").read_text()


def test_what_the_wheel_and_the_sdist_hold(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as whl:
        names = set(whl.namelist())
        entry_points = whl.read(f"{NAME}-{VERSION}.dist-info/entry_points.txt").decode()
        license_text = whl.read(f"{NAME}-{VERSION}.dist-info/licenses/LICENSE").decode()
    assert {"graphify_nudge.py", "graphify_nudge_index.py", "mishkan_core/py.typed",
            "mishkan_core/data/routing_matrix.json", "mishkan_core/data/route_rules.json",
            "mishkan_core/data/graphify-nudge.sh",
            "mishkan_core/metrics/trend.py"} <= names  # fmt: skip
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]
    assert "mishkan = mishkan_core.cli:main" in entry_points
    assert license_text == (REPO / "LICENSE").read_text()
    assert license_text.startswith("MIT License")
    with tarfile.open(dist["sdist"]) as sdist:
        held = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "graphify_nudge.py",
            "mishkan_core/install.py", "mishkan_core/data/graphify-nudge.sh"} <= held  # fmt: skip
    assert not [n for n in held if n.startswith("tests/")]


# --------------------------------------------------------------------------- #
# a clean venv per Python


def _interpreter(version: str) -> str:
    try:
        return _env.discover(version).path
    except _env.SetupError as exc:
        pytest.fail(f"{exc}: every supported Python is needed (scripts/dev setup)", pytrace=False)


def _project(root: Path) -> Path:
    project = root / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "hizkiah.md").write_text("---\nname: hizkiah\n---\nbody\n")
    (project / "src").mkdir()
    (project / "src" / "core.py").write_text("def apply_overlay():\n    pass\n")
    return project


def _plugin(root: Path) -> Path:
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "mishkan"}\n')
    return plugin


def _hook_command(settings: Path) -> str:
    doc = json.loads(settings.read_text())
    (command,) = {h["command"] for g in doc["hooks"]["PreToolUse"] for h in g["hooks"]}
    return str(command)


def _pre_tool_use(command: str, project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """The registered command through /bin/sh, with a PreToolUse of hizkiah's."""
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project),
               "agent_id": "a1", "agent_type": "hizkiah", "tool_name": "Read",
               "tool_input": {"file_path": str(project / "src" / "core.py")},
               "tool_use_id": "t1"}  # fmt: skip
    done = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), env=env,
                          cwd=str(project), capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    telemetry = Path(env["MISHKAN_TELEMETRY_DIR"])
    return [
        json.loads(line) for p in telemetry.glob("*.jsonl") for line in p.read_text().splitlines()
    ]


@pytest.mark.parametrize("version", _env.VERSIONS)
def test_the_installed_wheel_installs_the_hook_from_a_clean_venv(
    version: str, dist: dict[str, Path], tmp_path: Path
) -> None:
    python = _interpreter(version)
    venv = tmp_path / "venv"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    # as a user makes one: the venv's own pip (ensurepip, offline), the wheel alone
    _run([python, "-m", "venv", str(venv)], env=env)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "--no-deps",
          "--no-cache-dir", "--quiet", "--disable-pip-version-check", str(dist["wheel"])],
         env=env)  # fmt: skip
    mishkan = str(venv / "bin" / "mishkan")
    assert _run([mishkan, "--version"], env=env).stdout.strip() == f"mishkan {VERSION}"
    code = "import mishkan_core; print(mishkan_core.__file__)"
    where = _run([str(venv / "bin" / "python"), "-I", "-c", code], env=env).stdout
    assert where.startswith(str(venv)), where  # the installed copy, not this checkout

    project = _project(tmp_path)
    before = tree(project)
    _run([mishkan, "install", "--project", str(project), "--mode", "advise"], env=env)
    command = _hook_command(project / ".claude" / "settings.json")
    # the same line on every machine; this machine's interpreter in its own config
    assert command == (
        'mode=advise hooks="$CLAUDE_PROJECT_DIR/payload/mishkan/hooks"; '
        'command . "$hooks/graphify-nudge.sh" 2>/dev/null || true'
    )
    config = (tmp_path / ".config" / "mishkan" / "graphify-nudge.conf").read_text()
    assert f"python={os.path.realpath(str(venv / 'bin' / 'python'))}\n" in config
    hook_env = {**env, "CLAUDE_PROJECT_DIR": str(project),
                "MISHKAN_TELEMETRY_DIR": str(tmp_path / "telemetry")}  # fmt: skip
    calls = [e for e in _pre_tool_use(command, project, hook_env) if e["event"] == "call"]
    assert [(c["agent"], c["trigger"]) for c in calls] == [("hizkiah", True)]
    # the hook's bytecode: install's, in the user's cache, none in the project
    tag = f"cpython-{version.replace('.', '')}"
    cache = tmp_path / ".cache" / "mishkan" / "pycache"
    hooks = project / "payload" / "mishkan" / "hooks"
    assert (cache.joinpath(*hooks.parts[1:]) / f"graphify_nudge.{tag}.pyc").is_file()
    assert not list(project.rglob("*.pyc"))
    _run([mishkan, "install", "--project", str(project), "--uninstall"], env=env)
    assert tree(project) == before

    plugin = _plugin(tmp_path)
    before = tree(plugin)
    _run([mishkan, "install", "--scope", "plugin", "--plugin-dir", str(plugin)], env=env)
    command = _hook_command(plugin / "hooks" / "hooks.json")
    hook_env["CLAUDE_PLUGIN_ROOT"] = str(plugin)
    hook_env["MISHKAN_TELEMETRY_DIR"] = str(tmp_path / "telemetry-plugin")
    calls = [e for e in _pre_tool_use(command, project, hook_env) if e["event"] == "call"]
    assert [(c["agent"], c["trigger"]) for c in calls] == [("hizkiah", True)]
    # a plugin ships none: its first call wrote the hook's own, in the user's cache
    assert (cache.joinpath(*(plugin / "hooks").parts[1:]) / f"graphify_nudge.{tag}.pyc").is_file()
    assert not list(plugin.rglob("*.pyc"))
    _run([mishkan, "install", "--scope", "plugin", "--plugin-dir", str(plugin), "--uninstall"],
         env=env)  # fmt: skip
    assert tree(plugin) == before


def test_the_installed_wheels_demo_runs_where_python_3_9_is_the_only_python(
    dist: dict[str, Path], tmp_path: Path
) -> None:
    """`mishkan demo` of a wheel installed on 3.9, with a PATH that holds only that
    interpreter's directory and git: nothing in it asks for 3.11 or any other Python
    (the hook it installs and plays runs on 3.9 too), and HOME stays empty."""
    real = _env.discover("3.9")
    venv = tmp_path / "venv"
    only = tmp_path / "git-only"
    only.mkdir()
    git = shutil.which("git")
    assert git is not None, "git is required (apt-get install git)"
    (only / "git").symlink_to(git)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{os.path.dirname(real.path)}:{only}", "HOME": str(home),
           "TMPDIR": str(tmp_path)}  # fmt: skip
    _run([real.path, "-m", "venv", str(venv)], env=env)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "--no-deps",
          "--no-cache-dir", "--quiet", "--disable-pip-version-check", str(dist["wheel"])],
         env=env)  # fmt: skip
    for python in ("python3.10", "python3.11", "python3.12", "python3.13"):
        assert shutil.which(python, path=env["PATH"]) is None, python
    done = _run([str(venv / "bin" / "mishkan"), "demo"], env=env)
    assert f"compiled payload/mishkan/hooks/graphify_nudge.py with {real.path}" in done.stdout
    assert done.stdout.count("-> [graphify-nudge]") == 3
    assert "answered share:              75.0% (3/4)" in done.stdout
    assert done.stderr == "" and list(home.iterdir()) == []
