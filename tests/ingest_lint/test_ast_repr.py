"""IL202 ast-repr."""

from __future__ import annotations

import ast

from mishkan_core.ingest_lint._detectors.ast_repr import constructor_tree
from tests.ingest_lint.helpers import PROSE, fence, hits, intro

SOURCE = """
class Registry(dict):
    def __init__(self, name, *, strict=False):
        super().__init__()
        self.name = name
        self.strict = strict

    def register(self, key, value):
        if self.strict and key in self:
            raise KeyError(key)
        self[key] = value
        return value
"""


def test_indented_ast_dump_fires() -> None:
    dumped = ast.dump(ast.parse(SOURCE).body[0], indent=2)
    found = hits("IL202", intro("Output of ast.dump, for the codemod.") + fence(dumped, "python"))
    assert len(found) == 1
    assert "printed node tree" in found[0].message


def test_compact_one_statement_per_line_dump_fires() -> None:
    tree = ast.parse(SOURCE * 3)
    compact = "\n".join(ast.dump(node) for node in ast.walk(tree) if isinstance(node, ast.stmt))
    assert hits("IL202", intro() + fence(compact))


def test_libcst_like_repr_fires() -> None:
    params = "\n".join(
        f"    Param(\n        name=Name(\n            value='arg{i}',\n"
        "            lpar=[],\n            rpar=[],\n"
        "        ),\n        annotation=None,\n        star='',\n    ),"
        for i in range(12)
    )
    assert hits("IL202", intro() + fence(f"Parameters(\n  params=[\n{params}\n  ],\n)"))


def test_clang_ast_dump_fires() -> None:
    lines = ["TranslationUnitDecl 0x55d0c8a1e008 <<invalid sloc>> <invalid sloc>"]
    for i in range(25):
        lines.append(
            f"|-FunctionDecl 0x55d0c8b{i:05x} <line:{i + 3}:1, col:20> col:6 f{i} 'int (int)'"
        )
        lines.append(f"| `-ParmVarDecl 0x55d0c8c{i:05x} <col:12, col:16> col:16 x 'int'")
    assert hits("IL202", intro() + fence("\n".join(lines)))


def test_go_ast_print_fires() -> None:
    lines = ["     0  *ast.File {"]
    for i in range(1, 40, 4):
        lines.append(f"{i:6d}  .  Decl: *ast.Ident {{")
        lines.append(f"{i + 1:6d}  .  .  NamePos: foo.go:{i}:6")
        lines.append(f'{i + 2:6d}  .  .  Name: "ident{i}"')
        lines.append(f"{i + 3:6d}  .  }}")
    assert hits("IL202", intro() + fence("\n".join(lines)))


def test_exact_check_recognises_constructor_trees() -> None:
    dumped = ast.dump(ast.parse(SOURCE), indent=1)
    found = constructor_tree(dumped)
    assert found is not None
    calls, depth = found
    assert calls >= 20
    assert depth >= 3
    assert constructor_tree(SOURCE) is None  # real source is not a constructor tree


def test_python_source_passes() -> None:
    assert not hits("IL202", PROSE + fence(SOURCE * 3, "python"))


def test_a_small_dataclass_example_passes() -> None:
    example = "config = Config(\n    name='svc',\n    retries=Retry(total=3, backoff=0.5),\n)"
    assert not hits("IL202", PROSE * 3 + fence(example, "python"))


def test_one_statement_per_very_long_line_fires() -> None:
    statements = ast.parse(SOURCE * 2).body
    compact = "\n".join(ast.dump(node) for node in statements)
    found = hits("IL202", intro("ASTs of the registry.") + fence(compact))
    assert len(found) == 1
    assert "compact" in found[0].message


def test_one_function_on_one_line_fires() -> None:
    compact = ast.dump(ast.parse(SOURCE).body[0])
    assert hits("IL202", "# Registry AST\n\nKept for the codemod.\n\n" + fence(compact))


def test_prose_with_parentheses_passes() -> None:
    line = (
        "We (the platform team) decided (after the review) to keep f(x=1) and g(y=2) as they "
        "are (see the RFC), because changing Parser(strict=True) breaks callers (all of them).\n"
    )
    assert not hits("IL202", PROSE + line * 10 + PROSE)
