"""Install's record, outside the project (mishkan_core/install_record.py, issue 31).

The record is this machine's: it lives in the user's cache, names the
project's real path, device and inode, and is read only for that very
directory. Without it (a teammate's clone, a cleared cache) uninstall edits
out exactly what install writes and leaves everything it cannot prove this
machine's install added, saying so; it never writes text install did not
write. The planted-record attack itself, through the console script, is
tests/test_untrusted_repo.py (class 8).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mishkan_core import install_record
from tests.install._record import record_of, record_path
from tests.routing._cli import run_cli

MODULE = "mishkan_core.install"
PYTHON = os.path.realpath(sys.executable)
AGENTS = ("hizkiah", "salma", "oholiab", "nathan", "zadok")
SETTINGS = b'{\n  "model": "opus"\n}\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_bytes(SETTINGS)
    for agent in AGENTS:
        (root / ".claude" / "agents" / f"{agent}.md").write_text(
            f"---\nname: {agent}\ndescription: x\nhooks:\n  PreToolUse:\n---\nbody\n"
        )
    (root / ".gitignore").write_text("build/")
    return root


def _run(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    argv = ["--project", str(project), *extra]
    if "--uninstall" not in extra:
        argv += ["--python", PYTHON]
    return run_cli(MODULE, argv, capsys)


def _files(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[rel] = "-> " + os.readlink(path) if path.is_symlink() else (
            path.read_bytes() if path.is_file() else "dir"
        )  # fmt: skip
    return out


def test_the_record_is_outside_the_project_and_names_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    assert not (project / ".mishkan").exists()
    where = record_path(project)
    assert where.parent == install_record.directory()
    assert not str(where).startswith(str(project))
    record = record_of(project)
    real = os.stat(project)
    assert (record["project"], record["device"], record["inode"]) == (
        os.path.realpath(project), real.st_dev, real.st_ino)  # fmt: skip
    assert oct(where.stat().st_mode & 0o777) == "0o600"
    assert set(record["agents"]) == {f".claude/agents/{a}.md" for a in AGENTS}
    assert record["backup"] is not None and record["gitignore"]["added"]


def test_with_the_record_uninstall_is_exact(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent file with an empty ``hooks:`` block: the edit alone would take
    the block too; the record gives it back as it was."""
    before = _files(project)
    assert _run(project, capsys, "--scope", "agents", "--mode", "advise")[0] == 0
    assert _run(project, capsys, "--scope", "agents", "--mode", "telemetry")[0] == 0
    assert _run(project, capsys, "--uninstall")[0] == 0
    assert _files(project) == before
    assert not record_path(project).exists()


def test_without_a_record_uninstall_edits_out_and_keeps_the_rest(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A teammate's machine: the clone holds a committed install (the record
    stayed on the machine that ran it). Uninstall removes every entry and
    line install writes and keeps what only a record could prove: the
    settings backup, the .gitignore lines, the graph link."""
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    installed = _files(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "teammate-cache"))
    code, _out, err = _run(project, capsys, "--uninstall")
    assert code == 0, err
    after = _files(project)
    assert json.loads(after[".claude/settings.json"]) == json.loads(SETTINGS)
    for agent in AGENTS:
        text = after[f".claude/agents/{agent}.md"]
        assert isinstance(text, bytes) and b"graphify_nudge" not in text
        assert text == f"---\nname: {agent}\ndescription: x\n---\nbody\n".encode()
    assert after[".claude/settings.json.mishkan-backup"] == installed[
        ".claude/settings.json.mishkan-backup"]  # fmt: skip
    assert after[".gitignore"] == installed[".gitignore"]
    assert after["graphify-out"] == "-> .graphify"
    assert "payload/mishkan/hooks/graphify_nudge.py" not in after  # the shipped bytes: proof
    assert "settings.json.mishkan-backup is not the copy this machine's install made" in err
    assert ".gitignore: .graphify/, .mishkan/, graphify-out stay" in err
    assert "the link graphify-out -> .graphify stays" in err


def test_a_record_for_another_directory_at_the_path_is_not_used(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Moved aside and cloned again at the same path: the new directory's
    inode differs, so the old clone's record says nothing about it."""
    assert _run(project, capsys, "--scope", "agents")[0] == 0
    record = record_of(project)
    project.rename(tmp_path / "old")
    project.mkdir()
    (project / ".gitignore").write_text(".graphify/\n.mishkan/\ngraphify-out\n")
    (project / ".graphify").mkdir()
    (project / "graphify-out").symlink_to(".graphify")
    assert record_of(project) == record  # still there, for the old directory
    code, _out, err = _run(project, capsys, "--uninstall")
    assert code == 0, err
    assert (project / ".gitignore").read_text() == ".graphify/\n.mishkan/\ngraphify-out\n"
    assert os.readlink(project / "graphify-out") == ".graphify"
    assert not record_path(project).exists()  # the stale record goes


@pytest.mark.parametrize(
    "text",
    ['{"v": 2, "files": [1], "agents": {"x": 3}, "gitignore": {"added": "oops"}}',
     "[" * 5000, '{"v": 1}', "not json"],
    ids=["wrong-shapes", "deep", "old-version", "not-json"],
)  # fmt: skip
def test_a_damaged_record_is_no_record(
    project: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(project, capsys)[0] == 0
    if text.startswith('{"v": 2'):  # this project's, with every field the wrong shape
        real = os.stat(project)
        doc = json.loads(text)
        doc.update(project=os.path.realpath(project), device=real.st_dev, inode=real.st_ino)
        text = json.dumps(doc)
    record_path(project).write_text(text)
    code, _out, err = _run(project, capsys, "--uninstall")
    assert code == 0 and "Traceback" not in err, err
    assert json.loads((project / ".claude" / "settings.json").read_bytes()) == json.loads(SETTINGS)


def test_a_link_at_the_record_is_refused_before_any_write(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    where = record_path(project)
    where.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "victim").write_text("VICTIM")
    where.symlink_to(tmp_path / "victim")
    before = _files(project)
    code, _out, err = _run(project, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "symlink" in err
    assert _files(project) == before and (tmp_path / "victim").read_text() == "VICTIM"


def test_a_record_directory_inside_the_project_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plugin scope has no bytecode directory to check, so the record's own check says it."""
    plugin = project / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    monkeypatch.setenv("XDG_CACHE_HOME", str(plugin / "cache"))
    argv = ["--scope", "plugin", "--plugin-dir", str(plugin), "--python", PYTHON]
    code, _out, err = run_cli(MODULE, argv, capsys)
    assert code == 2 and "record directory" in err and "inside the project" in err
    assert not (plugin / "hooks").exists()
