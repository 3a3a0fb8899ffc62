"""Which graphify release runs each command the project prints (issue 19).

For a graphifyy release, build the e2e fixture project's graph with the real
graphify and run, as written, every command the hook, `mishkan install`,
`routing check` and `sprint-close` print (or the dialect that replaces it):

    python bench/graphify_versions.py --versions 0.8.31,0.9.96   # probe these
    python bench/graphify_versions.py --bisect                   # the first release of each
    python bench/graphify_versions.py --bisect --low 0.8.31 --high 0.9.96

`--bisect` probes both ends of the range, then, for every capability whose
outcome differs between them, bisects over the PyPI releases in between
(`pip index versions graphifyy`): the table gives the first release where it
works and the last where it did not. Each probed release's result is cached
(`<cache>/probes/<version>.json`); the venvs of releases between the ends are
removed after probing unless `--keep-venvs`. Results:
bench/results/graphify_versions.{json,md}; docs/versions.md quotes the table.

Exit status: 0 done, 2 the probe could not run (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _graphify

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "e2e" / "fixture_repo"
MINI = REPO / "tests" / "hook" / "data" / "mini"  # the hook's unit-test project
RESULTS = REPO / "bench" / "results"
DEFAULT_CACHE = REPO / ".cache" / "graphify"
COMMAND_TIMEOUT = 180.0
REBUILD_WAIT = 60.0
PROBE_RECIPE = 3  # bump when a probe changes: cached results are then re-probed

#: a second definition of `slugify`, so that a bare name is ambiguous
TWICE = 'def slugify(text: str) -> str:\n    return text.replace(" ", "_")\n'
GIT_ENV = {
    "GIT_AUTHOR_NAME": "probe",
    "GIT_AUTHOR_EMAIL": "probe@example.invalid",
    "GIT_COMMITTER_NAME": "probe",
    "GIT_COMMITTER_EMAIL": "probe@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}


class ProbeError(Exception):
    pass


# ---------------------------------------------------------------------------
# One probe project


@dataclass
class Done:
    command: str
    exit_code: int
    output: str

    def row(self) -> dict[str, Any]:
        return {"command": self.command, "exit_code": self.exit_code, "output": self.output[-600:]}


def _env(graphify: Path, home: Path) -> dict[str, str]:
    """An agent's shell, roughly: graphify first on PATH, no GRAPHIFY_OUT, no LLM key."""
    keep = ("LANG", "LC_ALL", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(GIT_ENV, PATH=f"{graphify.parent}:/usr/local/bin:/usr/bin:/bin", HOME=str(home))
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], shown: str | None = None) -> Done:
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        return Done(shown or " ".join(argv), done.returncode, done.stdout + done.stderr)
    except subprocess.TimeoutExpired:
        return Done(shown or " ".join(argv), -1, f"timed out after {COMMAND_TIMEOUT:.0f} s")


def make_repo(root: Path, env: dict[str, str], source: Path = FIXTURE) -> Path:
    """The e2e fixture, plus a twin `slugify` (or `source` as it is), in a git
    repo laid out as `mishkan install` leaves it: `.graphify/` with
    `graphify-out` linked to it."""
    shutil.copytree(source, root)
    if source == FIXTURE:
        (root / "src" / "overlay" / "twice.py").write_text(TWICE, encoding="utf-8")
    (root / ".gitignore").write_text(".graphify/\n.mishkan/\ngraphify-out\n", encoding="utf-8")
    (root / ".graphify").mkdir()
    (root / "graphify-out").symlink_to(".graphify")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        done = _run(["git", *args], root, env)
        if done.exit_code != 0:
            raise ProbeError(f"git {args[0]} in {root}: {done.output.strip()[-200:]}")
    return root


def _head(root: Path, env: dict[str, str]) -> str:
    return _run(["git", "rev-parse", "HEAD"], root, env).output.strip()


