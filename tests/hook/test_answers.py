"""Issue 30: the answers the builder composes, each site checked against its line.

Small projects written here, with graph.json shaped as graphify 0.9.96 writes
it for them (its node ids, labels, locations and edges, as measured on the
advice bench's projects: an anonymous `new X() {` is a node `X` at that line,
an annotated Java method sits at its annotation, one node stands for a
method's overloads). The real graphs of real code are tests/hook/data's and
the advice bench's (bench/advice_accuracy.py); the e2e run checks the
commands with graphify itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import graphify_nudge
import graphify_nudge_index as gi
from tests.hook.conftest import Hook, context_of, git

CAPS = gi.capabilities(gi.GRAPHIFY_NEWEST)


def node(nid: str, label: str, source: str, line: int) -> dict[str, Any]:
    return {
        "id": nid,
        "label": label,
        "file_type": "code",
        "source_file": source,
        "source_location": f"L{line}",
    }


def edge(
    source: str, target: str, relation: str, where: str, line: int, *, conf: str = "EXTRACTED"
) -> dict[str, Any]:
    return {
        "source": source,
        "target": target,
        "relation": relation,
        "confidence": conf,
        "source_file": where,
        "source_location": f"L{line}",
    }


def project(base: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_text(text)
    return base


def index(
    root: Path, nodes: list[dict[str, Any]], links: list[dict[str, Any]], **kwargs: Any
) -> dict[str, Any]:
    """key (`s:name`, `f:path`) -> the record the builder writes."""
    graph = str(root / ".graphify" / "graph.json")
    out: dict[str, Any] = {}
    for line in gi._index_lines(nodes, links, graph, CAPS, root=str(root), **kwargs):
        kind, key, payload = line.decode().split("\t", 2)
        out[f"{kind}:{key}"] = json.loads(payload)
    return out


def commit_with_graph(repo: Path, nodes: list[dict[str, Any]], links: list[dict[str, Any]]) -> None:
    """Commit the project, then write graphify 0.9.96's graph of it, current at HEAD."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    graph = {
        "directed": False,
        "graph": {"graphify_version": "0.9.96"},
        "nodes": nodes,
        "links": links,
        "built_at_commit": git(repo, "rev-parse", "HEAD"),
    }
    (repo / ".graphify").mkdir()
    (repo / ".graphify" / "graph.json").write_text(json.dumps(graph))


def sites(record: dict[str, Any] | list[Any]) -> list[tuple[str, int]]:
    return [(row[1], row[2]) for row in record[1]]  # type: ignore[index]


# -- definitions: the line must declare the name ------------------------------------------


def test_an_anonymous_class_is_a_use_not_a_definition(tmp_path: Path) -> None:
    """graphify makes a node `Runnable` at `new Runnable() {` (BeanShell: 17 of an
    interface's 18 "definitions" were these)."""
    root = project(
        tmp_path,
        {
            "src/Job.java": "public interface Job {\n    void run();\n}\n",
            "src/Pool.java": "class Pool {\n  void go() {\n    submit(new Job() {\n"
            "      public void run() {}\n    });\n"
            "    submit(new org.x.Job() {\n    });\n  }\n}\n",
        },
    )
    nodes = [
        node("src_job_job", "Job", "src/Job.java", 1),
        node("src_pool_pool_go_job_l3", "Job", "src/Pool.java", 3),
        node("src_pool_pool_go_job_l6", "Job", "src/Pool.java", 6),
    ]
    assert sites(index(root, nodes, [])["s:Job"]) == [("src/Job.java", 1)]


def test_a_definition_graphify_placed_on_its_annotation_is_cited_at_its_declaration(
    tmp_path: Path,
) -> None:
    """Real graphify 0.9.96 puts an annotated Java method at `@Override`: the
    cited line is the declaration below the annotations, the node the same."""
    root = project(
        tmp_path,
        {
            "src/Req.java": "class Req {\n  @Override\n  @Deprecated\n"
            "  public int code() { return 1; }\n}\n"
        },
    )
    record = index(root, [node("src_req_req_code", ".code()", "src/Req.java", 2)], [])["s:code"]
    assert sites(record) == [("src/Req.java", 4)] and record[1][0][4] == "src_req_req_code"


