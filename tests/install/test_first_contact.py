"""``mishkan install`` on first contact (issue 29): a settings.json a team
commits, the hook kept out of the project's graph, and the steps it prints
from a fresh clone to a graph of the project's code.

Real graphify on both ends of the supported range runs these steps in
tests/e2e/test_e2e_first_contact.py; here graphify is only ever a stand-in
whose release is read from its metadata (tests/graphify_layout.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cold_start import PRE_SHIM_SNIPPET
from mishkan_core import hook_chain, machine_config
from tests.graphify_layout import venv
from tests.routing._cli import run_cli

PYTHON = os.path.realpath(sys.executable)
#: another interpreter, as a teammate's machine has (pyenv's, when there)
OTHER_PYTHON = next(
    (
        p
        for p in (f"/root/.pyenv/versions/{v}/bin/python{v[:4]}" for v in ("3.12.1", "3.13.0"))
        if os.path.isfile(p) and os.path.realpath(p) != PYTHON
    ),
    PYTHON,
)
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
HOOKS = "payload/mishkan/hooks"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    for i in range(4):
        (root / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=GIT_ENV)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=GIT_ENV)
    for name in ("GRAPHIFY_OUT", "MISHKAN_GRAPHIFY_GRAPH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no graphify of this machine's
    return root


def install(
    project: Path, capsys: pytest.CaptureFixture[str], *extra: str, python: str = PYTHON
) -> tuple[int, str, str]:
    argv = ["--project", str(project), "--mode", "advise", "--python", python, *extra]
    return run_cli("mishkan_core.install", argv, capsys)


def settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


# -- a settings.json a team commits -------------------------------------------------


def test_a_teammate_s_install_leaves_the_committed_settings_byte_identical(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another machine: another HOME, another cache and config, another
    interpreter. The committed file stays the same bytes, no backup appears;
    what differs is that machine's own config, outside the repository."""
    assert install(project, capsys)[0] == 0
    committed = settings(project).read_bytes()
    for command in {h.command for h in hook_chain.ours(json.loads(committed)["hooks"])}:
        assert command is not None and len(command) <= 200
        assert "/root" not in command and str(tmp_path) not in command and "python" not in command
    teammate = tmp_path / "teammate"
    for variable, where in (("HOME", ""), ("XDG_CONFIG_HOME", ".config"),
                            ("XDG_CACHE_HOME", ".cache")):  # fmt: skip
        monkeypatch.setenv(variable, str(teammate / where))
    code, out, err = install(project, capsys, python=OTHER_PYTHON)
    assert code == 0, err
    assert settings(project).read_bytes() == committed
    assert ".claude/settings.json: already up to date" in out
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]
    config = machine_config.read()
    assert config == machine_config.MachineConfig(
        os.path.realpath(OTHER_PYTHON), str(teammate / ".cache" / "mishkan" / "pycache")
    )


def _legacy(hooks_dir: str, mode: str = "telemetry") -> str:
    """The command installs before issue 29 registered."""
    return (
        f"{PYTHON} -I -S -B -c '{PRE_SHIM_SNIPPET}' \"$CLAUDE_PROJECT_DIR/{hooks_dir}\" "
        f'"$HOME/.cache/mishkan/pycache" --mode={mode}'
    )


def test_an_old_registration_is_upgraded_in_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every group of ours keeps its place in the chain and its mode; the
    harness's own hooks around it are untouched."""
    security = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/h/pre-tool-security.sh'}
    ours = {"type": "command", "command": _legacy(HOOKS, "advise"), "timeout": 10}
    doc = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [security]},
                {"matcher": "*", "hooks": [ours]},
                {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]},
            ],
            "SessionStart": [{"hooks": [ours]}],
        }
    }
    settings(project).parent.mkdir()
    settings(project).write_text(json.dumps(doc, indent=2) + "\n")
    code, _out, err = run_cli("mishkan_core.install", ["--project", str(project)], capsys)
    assert code == 0, err
    after = json.loads(settings(project).read_text())["hooks"]
    shim = hook_chain.hook_command(project / HOOKS, project, "advise")  # the mode it had
    pre = [h["command"] for g in after["PreToolUse"] for h in g["hooks"]]
    assert pre == [security["command"], shim, "fmt.sh"]
    assert [h.command for h in hook_chain.ours(after)] == [shim] * len(hook_chain.ours(after))
    assert {h.event for h in hook_chain.ours(after)} == set(hook_chain.EVENTS)


