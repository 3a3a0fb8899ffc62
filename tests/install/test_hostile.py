"""``mishkan install`` in a hostile clone (issue 11, items 1, 4, 8 and 9).

Each test covers a class, not an example: a symlink at *every* path
component install reads or writes, a FIFO at every file it reads, deep
nesting, and a hook file install never wrote. The promise is always the same:
exit 2 with one line, nothing written through the link, nothing created
outside the project, nothing half-installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mishkan_core import install as inst
from tests.install._record import record_path
from tests.install._tree import tree as _tree
from tests.routing._cli import run_cli

PYTHON = os.path.realpath(sys.executable)
SETTINGS = b'{"a": 1}\n'
AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """``p/`` a project with settings, agents and an installed-hook layout;
    ``victim`` and ``victim_dir/`` outside it, which nothing may touch."""
    project = tmp_path / "p"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_bytes(SETTINGS)
    for agent in AGENTS:
        (project / ".claude" / "agents" / f"{agent}.md").write_text(
            f"---\nname: {agent}\ndescription: x\n---\nbody\n"
        )
    (tmp_path / "victim").write_bytes(b"VICTIM\n")
    (tmp_path / "victim_dir").mkdir()
    return tmp_path


def _install(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code, _out, err = run_cli(
        "mishkan_core.install", ["--project", str(project), "--python", PYTHON, *extra], capsys
    )
    return code, err


# every path install reads or writes, as (path, is a directory)
COMPONENTS = [
    (".claude", True),
    (".claude/settings.json", False),
    (".claude/settings.json.mishkan-backup", False),
    (".claude/agents", True),
    (".claude/agents/hizkiah.md", False),
    (".gitignore", False),
    ("payload", True),
    ("payload/mishkan", True),
    ("payload/mishkan/hooks", True),
    ("payload/mishkan/hooks/graphify_nudge.py", False),
    ("payload/mishkan/hooks/graphify_nudge_index.py", False),
]  # fmt: skip
#: where installs before issue 20 wrote the hook's bytecode, and before issue
#: 31 their record: install writes nothing there now (both go outside the
#: project), nor follows a link
NOT_WRITTEN = [
    (".mishkan", True),
    (".mishkan/install.json", False),
    ("payload/mishkan/hooks/__pycache__", True),
    (f"payload/mishkan/hooks/__pycache__/graphify_nudge.{sys.implementation.cache_tag}.pyc", False),
    (f"payload/mishkan/hooks/__pycache__/graphify_nudge_index.{sys.implementation.cache_tag}.pyc",
     False),
]  # fmt: skip


def _plant_link(world: Path, rel: str, is_dir: bool, dangling: bool) -> None:
    path = world / "p" / rel
    if path.is_dir() and not path.is_symlink():
        for child in sorted(path.rglob("*"), reverse=True):
            child.unlink() if not child.is_dir() else child.rmdir()
        path.rmdir()
    elif path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if dangling:
        target = world / "outside_created" / "deep" / ("d" if is_dir else "x.json")
    else:
        target = world / ("victim_dir" if is_dir else "victim")
    os.symlink(os.path.relpath(target, path.parent), path)


@pytest.mark.parametrize("dangling", [False, True], ids=["to-victim", "dangling"])
@pytest.mark.parametrize("scope", ["project", "agents"])
@pytest.mark.parametrize("component", COMPONENTS, ids=[c[0] for c in COMPONENTS])
def test_a_link_at_any_component_is_refused(
    world: Path,
    component: tuple[str, bool],
    dangling: bool,
    scope: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rel, is_dir = component
    _plant_link(world, rel, is_dir, dangling)
    before = _tree(world)
    code, err = _install(world / "p", capsys, "--scope", scope)
    if rel == ".claude/agents/hizkiah.md" and scope == "project":
        # not a file install touches in this scope: skipped, never followed
        assert code == 0, err
    else:
        assert code == 2, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert _tree(world) == before  # nothing written anywhere, nothing half-installed
    assert (world / "victim").read_bytes() == b"VICTIM\n"
    assert list((world / "victim_dir").iterdir()) == []
    assert not (world / "outside_created").exists()


@pytest.mark.parametrize("dangling", [False, True], ids=["to-victim", "dangling"])
@pytest.mark.parametrize("component", NOT_WRITTEN, ids=[c[0] for c in NOT_WRITTEN])
def test_a_link_where_install_once_wrote_is_never_followed(
    world: Path, component: tuple[str, bool], dangling: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    rel, is_dir = component
    _plant_link(world, rel, is_dir, dangling)
    code, err = _install(world / "p", capsys)
    assert code == 0, err
    assert (world / "p" / rel).is_symlink()
    assert (world / "victim").read_bytes() == b"VICTIM\n"
    assert list((world / "victim_dir").iterdir()) == []
    assert not (world / "outside_created").exists()


def test_the_reported_backup_attack(world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 11 item 1, as reported: a committed symlinked backup."""
    os.symlink("../../victim", world / "p" / ".claude" / "settings.json.mishkan-backup")
    code, err = _install(world / "p", capsys)
    assert code == 2
    assert "settings.json.mishkan-backup is a symlink; refusing" in err
    assert (world / "victim").read_bytes() == b"VICTIM\n"