def test_a_line_that_does_not_name_it_is_no_definition(tmp_path: Path) -> None:
    root = project(tmp_path, {"a.py": "# a comment\ndef real():\n    pass\n"})
    built = index(
        root, [node("a_real", "real()", "a.py", 1), node("a_gone", "gone()", "a.py", 2)], []
    )
    assert "s:real" not in built and "s:gone" not in built  # neither line declares it


def test_java_overloads_and_constructors_are_counted(tmp_path: Path) -> None:
    """One node for `eval`'s overloads (BeanShell's Interpreter: 4) and for a
    class's constructors; a call `eval(x);` and an anonymous class's method of
    the same name at another depth are not overloads."""
    body = (
        "class I {\n  public I() {}\n  I(int a) { this(); }\n  public Object eval(String s) {\n"
        "    eval(s);\n    return null;\n  }\n  Object eval(String s, int n) { return null; }\n"
        "  void go() {\n    x(new Runnable() {\n      public Object eval(String s) { return 1; }\n"
        "    });\n  }\n}\n"
    )
    root = project(tmp_path, {"src/I.java": body})
    nodes = [
        node("i", "I", "src/I.java", 1),
        node("i_i", ".I()", "src/I.java", 2),
        node("i_eval", ".eval()", "src/I.java", 4),
    ]
    built = index(root, nodes, [edge("i", "i_eval", "method", "src/I.java", 4)])
    (row,) = built["s:eval"][1]
    assert row[7] == [4, 8]
    constructors = {r[2]: r[7] for r in built["s:I"][1]}
    assert constructors == {1: [], 2: [2, 3]}  # the class itself has no overloads


def test_python_overload_stubs_are_counted_redefinitions_of_other_classes_are_not(
    tmp_path: Path,
) -> None:
    """click's Context.invoke: two `@t.overload` stubs and the implementation, one
    node; BaseCommand.invoke further down is its own node."""
    body = (
        "class Context:\n    @t.overload\n    def invoke(self, a): ...\n\n"
        "    @t.overload\n    def invoke(self, b): ...\n\n    def invoke(self, *a):\n"
        "        pass\n\n\nclass Base:\n    def invoke(self, ctx):\n        pass\n"
    )
    root = project(tmp_path, {"core.py": body})
    nodes = [
        node("core_context", "Context", "core.py", 1),
        node("core_context_invoke", ".invoke()", "core.py", 3),
        node("core_base", "Base", "core.py", 12),
        node("core_base_invoke", ".invoke()", "core.py", 13),
    ]
    links = [
        edge("core_context", "core_context_invoke", "method", "core.py", 3),
        edge("core_base", "core_base_invoke", "method", "core.py", 13),
    ]
    rows = {row[2]: row[7] for row in index(root, nodes, links)["s:invoke"][1]}
    assert rows == {3: [3, 6, 8], 13: []}


# -- uses: the line must name what it uses ------------------------------------------------


def test_uses_are_the_edges_whose_line_names_the_target(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "lib/a.py": "def target():\n    pass\n",
            "lib/b.py": "from lib.a import target\n\n\ndef caller():\n    return target()\n",
            "lib/c.py": "def other():\n    return 1\n",
            "tests/test_a.py": "def test_it():\n    target()\n",
        },
    )
    nodes = [
        node("lib_a_target", "target()", "lib/a.py", 1),
        node("lib_b", "b.py", "lib/b.py", 1),
        node("lib_b_caller", "caller()", "lib/b.py", 4),
        node("lib_c_other", "other()", "lib/c.py", 1),
        node("tests_test_a_test_it", "test_it()", "tests/test_a.py", 1),
    ]
    links = [
        edge("lib_b", "lib_a_target", "imports_from", "lib/b.py", 1),
        edge("lib_b_caller", "lib_a_target", "calls", "lib/b.py", 5),
        edge("lib_c_other", "lib_a_target", "calls", "lib/c.py", 2, conf="INFERRED"),
        edge(
            "tests_test_a_test_it", "lib_a_target", "calls", "tests/test_a.py", 2, conf="INFERRED"
        ),
    ]
    total, files, relations, confidence, rows = index(root, nodes, links)["s:target"][1][0][8]
    # lib/c.py:2 is `return 1`: graphify's guess, not a use; the others name it
    assert (total, files) == (3, 2)
    assert relations == [["calls", 2], ["imports_from", 1]]
    assert confidence == [["EXTRACTED", 2], ["INFERRED", 1]]
    assert rows == [
        ["lib/b.py", 5, "caller", "calls", "EXTRACTED"],  # a call before the import
        ["tests/test_a.py", 2, "test_it", "calls", "INFERRED"],  # a test after source
        ["lib/b.py", 1, "b.py", "imports_from", "EXTRACTED"],  # a file's second site last
    ]