def test_routing_check_names_the_old_registration_and_passes_the_new(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert install(project, capsys)[0] == 0
    doc = json.loads(settings(project).read_text())
    argv = ["check", "--project", str(project)]
    _code, out, _err = run_cli("mishkan_core.routing.cli", argv, capsys)
    assert "hook-interpreter" not in out and "hook-chain" not in out
    new = settings(project).read_text()
    (command,) = {h.command for h in hook_chain.ours(doc["hooks"])}
    settings(project).write_text(new.replace(json.dumps(command), json.dumps(_legacy(HOOKS))))
    _code, out, _err = run_cli("mishkan_core.routing.cli", argv, capsys)
    program = [line for line in out.splitlines() if "-character program naming" in line]
    assert len(program) == 1 and f"naming {PYTHON}, this machine's interpreter" in program[0]
    assert "graphify-nudge.sh, the same line on every machine" in program[0]


# -- the hook's files stay out of the project's graph -----------------------------------


def test_graphifyignore_lists_the_hook_s_files_and_uninstall_takes_them_back(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = b"# the team's own\ngenerated/\n"
    (project / ".graphifyignore").write_bytes(theirs)
    assert install(project, capsys)[0] == 0
    lines = (project / ".graphifyignore").read_text().splitlines()
    assert lines[:2] == ["# the team's own", "generated/"]
    assert lines[3:] == [
        f"/{HOOKS}/graphify_nudge.py",
        f"/{HOOKS}/graphify_nudge_index.py",
        f"/{HOOKS}/graphify-nudge.sh",
        ".graphify/",
        ".mishkan/",
    ]
    assert install(project, capsys)[0] == 0  # a second install adds nothing
    assert (project / ".graphifyignore").read_text().splitlines() == lines
    assert install(project, capsys, "--uninstall")[0] == 0
    assert (project / ".graphifyignore").read_bytes() == theirs


def test_a_graphifyignore_install_created_goes_with_uninstall(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert install(project, capsys)[0] == 0
    assert (project / ".graphifyignore").exists()
    assert install(project, capsys, "--uninstall")[0] == 0
    assert not (project / ".graphifyignore").exists()


def test_a_forged_record_removes_no_line_install_could_not_have_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even this machine's record (outside the project: install_record) is read
    for the lines install writes only: a record naming the team's own line
    (`secrets/`) never makes uninstall remove it."""
    from tests.install._record import record_path

    (project / ".graphifyignore").write_text("secrets/\n")
    assert install(project, capsys)[0] == 0
    record = record_path(project)
    data = json.loads(record.read_text())
    data["graphifyignore"]["added"].append("secrets/")
    record.write_text(json.dumps(data))
    assert install(project, capsys, "--uninstall")[0] == 0
    assert (project / ".graphifyignore").read_text() == "secrets/\n"


def test_graphify_before_0_8_42_gets_a_note_on_what_graphifyignore_costs(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", f"{venv(tmp_path / 'g', '0.8.31')}:/usr/bin:/bin")
    code, _out, err = install(project, capsys)
    assert code == 0
    assert "graphify 0.8.31 reads .graphifyignore instead of .gitignore (until 0.8.42)" in err
    monkeypatch.setenv("PATH", f"{venv(tmp_path / 'h', '0.9.96')}:/usr/bin:/bin")
    (project / ".graphifyignore").unlink()
    assert ".graphifyignore" not in install(project, capsys)[2]


# -- the steps it prints ----------------------------------------------------------------


def _graph(project: Path, sources: list[str]) -> None:
    graph = project / ".graphify" / "graph.json"
    graph.parent.mkdir(exist_ok=True)
    nodes = [{"id": f"n{i}", "source_file": s} for i, s in enumerate(sources)]
    graph.write_text(json.dumps({"nodes": nodes, "links": []}))


def _steps(out: str) -> list[str]:
    """The numbered steps, each with the command on the line after it."""
    lines = out.splitlines()
    return [
        f"{line.strip()} {lines[i + 1].strip()}"
        for i, line in enumerate(lines)
        if line.startswith(("  1.", "  2."))
    ]


def test_without_a_graph_the_build_comes_before_the_commit_hook(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """graphify's commit hook, before any full build, builds a graph of the
    committed files only (issue 29: 354 nodes, all of them the hook's)."""
    code, out, _err = install(project, capsys)
    assert code == 0
    assert _steps(out) == [
        f"1. build the graph of your code: cd {project} && graphify update .",
        f"2. refresh it at every commit: cd {project} && graphify hook install",
    ]


@pytest.mark.parametrize(
    ("sources", "first"),
    [
        (["src/m0.py", "src/m1.py", "src/m2.py", "src/m3.py"], None),
        (["src/m0.py"], "rebuild the graph (covers 1 of 4 tracked source files (25%))"),
        ([*(f"src/m{i}.py" for i in range(4)), f"{HOOKS}/graphify_nudge.py"],
         "rebuild the graph (it holds the hook's own files)"),
    ],
)  # fmt: skip
def test_a_graph_is_rebuilt_only_when_it_is_not_the_project_s(
    project: Path, capsys: pytest.CaptureFixture[str], sources: list[str], first: str | None
) -> None:
    _graph(project, sources)
    code, out, _err = install(project, capsys)
    assert code == 0
    build = f"cd {project} && graphify update ."
    refresh = f"cd {project} && graphify hook install"
    if first is None:
        assert "graph: .graphify/graph.json covers 4 of 4 tracked source files (100%)" in out
        assert _steps(out) == [f"1. refresh it at every commit: {refresh}"]
    else:
        assert _steps(out) == [f"1. {first}: {build}", f"2. refresh it at every commit: {refresh}"]
