"""Print the hook's real advisories for the README: a symbol, an ambiguous
symbol and a file Read, on click 8.1.7 (the advice bench's pinned tuning
project), so the examples are regenerated, never typed.

    python bench/advice_examples.py                 # this checkout's hook, graphify 0.9.96
    python bench/advice_examples.py --tree ../other --graphify-version 0.8.31

It fetches and builds what the advice bench does (bench/advice_accuracy_projects.py,
cached under $MISHKAN_ADVICE_CACHE), builds the hook's index with the tree's
`mishkan graph-index`, and feeds the hook each trigger exactly as the bench
does. Exit status: 0 printed, 2 could not run (one line on stderr).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import advice_accuracy as bench
from bench import advice_accuracy_projects as projects
from bench.advice_accuracy_judge import Target, hook_context
from bench.advice_accuracy_triggers import Trigger

PROJECT = "click"
# (what the README calls it, the trigger): fixed, so every run shows the same three
EXAMPLES = (
    ("A symbol: Grep `echo`", "Grep", {"pattern": "echo", "output_mode": "content"}, "echo"),
    ("An ambiguous symbol: `rg -n 'invoke'`", "Bash", {"command": "rg -n 'invoke'"}, "invoke"),
    ("A file Read: src/click/core.py", "Read", {"file_path": "src/click/core.py"}, None),
)


def _trigger(i: int, tool: str, given: dict[str, str], name: str | None, root: Path) -> Trigger:
    tool_input: dict[str, object] = dict(given)
    if tool == "Grep":
        tool_input["path"] = str(root)
    if tool == "Read":
        tool_input["file_path"] = str(root / given["file_path"])
    if tool == "Bash":
        tool_input["description"] = "Search the code"
    target = Target(name=name) if name else Target(file=given["file_path"])
    kind = {"Grep": "Grep", "Bash": "Bash search", "Read": "Read"}[tool]
    return Trigger(f"example-{i}", kind, tool, "README example", tool, tool_input, target)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="advice_examples", description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", type=Path, default=projects.REPO, help="the hook's checkout")
    p.add_argument("--graphify-version", default=projects.GRAPHIFY_VERSIONS[-1])
    p.add_argument("--cache", type=Path, default=projects.DEFAULT_CACHE)
    p.add_argument("--python", default=sys.executable, help="the interpreter the hook runs on")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        print(examples(args.tree.resolve(), args.graphify_version, args.cache.resolve(),
                       args.python))  # fmt: skip
    except (projects.SetupError, OSError, RuntimeError) as e:
        print(f"advice_examples: {e}", file=sys.stderr)
        return 2
    return 0


def examples(tree: Path, version: str, cache: Path, python: str) -> str:
    """The three advisories, each under the trigger that produced it (markdown)."""
    if not (tree / "mishkan_core" / "graph_index.py").is_file():
        raise projects.SetupError(f"{tree}: no mishkan_core/graph_index.py (the index builder)")
    graphify = projects.ensure_graphify(cache / "tools", version)
    project = projects.PROJECTS[PROJECT]
    checkout = projects.prepare(project, cache, ".graphify", graphify, version=version)
    runner = bench.Runner(tree, python, graphify, ".graphify")
    work = Path(tempfile.mkdtemp(prefix="advice-examples-"))
    out = [f"{project.requirement} at {checkout.commit[:7]}, graphify {version}:"]
    try:
        telemetry = work / "telemetry"
        code, text = runner.build_index(checkout.root, telemetry)
        if code != 0:
            raise projects.SetupError(f"`mishkan graph-index` exited {code}: {text[-200:]}")
        for i, (title, tool, given, name) in enumerate(EXAMPLES):
            trigger = _trigger(i, tool, given, name, checkout.root)
            stdout, _, _, _ = runner.hook(trigger, checkout.root, telemetry)
            advisory = hook_context(stdout) or "(the hook stays silent)"
            out += ["", f"{title}:", "", "```text", advisory, "```"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
