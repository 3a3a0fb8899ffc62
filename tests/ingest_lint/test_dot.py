"""IL104 dot-graph."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _digraph(n: int) -> str:
    edges = [f'  "pkg.core.f{i}" -> "pkg.util.g{i % 5}";' for i in range(n)]
    return "digraph calls {\n  rankdir=LR;\n" + "\n".join(edges) + "\n}"


def test_call_digraph_fires() -> None:
    found = hits("IL104", intro("Paste into dot -Tsvg.") + fence(_digraph(20), "dot"))
    assert len(found) == 1
    assert "20 edges" in found[0].message


def test_unquoted_import_graph_with_node_statements_fires() -> None:
    nodes = [f'    mod_{i} [label="mod.{i}", shape=box];' for i in range(8)]
    edges = [f"    mod_{i} -> mod_{(i * 3) % 8};" for i in range(12)]
    body = intro() + fence("digraph G {\n" + "\n".join(nodes + edges) + "\n}", "dot")
    assert hits("IL104", body)


def test_small_architecture_sketch_passes() -> None:
    sketch = "digraph arch {\n  client -> gateway;\n  gateway -> service;\n  service -> db;\n}"
    assert not hits("IL104", PROSE * 4 + fence(sketch, "dot") + PROSE * 4)
