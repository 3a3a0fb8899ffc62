"""Percentiles, ratios, the --check rule, the JSON document and the table.

Pure functions over lists of nanosecond samples: tests/bench feeds them
synthetic numbers, so nothing here is timed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

BUDGET_MS = 50.0  # the ADR's ceiling: p95 added to PreToolUse, interpreter included
MAX_RATIO = 1.2  # our goal: p95 within 1.2x of `python3 -I -S -c pass`
CHECKED_ARM = "hook"  # the registration the README recommends
BARE = "bare"
JSON_SCHEMA = 1


def percentile(samples: list[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), q in [0, 100]."""
    if not samples:
        return math.nan
    xs = sorted(samples)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass
class ArmResult:
    """One arm (hook, bare interpreter, peer...) of one scenario."""

    arm: str
    samples_ns: list[int] = field(default_factory=list)  # wall clock, spawn to reap
    cpu_ns: list[int] = field(default_factory=list)  # the child's user + system CPU time
    wrong_output: int = 0  # calls whose stdout/stderr/exit differed from the expectation
    printed: int = 0  # calls that printed something on stdout
    first_problem: str = ""

    def ms(self) -> list[float]:
        return [s / 1e6 for s in self.samples_ns]

    def summary(self) -> dict[str, float]:
        ms = self.ms()
        cpu = [s / 1e6 for s in self.cpu_ns]
        out = {
            "p50_ms": round(percentile(ms, 50), 3),
            "p95_ms": round(percentile(ms, 95), 3),
            "p99_ms": round(percentile(ms, 99), 3),
        }
        if cpu:
            out["cpu_p50_ms"] = round(percentile(cpu, 50), 3)
            out["cpu_p95_ms"] = round(percentile(cpu, 95), 3)
        return out


def with_ratios(arm: dict[str, float], bare: dict[str, float]) -> dict[str, Any]:
    out: dict[str, Any] = dict(arm)
    for q in ("p50", "p95", "p99", "cpu_p50", "cpu_p95"):
        if f"{q}_ms" not in arm or f"{q}_ms" not in bare:
            continue
        b = bare[f"{q}_ms"]
        out[f"ratio_{q}"] = round(arm[f"{q}_ms"] / b, 3) if b > 0 else math.inf
    return out


def scenario_summary(arms: dict[str, ArmResult]) -> dict[str, dict[str, Any]]:
    """{arm: {p50_ms, p95_ms, p99_ms, ratio_p50, ratio_p95, ratio_p99, calls, ...}}."""
    bare = arms[BARE].summary()
    out: dict[str, dict[str, Any]] = {}
    for name, res in arms.items():
        row = with_ratios(res.summary(), bare)
        row["calls"] = len(res.samples_ns)
        row["wrong_output"] = res.wrong_output
        row["printed"] = res.printed
        if res.first_problem:
            row["first_problem"] = res.first_problem
        out[name] = row
    return out


def check(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
    max_ms: float = BUDGET_MS,
    max_ratio: float = MAX_RATIO,
    arm: str = CHECKED_ARM,
) -> list[str]:
    """Violations of the budget by the hook, one line each (empty: all good).

    ``results`` is {python: {scenario: {arm: row}}}. A scenario fails when the
    hook's p95 is above ``max_ms`` or its p95 ratio to the bare interpreter is
    above ``max_ratio``, or when the hook did not do what the scenario expects
    (then the timing measured the wrong path).
    """
    bad: list[str] = []
    for py, scenarios in results.items():
        for key, arms in scenarios.items():
            row = arms.get(arm)
            if row is None:
                continue
            if row["p95_ms"] > max_ms:
                bad.append(f"python {py} {key}: p95 {row['p95_ms']:.2f} ms > {max_ms:g} ms")
            if row["ratio_p95"] > max_ratio:
                bad.append(
                    f"python {py} {key}: p95 ratio {row['ratio_p95']:.3f} > {max_ratio:g}"
                    f" ({row['p95_ms']:.2f} ms vs bare {arms[BARE]['p95_ms']:.2f} ms)"
                )
            if row.get("wrong_output"):
                bad.append(
                    f"python {py} {key}: {row['wrong_output']} calls did not behave as expected"
                    f" ({row.get('first_problem', '?')})"
                )
    return bad


