"""IL201 sexp-parse-tree."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _tree(n: int) -> str:
    lines = ["(function_definition [10, 0] - [40, 8]", "  name: (identifier [10, 4] - [10, 9])"]
    for i in range(n):
        row = 11 + i
        lines += [
            f"  (expression_statement [{row}, 4] - [{row}, 20]",
            f"    (call [{row}, 4] - [{row}, 20]",
            f"      function: (identifier [{row}, 4] - [{row}, 9])",
            f"      arguments: (argument_list [{row}, 9] - [{row}, 20])))",
        ]
    return "\n".join(lines) + ")"


def test_tree_sitter_output_fires() -> None:
    found = hits("IL201", intro("Kept so we can write queries later.") + fence(_tree(6), "scheme"))
    assert len(found) == 1
    assert "S-expression" in found[0].message


def test_one_line_form_fires() -> None:
    inner = " ".join(
        "(expression_statement (call function: (identifier) arguments: (argument_list (integer))))"
        for _ in range(12)
    )
    one_line = (
        "(module (function_definition name: (identifier) parameters: (parameters) "
        f"body: (block {inner})))"
    )
    assert hits("IL201", intro() + fence(one_line))


def test_lisp_source_passes() -> None:
    lisp = "\n".join(
        f"(defun handler-{i} (request)\n"
        f"  (let ((body (read-body request)))\n    (respond body {i})))"
        for i in range(10)
    )
    assert not hits("IL201", intro() + fence(lisp, "lisp"))


def test_a_short_query_pattern_in_prose_passes() -> None:
    query = "(function_definition\n  name: (identifier) @name\n  body: (block) @body)"
    assert not hits("IL201", PROSE * 3 + fence(query, "scheme") + PROSE)
