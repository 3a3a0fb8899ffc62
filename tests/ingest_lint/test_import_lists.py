"""IL402 import-lists."""

from __future__ import annotations

import json

from mishkan_core.ingest_lint._detectors.import_lists import dependency_lists, list_line
from tests.ingest_lint.helpers import PROSE, fence, hits, intro

MODULES = [f"app.{name}" for name in ("api", "models", "views", "store", "cli", "auth")]


def test_yaml_imports_per_module_fire() -> None:
    body = "\n".join(f"{m}:\n" + "\n".join(f"  - lib{j}.sub{j}" for j in range(6)) for m in MODULES)
    found = hits("IL402", intro() + fence(body, "yaml"))
    assert len(found) == 1
    assert "dependency" in found[0].message


def test_json_adjacency_map_fires() -> None:
    deps = {
        m: {"imports": [x for x in MODULES if x != m], "imported_by": MODULES[:2]} for m in MODULES
    }
    assert hits("IL402", intro() + fence(json.dumps(deps, indent=4), "json"))


def test_record_list_adjacency_fires() -> None:
    records = [
        {"source": f"src/m{i}.js", "dependencies": [{"resolved": f"src/m{j}.js"} for j in range(5)]}
        for i in range(8)
    ]
    modules, deps = dependency_lists(records)
    assert (modules, deps) == (8, 40)
    assert hits("IL402", intro() + fence(json.dumps(records, indent=2), "json"))


def test_grouped_text_listing_fires() -> None:
    body = "\n".join(
        f"lib/{m}.js\n" + "\n".join(f"  -> dep-{j}" for j in range(6)) for m in MODULES
    )
    assert hits("IL402", intro() + fence(body))


def test_dependency_tree_fires() -> None:
    rows = (
        ["app v0.1.0"]
        + [f"├── crate{i} v1.{i}.0" for i in range(15)]
        + [f"│   └── sub{i} v0.{i}.2" for i in range(15)]
    )
    assert hits("IL402", intro() + fence("\n".join(rows)))


def test_import_run_fires() -> None:
    imports = "\n".join(f"from app.pkg{i} import thing{i}" for i in range(30))
    assert hits("IL402", intro() + fence(imports, "python"))


def test_directory_layout_and_short_requirements_pass() -> None:
    layout = "src/\n  api/\n  models/\n  views/\ntests/\n  unit/\n  e2e/\n"
    requirements = "\n".join(f"lib{i}==1.{i}" for i in range(8))
    assert not hits("IL402", PROSE + fence(layout) + fence(requirements, "text") + PROSE)


MODS = [f"app/{name}.py" for name in ("api", "auth", "cli", "db", "jobs", "mail", "models")]
MODS += [f"app/{name}.py" for name in ("search", "store", "sync", "views", "util", "web", "x")]


def test_one_line_per_module_fires() -> None:
    rows = "\n".join(f"- {m}: os, re, app.db, app.models.user" for m in MODS)
    found = hits("IL402", intro("For context, the import lists:") + rows + "\n")
    assert len(found) == 1
    assert "per-module" in found[0].message


def test_one_line_per_module_as_table_or_arrows_fires() -> None:
    table = "| module | imports |\n|---|---|\n" + "\n".join(f"| {m} | os, app.db |" for m in MODS)
    arrows = "\n".join(f"{m} -> ., ../util, .models" for m in MODS)
    assert hits("IL402", intro() + table + "\n")
    assert hits("IL402", intro() + fence(arrows))


def test_list_line_shapes() -> None:
    assert list_line("- json/decoder.py: re, json, _json")
    assert list_line("pkg/cache.py: gc hashlib logging os")
    assert list_line("| pkg/algorithms/a.py | itertools, pkg.utils |")
    assert list_line("- `github.com/a/b/dce.go` \u2192 fmt")
    assert list_line("pkg.pool.Pool.__init__ (line 82) calls: a, b.c, d()")
    assert not list_line("lib/fs.js: fix the bug in the reader")
    assert not list_line("- **fs**: fix readFile")
    assert not list_line("- Platforms: Linux, macOS, Windows")
    assert not list_line("config.yaml: required")


def test_changelog_of_file_changes_passes() -> None:
    rows = "\n".join(f"- {m}: clarify the behaviour of the option when it is missing" for m in MODS)
    assert not hits("IL402", PROSE + rows + "\n" + PROSE)


def test_module_map_with_relative_requires_fires() -> None:
    deps = {
        f"lib/{name}.js": ["../package.json", "./", f"../internal/{name}", "."]
        for name in ("cmp", "parse", "range", "semver", "clean", "diff", "inc", "major", "valid")
    }
    modules, entries = dependency_lists(deps)
    assert (modules, entries) == (9, 36)
    assert hits("IL402", intro() + fence(json.dumps(deps, indent=2), "json"))


def test_pyan_style_uses_listing_fires() -> None:
    groups = [
        f"Loader{i}.load\n    [U] Reader{i}.read\n    [U] Scanner.scan\n    [D] Loader{i}._cache"
        for i in range(10)
    ]
    assert hits("IL402", intro("Who uses what, from pyan:") + fence("\n".join(groups)))
