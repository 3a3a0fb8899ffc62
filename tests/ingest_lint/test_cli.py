"""The command: exit codes 0/1/2, the four formats end to end, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mishkan_core.ingest_lint.__main__ import main
from tests import console
from tests.ingest_lint.helpers import FRONT, PROSE, fence

DUMP = FRONT + "# calls\n\n" + fence("\n".join(f"pkg.a.f{i} -> pkg.b.g{i}" for i in range(20)))
CLEAN = FRONT + "# Decision\n\n" + PROSE * 3


def _tree(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "clean.md").write_text(CLEAN)
    (docs / "readme.md").write_text(
        "# not an artifact\n\n" + fence("\n".join(f"a.f{i} -> b.g{i}" for i in range(20)))
    )
    return docs


def test_exit_0_when_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(_tree(tmp_path))]) == 0
    assert "All checks passed! (1 artifact(s) checked" in capsys.readouterr().out


def test_exit_1_when_rejected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _tree(tmp_path)
    (docs / "dump.md").write_text(DUMP)
    assert main([str(docs)]) == 1
    out = capsys.readouterr().out
    assert f"{docs / 'dump.md'}:8:1: IL401 call graph: 20 edge lines" in out


def test_all_lints_every_file(tmp_path: Path) -> None:
    assert main(["--all", str(_tree(tmp_path))]) == 1


def test_exit_2_on_io_errors_even_with_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _tree(tmp_path)
    (docs / "dump.md").write_text(DUMP)
    (docs / "binary.md").write_bytes(b"---\nmishkan: ingest\n---\n\x00\x01")
    assert main([str(docs), str(tmp_path / "missing.md")]) == 2
    captured = capsys.readouterr()
    assert "IL401" in captured.out
    assert "IL902 binary file" in captured.err and "IL901 no such file" in captured.err


def test_exit_2_on_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--format", "yaml", "x.md"])
    assert raised.value.code == 2
    assert main([]) == 2
    assert "no PATH given" in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        main(["--max-bytes", "0", "x.md"])
    assert raised.value.code == 2


def test_output_file_and_formats(tmp_path: Path) -> None:
    docs = _tree(tmp_path)
    (docs / "dump.md").write_text(DUMP)
    for fmt in ("json", "sarif", "github", "text"):
        target = tmp_path / f"out.{fmt}"
        assert main(["--format", fmt, "-o", str(target), str(docs)]) == 1
        text = target.read_text()
        if fmt == "json":
            assert json.loads(text)["findings"][0]["rule"] == "IL401"
        elif fmt == "sarif":
            assert json.loads(text)["runs"][0]["results"][0]["ruleId"] == "IL401"
        elif fmt == "github":
            assert text.startswith("::error file=")
        else:
            assert "IL401" in text


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("IL001") and "IL502" in out


def test_subprocess_never_shows_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"---\nmishkan: ingest\n---\n\xff\xfe\n")
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    proc = subprocess.run(
        [sys.executable, "-m", "mishkan_core.ingest_lint", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 2  # one clear line each


def test_the_umbrella_command_dispatches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mishkan_core.cli import main as mishkan

    docs = _tree(tmp_path)
    (docs / "dump.md").write_text(DUMP)
    assert mishkan(["ingest-lint", "--format", "json", str(docs / "dump.md")]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["rule"] == "IL401"
    assert mishkan(["ingest-lint", str(docs / "clean.md")]) == 0


SKIP = 'skipped: no "mishkan: ingest" marker (only marked files are Cognee work artifacts)'
NOTHING = (
    'Nothing checked: none of the {} file(s) read has the "mishkan: ingest" marker (only marked '
    "files are Cognee work artifacts; --all lints them anyway)."
)


def test_a_named_file_without_the_marker_is_skipped_out_loud(tmp_path: Path) -> None:
    """Issue 29: `mishkan ingest-lint design.md` said "All checks passed! (0 artifact(s)
    checked" of a file it never linted. Through the console script, as a user runs it."""
    (tmp_path / "design.md").write_text("# Design\n\n" + PROSE)
    (tmp_path / "adr.md").write_text(CLEAN)
    (tmp_path / "dump.md").write_text(DUMP)
    alone = console.mishkan("ingest-lint", "design.md", cwd=tmp_path)
    assert (alone.returncode, alone.stderr) == (0, "")
    assert alone.stdout.splitlines() == [f"design.md: {SKIP}", NOTHING.format(1)]
    beside = console.mishkan("ingest-lint", "design.md", "adr.md", cwd=tmp_path)
    assert beside.returncode == 0
    assert beside.stdout.splitlines() == [
        f"design.md: {SKIP}",
        "All checks passed! (1 artifact(s) checked, 1 skipped, 0 suppressed)",
    ]
    rejected = console.mishkan("ingest-lint", "design.md", "dump.md", cwd=tmp_path)
    assert rejected.returncode == 1
    lines = rejected.stdout.splitlines()
    assert lines[0] == f"design.md: {SKIP}" and lines[1].startswith("dump.md:8:1: IL401")
    assert (
        lines[-1]
        == "Found 1 finding(s) in 1 file(s) (1 artifact(s) checked, 1 skipped, 0 suppressed)."
    )
    forced = console.mishkan("ingest-lint", "--all", "design.md", cwd=tmp_path)
    assert forced.stdout == "All checks passed! (1 artifact(s) checked, 0 suppressed)\n"
    as_json = console.mishkan("ingest-lint", "--format", "json", "design.md", cwd=tmp_path)
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout) == {
        "files": 1, "checked": 0, "skipped": [{"path": "design.md", "why": SKIP}], "findings": []
    }  # fmt: skip
    as_sarif = console.mishkan("ingest-lint", "--format", "sarif", "design.md", cwd=tmp_path)
    (invocation,) = json.loads(as_sarif.stdout)["runs"][0]["invocations"]
    assert as_sarif.returncode == 0 and invocation["executionSuccessful"] is True
    (note,) = invocation["toolExecutionNotifications"]
    assert (note["level"], note["message"]["text"]) == ("note", f"design.md: {SKIP}")


