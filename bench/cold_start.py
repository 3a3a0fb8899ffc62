"""Cold-start benchmark of graphify_nudge.py against the bare interpreter.

Every call is a fresh process, spawned with ``os.posix_spawn`` on the absolute
interpreter binary (never a shim) and reaped with ``os.wait4``, which also
gives the child's CPU time; stdin, stdout and stderr are files opened before
the clock starts, so each arm pays exactly the same spawn overhead. In every
scenario the arms (the hook loaded as the shim loads it, in earlier
registrations, and through ``/bin/sh -c`` of the exact registered command, as
Claude Code starts it; ``python -I -S -c pass``, bare and through ``/bin/sh -c``;
the naive reference hook and Graphify's own hook-guard) run interleaved
round-robin, the order rotating each round, so a drift in machine speed hits
them all alike.

    python bench/cold_start.py                      # all scenarios, Python 3.9..3.13
    python bench/cold_start.py --python 3.11 --quick
    python bench/cold_start.py --json bench/results/latest.json --check

Exit codes: 0 ok, 1 --check found a violation, 2 usage error or unusable setup.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _env, _stats
from bench import _scenarios as sc
from mishkan_core import machine_config
from mishkan_core.hook_chain import IMPORT_CODE, SHIM_FILE, hook_command

REPO = Path(__file__).resolve().parent.parent
HOOK_FILE = "graphify_nudge.py"
BUILDER_FILE = "graphify_nudge_index.py"
DEFAULT_HOOK = REPO / HOOK_FILE
NAIVE_HOOK = Path(__file__).resolve().parent / "naive_hook.py"
SHIM = REPO / "mishkan_core" / "data" / SHIM_FILE
#: what the shim runs (issue 20's loader): the hook loaded by its path, its
#: checked hash-based bytecode from a pycache prefix outside the project
IMPORT_SNIPPET = IMPORT_CODE
#: the registration before issue 29, timed beside the shim's through /bin/sh -c:
#: the same loader as one line, after this machine's interpreter
PRE_SHIM_SNIPPET = (
    "import sys,_frozen_importlib as b,_frozen_importlib_external as e;a=sys.argv;"
    'p=a.pop(2) if a[2:3] and a[2][:2]!="--" else "";sys.pycache_prefix=p or "/dev/null";'
    "w=sys.dont_write_bytecode;sys.dont_write_bytecode=not p;"
    's=e.spec_from_file_location("graphify_nudge",a[1]+"/graphify_nudge.py");'
    'm=b.module_from_spec(s);sys.modules["graphify_nudge"]=m;s.loader.exec_module(m);m._pycache=p;'
    "sys.pycache_prefix=None;sys.dont_write_bytecode=w;m.main()"
)
#: the registered command's alternatives timed with ``--shim-variants`` (issue
#: 29): the shim run by a second shell (``sh <shim>``) rather than read by
#: Claude Code's, and the registered command where /bin/sh is bash
SHIM_VARIANTS = ("registered_sh", "registered_bash")
#: the registration before issue 20, timed beside it for what the change costs:
#: imported by name from the hooks dir, bytecode from its __pycache__
IN_TREE_SNIPPET = (
    "import sys;sys.path.insert(0,sys.argv[1]);import graphify_nudge;graphify_nudge.main()"
)
DEFAULT_CALLS = 200
QUICK_CALLS = 25
WARMUP_CALLS = 5

# The environment every arm gets (the captured Claude Code hook environment,
# plus where MISHKAN keeps graphify's artifacts). Identical for all arms.
CLAUDE_ENV = {
    "CLAUDE_CODE_ENTRYPOINT": "sdk-cli",
    "CLAUDE_CODE_CHILD_SESSION": "1",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}


@dataclass
class Arm:
    name: str
    argv: list[str]
    expect: str | None  # "silent" | "advisory" | None (no expectation: a peer)
    maker: sc.CallMaker
    limit: int | None = None
    stdin_fd: int = -1
    out_fd: int = -1
    err_fd: int = -1

    def open(self, tmp: Path) -> None:
        flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC
        self.stdin_fd = os.open(str(tmp / f"{self.name}.in"), flags, 0o600)
        self.out_fd = os.open(str(tmp / f"{self.name}.out"), flags, 0o600)
        self.err_fd = os.open(str(tmp / f"{self.name}.err"), flags, 0o600)

    def close(self) -> None:
        for fd in (self.stdin_fd, self.out_fd, self.err_fd):
            if fd >= 0:
                os.close(fd)
        self.stdin_fd = self.out_fd = self.err_fd = -1

    def prepare(self) -> None:
        """Outside the clock: this call's stdin at offset 0, empty out and err."""
        data = self.maker.next()
        os.ftruncate(self.stdin_fd, 0)
        os.pwrite(self.stdin_fd, data, 0)
        os.lseek(self.stdin_fd, 0, os.SEEK_SET)
        for fd in (self.out_fd, self.err_fd):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)

    @property
    def file_actions(self) -> list[tuple[int, int, int]]:
        return [
            (os.POSIX_SPAWN_DUP2, self.stdin_fd, 0),
            (os.POSIX_SPAWN_DUP2, self.out_fd, 1),
            (os.POSIX_SPAWN_DUP2, self.err_fd, 2),
        ]


