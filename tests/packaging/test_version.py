"""One version: the installed distribution's metadata and ``mishkan --version``
both come from ``mishkan_core.__version__`` (tox installs the built wheel
into every py39..py313 env, so this checks the built metadata on each)."""

from __future__ import annotations

from importlib import metadata

import pytest

import mishkan_core
from mishkan_core.cli import main


def test_the_metadata_and_the_command_say_the_package_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert metadata.version("mishkan-core") == mishkan_core.__version__
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"mishkan {mishkan_core.__version__}\n"
