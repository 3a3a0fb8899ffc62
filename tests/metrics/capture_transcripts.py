"""Turn one e2e run's transcripts into a test fixture (how the cc-*-transcripts
fixtures were made).

    python -m tests.metrics.capture_transcripts RUN_ROOT DEST

RUN_ROOT is one e2e project directory (``--basetemp=/tmp/e2e`` then e.g.
``/tmp/e2e/advise-bypass1``; its ``home/.claude/projects`` holds the
transcripts). Paths are replaced (the run's root by ``/tmp/e2e/advise``, the
interpreter and the evidence hook by fixed ones), and the long strings of the
lines the backfill never reads (system prompt snapshots, request shapes and
blobs, skill listings) are elided, so the files stay small. Every line is
kept, with its type, its keys and every string the backfill reads.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
ELIDE = {"prompt_snapshot", "api-request-shape", "api-request-blob", "skill_listing"}
LONGEST = 60


def _subs(run_root: str) -> list[tuple[str, str]]:
    return [
        (run_root, "/tmp/e2e/advise"),
        (str(REPO_ROOT / ".tox" / "e2e" / "bin" / "python"), "/usr/bin/python3.11"),
        (str(REPO_ROOT / "tests" / "e2e") + "/", "/opt/e2e/"),
    ]


def _mangle(text: str, subs: list[tuple[str, str]]) -> str:
    for old, new in subs:
        text = text.replace(old, new).replace(old.replace("/", "-"), new.replace("/", "-"))
    return text


def _shrink(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= LONGEST else f"<{len(value)} chars elided>"
    if isinstance(value, list):
        return [_shrink(v) for v in value]
    if isinstance(value, dict):
        return {k: _shrink(v) for k, v in value.items()}
    return value


def capture(run_root: Path, dest: Path) -> int:
    """Write the fixture; returns its size in bytes."""
    source = run_root / "home" / ".claude" / "projects"
    subs = _subs(str(run_root))
    if dest.exists():
        shutil.rmtree(dest)
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        out = dest / _mangle(str(path.relative_to(source)), subs)
        out.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                lines.append(_mangle(line, subs))
                continue
            kind = obj.get("type")
            if kind == "attachment" and isinstance(obj.get("attachment"), dict):
                kind = obj["attachment"].get("type")
            if kind in ELIDE:
                obj = _shrink(obj)
            text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
            lines.append(_mangle(text, subs))
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())


if __name__ == "__main__":
    print(capture(Path(sys.argv[1]), Path(sys.argv[2])), "bytes")