def test_a_file_s_importers_are_named_by_its_module_or_what_it_defines(tmp_path: Path) -> None:
    """graphify 0.9.96 cites a re-export `export { Receiver }` (ws's wrapper.mjs),
    whose line names the class, not the module: still an importer; esm.mjs's
    `export const {` (commander) names neither: not cited."""
    root = project(
        tmp_path,
        {
            "lib/receiver.js": "class Receiver {}\nmodule.exports = Receiver;\n",
            "wrapper.mjs": "import Receiver from './lib/receiver.js';\n\nexport { Receiver };\n",
            "esm.mjs": "import r from './lib/receiver.js';\nexport const {\n  a,\n} = r;\n",
        },
    )
    nodes = [
        node("lib_receiver", "receiver.js", "lib/receiver.js", 1),
        node("lib_receiver_receiver", "Receiver", "lib/receiver.js", 1),
        node("wrapper", "wrapper.mjs", "wrapper.mjs", 1),
        node("esm", "esm.mjs", "esm.mjs", 1),
    ]
    links = [
        edge("wrapper", "lib_receiver", "re_exports", "wrapper.mjs", 3),
        edge("esm", "lib_receiver", "re_exports", "esm.mjs", 2),
    ]
    _, importers, dependents, defined = index(root, nodes, links)["f:lib/receiver.js"]
    assert importers[0] == 1 and importers[4] == [
        ["wrapper.mjs", 3, "wrapper.mjs", "re_exports", "EXTRACTED"]
    ]
    assert dependents[0] == 0 and defined == [1, [["Receiver", 1]]]


def test_a_file_with_nothing_to_say_gets_no_record(tmp_path: Path) -> None:
    """Ruby's reopened top module: a file node whose one edge is `contains` of a
    node in another file (hashie) defines nothing here: no answer, no promise."""
    root = project(tmp_path, {"lib/a.rb": "require 'x'\n", "lib/x.rb": "module X\nend\n"})
    nodes = [node("lib_a", "a.rb", "lib/a.rb", 1), node("x", "X", "lib/x.rb", 1)]
    built = index(root, nodes, [edge("lib_a", "x", "contains", "lib/a.rb", 1)])
    assert "f:lib/a.rb" not in built and "f:lib/x.rb" in built


def test_the_hook_s_own_files_are_never_the_subject_of_advice(tmp_path: Path) -> None:
    """Issue 29 item 2: a graph built before install kept the hook out still holds
    payload/mishkan/hooks/; neither its files nor their definitions are indexed,
    nor are they cited as uses."""
    root = project(
        tmp_path,
        {
            "payload/mishkan/hooks/graphify_nudge.py": "def main():\n    run()\n",
            "other/hooks/graphify_nudge.py": "def main():\n    pass\n",
            "app.py": "def run():\n    pass\n",
        },
    )
    nodes = [
        node("h_main", "main()", "payload/mishkan/hooks/graphify_nudge.py", 1),
        node("o_main", "main()", "other/hooks/graphify_nudge.py", 1),
        node("app_run", "run()", "app.py", 1),
    ]
    links = [edge("h_main", "app_run", "calls", "payload/mishkan/hooks/graphify_nudge.py", 2)]
    built = index(root, nodes, links, excluded=(graphify_nudge.HOOKS_DIR, "other/hooks"))
    assert "s:main" not in built
    assert not [k for k in built if "hooks" in k]
    assert built["s:run"][1][0][8][0] == 0  # its one caller is the hook's: not cited


# -- through the hook ---------------------------------------------------------------------