def verify(expect: str | None, status: int, out: bytes, err: bytes) -> str:
    """'' when the call did what the scenario expects, else what went wrong."""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        return f"exit status {code}"
    if expect is None:
        return ""
    if err:
        return "stderr: " + err.decode("utf-8", "replace").strip().splitlines()[-1][:120]
    if expect == "silent":
        return "" if not out.strip() else "printed: " + out.decode("utf-8", "replace")[:120]
    try:
        doc = json.loads(out)
    except ValueError:
        return "no advisory JSON on stdout: " + out.decode("utf-8", "replace")[:120]
    hso = doc.get("hookSpecificOutput") if isinstance(doc, dict) else None
    if not (
        isinstance(doc, dict)
        and set(doc) == {"hookSpecificOutput"}
        and isinstance(hso, dict)
        and hso.get("hookEventName") == "PreToolUse"
        and isinstance(hso.get("additionalContext"), str)
        and hso["additionalContext"]
        and "permissionDecision" not in hso
    ):
        return "unexpected output: " + out.decode("utf-8", "replace")[:120]
    return ""


def run_arms(
    arms: list[Arm],
    calls: int,
    env: dict[str, str],
    before_each: Callable[[], None] | None = None,
    warmup: int = WARMUP_CALLS,
) -> dict[str, _stats.ArmResult]:
    """Time ``calls`` interleaved rounds of every arm; each call a fresh process."""
    results = {a.name: _stats.ArmResult(a.name) for a in arms}
    spawn = os.posix_spawn
    wait4 = os.wait4
    clock = time.perf_counter_ns
    gc.collect()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(-warmup, calls):
            k = i % len(arms)
            for arm in arms[k:] + arms[:k]:
                if arm.limit is not None and i >= arm.limit:
                    continue
                arm.prepare()
                if before_each is not None:
                    before_each()
                actions = arm.file_actions
                t0 = clock()
                pid = spawn(arm.argv[0], arm.argv, env, file_actions=actions)
                _, status, usage = wait4(pid, 0)
                t1 = clock()
                out = os.pread(arm.out_fd, 1 << 16, 0)
                err = os.pread(arm.err_fd, 1 << 16, 0)
                if i < 0:
                    continue
                res = results[arm.name]
                res.samples_ns.append(t1 - t0)
                res.cpu_ns.append(int((usage.ru_utime + usage.ru_stime) * 1e9))
                if out.strip():
                    res.printed += 1
                problem = verify(arm.expect, status, out, err)
                if problem:
                    res.wrong_output += 1
                    res.first_problem = res.first_problem or problem
    finally:
        if gc_was_enabled:
            gc.enable()
    return results


def count_self_disables(fixture: sc.Fixture) -> int:
    n = 0
    if fixture.telemetry_dir.is_dir():
        for p in fixture.telemetry_dir.glob("*.jsonl"):
            try:
                n += p.read_bytes().count(b'"event":"self_disable"')
            except OSError:
                pass
    return n


def pycache_of(hooks_dir: Path) -> Path:
    """The bench's bytecode directory (the `hook` arm's, as install's is the command's)."""
    return hooks_dir.parent / "pycache"


def config_home(hooks_dir: Path) -> Path:
    """The bench's XDG_CONFIG_HOME: the machine config the registered command's shim reads."""
    return hooks_dir.parent / "config"


