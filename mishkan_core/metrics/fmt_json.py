"""``--format json``: the report dictionary itself (see report.build)."""

from __future__ import annotations

import json
from typing import Any


def render(report: dict[str, Any]) -> str:
    # allow_nan=False: NaN and Infinity are not JSON (report.finite removed them)
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