def test_a_read_of_a_file_answers_what_depends_on_it(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "repo",
        {
            "lib/a.py": "def target():\n    pass\n",
            "lib/b.py": "from lib.a import target\n\n\ndef caller():\n    return target()\n",
        },
    )
    nodes = [
        node("lib_a", "a.py", "lib/a.py", 1),
        node("lib_a_target", "target()", "lib/a.py", 1),
        node("lib_b", "b.py", "lib/b.py", 1),
        node("lib_b_caller", "caller()", "lib/b.py", 4),
    ]
    links = [
        edge("lib_a", "lib_a_target", "contains", "lib/a.py", 1),
        edge("lib_b", "lib_a_target", "imports_from", "lib/b.py", 1),
        edge("lib_b_caller", "lib_a_target", "calls", "lib/b.py", 5),
    ]
    commit_with_graph(repo, nodes, links)
    hook = Hook(repo, tmp_path / "telemetry")
    text = context_of(hook.call("Read", {"file_path": str(repo / "lib/a.py")}))
    assert text.split("\n")[1:5] == [
        "Importers: 1 in 1 file (imports_from 1); 1 shown.",
        'Importer: "lib/b.py:1" in "b.py" (imports_from, EXTRACTED).',
        "Dependents: 1 in 1 file (calls 1); 1 shown.",
        'Use: "lib/b.py:5" in "caller" uses "target" (calls, EXTRACTED).',
    ]
    assert 'Defines: 1 symbol: "target" L1.' in text
    assert (hook.calls()[-1]["answered"], hook.calls()[-1]["uses"]) == ("dependents", 2)


def test_a_read_of_the_hook_s_own_files_is_never_a_trigger(tmp_path: Path) -> None:
    """Issue 29 item 2: wherever the hook runs from inside the project (the
    default payload/mishkan/hooks/, or another directory), a Read of its files
    is no trigger: never advised, whatever an older graph holds of them."""
    import shutil

    from tests.hook.conftest import HOOK, hook_input, make_repo, write_graph

    repo = make_repo(tmp_path / "repo")
    write_graph(repo, git(repo, "rev-parse", "HEAD"))
    hook = Hook(repo, tmp_path / "telemetry")
    for hooks_dir in ("payload/mishkan/hooks", "tools/hooks"):
        installed = repo / hooks_dir / "graphify_nudge.py"
        installed.parent.mkdir(parents=True)
        shutil.copy2(HOOK, installed)
        for read in ("payload/mishkan/hooks/graphify_nudge.py", f"{hooks_dir}/x.py"):
            data = hook_input(repo, "Read", {"file_path": str(repo / read)})
            result = hook.subprocess(data, hook_file=installed)
            assert (result.returncode, result.stdout) == (0, b"")
            assert (hook.calls()[-1]["kind"], hook.calls()[-1]["trigger"]) == ("read", False)
    assert context_of(hook.call("Read", {"file_path": str(repo / "src/app.py")}))  # the project


def test_a_call_in_an_expression_is_no_definition(tmp_path: Path) -> None:
    """graphify makes a node where a call's argument is a function (`return
    initObservable(() => ...)`): that line calls the name, it declares nothing."""
    root = project(tmp_path, {"src/a.ts": "export function make() {\n"
                                          "  return initObservable(() => 1);\n}\n"})  # fmt: skip
    nodes = [node("src_a_make", "make()", "src/a.ts", 1),
             node("src_a_initobservable", "initObservable()", "src/a.ts", 2)]  # fmt: skip
    built = index(root, nodes, [])
    assert "s:initObservable" not in built and sites(built["s:make"]) == [("src/a.ts", 1)]


def test_overloads_nest_by_braces_and_typescript_methods_count(tmp_path: Path) -> None:
    """BeanShell's BSHType mixes tabs and spaces: its two `getTypeDescriptor`
    are at one brace depth; a .d.ts class's method signatures (commander's
    `alias(alias: string): this;` and `alias(): string;`) are overloads too."""
    java = ("class T {\n    public String get(\n\t\tint a )\n    {\n\t}\n\n"
            "\tpublic static String get( Class c )\n\t{\n\t}\n}\n")  # fmt: skip
    dts = "export class Command {\n  alias(alias: string): this;\n  alias(): string;\n}\n"
    root = project(tmp_path, {"src/T.java": java, "index.d.ts": dts})
    nodes = [node("t_get", ".get()", "src/T.java", 2), node("c_alias", ".alias()", "index.d.ts", 2)]
    built = index(root, nodes, [])
    assert built["s:get"][1][0][7] == [2, 7]
    assert built["s:alias"][1][0][7] == [2, 3]