def write_machine_config(interp: _env.Interpreter, hooks_dir: Path) -> None:
    """What `mishkan install` writes on a machine: this interpreter, this bytecode dir."""
    path = machine_config.config_path({"XDG_CONFIG_HOME": str(config_home(hooks_dir))})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(machine_config.render(interp.path, pycache_of(hooks_dir)))


def registered(command: str) -> list[str]:
    """How Claude Code starts a hook command: Node's ``shell: true``, ``/bin/sh -c``."""
    return ["/bin/sh", "-c", command]


def compile_hook(interp: _env.Interpreter, hooks_dir: Path) -> None:
    """Precompile the hook (and its index builder, when there is one) for
    ``interp``: as `mishkan install` does (checked hash-based, under the
    pycache prefix), and as installs before issue 20 did (in __pycache__, for
    the `hook_in_tree` arm)."""
    code = (
        "import os,py_compile,sys,importlib.util as u\n"
        "prefix,mode=sys.argv[1],py_compile.PycInvalidationMode.CHECKED_HASH\n"
        "for f in sys.argv[2:]:\n"
        "    py_compile.compile(f,doraise=True)\n"
        "    d=os.path.join(prefix,os.path.dirname(os.path.abspath(f)).lstrip('/'))\n"
        "    t=os.path.join(d,os.path.basename(u.cache_from_source(f)))\n"
        "    py_compile.compile(f,cfile=t,doraise=True,invalidation_mode=mode)\n"
    )
    sources = [hooks_dir / name for name in (HOOK_FILE, BUILDER_FILE)]
    subprocess.run(
        [interp.path, "-I", "-S", "-c", code, str(pycache_of(hooks_dir)),
         *(str(p) for p in sources if p.is_file())],
        check=True,
        capture_output=True,
    )  # fmt: skip


@dataclass
class Setup:
    interp: _env.Interpreter
    hooks_dir: Path
    fixtures: dict[str, sc.Fixture]
    graphify: str | None
    prefill_session: str | None
    io_dir: Path
    shim_variants: bool = False


def build_arms(s: Setup, scen: sc.Scenario, calls: int, fixture: sc.Fixture) -> list[Arm]:
    py = s.interp.path
    root = str(fixture.root)

    def maker() -> sc.CallMaker:
        m = sc.CallMaker(scen, root)
        if s.prefill_session and scen.fixture == "session10k":
            # the session's own hizkiah, with its 2,000 earlier calls
            m.fixed_session = s.prefill_session
            m.fixed_agent = sc.PREFILL_AGENT_IDS[0]
        return m

    cache = str(pycache_of(s.hooks_dir))
    hook = [py, "-I", "-S", "-B", "-c", IMPORT_SNIPPET, str(s.hooks_dir), cache]
    in_tree = [py, "-I", "-S", "-c", IN_TREE_SNIPPET, str(s.hooks_dir)]
    # the registered commands, as install writes them for a hooks dir outside
    # the project (an absolute path: the bench's fixtures share one hooks dir)
    shim = hook_command(s.hooks_dir, fixture.root, scen.mode)
    pre_shim = (
        f"{shlex.quote(py)} -I -S -B -c '{PRE_SHIM_SNIPPET}' {shlex.quote(str(s.hooks_dir))} "
        f"{shlex.quote(cache)} --mode={scen.mode}"
    )
    arms = [
        Arm("bare", [py, "-I", "-S", "-c", "pass"], "silent", maker()),
        Arm("bare_sh", registered(f"{shlex.quote(py)} -I -S -c pass"), "silent", maker()),
        Arm("hook", hook, scen.expect, maker()),
        Arm("registered", registered(shim), scen.expect, maker()),
        Arm("registered_pre_shim", registered(pre_shim), scen.expect, maker()),
        Arm("hook_in_tree", in_tree, scen.expect, maker()),
        Arm(
            "hook_script",
            [py, "-I", "-S", str(s.hooks_dir / HOOK_FILE)],
            scen.expect,
            maker(),
        ),
    ]
    if s.shim_variants:
        hooks = shlex.quote(str(s.hooks_dir))
        second = f"mode={scen.mode} hooks={hooks} sh {hooks}/{SHIM_FILE} 2>/dev/null || true"
        arms += [
            Arm("registered_sh", registered(second), scen.expect, maker()),
            Arm("registered_bash", ["/bin/bash", "-c", shim], scen.expect, maker()),
        ]
    if scen.naive:
        arms.append(
            Arm(
                "naive",
                [py, "-I", "-S", str(NAIVE_HOOK)],
                scen.expect,
                maker(),
                limit=scen.naive_calls,
            )
        )
    if scen.peer and s.graphify:
        arms.append(
            Arm(f"graphify_{scen.peer}", [s.graphify, "hook-guard", scen.peer], None, maker())
        )
    return arms


