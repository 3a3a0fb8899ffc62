"""The package's import rules, read from the source with ``ast`` (nothing is imported).

* **The core knows no face.** ``mishkan_core/cli.py`` builds the parsers and
  dispatches; it and the ``__main__`` modules (``python -m mishkan_core.metrics``) are
  the faces. No other module imports them: a command that runs another runs it as a
  user would (:mod:`mishkan_core.child`), never through the parser.
* **Sprint-close builds on metrics, never the reverse.** The sprint report's format is
  metrics' (:mod:`mishkan_core.metrics.sprint_reports`); nothing under
  ``mishkan_core/metrics`` imports ``mishkan_core.sprint_close``.
* **The hook stands alone.** ``graphify_nudge.py`` and its index builder import
  nothing from ``mishkan_core``: they are copied into projects on their own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "mishkan_core"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
FACES = {"mishkan_core.cli"} | {name for name in MODULES if name.endswith("__main__")}


def imports_of(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports, anywhere in it (functions included), resolved to
    the package's modules where it names one (``from mishkan_core import cli`` is
    ``mishkan_core.cli``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
    return found


def test_the_rules_see_what_they_must() -> None:
    """The walk finds the imports the rules are about (a rule over nothing proves nothing)."""
    assert {"mishkan_core.cli", "mishkan_core.__main__", "mishkan_core.metrics.__main__"} <= FACES
    assert "mishkan_core.cli" in imports_of(*_at("mishkan_core.metrics.__main__"))
    assert "mishkan_core.metrics.sprint_reports" in imports_of(*_at("mishkan_core.sprint_close"))
    assert "mishkan_core.metrics.trend" in imports_of(*_at("mishkan_core.metrics.cli"))


def _at(name: str) -> tuple[Path, str]:
    return MODULES[name], name


@pytest.mark.parametrize("name", sorted(set(MODULES) - FACES))
def test_the_core_knows_no_face(name: str) -> None:
    assert not imports_of(*_at(name)) & FACES, f"{name} imports a face"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("mishkan_core.metrics")))
def test_metrics_never_imports_sprint_close(name: str) -> None:
    assert "mishkan_core.sprint_close" not in imports_of(*_at(name))


@pytest.mark.parametrize("hook", ["graphify_nudge.py", "graphify_nudge_index.py"])
def test_the_hook_imports_nothing_of_the_package(hook: str) -> None:
    path = REPO / hook
    imported = imports_of(path, path.stem)
    assert not {m for m in imported if m.split(".")[0] == "mishkan_core"}, imported
