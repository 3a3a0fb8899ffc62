"""IL303 symbol-locations."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def test_markdown_table_of_symbols_and_locations_fires() -> None:
    rows = ["| Symbol | Kind | Location |", "|---|---|---|"]
    rows += [
        f"| `pkg.core.Thing{i}.run` | method | `pkg/core.py:{100 + 7 * i}` |" for i in range(20)
    ]
    found = hits("IL303", intro() + "\n".join(rows) + "\n")
    assert len(found) == 1
    assert "source locations" in found[0].message


def test_callers_listing_fires() -> None:
    rows = [f"- caller_{i}() [calls] app/handlers/h{i % 4}.py:L{30 + i}" for i in range(18)]
    assert hits("IL303", intro("Before touching Session check this list.") + fence("\n".join(rows)))


def test_graph_query_nodes_fire() -> None:
    rows = [f"NODE Flag{i} [src=flags/flag.go loc=L{100 + i} community=Flags]" for i in range(20)]
    assert hits("IL303", intro() + fence("\n".join(rows)))


def test_stack_trace_passes() -> None:
    frames = [
        f"    at com.example.svc.Handler{i}.handle(Handler{i}.java:{40 + i})" for i in range(25)
    ]
    trace = "java.lang.IllegalStateException: pool exhausted\n" + "\n".join(frames)
    assert not hits("IL303", PROSE + fence(trace) + PROSE)


def test_go_panic_passes() -> None:
    frames = []
    for i in range(20):
        frames += [f"main.step{i}(0xc000{i:04x})", f"\t/src/app/step{i}.go:{10 + i} +0x{i + 16:x}"]
    assert not hits(
        "IL303", PROSE + fence("panic: boom\n\ngoroutine 1 [running]:\n" + "\n".join(frames))
    )


def test_a_few_references_in_prose_pass() -> None:
    body = (
        PROSE
        + "The retry loop lives in `svc/retry.py:40` and the budget in `svc/budget.py:12`.\n"
        + PROSE
    )
    assert not hits("IL303", body)


def test_table_with_the_line_in_its_own_column_fires() -> None:
    rows = ["| symbol | kind | file | line |", "| --- | --- | --- | --- |"]
    rows += [f"| `Pool.method_{i}` | method | pkg/pool.py | {40 + 9 * i} |" for i in range(20)]
    assert hits("IL303", intro() + "\n".join(rows) + "\n")


def test_bullets_with_comma_line_n_fire() -> None:
    rows = []
    for i in range(8):
        rows.append(f"- Class{i} (Class) \u2014 pkg/graph{i}.py, line {10 + 30 * i}")
        rows.append(f"  - Class{i}.run \u2014 line {15 + 30 * i}")
    assert hits("IL303", intro() + "\n".join(rows) + "\n")


def test_table_of_options_with_numbers_passes() -> None:
    rows = ["| option | default | notes |", "| --- | --- | --- |"]
    rows += [f"| `retries_{i}` | {i} | how many times to retry the call |" for i in range(20)]
    assert not hits("IL303", PROSE + "\n".join(rows) + "\n" + PROSE)


def test_node_walk_with_line_and_column_fires() -> None:
    # several nodes start on each line: the column tells them apart
    kinds = ("Ident", "CallExpr", "BasicLit")
    rows = [f"pkg/stack.go:{3 + i // 3}:{1 + 4 * (i % 3)}\t*ast.{kinds[i % 3]}" for i in range(30)]
    assert hits("IL303", intro("Go AST walk, for the codemod.") + fence("\n".join(rows)))
