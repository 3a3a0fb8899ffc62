"""IL103 cypher-export."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _export(n: int) -> str:
    nodes = [f"MERGE (n:Function {{id: 'svc_api_h{i}', name: 'h{i}'}});" for i in range(n)]
    rels = [
        f"MATCH (a {{id: 'svc_api_h{i}'}}), (b {{id: 'svc_api_h{i + 1}'}}) MERGE (a)-[:CALLS]->(b);"
        for i in range(n - 1)
    ]
    return "\n".join(nodes + rels)


def test_export_fires() -> None:
    found = hits("IL103", intro() + fence(_export(10), "cypher"))
    assert len(found) == 1
    assert "Cypher statements" in found[0].message


def test_schema_ddl_and_a_query_pass() -> None:
    ddl = "\n".join(
        [
            "CREATE NODE TABLE TaskIntent(id STRING, title STRING, PRIMARY KEY(id))",
            "CREATE REL TABLE REALIZED_BY(FROM TaskIntent TO File, confidence DOUBLE)",
            "MATCH (t:TaskIntent)-[:REALIZED_BY]->(f:File) WHERE t.id = $id RETURN f.path",
        ]
    )
    assert not hits("IL103", PROSE * 3 + fence(ddl, "cypher") + PROSE)


def test_a_few_example_statements_in_prose_pass() -> None:
    assert not hits("IL103", PROSE * 10 + fence(_export(3), "cypher") + PROSE * 10)
