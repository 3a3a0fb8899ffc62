"""Issue 23: advice that holds in every language graphify reads.

The fixture is a real graphify 0.9.96 graph (tests/hook/data/polyglot.graph.json,
`graphify extract . --code-only` of tests/hook/data/polyglot; the e2e run
rebuilds it with real graphify, checks it is unchanged, and resolves every
explain argument of its index with graphify itself). It holds the shapes that
misled the advice on Go, Rust, Ruby, PHP and JavaScript projects: a Rust
struct whose trait impls live in other files, a Go type with a method in a
test file (graphify makes a node of the receiver there), names that differ
only in case, Ruby's qualified class labels and `?`/`!` methods, a PHP
constructor and property, and a Go file from which graphify extracted nothing.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

import graphify_nudge
import graphify_nudge_index
from graphify_nudge_index import build_graph_index
from tests.hook.conftest import Hook, context_of, git

DATA = Path(__file__).resolve().parent / "data"
FLAG = " --graph '.graphify/graph.json'"


@pytest.fixture
def poly(tmp_path: Path) -> Hook:
    repo = tmp_path / "polyglot"
    shutil.copytree(DATA / "polyglot", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    graph = json.loads((DATA / "polyglot.graph.json").read_text())
    graph["built_at_commit"] = git(repo, "rev-parse", "HEAD")
    (repo / ".graphify").mkdir()
    (repo / ".graphify" / "graph.json").write_text(json.dumps(graph, separators=(",", ":")))
    hook = Hook(repo, tmp_path / "telemetry")
    hook.auto_index = False
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "100"
    assert build_graph_index(hook.environ(), str(repo)) == "built"
    return hook


def grep(hook: Hook, pattern: str) -> str:
    """The advisory for a Grep, in a session of its own (each target is advised once a session)."""
    tool_input = {"pattern": pattern, "path": str(hook.repo)}
    return context_of(hook.call("Grep", tool_input, session_id=str(uuid.uuid4())))


def bash(hook: Hook, command: str) -> str:
    tool_input = {"command": command, "description": "search"}
    return context_of(hook.call("Bash", tool_input, session_id=str(uuid.uuid4())))


def commands(text: str) -> list[str]:
    return text.split("`")[1::2]


def definition_sites(text: str) -> list[str]:
    """The "path:line" of each `Definition` line (docs/hook.md, the format)."""
    return [line.split('"')[1] for line in text.split("\n") if line.startswith("Definition")]


def one_definition(text: str, name: str, site: str) -> bool:
    """The answer of kind A: `name` as searched, defined once, at `site`."""
    return f'holds one definition of "{name}";' in text and definition_sites(text) == [site]


def silent(hook: Hook, pattern: str) -> bool:
    """The Grep for `pattern` gets no advisory, because the graph holds nothing for it."""
    session = str(uuid.uuid4())
    out = hook.call("Grep", {"pattern": pattern, "path": str(hook.repo)}, session_id=session)
    call = hook.calls(session)[-1]
    return out == "" and (call["decision"], call["reason"]) == ("silent", "not_in_graph")


# -- definitions, per language ---------------------------------------------------


def test_rust_impl_blocks_in_other_files_are_not_definitions(poly: Hook) -> None:
    """`impl Display for Version` (display.rs) and `impl FromStr for Version`
    (parse.rs) are graphify nodes labelled `Version`; the struct is defined once."""
    text = grep(poly, "Version")
    assert one_definition(text, "Version", "rust/src/lib.rs:6")  # not display.rs, parse.rs
    # those files import it: its uses
    assert '"rust/src/display.rs:1" in "display.rs" (imports_from, EXTRACTED)' in text
    assert commands(text) == ["graphify explain 'rust/src/lib.rs::Version'" + FLAG]


def test_rust_methods_and_variants_are_scoped_by_their_type(poly: Hook) -> None:
    assert one_definition(grep(poly, "Version::parse"), "Version::parse", "rust/src/lib.rs:21")
    assert one_definition(grep(poly, "Version.fmt"), "Version.fmt", "rust/src/display.rs:5")
    assert one_definition(grep(poly, "Op::Exact"), "Op::Exact", "rust/src/lib.rs:12")
    assert silent(poly, "Op::parse")


def test_a_go_receiver_in_a_test_file_is_not_a_second_definition(poly: Hook) -> None:
    """`func (w *Widget) String()` in widget_test.go makes graphify add a node
    `Widget` there; the type is declared once, in widget.go."""
    text = grep(poly, "Widget")
    assert "widget/widget.go:4" in text
    assert "widget_test.go" not in text
    assert 'defines "Widget" in 3 places' in text  # Go, JavaScript and Ruby's Shop::Widget


def test_go_method_searches_name_the_receiver_type(poly: Hook) -> None:
    for command in (
        "rg -n 'func \\(w \\*Widget\\) Render'",
        "grep -rn 'func (w \\*Widget) Render' .",
        "git grep -n 'func (w *Widget) Render('",
    ):
        text = bash(poly, command)
        assert one_definition(text, "Widget.Render", "widget/widget.go:9"), command
    # the probe's Render is the other one; graphify's package scope is the directory
    assert "widget/widget.go:9" in grep(poly, "widget.Render")
    assert 'defines "Render" in 2 places' in grep(poly, "Render")


def test_case_is_respected(poly: Hook) -> None:
    """The class `Widget` is not the Ruby method `widget` (nor the reverse)."""
    assert "shop/lib/shop/cart.rb:18" not in grep(poly, "Widget")
    text = grep(poly, "widget")
    assert one_definition(text, "widget", "shop/lib/shop/cart.rb:18")
    assert silent(poly, "WIDGET")


def test_ruby_qualified_names_and_identifier_shapes(poly: Hook) -> None:
    assert 'holds one definition of "Cart": "shop/lib/shop/cart.rb:2"' not in grep(poly, "Cart")
    assert one_definition(grep(poly, "Shop::Cart"), "Shop::Cart", "shop/lib/shop/cart.rb:2")
    assert one_definition(grep(poly, "Helpers"), "Helpers", "shop/lib/shop/helpers.rb:2")
    assert one_definition(
        grep(poly, "Shop::Helpers"), "Shop::Helpers", "shop/lib/shop/helpers.rb:2"
    )
    assert one_definition(grep(poly, "save!"), "save!", "shop/lib/shop/cart.rb:13")
    for pattern in ("empty?", "empty\\?", "def empty\\?"):
        text = grep(poly, pattern)
        assert 'defines "empty?" in 2 places' in text, pattern
    assert one_definition(grep(poly, "Cart#empty?"), "Cart#empty?", "shop/lib/shop/cart.rb:9")
    assert one_definition(
        bash(poly, "rg -F 'Cart.empty?'"), "Cart.empty?", "shop/lib/shop/cart.rb:9"
    )
    assert "cart.rb:9" in bash(poly, "grep -rn 'empty?' shop")
    # `attr_reader :items` is no node in graphify's graph: silence, not a guess
    assert silent(poly, "items")


def test_php_shapes(poly: Hook) -> None:
    assert one_definition(grep(poly, "__construct"), "__construct", "php/Cart.php:9")
    assert one_definition(grep(poly, "Cart::getItems"), "Cart::getItems", "php/Cart.php:14")
    assert one_definition(grep(poly, "Cart::empty"), "Cart::empty", "php/Cart.php:19")
    assert silent(poly, "\\$items")  # properties are no nodes


def test_javascript_constructor_is_scoped_by_its_class(poly: Hook) -> None:
    assert one_definition(
        grep(poly, "Widget.constructor"), "Widget.constructor", "js/lib/widget.js:4"
    )


def test_an_accessor_is_a_property_graphify_cannot_answer_for(poly: Hook) -> None:
    """`get title()` is a method node to graphify; interfaces and types that
    declare the property `title` are no nodes at all: silence, not one of them."""
    assert silent(poly, "title")
    assert one_definition(grep(poly, "render"), "render", "js/lib/widget.js:8")


def test_a_file_graphify_extracted_nothing_from_is_silent(poly: Hook) -> None:
    assert poly.call("Read", {"file_path": str(poly.repo / "widget/doc.go")}) == ""
    call = poly.calls()[-1]
    assert (call["decision"], call["reason"]) == ("silent", "not_in_graph")
    text = context_of(poly.call("Read", {"file_path": str(poly.repo / "widget/widget.go")}))
    assert commands(text) == ["graphify explain 'widget/widget.go'" + FLAG]


# -- the trigger's identifier shapes ------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        ("empty?", ("empty?", "")),
        ("empty\\?", ("empty?", "")),
        ("save!", ("save!", "")),
        ("def valid\\?", ("valid?", "")),
        ("Mash#key?", ("key?", "Mash")),
        ("\\$stream", ("$stream", "")),
        ("Hashie::Extensions::DeepMerge", ("DeepMerge", "Hashie.Extensions")),
        ("func \\(c \\*Command\\) Execute", ("Execute", "Command")),
        ("func (c *Command) Execute(", ("Execute", "Command")),
        ("func \\(b Box\\[T\\]\\) Get", ("Get", "Box")),
        ("func\\s+\\(c\\s+\\*Command\\)\\s+Execute", ("Execute", "Command")),
        ("pub fn new", ("new", "")),
        ("a?.b", None),  # JS optional chaining, not a qualified name
        ("colou?r", None),
        ("func (c *Command)", None),
        ("?", None),
    ],
)
def test_search_symbol_shapes(pattern: str, found: tuple[str, str] | None) -> None:
    assert graphify_nudge.search_symbol(pattern) == found


def test_the_index_keys_names_as_written() -> None:
    graph = str(DATA / "polyglot.graph.json")
    nodes, links, _ = graphify_nudge_index._load_graph(graph)
    lines = graphify_nudge_index._index_lines(nodes, links, graph, root=str(DATA / "polyglot"))
    keys = {line.split(b"\t")[1].decode() for line in lines if line.startswith(b"s\t")}
    assert {"Widget", "widget", "empty?", "save!", "Shop", "Cart", "__construct"} <= keys
    assert not {k for k in keys if "::" in k or k != k.strip()}
    files = {line.split(b"\t")[1].decode() for line in lines if line.startswith(b"f\t")}
    assert "widget/doc.go" not in files and "widget/widget.go" in files


def test_a_method_whose_edge_graphify_dropped_is_scoped_by_its_id(tmp_path: Path) -> None:
    """cobra 1.6.1: 36 methods of `Command` in other files have no `method`
    edge; their ids (`cobra_command_getcompletions`) still name the owner,
    whose own id collided with a file's and got the path in front."""
    nodes = [
        {"id": "command_go_cobra_command", "label": "Command", "file_type": "code",
         "source_file": "command.go", "source_location": "L48"},
        {"id": "completions", "label": "completions.go", "file_type": "code",
         "source_file": "completions.go", "source_location": "L1"},
        {"id": "cobra_command_getcompletions", "label": ".getCompletions()", "file_type": "code",
         "source_file": "completions.go", "source_location": "L245"},
    ]  # fmt: skip
    links = [{"source": "command_go_cobra_command", "target": "command_go_cobra_command",
              "relation": "contains", "source_file": "command.go",
              "source_location": "L48"}]  # fmt: skip
    cobra = tmp_path / "cobra"
    cobra.mkdir()
    (cobra / "command.go").write_text("\n" * 47 + "type Command struct {\n")
    (cobra / "completions.go").write_text(
        "\n" * 244 + "func (c *Command) getCompletions(args []string) {\n"
    )
    lines = graphify_nudge_index._index_lines(nodes, links, str(cobra / ".graphify" / "graph.json"))
    (line,) = [x for x in lines if x.startswith(b"s\tgetCompletions\t")]
    assert json.loads(line.split(b"\t")[2])[1][0][5] == "cobra completions Command"


