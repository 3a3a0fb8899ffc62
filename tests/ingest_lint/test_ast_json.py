"""IL203 ast-json."""

from __future__ import annotations

import json
from typing import Any

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _estree(depth: int, start: int = 0) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "Identifier", "start": start, "end": start + 3, "name": "x"}
    kinds = [
        "CallExpression",
        "MemberExpression",
        "ExpressionStatement",
        "BlockStatement",
        "ReturnStatement",
    ]
    for level in range(depth):
        node = {
            "type": kinds[level % len(kinds)],
            "start": start,
            "end": start + 10 + level,
            "argument": node,
            "extra": {"type": "Literal", "start": start, "end": start + 1, "value": level},
        }
    return {"type": "Program", "start": 0, "end": 999, "body": [node]}


def test_estree_json_fires() -> None:
    found = hits(
        "IL203",
        intro("Acorn output for one statement.") + fence(json.dumps(_estree(14), indent=2), "json"),
    )
    assert len(found) == 1
    assert "typed AST nodes" in found[0].message


def test_json_schema_passes() -> None:
    schema = {
        "type": "object",
        "properties": {
            f"field{i}": {"type": "string", "description": f"the {i}th"} for i in range(30)
        },
    }
    assert not hits("IL203", PROSE + fence(json.dumps(schema, indent=2), "json"))


def test_kubernetes_list_passes() -> None:
    items = [
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": f"web-{i}"}} for i in range(20)
    ]
    manifest = {"kind": "List", "apiVersion": "v1", "items": items}
    assert not hits("IL203", PROSE + fence(json.dumps(manifest, indent=2), "json"))


def test_short_estree_with_locations_fires() -> None:
    # ESTree with "loc" objects: a dozen pretty-printed lines per node
    tree = _estree(14)
    text = json.dumps(tree, indent=2)
    assert hits("IL203", intro() + fence(text, "json"))
