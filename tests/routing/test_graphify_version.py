"""``routing check --project`` against the graphify release this shell runs
(docs/versions.md): the release within the supported range, and findings whose
fixes that release can carry out. The releases themselves run in tests/e2e."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import graphify_nudge_index as gi
from tests.graphify_layout import venv
from tests.routing import _harness
from tests.routing._harness import World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return _harness.build(tmp_path, monkeypatch)


def _with_graphify(world: World, version: str | None) -> Path:
    bin_dir = venv(world.root / f"graphify-{version}", version)
    os.environ["PATH"] = f"{bin_dir}:{os.environ['PATH']}"  # monkeypatched by build
    return bin_dir / "graphify"


def _findings(
    world: World, capsys: pytest.CaptureFixture[str], rule: str = ""
) -> tuple[list[str], str]:
    _code, lines, err = _harness.check(world, capsys)
    return [line for line in lines if rule in line], err


def test_without_graphify_on_path_the_summary_says_so(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, err = _findings(world, capsys)
    assert lines == []
    checked = "matrix, hook, mcp, settings project, agents, graph refresh, graph coverage, claude"
    assert f"({checked}); graphify not found" in err


def test_0_8_31_is_clean_without_the_hooks_its_hook_install_cannot_write(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """graphify 0.8.31 installs post-commit and post-checkout only: asking for
    post-merge with the fix `graphify hook install` would be a fix that cannot work."""
    script = _with_graphify(world, "0.8.31")
    for name in ("post-merge", "post-rewrite"):
        (world.project / ".git" / "hooks" / name).unlink()
    lines, err = _findings(world, capsys)
    assert lines == []
    assert err.rstrip().endswith(
        f"graph refresh, graph coverage, claude); graphify 0.8.31 ({script})"
    )


def test_the_newest_release_still_asks_for_all_four(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_graphify(world, gi.GRAPHIFY_NEWEST)
    (world.project / ".git" / "hooks" / "post-merge").unlink()
    lines, _ = _findings(world, capsys, "graph-refresh")
    assert len(lines) == 1 and "graphify's post-merge hook(s) are missing" in lines[0]


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ("0.7.19", "graphify 0.7.19 is older than the oldest supported release, 0.8.31"),
        ("0.9.97", "graphify 0.9.97 is newer than the newest proven one, 0.9.96"),
        ("1.0.0", "graphify 1.0.0 is newer than the newest proven one, 0.9.96"),
        (None, "cannot tell this graphify's release"),
    ],
)
def test_a_release_outside_the_range_is_a_finding(
    world: World, capsys: pytest.CaptureFixture[str], version: str | None, words: str
) -> None:
    script = _with_graphify(world, version)
    lines, _ = _findings(world, capsys, "graphify-version")
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"D-008 graphify-version: {script}: ")
    assert words in lines[0]
    assert "pip install 'graphifyy>=0.8.31,<=0.9.96'" in lines[0].split("; fix: ", 1)[1]


@pytest.mark.parametrize(
    ("version", "rebuild"),
    [("0.8.31", "graphify update . --force"), ("0.9.96", "graphify extract . --code-only --force")],
)
def test_the_two_graphs_fix_rebuilds_in_the_releases_dialect(
    world: World, capsys: pytest.CaptureFixture[str], version: str, rebuild: str
) -> None:
    _with_graphify(world, version)
    (world.project / "graphify-out").unlink()
    (world.project / "graphify-out").mkdir()
    (world.project / "graphify-out" / "graph.json").write_text('{"nodes": [], "links": []}')
    lines, _ = _findings(world, capsys, "two graphs")
    assert len(lines) == 1 and lines[0].endswith(
        f"ln -s .graphify graphify-out && {rebuild}`, then delete graphify-out.old "
        "(`mishkan install` adds graphify-out to .gitignore)"
    ), lines