def test_the_accessor_check_reads_only_the_projects_own_files(tmp_path: Path) -> None:
    """The one repository read of the builder: never through a link, never
    outside the project (`..`), and only compared, never copied."""
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    outside = tmp_path / "outside.ts"
    outside.write_text("class A {\n  get title() {\n    return 1;\n  }\n  render() {}\n}\n")
    (root / "src" / "own.ts").write_text(outside.read_text())
    (root / "src" / "link.ts").symlink_to(outside)

    def method(path: str, name: str, line: int) -> dict[str, str]:
        return {"id": path.replace("/", "_").replace(".", "_") + "_" + name,
                "label": f".{name}()", "file_type": "code", "source_file": path,
                "source_location": f"L{line}"}  # fmt: skip

    nodes = [method(path, name, line) for path in ("src/own.ts", "src/link.ts", "../outside.ts")
             for name, line in (("title", 2), ("render", 5))]  # fmt: skip
    lines = graphify_nudge_index._index_lines(nodes, [], str(root / ".graphify" / "graph.json"))
    # own.ts was read: its accessor is left out, its method checked and kept; the
    # link and `..` were not read, so nothing of them is cited (a site is cited
    # only once its line is checked)
    assert not [x for x in lines if x.startswith(b"s\ttitle\t")]
    (line,) = [x for x in lines if x.startswith(b"s\trender\t")]
    assert [row[1] for row in json.loads(line.split(b"\t")[2])[1]] == ["src/own.ts"]
