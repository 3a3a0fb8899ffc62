"""The shape model's properties (``_properties.py``): each fires on its class of
machine output and stays quiet on prose, people and hand-written examples."""

from __future__ import annotations

from mishkan_core.ingest_lint._properties import Properties, skeleton_of

STRUCT = [
    f"\t{kind:<26} {name};{' ' * (40 - len(name))}/* {8 * i:5d} {size:5d} */"
    for i, (kind, name, size) in enumerate(
        [("const uint8_t *", "next_in", 8), ("size_t", "avail_in", 8), ("uint64_t", "total_in", 8)]
        * 5
    )
]
TREE = ["app@1.0.0"] + [
    f"{'│ ' * (i % 3)}{'├──' if i % 4 else '└─┬'} pkg-{i}@{i}.0.{i % 7}" for i in range(30)
]
MINIFIED = [
    "var e=require('events');function t(n,r){if(!(this instanceof t))return new t(n,r);"
    + "this.q=n||{};this.r=r;for(var i=0;i<n.length;i++){e.call(this,n[i],r&&r[i])}}" * 6
] * 4
PROSE = [
    "We chose the queue because the team already runs it and the failure modes are known.",
    "The second option was cheaper, but it would have needed a new on-call rotation.",
] * 10
PEOPLE = [f"* Person Number{i} <person{i}@example.com>" for i in range(40)]


def test_a_struct_layout_fires_on_columns_and_names_code() -> None:
    props = Properties(STRUCT)
    assert "columns" in props.regular() and props.machine_output(), props.describe()


def test_a_box_drawing_tree_fires_on_tree() -> None:
    props = Properties(TREE)
    assert "tree" in props.regular() and props.machine_output(), props.describe()


def test_minified_lines_fire_on_compact() -> None:
    props = Properties(MINIFIED)
    assert "compact" in props.regular() and props.machine_output(), props.describe()


def test_prose_fires_nothing() -> None:
    props = Properties(PROSE)
    assert not props.regular() and not props.machine_output(), props.describe()


def test_a_list_of_people_repeats_a_skeleton_but_is_not_machine_output() -> None:
    props = Properties(PEOPLE)
    assert props.regular() == ["skeleton"] and not props.machine_output(), props.describe()


def test_edges_in_words_are_measured() -> None:
    lines = [
        f"- `mod.f{i}()` calls `mod.g{i}()`; `mod.g{i}()` in turn calls `h()`." for i in range(20)
    ]
    assert Properties(lines).edges == 1.0


def test_describe_marks_what_fired() -> None:
    text = Properties(TREE).describe(0.04)
    assert text.startswith("prose 4%; ") and "tree* " in text and "compact 0.00" in text


def test_the_skeleton_collapses_names_and_numbers() -> None:
    assert skeleton_of("  foo.bar(12, 'x')") == skeleton_of("baz.qux(7, 'long string')")


def test_the_properties_cost_the_same_on_any_size() -> None:
    """The shape model reads a spread sample of lines cut at LONG characters: its
    Python-level work does not grow with long lines, many lines or repeated characters
    (counted in line events, not timed)."""
    import sys

    def events(listing: list[str]) -> int:
        count = 0

        def local(frame: object, event: str, arg: object) -> object:
            nonlocal count
            count += event == "line"
            return local

        sys.settrace(lambda frame, event, arg: local)  # type: ignore[arg-type,return-value]
        try:
            Properties(listing).describe(0.5)
        finally:
            sys.settrace(None)
        return count

    for unit in ("a", "  ", "a.b(", "├── x@1", "\t"):
        assert events([unit * 20_000]) <= 1.2 * events([unit * 2_000]) + 50
        assert events([unit * 8] * 40_000) <= 1.2 * events([unit * 8] * 4_000) + 50
