"""IL101 graph-json."""

from __future__ import annotations

import json

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _graph(n: int) -> dict[str, object]:
    nodes = [
        {
            "id": f"pkg_mod_func{i}",
            "label": f"func{i}()",
            "source_file": "pkg/mod.py",
            "source_location": f"L{10 * i}",
        }
        for i in range(n)
    ]
    links = [
        {"source": f"pkg_mod_func{i}", "target": f"pkg_mod_func{(i + 1) % n}", "relation": "calls"}
        for i in range(n)
    ]
    return {"directed": True, "nodes": nodes, "links": links}


def test_node_link_graph_in_a_fence_fires() -> None:
    body = intro() + fence(json.dumps(_graph(12), indent=2), "json")
    found = hits("IL101", body)
    assert len(found) == 1
    assert "12 edges" in found[0].message


def test_edge_list_one_object_per_line_fires() -> None:
    edges = ",\n".join(
        json.dumps({"source": f"a.mod.f{i}", "target": f"a.mod.g{i}", "relation": "calls"})
        for i in range(14)
    )
    assert hits("IL101", intro() + fence(f"[\n{edges}\n]", "json"))


def test_truncated_dump_is_repaired_and_fires() -> None:
    text = json.dumps(_graph(30), indent=2)
    cut = text[: len(text) * 2 // 3]  # cut mid-record, fence never closed
    assert hits("IL101", intro() + "```json\n" + cut + "\n")


def test_lsif_vertices_and_edges_fire() -> None:
    rows = []
    for i in range(12):
        rows.append(json.dumps({"id": 2 * i, "type": "vertex", "label": "range"}))
        rows.append(
            json.dumps(
                {"id": 2 * i + 1, "type": "edge", "label": "next", "outV": 2 * i, "inV": 40 + i}
            )
        )
    assert hits("IL101", intro() + fence("\n".join(rows)))


def test_nested_code_entities_fire() -> None:
    files = [
        {
            "id": f"file-{i}",
            "type": "CodeFile",
            "depends_on": [
                {"id": f"file-{j}", "type": "CodeFile", "source_file": f"src/m{j}.py"}
                for j in range(3)
            ],
        }
        for i in range(5)
    ]
    assert hits("IL101", intro() + fence(json.dumps(files, indent=1), "json"))


def test_small_schema_example_in_prose_passes() -> None:
    example = {
        "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
        "links": [{"source": "a", "target": "b"}],
    }
    body = PROSE * 6 + fence(json.dumps(example, indent=2), "json") + PROSE * 6
    assert not hits("IL101", body)


def test_api_example_with_dates_and_nested_ids_passes() -> None:
    ranges = [
        {"id": i, "from": f"2024-0{1 + i % 9}-01", "to": f"2024-0{1 + i % 9}-28", "user": {"id": i}}
        for i in range(15)
    ]
    body = PROSE * 3 + fence(json.dumps(ranges, indent=2), "json")
    assert not hits("IL101", body)


def test_a_graph_split_over_several_blocks_fires_once() -> None:
    parts = []
    for k in range(3):
        edges = [{"source": f"m.f{k}{i}", "target": f"m.g{k}{i}"} for i in range(5)]
        parts.append(fence(json.dumps(edges, indent=1), "json"))
    found = hits("IL101", intro() + "\n".join(parts))
    assert len(found) == 1
    assert "across 3 blocks" in found[0].message
