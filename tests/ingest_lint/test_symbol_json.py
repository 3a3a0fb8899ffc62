"""IL302 symbol-index-json."""

from __future__ import annotations

import json

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _range(line: int) -> dict[str, object]:
    return {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 20}}


def test_lsp_document_symbols_fire() -> None:
    symbols = [
        {
            "name": f"Serializer{i}",
            "kind": 5,
            "range": _range(10 * i),
            "selectionRange": _range(10 * i),
            "children": [],
        }
        for i in range(12)
    ]
    found = hits("IL302", intro() + fence(json.dumps(symbols, indent=2), "json"))
    assert len(found) == 1
    assert "symbol records" in found[0].message


def test_scip_occurrences_fire() -> None:
    occurrences = [
        {
            "range": [i, 4, 12],
            "symbol": f"scip-python python pkg 1.0 `pkg.mod`/f{i}().",
            "symbol_roles": 1,
        }
        for i in range(15)
    ]
    index = {
        "metadata": {"tool_info": {"name": "indexer"}},
        "documents": [{"relative_path": "pkg/mod.py", "occurrences": occurrences}],
    }
    assert hits("IL302", intro() + fence(json.dumps(index, indent=1), "json"))


def test_ctags_json_lines_fire() -> None:
    rows = [
        json.dumps(
            {
                "_type": "tag",
                "name": f"route{i}",
                "path": "lib/router.js",
                "line": 20 + i,
                "kind": "function",
            }
        )
        for i in range(16)
    ]
    assert hits("IL302", intro() + fence("\n".join(rows), "json"))


def test_error_log_with_line_numbers_passes() -> None:
    events = [{"name": "request_failed", "line": 12, "status": 503} for _ in range(20)]
    assert not hits("IL302", PROSE + fence(json.dumps(events, indent=1), "json"))
