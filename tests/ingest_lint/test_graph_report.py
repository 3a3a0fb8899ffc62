"""IL403 graph-report."""

from __future__ import annotations

from mishkan_core.ingest_lint._detectors.graph_report import report_line
from tests.ingest_lint.helpers import PROSE, hits, intro


def test_hub_ranking_fires() -> None:
    ranking = "\n".join(f"  {i}. Handler{i}Factory - {200 - 3 * i} edges" for i in range(1, 31))
    found = hits("IL403", intro("The most connected nodes.") + "```\n" + ranking + "\n```\n")
    assert len(found) == 1
    assert "hub-ranking" in found[0].message


def test_community_report_fires() -> None:
    sections = []
    for i in range(12):
        sections.append(
            f'### Community {i} - "mod{i}"\nCohesion: 0.{i + 10}\n'
            f"Nodes (5): load_{i}(), save_{i}(), Store{i}Base, cache_key_{i}(), _helper_{i}()\n"
        )
    body = (
        intro()
        + "## God Nodes\n"
        + "\n".join(f"{i}. `Core{i}Type` - {90 - i} edges" for i in range(1, 11))
    )
    assert hits("IL403", body + "\n\n" + "\n".join(sections))


def test_report_line_shapes() -> None:
    assert report_line("1. `Flask` - 85 edges")
    assert report_line("- [Signer](Signer.md) — 19 connections")
    assert report_line("Cohesion: 0.07")
    assert report_line("Nodes (4): EnvironBuilder, FlaskClient, FlaskCliRunner, _get_version()")
    assert report_line("- `Flask` --uses--> `EnvironBuilder`  [INFERRED]")
    assert not report_line("1. We decided to keep the ingest store small.")
    assert not report_line("- Upgrade the cluster in three waves.")


def test_retrospective_with_numbered_lists_passes() -> None:
    items = "\n".join(
        f"{i}. The team shipped milestone {i} with {i + 3} contributors." for i in range(1, 15)
    )
    assert not hits("IL403", PROSE + items + "\n" + PROSE)


def test_short_hub_ranking_with_a_sentence_fires() -> None:
    ranking = "\n".join(f"  {i}. Handler{i}Factory - {60 - 3 * i} edges" for i in range(1, 11))
    found = hits("IL403", "Hubs, for orientation.\n\nGod nodes (most connected):\n" + ranking)
    assert len(found) == 1


def test_reverse_call_index_bullets_are_report_lines() -> None:
    assert report_line("- `pkg.sessions.Session.request` (line 500)")
    assert report_line("- `pkg.adapters.send` (adapters.py:634)")
    assert not report_line("- Upgrade the cluster (step 3)")


def test_top_three_in_a_retro_passes() -> None:
    ranking = "\n".join(f"{i}. `Module{i}` - {30 - i} edges" for i in range(1, 4))
    assert not hits("IL403", PROSE + ranking + "\n" + PROSE)
