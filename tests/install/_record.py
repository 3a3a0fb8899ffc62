"""Install's record of a project, as a test reads or plants it (outside the
project, in the session's $XDG_CACHE_HOME: mishkan_core.install_record)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mishkan_core import install_record


def record_path(project: Path) -> Path:
    return install_record.path_for(Path(os.path.realpath(project)))


def record_of(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record_path(project).read_text())
    return data
