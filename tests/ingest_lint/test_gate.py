"""The shape model's gate (``_gate.py``): a document it finds plainly prose skips the
detectors, so it must be one no detector would report. Checked on every labelled
document (the shared corpus when present, the wider corpus, the fixtures), whole and
in parts."""

from __future__ import annotations

from mishkan_core.ingest_lint._engine import lint_text
from tests.ingest_lint.corpus import (
    REPO,
    corpus_dir,
    seed_documents,
    seeds_dir,
    shape_documents,
    shared_documents,
    wide_documents,
)
from tests.ingest_lint.test_shape_fixtures import EXPECTED

FRONT = "---\nmishkan: ingest\nkind: adr\n---\n"


def _texts() -> list[tuple[str, str]]:
    # (the first-contact splits joined once they had been scored)
    docs = wide_documents() + shape_documents(EXPECTED)
    if (corpus_dir() / "LABELS.tsv").is_file():
        docs += shared_documents(corpus_dir())
    texts = [(d.name, d.path.read_text(encoding="utf-8")) for d in docs]
    for seed in sorted(seeds_dir().glob("*.txt")):
        texts += [(name, FRONT + text) for name, text in seed_documents(seed)]
    texts += [
        (path.name, path.read_text(encoding="utf-8"))
        for path in sorted((REPO / "docs").glob("*.md"))
    ]
    return texts


def _parts(text: str) -> list[str]:
    """The document, and its body cut in quarters (each behind the front matter)."""
    head, sep, body = text.partition("\n---\n")
    if not sep:
        return [text]
    lines = body.split("\n")
    quarter = max(1, len(lines) // 4)
    return [text] + [
        head + sep + "\n".join(lines[i : i + quarter]) for i in range(0, len(lines), quarter)
    ]


def test_the_gate_hides_no_finding() -> None:
    hidden = []
    passed = 0
    for name, text in _texts():
        for k, part in enumerate(_parts(text)):
            gated = lint_text(name, part, include_all=True)
            if gated.findings:
                continue
            full = lint_text(name, part, include_all=True, gate=False)
            if full.findings != gated.findings:
                hidden.append(f"{name} part {k}: {[f.rule for f in full.findings]}")
            passed += 1
    assert not hidden, hidden
    assert passed > 100


def test_a_prose_adr_is_accepted_without_loading_the_detectors() -> None:
    import subprocess
    import sys

    # -I -S: no site, so no editable-install finder (which imports re) stands in the way
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from mishkan_core.ingest_lint._engine import lint_text\n"
        "r = lint_text('a.md', sys.argv[1])\n"
        "print(r.artifact, r.rejected, 're' in sys.modules,"
        " any(m.startswith('mishkan_core.ingest_lint._detectors') for m in sys.modules))\n"
    )
    text = (
        FRONT + "# Keep it small\n\nWe decided to keep the store small because it is read often.\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, text],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert done.stdout.split() == ["True", "False", "False", "False"], done.stdout + done.stderr
