"""Fixtures of the end-to-end run: the CLIs and graphify, or a loud failure.

The CLI is an axis: ``claude_bin`` takes each :class:`~tests.e2e.harness.Claude`
of :func:`~tests.e2e.cli_install.cli_versions` in turn (test ids
``[cli-2.1.69]``, ``[cli-2.1.332]``), and a module that sets
``BOTH_FLOWS = True`` also gets each background-capable CLI with its
subagents forced to the foreground (``[cli-2.1.332-foreground]``). A test that
drives no CLI does not ask for ``claude_bin`` and runs once. Other axes (the
graphify version) are fixtures of their own beside it."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import graphify_axis
from tests.e2e.cli_install import REPO_ROOT, cli_versions, ensure_claude_cli, ensure_graphify
from tests.e2e.harness import Claude, ScenarioRun, cli_variants


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "claude_bin" in metafunc.fixturenames:
        both = bool(getattr(metafunc.module, "BOTH_FLOWS", False))
        variants = cli_variants(cli_versions(), both)
        metafunc.parametrize(
            "claude_bin", variants, indirect=True, scope="session", ids=[v.id for v in variants]
        )


@pytest.fixture(scope="session")
def claude_bin(request: pytest.FixtureRequest) -> Claude:
    """One Claude Code CLI of the axis, installed from npm into .cache/e2e on
    first use. Any failure raises: an e2e run without the real CLI is a failed run."""
    variant: Claude = request.param
    return Claude(variant.version, variant.foreground, ensure_claude_cli(variant.version))


@pytest.fixture(scope="session")
def graphify_bin() -> Path:
    return ensure_graphify()


@pytest.fixture(scope="module", params=graphify_axis.versions(), ids=lambda v: f"graphify-{v}")
def graphify_release(request: pytest.FixtureRequest) -> Iterator[graphify_axis.Release]:
    """The graphify axis: each release of MISHKAN_E2E_GRAPHIFY (default: the
    supported range's ends), first on the harness's PATH while its tests run."""
    with graphify_axis.on_path(graphify_axis.release(request.param)) as chosen:
        yield chosen


@pytest.fixture(scope="session", autouse=True)
def _hook_present() -> None:
    hook = REPO_ROOT / "graphify_nudge.py"
    if not hook.is_file():
        pytest.fail(f"e2e: the hook {hook} is missing", pytrace=False)


@pytest.fixture
def runs() -> list[ScenarioRun]:
    """Runs made inside a test body: append them, so a failure shows their evidence."""
    return []


def _runs_in(value: Any) -> Iterator[ScenarioRun]:
    if isinstance(value, ScenarioRun):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _runs_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _runs_in(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """On failure, attach each run's stub log, hook inputs, telemetry and CLI stderr."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    seen: set[int] = set()
    for value in funcargs.values():
        for run in _runs_in(value):
            if id(run) not in seen:
                seen.add(id(run))
                report.sections.append((f"e2e run {run.name}", run.diagnostics()))