def _graph(root: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((root / ".graphify" / "graph.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _node_id(graph: dict[str, Any], label: str, source: str) -> str | None:
    for node in graph.get("nodes") or ():
        if node.get("label") == label and node.get("source_file") == source:
            return str(node.get("id"))
    return None


_NODE = re.compile(r"^Node:\s*(.+?)\s*$", re.M)
_SOURCE = re.compile(r"^\s*Source:\s*(\S+)", re.M)


def explained(done: Done) -> tuple[str, str] | None:
    """(label, source file) of the node an `explain` answered, if it answered one."""
    node, source = _NODE.search(done.output), _SOURCE.search(done.output)
    if done.exit_code != 0 or node is None or source is None:
        return None
    return node.group(1), source.group(1)


# ---------------------------------------------------------------------------
# The probes: each gives (works, evidence)


def probe_version(version: str, graphify: Path, work: Path) -> dict[str, Any]:
    home = work / "home"
    home.mkdir()
    env = _env(graphify, home)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, works: bool, *done: Done, **extra: Any) -> None:
        results[name] = {"works": works, "runs": [d.row() for d in done], **extra}

    # Building the graph: extract --code-only (install's and sprint-close's
    # command), and update (the refresh hooks' own rebuild)
    extract_repo = make_repo(work / "extract", env)
    extract = _run([str(graphify), "extract", ".", "--code-only"], extract_repo, env,
                   "graphify extract . --code-only")  # fmt: skip
    extract_graph = _graph(extract_repo)
    record("extract_code_only", extract.exit_code == 0 and extract_graph is not None, extract)
    forced = _run([str(graphify), "extract", ".", "--code-only", "--force"], extract_repo, env,
                  "graphify extract . --code-only --force")  # fmt: skip
    record("extract_code_only_force", forced.exit_code == 0 and _graph(extract_repo) is not None,
           forced)  # fmt: skip
    update_repo = make_repo(work / "update", env)
    update = _run([str(graphify), "update", "."], update_repo, env, "graphify update .")
    update_graph = _graph(update_repo)
    record("update", update.exit_code == 0 and update_graph is not None, update)
    update_force = _run([str(graphify), "update", ".", "--force"], update_repo, env,
                        "graphify update . --force")  # fmt: skip
    record("update_force", update_force.exit_code == 0 and _graph(update_repo) is not None,
           update_force)  # fmt: skip

    repo, graph = (extract_repo, extract_graph) if extract_graph else (update_repo, update_graph)
    if graph is None:
        raise ProbeError(f"graphify {version} built no graph with extract or update")
    head = _head(repo, env)
    meta: dict[str, Any] = graph["graph"] if isinstance(graph.get("graph"), dict) else {}
    results["graph_version"] = {
        "works": meta.get("graphify_version") == version,
        "value": meta.get("graphify_version"),
    }
    results["built_at_commit"] = {"works": graph.get("built_at_commit") == head}
    nodes = graph.get("nodes") or []
    results["nodes"] = {"works": True, "value": len(nodes)}

    def explain(arg: str) -> Done:
        return _run([str(graphify), "explain", arg], repo, env, f"graphify explain {arg!r}")

    def answers(arg: str, label: str, source: str, name: str) -> None:
        done = explain(arg)
        record(name, explained(done) == (label, source), done, argument=arg)

    core, fn = "src/overlay/core.py", "apply_overlay()"
    answers(core, "core.py", core, "explain_path")
    answers(f"{core}::apply_overlay", fn, core, "explain_path_name")
    fn_id, file_id = _node_id(graph, fn, core), _node_id(graph, "core.py", core)
    answers(fn_id or "?", fn, core, "explain_node_id")
    answers(file_id or "?", "core.py", core, "explain_file_node_id")
    results["explain_node_id"]["value"] = fn_id
    # node ids are built from the path; 0.8.31 drops the leading `src/`
    results["node_id_from_full_path"] = {"works": fn_id == "src_overlay_core_apply_overlay"}
    answers("apply_overlay", fn, core, "explain_bare_name")
    answers(".keys", ".keys()", core, "explain_method_label")
    missing = explain("no_such_symbol_anywhere")
    record("explain_not_found_exits_nonzero", missing.exit_code not in (0, -1), missing,
           value=missing.exit_code)  # fmt: skip
    twin = explain("slugify")
    record("explain_ambiguous_exits_nonzero", twin.exit_code not in (0, -1), twin,
           value=twin.exit_code)  # fmt: skip
    # every explain argument the hook's index chooses for this release resolves
    # to its own node in this release, on the fixture and on the unit tests' project
    import graphify_nudge_index as gi
    from mishkan_core import graph_refresh

    wrong: list[str] = []
    mini = make_repo(work / "mini", env, MINI)
    build = graph_refresh.build_argv(graph_refresh.Graphify(str(graphify), version))
    built = _run([str(graphify), *build[1:]], mini, env, " ".join(build))
    for where in (repo, mini):
        graph_json = where / ".graphify" / "graph.json"
        if not graph_json.is_file():
            wrong.append(f"{where.name}: no graph")
            continue
        nodes_, links, _ = gi._load_graph(str(graph_json))
        lines = gi._index_lines(nodes_, links, str(graph_json), gi.capabilities(version))
        python = graphify.parent / "python"
        found = _graphify.resolve_all(python, graph_json, lines, where)
        wrong += [f"{where.name}: {w}" for w in found]
    record("index_arguments_resolve", not wrong, built, value=wrong[:20])
    query = _run([str(graphify), "query", "who calls apply_overlay"], repo, env,
                 "graphify query 'who calls apply_overlay'")  # fmt: skip
    record("query", query.exit_code == 0 and "NODE apply_overlay()" in query.output, query)

    # graphify hook install in a fresh repo: which git hooks carry its markers,
    # and does a commit rebuild the whole graph at the new HEAD?
    from mishkan_core.graph_refresh import GRAPHIFY_HOOKS, markers_in

    hook_repo = repo
    install = _run([str(graphify), "hook", "install"], hook_repo, env, "graphify hook install")
    hooks = markers_in(hook_repo / ".git" / "hooks")
    attributes = hook_repo / ".gitattributes"
    merge_driver = attributes.is_file() and "merge=graphify" in attributes.read_text()
    record("hook_install", install.exit_code == 0 and "post-commit" in hooks, install,
           value=hooks, merge_driver=merge_driver)  # fmt: skip
    for name in GRAPHIFY_HOOKS:
        results[f"hook_{name.replace('-', '_')}"] = {"works": name in hooks}
    results["hook_merge_driver"] = {"works": merge_driver}
    util = hook_repo / "src" / "overlay" / "util.py"
    util.write_text(
        util.read_text() + "\n\ndef shout(text: str) -> str:\n    return text.upper()\n"
    )
    _run(["git", "add", "-A"], hook_repo, env)
    commit_env = {**env, "GIT_AUTHOR_DATE": "2026-01-02T00:00:00+0000",
                  "GIT_COMMITTER_DATE": "2026-01-02T00:00:00+0000"}  # fmt: skip
    commit = _run(["git", "commit", "-q", "-m", "util: add shout"], hook_repo, commit_env)
    new_head = _head(hook_repo, env)
    deadline, rebuilt = time.monotonic() + REBUILD_WAIT, None
    while time.monotonic() < deadline:
        rebuilt = _graph(hook_repo)
        if rebuilt and rebuilt.get("built_at_commit") == new_head:
            break
        time.sleep(0.25)
    fresh = bool(rebuilt and rebuilt.get("built_at_commit") == new_head)
    labels = {n.get("label") for n in (rebuilt or {}).get("nodes") or ()}
    whole = fresh and {n.get("label") for n in nodes} <= labels and "shout()" in labels
    record("hook_rebuilds_whole_graph", whole, commit,
           value=len((rebuilt or {}).get("nodes") or []))  # fmt: skip
    return results


# ---------------------------------------------------------------------------
# Releases, caching, bisecting


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def releases(low: str, high: str) -> list[str]:
    """The graphifyy releases from `low` to `high`, oldest first (pip's own listing)."""
    argv = [sys.executable, "-m", "pip", "index", "versions", _graphify.DIST]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    match = re.search(r"Available versions:\s*(.+)", done.stdout)
    if done.returncode != 0 or match is None:
        raise ProbeError(f"`pip index versions {_graphify.DIST}` failed: {done.stderr[-200:]}")
    found = [v.strip() for v in match.group(1).split(",")]
    plain = [v for v in found if re.fullmatch(r"\d+(\.\d+)*", v)]
    lo, hi = version_key(low), version_key(high)
    return sorted((v for v in plain if lo <= version_key(v) <= hi), key=version_key)


@dataclass
class Prober:
    cache: Path
    keep: frozenset[str]  # releases whose venv stays (the others are removed once probed)
    keep_all: bool
    probed: dict[str, dict[str, Any]]

    def __call__(self, version: str) -> dict[str, Any]:
        if version in self.probed:
            return self.probed[version]
        saved = self.cache / "probes" / f"{version}.json"
        if saved.is_file():
            data = json.loads(saved.read_text())
            if data.get("recipe") == PROBE_RECIPE:
                cached: dict[str, Any] = data["results"]
                self.probed[version] = cached
                return cached
        venvs = self.cache / "venvs"
        try:
            graphify = _graphify.ensure(version, venvs, "graphify_versions")
        except _graphify.GraphifyInstallError as exc:
            raise ProbeError(str(exc)) from None
        started = time.perf_counter()
        # not a TemporaryDirectory: graphify's detached post-commit rebuild may
        # still be writing its report in there; removing the tree ignores that race
        work = Path(tempfile.mkdtemp(prefix=f"graphify-{version}-"))
        try:
            results = probe_version(version, graphify, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        seconds = round(time.perf_counter() - started, 1)
        flags = " ".join(f"{k}={'y' if v['works'] else 'n'}" for k, v in results.items())
        print(f"probed graphify {version} in {seconds} s: {flags}", flush=True)
        saved.parent.mkdir(parents=True, exist_ok=True)
        record = {"recipe": PROBE_RECIPE, "version": version, "seconds": seconds}
        saved.write_text(json.dumps({**record, "results": results}, indent=1))
        if not self.keep_all and version not in self.keep:
            _graphify.remove(version, venvs)
        self.probed[version] = results
        return results


def bisect(versions: Sequence[str], works: Callable[[str], bool]) -> tuple[str | None, str | None]:
    """(last release where it does not work, first where it does), assuming it
    flips once from not working to working over `versions`; both ends probed."""
    if works(versions[0]):
        return None, versions[0]
    if not works(versions[-1]):
        return versions[-1], None
    lo, hi = 0, len(versions) - 1  # works(lo) is False, works(hi) is True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if works(versions[mid]):
            hi = mid
        else:
            lo = mid
    return versions[lo], versions[hi]


# ---------------------------------------------------------------------------
# Output

#: the table's rows: capability key, what it is
ROWS = (
    ("explain_path", "`graphify explain 'src/overlay/core.py'` answers the file's node"),
    ("explain_path_name", "`graphify explain 'src/overlay/core.py::apply_overlay'` answers it"),
    ("explain_node_id", "`graphify explain <node id>` answers that node"),
    ("explain_file_node_id", "`graphify explain <file node id>` answers the file's node"),
    ("node_id_from_full_path", "node ids spell the whole path (`src_overlay_core_apply_overlay`)"),
    ("explain_bare_name", "`graphify explain apply_overlay` (a bare name) answers it"),
    ("explain_method_label", "`graphify explain .keys` (a method's label) answers it"),
    ("explain_not_found_exits_nonzero", "`explain` of an unknown name exits non-zero"),
    ("explain_ambiguous_exits_nonzero", "`explain` of a name defined twice exits non-zero"),
    ("query", "`graphify query 'who calls apply_overlay'` lists the function"),
    ("index_arguments_resolve", "every `explain` argument the hook's index picks for it resolves"),
    ("extract_code_only", "`graphify extract . --code-only` builds the graph, no LLM key"),
    ("extract_code_only_force", "`graphify extract . --code-only --force` (sprint-close)"),
    ("update", "`graphify update .` builds the graph"),
    ("update_force", "`graphify update . --force`"),
    ("graph_version", "graph.json records `graph.graphify_version`"),
    ("built_at_commit", "graph.json records `built_at_commit` = HEAD"),
    ("hook_install", "`graphify hook install` installs the post-commit hook"),
    ("hook_post_commit", "... post-commit"),
    ("hook_post_checkout", "... post-checkout"),
    ("hook_post_merge", "... post-merge"),
    ("hook_post_rewrite", "... post-rewrite"),
    ("hook_merge_driver", "... the graph.json merge driver (`.gitattributes`)"),
    ("hook_rebuilds_whole_graph", "a commit rebuilds the whole graph at the new HEAD"),
)


def markdown(report: dict[str, Any]) -> str:
    probed = report["probed"]
    ends = [report["low"], report["high"]]
    lines = [
        "# graphify releases: which command works where",
        "",
        "Probed with bench/graphify_versions.py on the e2e fixture (plus a twin `slugify`); "
        + (
            f"releases {report['low']} to {report['high']}: {report['releases_in_range']} on PyPI, "
            if report["releases_in_range"]
            else ""
        )
        + f"{len(probed)} probed ({', '.join(sorted(probed, key=version_key))}).",
        "",
        f"| capability | {ends[0]} | {ends[1]} | first release where it works | last where not |",
        "|---|---|---|---|---|",
    ]
    for key, what in ROWS:
        cells = []
        for end in ends:
            result = probed.get(end, {}).get(key)
            cells.append("-" if result is None else "yes" if result["works"] else "**no**")
        found = report["bisect"].get(key, {})
        first = found.get("first_works") or "-"
        last = found.get("last_fails") or "-"
        odd = found.get("against_the_boundary")
        if odd:
            first += f" (but not in {', '.join(odd)})" if first != "-" else ""
        lines.append(f"| {what} | {cells[0]} | {cells[1]} | {first} | {last} |")
    lines.append("")
    for end in ends:
        result = probed.get(end)
        if result:
            lines.append(
                f"{end}: node id of apply_overlay `{result['explain_node_id'].get('value')}`, "
                f"explain exits {result['explain_not_found_exits_nonzero'].get('value')} "
                f"(unknown) / {result['explain_ambiguous_exits_nonzero'].get('value')} "
                f"(twice defined), hooks {', '.join(result['hook_install'].get('value') or [])}, "
                f"{result['nodes']['value']} nodes."
            )
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="graphify_versions", description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", help="comma-separated releases to probe")
    p.add_argument("--bisect", action="store_true", help="bisect every capability over the range")
    p.add_argument(
        "--all", action="store_true", help="also probe every release in the range (a full sweep)"
    )
    p.add_argument("--low", default="0.8.31", help="oldest release of the range (D-008's)")
    p.add_argument("--high", default="0.9.96", help="newest release of the range")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--keep-venvs", action="store_true", help="keep every probed release's venv")
    p.add_argument("--json", type=Path, default=RESULTS / "graphify_versions.json")
    p.add_argument("--markdown", type=Path, default=RESULTS / "graphify_versions.md")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _main(args)
    except (ProbeError, OSError, subprocess.SubprocessError) as exc:
        print(f"graphify_versions: {exc}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    if shutil.which("git") is None:
        raise ProbeError("git is not on PATH")
    cache = args.cache.resolve()
    explicit = [v.strip() for v in (args.versions or "").split(",") if v.strip()]
    prober = Prober(cache, frozenset({args.low, args.high, *explicit}), args.keep_venvs, {})
    for version in explicit:
        prober(version)
    report: dict[str, Any] = {
        "bench": "graphify_versions",
        "low": args.low,
        "high": args.high,
        "releases_in_range": None,
        "bisect": {},
    }
    if args.bisect or args.all:
        versions = releases(args.low, args.high)
        if not versions or versions[0] != args.low or versions[-1] != args.high:
            raise ProbeError(f"{args.low} or {args.high} is not a graphifyy release on PyPI")
        report["releases_in_range"] = len(versions)
        report["releases"] = versions
        for version in versions if args.all else ():
            prober(version)
        for key, _ in ROWS:

            def works(version: str, key: str = key) -> bool:
                return bool(prober(version)[key]["works"])

            last, first = bisect(versions, works)
            report["bisect"][key] = {"last_fails": last, "first_works": first}
            if args.all:
                report["bisect"][key]["against_the_boundary"] = [
                    v
                    for v in versions
                    if works(v) != (first is not None and version_key(v) >= version_key(first))
                ]
    report["probed"] = {v: prober.probed[v] for v in sorted(prober.probed, key=version_key)}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    args.markdown.write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