def test_a_type_named_in_a_signature_is_no_definition(tmp_path: Path) -> None:
    """graphify 0.8.31 merged semver's `Comparator` (named in `fn comparator(..)
    -> Result<(Comparator, ..)>`) with the function of the same id, and made a
    node of a PHP return type: a type is declared by its keyword (`pub struct`,
    `class`), or first on its line (a Go grouped declaration, a Rust variant)."""
    rust = (
        "pub struct Comparator {\n}\nfn comparator(i: &str) -> Result<(Comparator, u8), E> {\n}\n"
    )
    php = "<?php\nclass T {\n    protected function f(): FormatterInterface\n    {\n    }\n}\n"
    go = "package w\n\ntype (\n\tWidget struct{}\n)\n"
    root = project(tmp_path, {"src/parse.rs": rust, "T.php": php, "w/w.go": go})
    nodes = [node("src_parse_comparator", "Comparator", "src/parse.rs", 3),
             node("src_parse_comparator_s", "Comparator", "src/parse.rs", 1),
             node("t_formatterinterface", "FormatterInterface", "T.php", 3),
             node("w_widget", "Widget", "w/w.go", 4)]  # fmt: skip
    links = [edge("src_parse", "src_parse_comparator", "contains", "src/parse.rs", 3),
             edge("src_parse", "src_parse_comparator_s", "contains", "src/parse.rs", 1),
             edge("w_w", "w_widget", "contains", "w/w.go", 4)]  # fmt: skip
    nodes += [node("src_parse", "parse.rs", "src/parse.rs", 1), node("w_w", "w.go", "w/w.go", 1)]
    built = index(root, nodes, links)
    assert sites(built["s:Comparator"]) == [("src/parse.rs", 1)]
    assert "s:FormatterInterface" not in built
    assert sites(built["s:Widget"]) == [("w/w.go", 4)]


def test_a_typescript_method_signature_over_several_lines_is_an_overload(tmp_path: Path) -> None:
    """commander's `.d.ts` declares `command(` with one parameter per line, twice:
    both signatures are overloads of the one node graphify makes."""
    dts = (
        "export class Command {\n  command(\n    nameAndArgs: string,\n    opts?: Options,\n"
        "  ): ReturnType<this['createCommand']>;\n  /**\n   * .command('x')\n   */\n"
        "  command(\n    nameAndArgs: string,\n    description: string,\n  ): this;\n}\n"
    )
    root = project(tmp_path, {"typings/index.d.ts": dts})
    built = index(root, [node("c_command", ".command()", "typings/index.d.ts", 2)], [])
    assert built["s:command"][1][0][7] == [2, 9]


def test_a_comment_that_names_a_method_is_no_overload(tmp_path: Path) -> None:
    """BeanShell's BeanShellBSFEngine: a Javadoc line `bsh eval() method to set
    the variables` is no declaration of `eval`, so the one `eval` is no overload."""
    java = (
        "class E {\n\t/**\n\t\tthe standard\n\t\tbsh eval() method to set the variables\n\t*/\n"
        '\tfinal static String m = "";\n\t// eval(x) is not it either\n'
        "\tpublic Object eval (\n\t\tString source) {\n\t\treturn null;\n\t}\n}\n"
    )
    root = project(tmp_path, {"src/E.java": java})
    nodes = [node("e", "E", "src/E.java", 1), node("e_eval", ".eval()", "src/E.java", 8)]
    built = index(root, nodes, [edge("e", "e_eval", "method", "src/E.java", 8)])
    assert built["s:eval"][1][0][7] == []


def test_only_exports_and_prototypes_define_by_assignment(tmp_path: Path) -> None:
    """graphify makes nodes where a function is assigned (`this.parseArg = (arg)
    => ...`, commander) and where `require` binds a module (`const fs =
    require('fs')`): an attribute set on an object at run time and an import
    (the TypeScript binder's alias) are no definitions; a CommonJS export and a
    prototype's method are, unless the export only names another binding
    (`exports.Command = Command`: an alias, as TypeScript resolves it)."""
    js = (
        "const fs = require('fs');\nclass Argument {\n  choices(values) {\n"
        "    this.parseArg = (arg) => arg;\n  }\n}\n"
        "exports.createArgument = (name) => new Argument(name);\nexports.Argument = Argument;\n"
        "function Runner() {}\nRunner.prototype.run = function () {};\n"
    )
    root = project(tmp_path, {"lib/argument.js": js})
    nodes = [
        node("fs", "fs", "lib/argument.js", 1),
        node("arg", "Argument", "lib/argument.js", 2),
        node("arg_parse", ".parseArg()", "lib/argument.js", 4),
        node("create", "createArgument()", "lib/argument.js", 7),
        node("arg_alias", "Argument", "lib/argument.js", 8),
        node("run", ".run()", "lib/argument.js", 10),
    ]
    built = index(root, nodes, [])
    assert "s:fs" not in built and "s:parseArg" not in built
    assert sites(built["s:Argument"]) == [("lib/argument.js", 2)]
    assert sites(built["s:createArgument"]) == [("lib/argument.js", 7)]
    assert sites(built["s:run"]) == [("lib/argument.js", 10)]


