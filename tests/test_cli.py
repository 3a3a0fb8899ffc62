"""The thin CLI and the built-in demo (the README's first command)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mishkan_core.cli import SUBCOMMANDS, main


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert name in out


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_each_subcommand_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([name, "--help"])
    assert exc.value.code == 0


def test_usage_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main([]) == 2


def test_demo_plays_the_whole_loop(tmp_path: Path) -> None:
    project = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-m", "mishkan_core", "demo", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("-> [graphify-nudge]") == 3
    # each advisory answered (a definition, or what the file defines): none waits for a lookup
    assert "nudge-respect ratio:         n/a" in out
    assert "answered share:              75.0% (3/4)" in out
    assert "pre-Read consultation rate:  50.0% (2/4)" in out
    assert (project / "payload/mishkan/hooks/graphify_nudge.py").exists()
    assert (project / "payload/mishkan/hooks/graphify_nudge_index.py").exists()


def test_demo_refuses_an_existing_directory(tmp_path: Path) -> None:
    assert main(["demo", "--project", str(tmp_path)]) == 2


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_module_has_the_one_layout(name: str) -> None:
    import importlib

    module = importlib.import_module(SUBCOMMANDS[name][0])
    assert callable(module.add_arguments) and callable(module.run)


@pytest.mark.parametrize(
    ("package", "name"), [("metrics", "metrics"), ("ingest_lint", "ingest-lint")]
)
def test_python_dash_m_delegates_to_the_one_cli(package: str, name: str) -> None:
    argv = [sys.executable, "-m", f"mishkan_core.{package}", "--no-such-option"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    # the umbrella parser reports it: one line, exit 2, as `mishkan NAME --no-such-option`
    assert done.stderr == "mishkan: error: unrecognized arguments: --no-such-option\n"
    helped = subprocess.run(
        [*argv[:3], "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert helped.returncode == 0 and helped.stdout.startswith(f"usage: mishkan {name} ")