def scenario_env(scen: sc.Scenario, fixture: sc.Fixture, hooks_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(CLAUDE_ENV)
    env["XDG_CONFIG_HOME"] = str(config_home(hooks_dir))
    env["CLAUDE_PROJECT_DIR"] = str(fixture.root)
    env["MISHKAN_GRAPHIFY_NUDGE"] = scen.mode
    # Graphify's hook-guard looks for $GRAPHIFY_OUT/graph.json relative to its
    # cwd; MISHKAN keeps the graph in .graphify/. Its per-session nudge cap is
    # lifted so that it does its full work on every call, like ours in advise
    # mode with a fresh session per call.
    env["GRAPHIFY_OUT"] = sc.GRAPH_DIR
    env["GRAPHIFY_HOOK_NUDGE_CAP"] = "0"
    env.update(scen.extra_env)
    return env


def run_scenario(s: Setup, scen: sc.Scenario, calls: int) -> dict[str, dict[str, Any]]:
    fixture = s.fixtures[scen.fixture]
    arms = build_arms(s, scen, calls, fixture)
    env = scenario_env(scen, fixture, s.hooks_dir)
    before: Callable[[], None] | None = None
    if scen.cold_commit_cache:
        cache = fixture.commit_time_cache

        def before() -> None:
            try:
                os.unlink(cache)
            except FileNotFoundError:
                pass

    if scen.index_spawn:

        def before() -> None:
            sc.reset_index_attempt(fixture)

    elif scen.fixture in sc.INDEX_STATES:

        def before() -> None:
            sc.keep_index_attempt_recent(fixture)

    os.chdir(fixture.root)  # Graphify's hook-guard takes the project from its cwd
    disables = count_self_disables(fixture)
    for a in arms:
        a.open(s.io_dir)
    try:
        res = run_arms(arms, calls, env, before)
    finally:
        for a in arms:
            a.close()
        os.chdir(REPO)
    summary = _stats.scenario_summary(res)
    new_disables = count_self_disables(fixture) - disables
    if new_disables:
        summary["hook"]["self_disables"] = new_disables
    return summary


def needed_fixtures(scenarios: list[sc.Scenario]) -> list[str]:
    return [f for f in sc.FIXTURES if any(x.fixture == f for x in scenarios)]


def reset_telemetry(fixtures: dict[str, sc.Fixture]) -> None:
    for name, f in fixtures.items():
        if name != "session10k" and f.root.joinpath(".mishkan").exists():
            shutil.rmtree(f.root / ".mishkan")
        cache = f.root / sc.GRAPH_DIR / "cache"
        if cache.exists():
            shutil.rmtree(cache)


def select(scenarios: list[sc.Scenario], spec: str) -> list[sc.Scenario]:
    if not spec:
        return scenarios
    wanted = [w.strip() for w in spec.split(",") if w.strip()]
    out = [x for x in scenarios if x.key in wanted or x.name in wanted]
    unknown = [w for w in wanted if not any(w in (x.key, x.name) for x in scenarios)]
    if unknown:
        raise _env.SetupError(f"unknown scenario(s): {', '.join(unknown)}")
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench/cold_start.py",
        description="Cold-start p95 of graphify_nudge.py against `python -I -S -c pass`.",
    )
    p.add_argument(
        "--python",
        default="all",
        help="'all' (3.9..3.13, the default), or a comma list of versions and/or interpreter paths",
    )
    p.add_argument("--skip-missing", action="store_true", help="skip interpreters not found")
    p.add_argument(
        "--calls", type=int, default=None, help=f"calls per arm (default {DEFAULT_CALLS})"
    )
    p.add_argument("--quick", action="store_true", help=f"a fast smoke run: {QUICK_CALLS} calls")
    p.add_argument("--scenarios", default="", help="comma list of scenario names or name/mode keys")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--hook", default=str(DEFAULT_HOOK), help="the hook file (default: the repo's)")
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    p.add_argument("--markdown", metavar="PATH", help="write the headline tables as Markdown")
    p.add_argument("--check", action="store_true", help="exit 1 on any scenario above budget")
    p.add_argument("--max-ms", type=float, default=_stats.BUDGET_MS)
    p.add_argument("--max-ratio", type=float, default=_stats.MAX_RATIO)
    p.add_argument("--no-peers", action="store_true", help="skip Graphify's hook-guard")
    p.add_argument(
        "--shim-variants",
        action="store_true",
        help="also time the registered command with bash as its shell, and with exec",
    )
    p.add_argument(
        "--peer-dir", default="", help="virtualenvs with the pinned graphifyy, per Python"
    )
    p.add_argument("--install-peers", action="store_true", help="create missing peer virtualenvs")
    p.add_argument("--workdir", default="", help="where to build fixtures (default: a temp dir)")
    p.add_argument("--keep", action="store_true", help="keep the fixtures")
    p.add_argument("--big-graph-mb", type=float, default=50.0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scenarios_all = sc.all_scenarios()
    if args.list:
        for x in scenarios_all:
            print(f"{x.key:<28} {x.what}")
        return 0
    calls = args.calls if args.calls is not None else QUICK_CALLS if args.quick else DEFAULT_CALLS
    if calls < 1:
        print("bench: --calls must be at least 1", file=sys.stderr)
        return 2
    hook = Path(args.hook).resolve()
    try:
        if not hook.is_file():
            raise _env.SetupError(f"hook not found: {hook}")
        scenarios = select(scenarios_all, args.scenarios)
        pythons = _env.resolve_pythons(args.python, args.skip_missing)
    except _env.SetupError as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2

    base = (
        Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="gn-bench-"))
    )
    results: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    notes: dict[str, Any] = {}
    peers: dict[str, str] = {}
    prefill: str | None = None
    started = time.time()
    peer_dir = Path(args.peer_dir).resolve() if args.peer_dir else None
    provenance: dict[str, Any] = {}
    try:
        base.mkdir(parents=True, exist_ok=True)
        hooks_dir = base / "payload" / "mishkan" / "hooks"
        hooks_dir.mkdir(parents=True, exist_ok=True)
        provenance.update(_env.hook_provenance(hook))  # what is measured: the file as copied
        shutil.copy2(hook, hooks_dir / HOOK_FILE)
        shutil.copy2(SHIM, hooks_dir / SHIM_FILE)
        builder = hook.with_name(BUILDER_FILE)  # the index builder it spawns, when it has one
        if builder.is_file():
            provenance["builder"] = _env.hook_provenance(builder)
            shutil.copy2(builder, hooks_dir / BUILDER_FILE)
        io_dir = base / "io"
        io_dir.mkdir(exist_ok=True)
        print(f"bench: building fixtures in {base}", flush=True)
        fixtures = {
            name: sc.build_fixture(name, base / "fixtures", int(args.big_graph_mb * 1048576))
            for name in needed_fixtures(scenarios)
        }
        notes["fixtures"] = {n: f.notes for n, f in fixtures.items() if f.notes}
        for interp in pythons:
            try:
                compile_hook(interp, hooks_dir)
            except subprocess.CalledProcessError as e:
                print(
                    f"bench: the hook does not compile on {interp.path}: {e.stderr!r}",
                    file=sys.stderr,
                )
                return 2
            graphify: str | None = None
            if not args.no_peers and any(x.peer for x in scenarios):
                graphify, peers[interp.version] = _env.find_graphify(
                    interp, peer_dir, args.install_peers
                )
            reset_telemetry(fixtures)
            for fixture in fixtures.values():
                t = time.time()
                built = sc.build_index(fixture, interp.path, hooks_dir)
                if fixture.graph is not None and fixture.name in (
                    "big",
                    "biggo",
                    *sc.HOSTILE_GRAPHS,
                ):
                    print(f"bench: index of {fixture.name}: {built} in {time.time() - t:.0f}s")
            if "session10k" in fixtures and prefill is None:
                prefill, lines, how = sc.prefill_session(
                    fixtures["session10k"], interp.path, hooks_dir
                )
                notes["session_10k"] = {"session": prefill, "lines": lines, "how": how}
                print(f"bench: session_10k has {lines} earlier telemetry lines ({how})", flush=True)
            write_machine_config(interp, hooks_dir)
            setup = Setup(
                interp, hooks_dir, fixtures, graphify, prefill, io_dir, args.shim_variants
            )
            per: dict[str, dict[str, dict[str, Any]]] = {}
            for scen in scenarios:
                print(f"bench: python {interp.full_version} {scen.key} ...", end="", flush=True)
                t = time.time()
                per[scen.key] = run_scenario(setup, scen, calls)
                print(f" {time.time() - t:.0f}s", flush=True)
            results[interp.version] = per
            label = (
                f"\nPython {interp.full_version} ({interp.path}), {calls} calls per arm,"
                " interleaved; times in ms, x = ratio to the bare interpreter"
            )
            print(_stats.table(label, per), flush=True)
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(base, ignore_errors=True)

    notes["peers"] = peers
    notes["elapsed_s"] = round(time.time() - started, 1)
    notes["registration"] = _stats.registration_gain(results)
    notes["pycache_cost"] = _stats.pycache_cost(results)
    notes["registered"] = _stats.registered_cost(results)
    settings = {
        "calls": calls,
        "warmup": WARMUP_CALLS,
        "hook": provenance,
        "import_registration": (
            f"python -I -S -B -c '{IMPORT_SNIPPET}' <hooks dir> <bytecode dir>"
        ),
        "registered": "/bin/sh -c 'mode=<mode> hooks=<hooks dir>; command . "
        '"$hooks/graphify-nudge.sh" 2>/dev/null || true\' (issue 29: what install registers)',
        "registered_pre_shim": f"/bin/sh -c \"python -I -S -B -c '{PRE_SHIM_SNIPPET}' <hooks dir> "
        '<bytecode dir> --mode=<mode>" (before issue 29)',
        "bare_sh": "/bin/sh -c 'python -I -S -c pass'",
        "in_tree_registration": f"python -I -S -c '{IN_TREE_SNIPPET}' <hooks dir> (before #20)",
        "script_registration": "python -I -S <hooks dir>/graphify_nudge.py",
        "bare": "python -I -S -c pass",
        "naive": "python -I -S bench/naive_hook.py",
        "graphify": "graphify hook-guard read|search (console script of the pinned graphifyy)",
        "budget_ms": args.max_ms,
        "max_ratio": args.max_ratio,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    doc = _stats.document(
        _env.machine(pythons), settings, results, {x.key: x.what for x in scenarios}, notes
    )
    worst = doc["worst"]
    if worst:
        print(
            f"\nworst hook p95 ratio: {worst['ratio_p95']:.3f} ({worst['p95_ms']:.2f} ms),"
            f" python {worst['python']} {worst['scenario']}"
        )
    for py, g in notes["registration"].items():
        print(
            f"python {py}: the import registration saves {g['median_p95_saving_ms']:.2f} ms p95"
            f" (median), lower p95 in {g['import_faster_in']:.0f}/{g['scenarios']:.0f} scenarios"
        )
    for py, c in notes["pycache_cost"].items():
        print(
            f"python {py}: loading by path with bytecode from a pycache prefix costs"
            f" {c['median_p95_ratio']:.3f}x ({c['median_p95_extra_ms']:+.2f} ms) p95 (median of"
            f" {c['scenarios']:.0f} scenarios) against the in-tree import registration"
        )
    for py, r in notes["registered"].items():
        print(
            f"python {py}: through /bin/sh -c, p95 ratio to a bare start (median / worst of"
            f" {r['scenarios']:.0f} scenarios): registered {r['registered_median']:.3f}x /"
            f" {r['registered_worst']:.3f}x, before issue 29 {r['pre_shim_median']:.3f}x /"
            f" {r['pre_shim_worst']:.3f}x; a bare start through /bin/sh -c"
            f" {r['bare_sh_median']:.3f}x"
        )
        for variant in SHIM_VARIANTS:
            if f"{variant}_median" in r:
                print(f"python {py}: {variant} {r[f'{variant}_median']:.3f}x (median p95 ratio)")
    for py, note in peers.items():
        print(f"python {py} peer: {note}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(args.json + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(args.json)
    if args.markdown:
        Path(args.markdown).write_text(_stats.markdown(doc))
    if args.check:
        bad = _stats.check(results, args.max_ms, args.max_ratio)
        for line in bad:
            print(f"CHECK FAILED: {line}")
        if bad:
            return 1
        print(f"check: every scenario within {args.max_ms:g} ms and {args.max_ratio:g}x at p95")
    return 0


if __name__ == "__main__":
    sys.exit(main())