def test_a_java_variable_s_type_is_no_definition(tmp_path: Path) -> None:
    """cordova's `final Runnable loadError = new Runnable() {`: graphify makes a
    node `Runnable` there; the line declares `loadError` (JLS 14.4), and the
    anonymous class is a use (the issue's Java class)."""
    java = "class V {\n  void go() {\n    final Runnable task = new Runnable() {\n"
    java += "      public void run() {}\n    };\n    Runnable other = new Runnable() {};\n  }\n}\n"
    root = project(tmp_path, {"src/V.java": java})
    nodes = [node("v_runnable", "Runnable", "src/V.java", 3),
             node("v_runnable_6", "Runnable", "src/V.java", 6)]  # fmt: skip
    assert "s:Runnable" not in index(root, nodes, [])


def test_a_read_counts_every_definition_the_graph_holds_in_the_file(tmp_path: Path) -> None:
    """A symbol search is not answered for an accessor (zod's `get shape()`: the
    interfaces that declare the property have no node) nor for a Ruby setter
    (`def cache_store=(store)`: no search names it), but each is a definition
    the read file holds: its Defines counts them, and lists the accessor."""
    root = project(
        tmp_path,
        {
            "src/box.ts": "export class Box {\n  get size(): number {\n    return 1;\n  }\n}\n",
            "lib/cache.rb": "module Cache\n  def cache_store=(store)\n  end\n"
            "  def [](key)\n  end\nend\n",
        },
    )
    nodes = [node("box", "Box", "src/box.ts", 1), node("box_size", ".size()", "src/box.ts", 2),
             node("cache", "Cache", "lib/cache.rb", 1),
             node("cache_store", ".cache_store=()", "lib/cache.rb", 2),
             node("cache_get", ".[]()", "lib/cache.rb", 4)]  # fmt: skip
    built = index(root, nodes, [])
    assert "s:size" not in built and "s:cache_store=" not in built
    assert built["f:src/box.ts"][3] == [2, [["Box", 1], ["size", 2]]]
    assert built["f:lib/cache.rb"][3] == [3, [["Cache", 1]]]


def test_a_use_counts_when_its_user_is_code(tmp_path: Path) -> None:
    """graphify 0.8.31 makes a node of each type a line names (`str`, at the
    line that names it) and edges from it; those define nothing, so use
    nothing. A Rust `impl Buf for &mut T` is code: its use counts, though the
    advisory cannot name it (bytes: 9 of Buf's 28 uses). A Rust type graphify
    records as declared (`_rust_declaration_count`) with no `contains` edge
    (bytes' `pub struct Bytes`) is a definition and a user like any other."""
    root = project(
        tmp_path,
        {
            "src/buf.rs": "pub trait Buf {\n}\nimpl<T: Buf + ?Sized> Buf for &mut T {\n}\n",
            "src/bytes.rs": "use crate::Buf;\npub struct Bytes {\n}\nimpl Buf for Bytes {\n}\n",
            "app.py": "from lib import Buf\n\n\ndef f(x: str) -> Buf:\n    return Buf()\n",
        },
    )
    bytes_ = node("src_bytes_bytes", "Bytes", "src/bytes.rs", 2)
    bytes_["_rust_declaration_count"] = 1
    nodes = [
        node("src_buf", "buf.rs", "src/buf.rs", 1),
        node("src_buf_buf", "Buf", "src/buf.rs", 1),
        node("mut_t", "&mut T", "src/buf.rs", 3),
        bytes_,
        node("app_f", "f()", "app.py", 4),
        node("app_str", "str", "app.py", 4),
    ]
    links = [
        edge("src_buf", "src_buf_buf", "contains", "src/buf.rs", 1),
        edge("mut_t", "src_buf_buf", "implements", "src/buf.rs", 3),
        edge("src_bytes_bytes", "src_buf_buf", "implements", "src/bytes.rs", 4),
        edge("app_str", "src_buf_buf", "uses", "app.py", 5),  # a placeholder's edge
        edge("app_f", "app_str", "references", "app.py", 4),  # referenced, never contained
        edge("app_f", "src_buf_buf", "calls", "app.py", 5),
        edge("src_buf_buf", "src_bytes_bytes", "references", "src/bytes.rs", 4),
    ]
    built = index(root, nodes, links)
    total, files, relations, _, rows = built["s:Buf"][1][0][8]
    assert (total, files) == (3, 3)  # &mut T, Bytes and f; not str
    assert relations == [["implements", 2], ["calls", 1]]
    assert [row[2] for row in rows] == ["f", "Bytes"]  # `&mut T` counted, not shown
    assert sites(built["s:Bytes"]) == [("src/bytes.rs", 2)]


