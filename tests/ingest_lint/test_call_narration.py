"""IL404 call-narration."""

from __future__ import annotations

from mishkan_core.ingest_lint._detectors import get
from tests.ingest_lint.helpers import PROSE, document, hits, intro


def _paragraph(i: int) -> str:
    return (
        f"`core.Runner.step_{i}` (pkg/core.py:{100 + i}) calls `core.Store.load_{i}`, "
        f"`util.retry_{i}`. It is reached from `core.Runner.run`.\n\n"
    )


def test_narrated_call_graph_fires() -> None:
    body = intro("A walk through the call structure.") + "".join(_paragraph(i) for i in range(14))
    found = hits("IL404", body)
    assert len(found) == 1
    assert "paragraphs" in found[0].message


def test_narration_fires_in_the_engine_too() -> None:
    # the engine may report it as a symbol-location listing first; either way it is rejected
    body = intro() + "".join(_paragraph(i) for i in range(14))
    doc = document(body)
    assert list(get("IL404").check(doc))


def test_design_doc_that_mentions_symbols_passes() -> None:
    para = (
        "The `Session.send` method already retries idempotent requests, so the new budget lives in "
        "`RetryPolicy` rather than in the adapter; see the discussion in the previous section.\n\n"
    )
    assert not hits("IL404", PROSE + para * 12)
