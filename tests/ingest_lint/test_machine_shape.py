"""IL601 machine-shaped: the format-agnostic backstop."""

from __future__ import annotations

from mishkan_core.ingest_lint._detectors import machine_shape
from tests.ingest_lint.helpers import PROSE, document, fence, hits, intro, rules

# Output of a tool IL601 has never heard of: a bytecode listing (python -m dis).
DIS = "\n".join(
    f"{n // 3 + 1:3}  {2 * n:10} {op:<24} {n % 7:3} ({arg})"
    for n, (op, arg) in enumerate(
        [("LOAD_GLOBAL", "len"), ("LOAD_FAST", "items"), ("CALL", "1"), ("STORE_FAST", "n")] * 12
    )
)

# One line per symbol, stamped from one template: a class browser.
CLASS_BROWSER = "\n".join(
    f"class Handler{i}(BaseHandler) [handlers/h{i}.py:{10 * i}]\n"
    f"  def handle_{i}(self, request) [handlers/h{i}.py:{10 * i + 4}]"
    for i in range(8)
)

# A compact printed tree: a few very long lines, brackets nested deep.
COMPACT = "\n".join(
    f"FunctionDef(name='f{i}', args=arguments(posonlyargs=[], args=[arg(arg='x', "
    "annotation=Name(id='int', ctx=Load()))], kwonlyargs=[], kw_defaults=[], defaults=[]), "
    "body=[Return(value=BinOp(left=Name(id='x', ctx=Load()), op=Add(), "
    f"right=Constant(value={i})))], decorator_list=[])"
    for i in range(8)  # under the bulk shape's 40 line-widths
)


def test_an_unknown_listing_with_a_line_of_introduction_fires() -> None:
    found = hits("IL601", intro() + fence(DIS))
    assert len(found) == 1
    # a dis listing: its lines share a skeleton and aligned columns, and the finding says so
    assert "machine output (skeleton, columns)" in found[0].message
    assert "skeleton* 1.00" in found[0].message
    assert found[0].evidence.startswith("1")


def test_a_regular_listing_fires_even_when_short() -> None:
    found = hits("IL601", intro() + fence(CLASS_BROWSER))
    assert found and "stamped from" in found[0].message and "skeleton* 1.00" in found[0].message


def test_a_compact_tree_fires_on_nesting() -> None:
    found = hits("IL601", intro() + fence(COMPACT))
    assert found and "nested 4+ deep" in found[0].message


def test_the_yaml_adjacency_of_issue_12_is_rejected() -> None:
    """A 40-node adjacency list, a `calls:` list per node (issue 12, item 6): the
    specific detector names it, and the backstop alone catches it too."""
    nodes = "\n".join(
        f"radon.visitors.Visitor{i}.visit:\n  calls:\n"
        f"  - radon.visitors.Visitor{(i + 1) % 40}.generic_visit\n"
        f"  - radon.metrics.h{i}_visit\n  - ast.iter_child_nodes"
        for i in range(40)
    )
    body = intro("What calls what in radon, 40 nodes.") + fence(nodes, "yaml")
    assert "IL402" in rules(body)
    assert hits("IL601", body)


def test_prose_with_snippets_passes() -> None:
    body = intro() + (PROSE + fence("\n".join(f"x{i} = f(x{i - 1})" for i in range(15)))) * 3
    assert not hits("IL601", body)


def test_a_runbook_full_of_logs_passes() -> None:
    logs = "\n".join(
        f"2024-06-18T01:{i:02d}:02Z INFO  source.fetch name=crm{i} rows={1000 + i} took=1.{i}s"
        for i in range(60)
    )
    assert not hits("IL601", intro("The job normally finishes by 03:30.") + fence(logs))


def test_a_postmortem_with_a_long_stack_trace_passes() -> None:
    frames = "\n".join(
        f"\tat com.acme.catalog.CategoryTree.path(CategoryTree.java:{90 + i % 3})"
        for i in range(60)
    )
    trace = "java.lang.StackOverflowError: null\n" + frames
    assert not hits("IL601", intro("The indexer looped on a cycle.") + fence(trace))


def test_a_list_of_people_is_not_machine_shaped() -> None:
    people = "\n".join(f"* user{i} <user{i}@example.com>" for i in range(60))
    assert not hits("IL601", "# Contributors\n\n" + people + "\n")


def test_a_mostly_prose_document_stops_at_the_gate() -> None:
    doc = document(intro() + PROSE * 10 + fence(DIS))
    assert not machine_shape.could_fire(doc)


def test_template_collapses_runs_of_names() -> None:
    assert machine_shape.template("pkg/mod.py: os, re, sys") == machine_shape.template(
        "pkg/other.py: json"
    )
