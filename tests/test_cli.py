"""The thin CLI and the built-in demo (the README's first command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mishkan_core.cli import SUBCOMMANDS, main
from tests import console


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


#: why each silent call of the demo's script was silent, in plain words (step: words)
SILENT = {
    3: "a graph lookup, which is what the advice asks for (recorded, never advised on)",
    4: "a graph lookup in this session already named this file",
    5: "not one of the five agents the hook serves (it records nothing)",
    7: "not a source file of the project, so not a structural question",
    8: "neither a Read nor a search, so nothing to advise on",
    9: "neither a Read nor a search, so nothing to advise on",
    10: "a graph lookup, which is what the advice asks for (recorded, never advised on)",
}


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_demo_plays_the_whole_loop(tmp_path: Path) -> None:
    """Through the console script, with an empty HOME: every silent call says why, and
    the report glosses its terms once. A project kept with --project is a real install:
    its bytecode, install's record and this machine's config are all HOME gains."""
    project = tmp_path / "demo"
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    done = console.mishkan("demo", "--project", str(project), env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    lines = out.splitlines()
    assert out.count("-> [graphify-nudge]") == 3
    said = {
        int(lines[i - 1].split(".")[0]): line.split("-> no advice: ", 1)[1]
        for i, line in enumerate(lines)
        if "-> no advice: " in line
    }
    assert said == SILENT
    assert "(nothing printed)" not in out
    # each advisory answered (a definition, or what the file defines): none waits for a lookup
    assert "nudge-respect ratio:         n/a" in out
    assert "answered share:              75.0% (3/4)" in out
    assert "pre-Read consultation rate:  50.0% (2/4)" in out
    terms = lines[lines.index("terms:") + 1 :]
    assert [t.split(":")[0].strip() for t in terms] == [
        "trigger", "nudge-respect ratio", "pre-Read consultation rate", "phase 1, phase 2",
    ]  # fmt: skip
    assert (project / "payload/mishkan/hooks/graphify_nudge.py").exists()
    assert (project / "payload/mishkan/hooks/graphify_nudge_index.py").exists()
    cached = [p for p in _tree(home) if p.endswith(".pyc")]
    assert [Path(p).name.split(".")[0] for p in cached] == [
        "graphify_nudge",
        "graphify_nudge_index",
    ]
    # a real install: the bytecode, install's record and this machine's config,
    # each in mishkan's own directory, are all that HOME gains
    ours = (".cache/mishkan/pycache", ".cache/mishkan/installs", ".config/mishkan")
    assert all(any(o.startswith(p) or p.startswith(o + "/") for o in ours) for p in _tree(home))


def test_demo_in_a_throwaway_directory_leaves_nothing(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    scratch.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(scratch)}
    done = console.mishkan("demo", env=env)
    assert done.returncode == 0, done.stderr
    assert "-> no advice: " in done.stdout
    assert _tree(home) == [] and _tree(scratch) == []


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
