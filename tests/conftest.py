"""Settings for every test."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

# The unit envs run two at a time (scripts/dev test) on shared 2-core machines:
# hypothesis' default 200 ms per-example deadline would measure the machine's
# load, not the code. Tests that bound time do it in their own terms.
settings.register_profile("mishkan", deadline=None)
settings.load_profile("mishkan")


@pytest.fixture(autouse=True, scope="session")
def _bytecode_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`mishkan install` writes the hook's bytecode under $XDG_CACHE_HOME
    (docs/threat_model.md): a test's install never writes into the real one."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(autouse=True)
def _machine_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mishkan install` writes this machine's hook config under
    $XDG_CONFIG_HOME (mishkan_core/machine_config.py): each test has its own,
    never the real one, and finds none until it installs."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
