"""IL401 call-edges."""

from __future__ import annotations

from mishkan_core.ingest_lint._detectors.call_edges import edge_line
from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def test_call_edge_run_fires() -> None:
    edges = [f"svc.api.Handler.on_{i} -> svc.store.Repo.load_{i % 3}" for i in range(20)]
    found = hits(
        "IL401", intro("Done this sprint: mapped the request path.") + fence("\n".join(edges))
    )
    assert len(found) == 1
    assert "edge lines" in found[0].message


def test_unfenced_bulleted_edges_with_annotations_fire() -> None:
    edges = [f"- `pkg.a.f{i}()` --calls--> `pkg.b.g{i}()` [EXTRACTED]" for i in range(18)]
    assert hits("IL401", intro() + "\n".join(edges) + "\n")


def test_edge_line_shapes() -> None:
    assert edge_line("flask.app.Flask.run -> flask.cli.show_server_banner")
    assert edge_line('  "a.b" -> "c.d";')
    assert edge_line("  -> ./lib/router")
    assert edge_line("pkg/a.py -> pkg/b.py -> pkg/a.py")
    assert not edge_line("Upgrade -> downgrade -> upgrade path was tested manually.")
    assert not edge_line("#### Alpha -> Beta")
    assert not edge_line("<!-- trimmed -->")
    assert not edge_line("    R ->> P: Begin Trx")


def test_state_machine_and_mermaid_pass() -> None:
    states = "\n".join(["Pending -> Running", "Running -> Succeeded", "Running -> Failed"] * 6)
    mermaid = "\n".join(f"    A{i}[Start] --> B{i}{{Is it ready?}}" for i in range(15))
    assert not hits("IL401", PROSE + fence(states) + fence(mermaid, "mermaid"))


def test_a_handful_of_edges_in_prose_pass() -> None:
    edges = "\n".join(f"core.run -> core.step{i}" for i in range(4))
    assert not hits("IL401", PROSE * 5 + fence(edges) + PROSE * 5)


def test_graph_explorer_neighbour_lines_fire() -> None:
    rows = [
        f"  {'-->' if i % 2 else '<--'} Node{i} [uses] [INFERRED] pkg/mod{i % 4}.py:L{20 + i}"
        for i in range(18)
    ]
    found = hits("IL401", intro("Node: Pool") + fence("\n".join(rows)))
    assert len(found) == 1


def test_arrowless_edge_list_fires() -> None:
    rows = [f"pkg/mod{i}.py pkg.dep{i % 5}" for i in range(20)]
    rows += [f"pkg.a.f{i} pkg.b.g{i} {{'line': {i}}}" for i in range(5)]
    found = hits("IL401", intro() + fence("\n".join(rows)))
    assert len(found) == 1
    assert "without arrows" in found[0].message


def test_edge_line_with_a_location_tail() -> None:
    assert edge_line("  --> Retry [uses] [INFERRED] poolmanager.py:L218")
    assert edge_line("  <-- __init__.py [imports] [EXTRACTED] __init__.py:L20")
    assert not edge_line("  --> Retry [uses]")


def test_two_column_version_table_passes() -> None:
    rows = "\n".join(f"lib{i} 1.{i}.0" for i in range(20))
    words = "\n".join(f"Alpha{i} beta" for i in range(20))
    assert not hits("IL401", PROSE + fence(rows) + fence(words) + PROSE)
