"""IL102 graph-yaml."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _yaml_graph(n: int) -> str:
    lines = ["graph:", "  directed: true", "  nodes:"]
    for i in range(n):
        lines += [
            f"  - id: app_core_handler{i}",
            f"    label: Handler{i}",
            "    source_file: app/core.py",
        ]
    lines.append("  links:")
    for i in range(n):
        lines += [
            f"  - source: app_core_handler{i}",
            f"    target: app_core_handler{(i + 3) % n}",
            "    relation: calls",
        ]
    return "\n".join(lines)


def test_yaml_node_link_graph_fires() -> None:
    found = hits("IL102", intro("Converted to YAML for review.") + fence(_yaml_graph(12), "yaml"))
    assert len(found) == 1
    assert "edges" in found[0].message


def test_yaml_config_passes() -> None:
    config = "\n".join(
        ["pipeline:"]
        + [f"  - id: step{i}\n    run: make target{i}\n    on_failure: pause" for i in range(12)]
    )
    assert not hits("IL102", PROSE + fence(config, "yaml"))


def test_small_yaml_graph_example_in_prose_passes() -> None:
    assert not hits("IL102", PROSE * 8 + fence(_yaml_graph(3), "yaml") + PROSE * 8)
