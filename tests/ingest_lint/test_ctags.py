"""IL301 tags-file."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro

NAMES = [
    f"handle_{verb}" for verb in ("get", "put", "post", "patch", "delete", "head", "list", "watch")
]


def test_tab_separated_ctags_fires() -> None:
    rows = [
        f'{name}{i}\tsvc/api.py\t/^def {name}{i}(request):$/;"\tfunction\tline:{10 + i}'
        for i in range(3)
        for name in NAMES
    ]
    found = hits("IL301", intro() + fence("\n".join(rows)))
    assert len(found) == 1
    assert "ctags" in found[0].message


def test_xref_output_fires() -> None:
    rows = [
        f"{name}{i:<12} function {10 + i:>5} svc/api.py  def {name}{i}(request):"
        for i in range(3)
        for name in NAMES
    ]
    assert hits(
        "IL301", intro("Cross-reference so we can jump to definitions.") + fence("\n".join(rows))
    )


def test_etags_fires() -> None:
    rows = ["\x0c", "svc/api.py,900"]
    rows += [
        f"def {name}(request):\x7f{name}\x01{i + 1},{40 * i}" for i, name in enumerate(NAMES * 3)
    ]
    assert hits("IL301", intro() + fence("\n".join(rows)))


def test_tab_separated_data_table_passes() -> None:
    rows = [f"2024-05-{d:02d}\t{d * 3}\tok" for d in range(1, 25)]
    assert not hits("IL301", PROSE + fence("\n".join(rows), "tsv"))