@pytest.mark.parametrize("rel", [".claude/settings.json", ".gitignore"])
def test_a_link_is_refused_on_uninstall_too(
    world: Path, rel: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _install(world / "p", capsys)[0] == 0
    _plant_link(world, rel, False, False)
    before = _tree(world)
    code, _out, err = run_cli(
        "mishkan_core.install", ["--project", str(world / "p"), "--uninstall"], capsys
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert _tree(world) == before


@pytest.mark.parametrize(
    "rel",
    [
        ".claude/settings.json",
        ".claude/settings.json.mishkan-backup",
        ".gitignore",
        ".claude/agents/hizkiah.md",
    ],
)
def test_a_fifo_never_blocks(world: Path, rel: str) -> None:
    """In a subprocess with a timeout: a regression fails, it does not hang."""
    path = world / "p" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    argv = ["--project", str(world / "p"), "--python", PYTHON, "--scope", "agents"]
    done = subprocess.run(
        [sys.executable, "-m", "mishkan_core", "install", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr  # at once: O_NONBLOCK, then fstat says FIFO
    assert "FIFO" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "content",
    [
        "[" * 900 + "]" * 900,
        '{"hooks": ' * 900 + "{}" + "}" * 900,
        "[" * 100_000,
    ],
    ids=["900-deep-array", "900-deep-object", "100k-open"],
)
def test_deep_nesting_is_one_line(
    world: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (world / "p" / ".claude" / "settings.json").write_text(content)
    code, err = _install(world / "p", capsys)
    assert code == 2
    assert len(err) < 300 and len(err.strip().splitlines()) == 1
    assert "nests deeper than 64 levels" in err or "not valid JSON" in err


# ---------------------------------------------------------------------------
# item 8: remove only what install can prove it wrote


def _uninstall(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, _out, err = run_cli(
        "mishkan_core.install", ["--project", str(project), "--uninstall"], capsys
    )
    return code, err


def test_uninstall_keeps_a_hook_file_it_never_wrote(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = world / "p" / "payload" / "mishkan" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "graphify_nudge.py").write_text("# the user's own file\n")
    code, err = _uninstall(world / "p", capsys)
    assert code == 0
    assert (hooks / "graphify_nudge.py").read_text() == "# the user's own file\n"
    assert "is not the file install wrote" in err


@pytest.mark.parametrize("name", ["graphify_nudge.py", "graphify_nudge_index.py"])
def test_uninstall_keeps_a_hook_file_edited_since(
    world: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _install(world / "p", capsys)[0] == 0
    hooks = world / "p" / "payload" / "mishkan" / "hooks"
    edited = hooks / name
    edited.write_bytes(edited.read_bytes() + b"# local patch\n")
    code, err = _uninstall(world / "p", capsys)
    assert code == 0 and edited.exists() and f"{name} is not the file install wrote" in err
    assert sorted(p.name for p in hooks.iterdir()) == [name]  # the other one, and every .pyc, gone
    assert json.loads((world / "p" / ".claude" / "settings.json").read_text()) == {"a": 1}


def test_uninstall_without_a_manifest_removes_the_shipped_file(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A teammate's clone: the committed hook is the shipped one, and their
    machine holds no record of an install. Identical bytes are proof enough."""
    assert _install(world / "p", capsys)[0] == 0
    record_path(world / "p").unlink()
    assert _uninstall(world / "p", capsys)[0] == 0
    assert not (world / "p" / "payload").exists()
    assert inst.source_of().exists()


@pytest.mark.parametrize(
    "manifest",
    [
        '{"v": 1, "files": [1, 2], "agents": {"x": 3}, "gitignore": {"added": "oops"}}',
        '{"v": 1, "gitignore": {"added": ["build/", ".mishkan/"], "created": "yes"}}',
        "[" * 5000,
        '{"v": 2}',
    ],
)
def test_a_committed_manifest_is_not_trusted(
    world: Path, manifest: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clone can commit .mishkan/install.json: its shape is checked, and it
    can only ever name the lines install itself adds."""
    project = world / "p"
    (project / ".mishkan").mkdir()
    (project / ".mishkan" / "install.json").write_text(manifest)
    (project / ".gitignore").write_text("build/\n")
    assert _install(project, capsys)[0] == 0
    assert _uninstall(project, capsys)[0] == 0
    assert (project / ".gitignore").read_text() == "build/\n"
    assert (project / ".claude" / "settings.json").read_bytes() == SETTINGS