def test_a_go_struct_field_named_like_its_type_is_a_definition(tmp_path: Path) -> None:
    """logrus's `Level Level` in `Logger` defines `Level` (the Go spec's
    FieldDecl: IdentifierList Type), and graphify 0.9.96 makes no node for it,
    only the struct's `references` edge to the type at that line (cobra's
    `FParseErrWhitelist FParseErrWhitelist`, logrus's `Formatter Formatter`).
    A field of another name, a method returning the type and a local variable
    are no such definition."""
    repo = project(
        tmp_path / "repo",
        {
            "logrus.go": "package logrus\n\ntype Level uint32\n",
            "logger.go": (
                "package logrus\n\ntype Logger struct {\n\t// the level\n\tLevel Level\n"
                '\tOut, Err Level\n\tlevel Level `json:"l"`\n}\n\n'
                "func (logger *Logger) Get() Level {\n\tvar Level Level\n\treturn Level\n}\n"
            ),
            "entry.go": (
                "package logrus\n\ntype (\n\tEntry struct {\n\t\tLevel, Other Level\n\t}\n)\n"
            ),
        },
    )
    nodes = [
        node("logrus_go", "logrus.go", "logrus.go", 1),
        node("logger_go", "logger.go", "logger.go", 1),
        node("entry_go", "entry.go", "entry.go", 1),
        node("logrus_level", "Level", "logrus.go", 3),
        node("logrus_logger", "Logger", "logger.go", 3),
        node("logrus_logger_get", ".Get()", "logger.go", 10),
        node("logrus_entry", "Entry", "entry.go", 4),
    ]
    links = [
        edge("logrus_go", "logrus_level", "contains", "logrus.go", 3),
        edge("logger_go", "logrus_logger", "contains", "logger.go", 3),
        edge("entry_go", "logrus_entry", "contains", "entry.go", 4),
        edge("logrus_logger", "logrus_logger_get", "method", "logger.go", 10),
        *(edge("logrus_logger", "logrus_level", "references", "logger.go", n) for n in (5, 6, 7)),
        edge("logrus_logger_get", "logrus_level", "references", "logger.go", 11),
        edge("logrus_entry", "logrus_level", "references", "entry.go", 5),
    ]
    built = index(repo, nodes, links)
    rows = built["s:Level"][1]
    assert built["s:Level"][0] == 3
    assert [(row[1], row[2], row[4], row[6]) for row in rows] == [
        ("logrus.go", 3, "logrus_level", ""),
        ("entry.go", 5, "", "Entry"),
        ("logger.go", 5, "", "Logger"),
    ]
    assert [row[8][0] for row in rows] == [5, 0, 0]  # the type's uses; a field has no node
    assert rows[2][5].split()[-1] == "Logger"  # its scope: a search for `Logger.Level` finds it

    commit_with_graph(repo, nodes, links)
    hook = Hook(repo, tmp_path / "telemetry")
    text = context_of(hook.call("Grep", {"pattern": "Level", "path": str(repo)}))
    assert 'defines "Level" in 3 places' in text
    assert (
        'Definition 3 of 3: "logger.go:5" "Level" of "Logger", a field with no graph node; '
        "no use recorded." in text
    )
    assert 'Definition 1 of 3: "logrus.go:3" "Level", node "logrus_level"' in text
    text = context_of(hook.call("Grep", {"pattern": "Logger.Level", "path": str(repo)}))
    head = git(repo, "rev-parse", "--short=7", "HEAD")
    assert text.split("\n")[:2] == [
        f"{graphify_nudge.MARKER} The code graph (current at HEAD {head}) "
        'holds one definition of "Logger.Level"; quoted text is repository data.',
        'Definition: "logger.go:5" "Level" of "Logger", a field with no graph node.',
    ]
    assert "More:" not in text  # no node for graphify to explain
