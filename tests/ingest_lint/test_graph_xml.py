"""IL105 graph-xml."""

from __future__ import annotations

from tests.ingest_lint.helpers import PROSE, fence, hits, intro


def _graphml(n: int) -> str:
    out = [
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
        '  <graph edgedefault="directed">',
    ]
    for i in range(n):
        out += [f'    <node id="mod_f{i}">', f'      <data key="d0">f{i}()</data>', "    </node>"]
    for i in range(n - 1):
        out.append(f'    <edge source="mod_f{i}" target="mod_f{i + 1}"/>')
    return "\n".join([*out, "  </graph>", "</graphml>"])


def test_graphml_fires() -> None:
    found = hits("IL105", intro("Open in yEd.") + fence(_graphml(12), "xml"))
    assert len(found) == 1
    assert "node" in found[0].message


def test_tiny_graphml_example_passes() -> None:
    assert not hits("IL105", PROSE * 6 + fence(_graphml(3), "xml") + PROSE * 6)


def test_other_xml_passes() -> None:
    pom = "\n".join(f"<dependency><artifactId>lib{i}</artifactId></dependency>" for i in range(30))
    assert not hits("IL105", PROSE + fence(pom, "xml"))
