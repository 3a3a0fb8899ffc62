"""The four formats render the same figures; the example fixture's report."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mishkan_core.metrics import fmt_markdown
from mishkan_core.metrics import report as report_mod
from tests.metrics.helpers import Telemetry, cli, report

EXAMPLE = Path(__file__).parent / "fixtures" / "telemetry-example"

TOP_KEYS = {
    "nudge_respect_ratio",
    "pre_read_consultation_rate",
    "triggers",
    "nudges",
    "lookups",
    "opt_outs",
    "self_disables",
    "sessions",
    "sessions_off",
    "fresh",
    "stale",
    "absent",
}


class Figures(HTMLParser):
    """Collects (scope, metric) -> (data-value, visible text) from a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[tuple[str, str], tuple[Any, str]] = {}
        self._open: list[tuple[str, tuple[str, str], Any, list[str]]] = []
        self.tags: set[str] = set()
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        a = dict(attrs)
        for name in ("src", "href"):
            if a.get(name):
                self.external.append(str(a[name]))
        if "data-metric" in a:
            key = (str(a["data-scope"]), str(a["data-metric"]))
            self._open.append((tag, key, json.loads(str(a["data-value"])), []))

    def handle_data(self, data: str) -> None:
        for _, _, _, text in self._open:
            text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, key, value, text = self._open.pop()
            self.found[key] = (value, "".join(text).strip())


def page_figures(html: str) -> Figures:
    parser = Figures()
    parser.feed(html)
    parser.close()
    return parser


