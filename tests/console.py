"""The real ``mishkan`` console script of the environment the tests run in (tox
installs the wheel, ``scripts/dev setup`` an editable install): what a user types."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def script() -> str:
    path = Path(sys.executable).parent / "mishkan"
    if not path.is_file():
        pytest.fail(f"no mishkan console script beside {sys.executable}: pip install the package")
    return str(path)


def mishkan(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``mishkan ARGS`` in a child, output captured as text, never checked."""
    kwargs.setdefault("timeout", 300)
    return subprocess.run([script(), *args], capture_output=True, text=True, check=False, **kwargs)