def test_a_walk_that_finds_no_marked_file_says_so_once(tmp_path: Path) -> None:
    """A directory is not a file named: its unmarked files are not listed one by one
    (a docs tree holds hundreds), the summary says none had the marker."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.txt"):
        (docs / name).write_text("# A page\n\n" + PROSE)
    done = console.mishkan("ingest-lint", "docs", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, NOTHING.format(3) + "\n")
    (tmp_path / "empty").mkdir()
    done = console.mishkan("ingest-lint", "empty", cwd=tmp_path)
    assert done.returncode == 0
    assert (
        done.stdout
        == "Nothing checked: no .md, .markdown, .mdx or .txt file under the paths given.\n"
    )


#: what a one-file run of a prose document must not import (issue 24's start-up bar):
#: each is a measurable part of a bare interpreter's start, or pulls one in
HEAVY = ("re", "typing", "dataclasses", "pathlib", "secrets", "contextlib", "argparse", "inspect")


@pytest.mark.parametrize("marked", [True, False])
def test_a_one_file_run_imports_only_what_it_needs(tmp_path: Path, marked: bool) -> None:
    """``mishkan ingest-lint adr.md`` as pre-commit runs it, through the console
    script's entry point, on a prose ADR (or a Markdown file without the marker, which
    pre-commit passes as often): a walk's and a limit's machinery (``safe_files``), the
    terminal escape's pattern and the detectors stay unloaded."""
    from tests.ingest_lint.corpus import REPO

    adr = tmp_path / "adr.md"
    adr.write_text(CLEAN if marked else "# Notes\n\n" + PROSE)
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from mishkan_core.cli import main\n"
        "sys.argv = ['mishkan', 'ingest-lint', sys.argv[1]]\n"
        "code = main()\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "ours = [m for m in sys.modules if m in ('mishkan_core.safe_files', "
        "'mishkan_core.ingest_lint._detectors')]\n"
        "print(code, heavy + ours)\n"
    )
    # -I -S: no site, so no editable-install finder (which imports re) stands in the way
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(adr)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