def expected_figures(data: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """Every figure the page must show, keyed like the page's data attributes."""
    want: dict[tuple[str, str], Any] = {("total", "phase"): data["phase"]}
    ratios = ("nudge_respect_ratio", "pre_read_consultation_rate")
    for key in (*ratios, "answered_share", "sessions", "sessions_off", "self_disables",
                "triggers", "triggers_consulted", "nudges", "nudges_respected",
                "nudges_answered", "triggers_served", "lookups", "opt_outs", "fresh", "stale",
                "absent", "triggers_outside_graph", "slow_calls", "lookups_failed"):  # fmt: skip
        want[("total", key)] = data[key]
    columns = (*ratios, "triggers", "nudges", "lookups", "opt_outs", "fresh", "stale", "absent")
    for prefix, rows in (("agent", data["per_agent"]), ("session", data["per_session"])):
        for name, fig in rows.items():
            for key in columns:
                want[(f"{prefix}:{name}", key)] = fig[key]
    for key, value in data["data_quality"].items():
        want[("quality", key)] = value
    return want


def shown(key: str, value: Any) -> str:
    if key in ("nudge_respect_ratio", "pre_read_consultation_rate", "answered_share"):
        return report_mod.pct(value)
    return "?" if value is None else str(value)


def assert_page_equals_json(html: str, data: dict[str, Any]) -> None:
    page = page_figures(html)
    want = expected_figures(data)
    assert set(page.found) == set(want)
    for key, value in want.items():
        got_value, got_text = page.found[key]
        assert got_value == value, key
        assert got_text == shown(key[1], value), key


def test_json_has_the_issue_keys_everywhere() -> None:
    data = report("--telemetry-dir", str(EXAMPLE))
    assert set(data) >= TOP_KEYS | {"per_agent", "per_session", "verdict", "data_quality"}
    for fig in (*data["per_agent"].values(), *data["per_session"].values()):
        assert set(fig) >= TOP_KEYS


def test_the_example_fixture(tmp_path: Path) -> None:
    data = report("--telemetry-dir", str(EXAMPLE), "--sprint", "2026-W49")
    assert data["sprint"] == "2026-W49"
    assert (data["nudges_respected"], data["nudges"]) == (5, 8)
    assert (data["triggers_consulted"], data["triggers"]) == (9, 11)
    assert data["verdict"] == [
        "phase 2: target met, pre-Read consultation rate 81.8% >= 80%",
        "hook off in 1 session: sprint-49-debug-off",
    ]
    assert data["data_quality"]["torn"] == 1  # the hand-appended torn line


def test_text_and_markdown_show_the_same_figures() -> None:
    data = report("--telemetry-dir", str(EXAMPLE))
    code, text, _ = cli("--telemetry-dir", str(EXAMPLE))
    assert code == 0
    assert "nudge-respect ratio:         62.5% (5/8)" in text
    assert "pre-Read consultation rate:  81.8% (9/11)" in text
    for line in data["verdict"]:
        assert f"  {line}\n" in text
    assert "sprint-49-debug-off (off)" in text
    code, md, _ = cli("--telemetry-dir", str(EXAMPLE), "--format", "markdown")
    assert code == 0
    assert "| nudge-respect ratio | 62.5% (5/8) |" in md
    assert "| `salma` | 33.3% | 66.7% | 3 | 3 | 2 | 0 | 3 | 0 | 0 |" in md


def test_html_is_self_contained_and_equals_the_json() -> None:
    data = report("--telemetry-dir", str(EXAMPLE))
    code, html, _ = cli("--telemetry-dir", str(EXAMPLE), "--format", "html")
    assert code == 0
    page = page_figures(html)
    assert "script" not in page.tags and page.external == []
    assert "svg" in page.tags and "http://" not in html.replace('xmlns="http://www.w3.org', "")
    assert_page_equals_json(html, data)


def test_hostile_session_names_are_escaped(tmp_path: Path) -> None:
    t = Telemetry(tmp_path / "t")
    evil = '<script>alert(1)</script>"&'
    t.start(evil, mode="off")
    t.trigger("ok", "salma")
    code, html, _ = cli("--telemetry-dir", str(t.dir), "--format", "html")
    assert code == 0 and "<script>" not in html
    data = report("--telemetry-dir", str(t.dir))
    assert_page_equals_json(html, data)
    code, md, _ = cli("--telemetry-dir", str(t.dir), "--format", "markdown")
    assert code == 0 and '`<script>alert(1)</script>"&` (off)' in md


def test_transcript_report_renders_unknowns() -> None:
    sample = Path(__file__).parent / "fixtures" / "cc-2.1.197-transcripts"
    code, text, err = cli("--from-transcripts", str(sample))
    assert code == 0, err
    assert "graph fresh ?, stale ?, absent ?" in text
    code, html, _ = cli("--from-transcripts", str(sample), "--format", "html")
    assert code == 0
    assert_page_equals_json(html, report("--from-transcripts", str(sample)))


def test_json_is_json_proper_even_if_a_time_were_not_finite() -> None:
    """Issue 11 item 14: NaN and Infinity are not JSON. The readers refuse them
    (tests/metrics/test_telemetry_input.py); the report removes any that got
    past, and the renderer would refuse rather than print one."""
    from mishkan_core.metrics import fmt_json
    from mishkan_core.metrics.aggregate import Aggregator

    agg = Aggregator()
    agg.feed({"event": "session_start", "session": "s", "ts": float("nan"), "mode": "advise"})
    agg.feed({"event": "session_start", "session": "t", "ts": float("inf"), "mode": "advise"})
    built = report_mod.build(agg, source="telemetry", input_path="x", sprint=None, since=None,
                             until=None, quality={})  # fmt: skip
    text = fmt_json.render(built)

    def refuse(name: str) -> None:
        raise AssertionError(name)

    data = json.loads(text, parse_constant=refuse)
    assert data["per_session"]["t"]["first_ts"] is None


# -- repository names in Markdown are plain text ------------------------------------

_HTML_START = re.compile(r"(?<!\\)<[A-Za-z/!?]")  # a tag, comment or autolink
_ENTITY = re.compile(r"(?<!\\)&(#|[A-Za-z][A-Za-z0-9]*;)")


@given(st.text(max_size=40) | st.sampled_from(
    ["<img src=x onerror=alert(1)>", "[a](https://evil)", "![t](https://evil/p.png)",
     "<!-- x -->", "&lt;b&gt;", "<https://evil>", "a\\|b", "`x`", "~~s~~ **b**"]))  # fmt: skip
def test_a_markdown_cell_holds_no_markup(text: str) -> None:
    """cell(): one printable line in which Markdown finds no tag, entity, link,
    code span, emphasis or cell boundary (each such character escaped)."""
    shown = fmt_markdown.cell(text)
    assert "\n" not in shown and _HTML_START.search(shown) is None
    assert _ENTITY.search(shown) is None
    unescaped = re.sub(r"\\.", "", shown)  # what is left once every escape is taken out
    assert not set(unescaped) & set("[]|`*~\\")
    assert re.sub(r"\\(.)", r"\1", shown) == fmt_markdown.one_line(text)  # renders as written
