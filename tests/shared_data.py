"""Where the reference data in ``../shared`` lives, and what a test does without it.

A clone of this repository on its own has no ``../shared``: the tests that need
it skip with a reason that says what is missing. CI sets
``MISHKAN_REQUIRE_SHARED=1`` (``.ci/run``), which turns every such skip into a
failure, so the labelled corpus, the seed ADRs and the captured hook inputs can
never silently drop out of the CI run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the directory holding corpus/, reference/ and seeds/; default <repo>/../shared
SHARED_ENV = "MISHKAN_SHARED_DIR"
#: set (to anything but "" or "0") to make missing shared data a failure
REQUIRE_ENV = "MISHKAN_REQUIRE_SHARED"


def shared_dir() -> Path:
    configured = os.environ.get(SHARED_ENV)
    return Path(configured) if configured else REPO.parent / "shared"


def required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def missing(what: str, path: Path) -> None:
    """Skip (or, under MISHKAN_REQUIRE_SHARED, fail) because `path` is absent."""
    message = (
        f"{what} not found at {path}: this test needs the shared reference data "
        f"(clone the repo next to shared/, or set {SHARED_ENV})"
    )
    if required():
        pytest.fail(f"{message}; {REQUIRE_ENV} is set, so it may not skip", pytrace=False)
    pytest.skip(message)


def shared_path(relative: str, what: str) -> Path:
    """`shared/<relative>`, or skip/fail the calling test when it does not exist."""
    path = shared_dir() / relative
    if not path.exists():
        missing(what, path)
    return path
