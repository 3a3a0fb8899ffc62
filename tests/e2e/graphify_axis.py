"""The e2e run's graphify axis: the freshness loop and the advice commands run
on every graphify release of the supported range's ends (docs/versions.md).

``MISHKAN_E2E_GRAPHIFY`` names the releases (comma-separated; default: the
oldest and the newest supported, graphify_nudge_index.GRAPHIFY_OLDEST and
GRAPHIFY_NEWEST). The newest is the one pinned in tests/e2e/requirements.txt,
installed by tox into the e2e env; any other gets its own venv under the e2e
cache (``$MISHKAN_E2E_CACHE/graphify-<version>``, created once with pip by
bench/_graphify.py). While a test runs on a release, its ``graphify`` is first
on every PATH the harness builds (tests/e2e/cli_install.graphify_bin_dir), so
graphify's git hooks, the hook's index builder, the commands an agent runs and
`mishkan` itself all meet that release.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import graphify_nudge_index as gi
from bench import _graphify
from mishkan_core import graph_refresh
from tests.e2e.cli_install import CACHE_DIR, GRAPHIFY_VERSION, E2ESetupError, ensure_graphify

VERSIONS_ENV = "MISHKAN_E2E_GRAPHIFY"
#: the directory cli_install.graphify_bin_dir puts first on PATH while set
BIN_DIR_ENV = "MISHKAN_E2E_GRAPHIFY_BIN"


def versions() -> tuple[str, ...]:
    """The releases the e2e run covers."""
    given = os.environ.get(VERSIONS_ENV, "")
    found = tuple(v.strip() for v in given.split(",") if v.strip())
    bad = [v for v in found if gi.version_tuple(v) is None]
    if bad:
        raise E2ESetupError(f"e2e: {VERSIONS_ENV}={given}: {', '.join(bad)} is not a release")
    return found or (gi.GRAPHIFY_OLDEST, gi.GRAPHIFY_NEWEST)


@dataclass(frozen=True)
class Release:
    """One graphify release: its `graphify` script and what it accepts."""

    version: str
    bin: Path

    @property
    def graphify(self) -> graph_refresh.Graphify:
        return graph_refresh.Graphify(str(self.bin), self.version)

    @property
    def accepts(self) -> frozenset[str]:
        return self.graphify.accepts

    @property
    def python(self) -> Path:
        """The interpreter of its venv (graphify's own modules import there)."""
        return self.bin.parent / "python"


def release(version: str) -> Release:
    """The release's `graphify`, installed on first use; a failure fails the run."""
    if version == GRAPHIFY_VERSION:
        return Release(version, ensure_graphify())
    try:
        return Release(version, _graphify.ensure(version, CACHE_DIR, "e2e"))
    except _graphify.GraphifyInstallError as exc:
        raise E2ESetupError(f"e2e: graphify {version}: {exc}") from None


@contextmanager
def on_path(chosen: Release) -> Iterator[Release]:
    """Put `chosen`'s graphify first on the harness's PATH while the block runs."""
    before = os.environ.get(BIN_DIR_ENV)
    os.environ[BIN_DIR_ENV] = str(chosen.bin.parent)
    try:
        yield chosen
    finally:
        if before is None:
            os.environ.pop(BIN_DIR_ENV, None)
        else:
            os.environ[BIN_DIR_ENV] = before