def document(
    machine: dict[str, Any],
    settings: dict[str, Any],
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
    scenarios: dict[str, str],
    notes: dict[str, Any],
) -> dict[str, Any]:
    """The --json document.

    ``results[python][scenario][arm]`` is {p50_ms, p95_ms, p99_ms, ratio_p95,
    ...}: arm ``hook`` is the recommended (import) registration, ``hook_script``
    the script-path one, ``bare`` the bare interpreter, ``naive`` the naive
    reference hook, ``graphify_read``/``graphify_search`` Graphify's own hook.
    """
    return {
        "schema": JSON_SCHEMA,
        "machine": machine,
        "settings": settings,
        "scenarios": scenarios,
        "results": results,
        "worst": worst(results),
        "notes": notes,
    }


def worst(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]], arm: str = CHECKED_ARM
) -> dict[str, Any] | None:
    best: dict[str, Any] | None = None
    for py, scenarios in results.items():
        for key, arms in scenarios.items():
            row = arms.get(arm)
            if row is None:
                continue
            if best is None or row["ratio_p95"] > best["ratio_p95"]:
                best = {"python": py, "scenario": key, **row}
    return best


def _f(x: float | None, spec: str = ".1f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def table(python_label: str, scenarios: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The stdout table of one interpreter."""
    cols = (
        f"{'scenario':<28} {'bare p50':>8} {'p95':>6} | {'hook p50':>8} {'p95':>6} {'p99':>6}"
        f" {'x p95':>6} | {'script p95':>10} {'x':>5} | {'naive x':>7} | {'graphify x':>10} | path"
    )
    lines = [python_label, cols, "-" * len(cols)]
    for key, arms in scenarios.items():
        bare = arms[BARE]
        hook = arms.get("hook", {})
        script = arms.get("hook_script", {})
        naive = arms.get("naive", {})
        peer = arms.get("graphify_read") or arms.get("graphify_search") or {}
        problems = sum(int(a.get("wrong_output", 0)) for n, a in arms.items() if n != BARE)
        path = "ok" if not problems else f"{problems} wrong"
        lines.append(
            f"{key:<28} {_f(bare['p50_ms']):>8} {_f(bare['p95_ms']):>6} |"
            f" {_f(hook.get('p50_ms')):>8} {_f(hook.get('p95_ms')):>6} {_f(hook.get('p99_ms')):>6}"
            f" {_f(hook.get('ratio_p95'), '.2f'):>6} |"
            f" {_f(script.get('p95_ms')):>10} {_f(script.get('ratio_p95'), '.2f'):>5} |"
            f" {_f(naive.get('ratio_p95'), '.2f'):>7} | {_f(peer.get('ratio_p95'), '.2f'):>10} |"
            f" {path}"
        )
    return "\n".join(lines)


def registration_gain(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
) -> dict[str, dict[str, float]]:
    """Per python: median over scenarios of (script p95 - import p95) in ms and
    the number of scenarios where the import registration had the lower p95."""
    out: dict[str, dict[str, float]] = {}
    for py, scenarios in results.items():
        diffs = [
            arms["hook_script"]["p95_ms"] - arms["hook"]["p95_ms"]
            for arms in scenarios.values()
            if "hook" in arms and "hook_script" in arms
        ]
        if not diffs:
            continue
        out[py] = {
            "median_p95_saving_ms": round(percentile(diffs, 50), 3),
            "import_faster_in": float(sum(1 for d in diffs if d > 0)),
            "scenarios": float(len(diffs)),
        }
    return out


def pycache_cost(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
) -> dict[str, dict[str, float]]:
    """Per python, what issue 20's registration (the hook loaded by path, its
    checked hash-based bytecode from a pycache prefix) costs against the one
    before it (imported by name, bytecode from __pycache__), timed in the same
    run: the median over scenarios of the p95 ratio and of the p95 difference."""
    out: dict[str, dict[str, float]] = {}
    for py, scenarios in results.items():
        pairs = [
            (arms["hook"]["p95_ms"], arms["hook_in_tree"]["p95_ms"])
            for arms in scenarios.values()
            if "hook" in arms and "hook_in_tree" in arms
        ]
        if not pairs:
            continue
        out[py] = {
            "median_p95_ratio": round(percentile([a / b for a, b in pairs], 50), 3),
            "median_p95_extra_ms": round(percentile([a - b for a, b in pairs], 50), 3),
            "scenarios": float(len(pairs)),
        }
    return out


def registered_cost(
    results: dict[str, dict[str, dict[str, dict[str, Any]]]],
) -> dict[str, dict[str, float]]:
    """Per python, the registered commands through ``/bin/sh -c`` as Claude
    Code starts them: the median and worst over scenarios of each one's p95
    ratio to the bare interpreter (issue 29's shim, the one-line registration
    before it, a bare start through the shell, and any shim variant timed)."""
    arms = ("registered", "registered_pre_shim", "bare_sh", "registered_sh", "registered_bash")
    names = {"registered_pre_shim": "pre_shim"}
    out: dict[str, dict[str, float]] = {}
    for py, scenarios in results.items():
        row: dict[str, float] = {}
        for arm in arms:
            ratios = [a[arm]["ratio_p95"] for a in scenarios.values() if arm in a]
            if ratios:
                name = names.get(arm, arm)
                row[f"{name}_median"] = round(percentile(ratios, 50), 3)
                row[f"{name}_worst"] = round(max(ratios), 3)
                row["scenarios"] = float(len(ratios))
        if "registered_median" in row and "pre_shim_median" in row:
            out[py] = row
    return out


def _median_of(rows: list[dict[str, Any]], key: str) -> float:
    return percentile([float(r[key]) for r in rows if key in r], 50)


def _cell(row: dict[str, Any] | None) -> str:
    return f"{row['p95_ms']:.1f} ({row['ratio_p95']:.2f}x)" if row else "-"


def markdown(doc: dict[str, Any]) -> str:
    """The headline tables (bench/README.md) of a --json document."""
    results: dict[str, dict[str, dict[str, dict[str, Any]]]] = doc["results"]
    pythons = doc["machine"]["pythons"]
    out = [
        "| Python | bare p50 / p95 | hook p95 ratio: median / worst (scenario)"
        " | script-path registration p95 ratio, median | naive hook (read_fresh)"
        " | graphify hook-guard read (read_fresh) / search (grep_stale) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for py, scen in results.items():
        rows = list(scen.values())
        bare = [r["bare"] for r in rows]
        hooks = [r["hook"] for r in rows if "hook" in r]
        scripts = [r["hook_script"] for r in rows if "hook_script" in r]
        w = worst({py: scen})
        worst_txt = f"{w['ratio_p95']:.2f}x ({w['scenario']})" if w else "-"
        naive = scen.get("read_fresh/advise", {}).get("naive")
        read = scen.get("read_fresh/advise", {}).get("graphify_read")
        search = scen.get("grep_stale/advise", {}).get("graphify_search")
        peer = f"{read['ratio_p95']:.2f}x / {search['ratio_p95']:.2f}x" if read and search else "-"
        naive_txt = f"{naive['ratio_p95']:.2f}x" if naive else "-"
        out.append(
            f"| {pythons.get(py, {}).get('version', py)}"
            f" | {_median_of(bare, 'p50_ms'):.1f} / {_median_of(bare, 'p95_ms'):.1f} ms"
            f" | {_median_of(hooks, 'ratio_p95'):.2f}x / {worst_txt}"
            f" | {_median_of(scripts, 'ratio_p95'):.2f}x | {naive_txt} | {peer} |"
        )
    pys = list(results)
    out += ["", "Hook p95 in ms (ratio to the bare interpreter's p95 in the same run):", ""]
    out.append("| scenario | " + " | ".join(pys) + " |")
    out.append("| --- |" + " --- |" * len(pys))
    keys: list[str] = []
    for scen in results.values():
        keys += [k for k in scen if k not in keys]
    for key in keys:
        cells = [_cell(results[py].get(key, {}).get("hook")) for py in pys]
        out.append(f"| {key} | " + " | ".join(cells) + " |")
    peers = [
        ("naive", "read_fresh/advise"),
        ("naive", "grep_stale/advise"),
        ("naive", "graph_50mb/advise"),
        ("graphify_read", "read_fresh/advise"),
        ("graphify_search", "grep_stale/advise"),
        ("graphify_search", "bash_trigger/advise"),
    ]
    out += ["", "Peers, p95 in ms (ratio to the bare interpreter):", ""]
    out.append("| peer | scenario | " + " | ".join(pys) + " |")
    out.append("| --- | --- |" + " --- |" * len(pys))
    for arm, key in peers:
        cells = [_cell(results[py].get(key, {}).get(arm)) for py in pys]
        if any(c != "-" for c in cells):
            out.append(f"| {arm} | {key} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
