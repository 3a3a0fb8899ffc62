"""Install Claude Code CLIs from npm into a cache, and check graphify.

Run as a script (``python tests/e2e/cli_install.py``) by ``tox -e e2e`` before
pytest, and imported by the e2e fixtures, so a plain ``pytest -m e2e`` works as
well. Any failure (npm missing, registry unreachable, wrong version, binary not
where the package puts it) raises :class:`E2ESetupError` with the tool's own
output: the e2e step fails loudly and never skips.

Which CLIs: :func:`cli_versions`, from ``MISHKAN_E2E_CLI`` (a comma-separated
list of versions, or ``floor``/``newest``); by default both ends of the
supported range (``mishkan_core.claude_cli``), so one ``tox -e e2e`` proves
both. Up to 2.1.112 the npm package is JavaScript (``cli.js``, run by node);
from 2.1.113 the binary is native and comes from the platform package.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository's own package
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from mishkan_core import claude_cli

#: the variable that chooses the CLIs of an e2e run (docs/e2e.md)
CLI_ENV = "MISHKAN_E2E_CLI"
#: what an e2e run uses when the variable is unset: both ends of the range
DEFAULT_CLI_VERSIONS = (claude_cli.FLOOR, claude_cli.NEWEST)
#: the CLI of scripts and tools that need one (the newest)
CLAUDE_CODE_VERSION = claude_cli.NEWEST
GRAPHIFY_DIST = "graphifyy"
GRAPHIFY_VERSION = "0.9.96"

REPO_ROOT = Path(__file__).resolve().parents[2]
#: where the npm installs land; ``.cache/`` is gitignored
CACHE_DIR = Path(os.environ.get("MISHKAN_E2E_CACHE") or REPO_ROOT / ".cache" / "e2e")

NPM_TIMEOUT = 900
REGISTRY_TIMEOUT = 120
VERSION_TIMEOUT = 60


class E2ESetupError(RuntimeError):
    """The end-to-end environment could not be set up: fail, never skip."""


def cli_versions(environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """The CLI versions this run uses, in order, without repeats."""
    raw = (os.environ if environ is None else environ).get(CLI_ENV, "").strip()
    if not raw:
        return DEFAULT_CLI_VERSIONS
    aliases = {"floor": claude_cli.FLOOR, "newest": claude_cli.NEWEST}
    out: list[str] = []
    for word in raw.replace(" ", ",").split(","):
        if not word:
            continue
        version = aliases.get(word.lower(), word)
        if claude_cli.parse(version) is None:
            raise E2ESetupError(
                f"e2e: {CLI_ENV}={raw!r}: {word!r} is not a version (2.1.332, floor, newest)"
            )
        if version not in out:
            out.append(version)
    if not out:
        raise E2ESetupError(f"e2e: {CLI_ENV}={raw!r} names no version")
    return tuple(out)


def _platform_package() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if sys.platform != "linux" or arch is None:
        raise E2ESetupError(f"e2e: no Claude Code native package for {sys.platform}/{machine}")
    return f"claude-code-linux-{arch}"


def install_prefix(version: str = CLAUDE_CODE_VERSION) -> Path:
    return CACHE_DIR / f"claude-code-{version}"


def claude_binary_path(version: str = CLAUDE_CODE_VERSION) -> Path:
    """Where the CLI lands: the native binary of the platform package (the
    wrapper's postinstall, which would link it, is not run by npm >= 11), or,
    up to 2.1.112, the package's ``cli.js`` (``#!/usr/bin/env node``)."""
    modules = install_prefix(version) / "node_modules" / "@anthropic-ai"
    native = modules / _platform_package() / "claude"
    script = modules / "claude-code" / "cli.js"
    return script if script.is_file() and not native.is_file() else native


def _cli_version(binary: Path) -> str | None:
    try:
        proc = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            env={"HOME": str(CACHE_DIR), "PATH": "/usr/bin:/bin", "DISABLE_AUTOUPDATER": "1"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _check_registry(npm: str, version: str) -> None:
    """Ask the registry for the version first, with a short timeout, so that
    an unreachable registry fails within two minutes with a clear message
    (npm's own fetch timeout is 5 minutes a try)."""
    spec = f"@anthropic-ai/claude-code@{version}"
    cmd = [npm, "view", spec, "version", "--fetch-timeout=30000", "--fetch-retries=1"]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=REGISTRY_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise E2ESetupError(
            f"e2e: the npm registry did not answer `{' '.join(cmd)}` within "
            f"{REGISTRY_TIMEOUT}s (proxy or CA settings: NODE_EXTRA_CA_CERTS, HTTPS_PROXY?)"
        ) from exc
    if proc.returncode != 0 or proc.stdout.strip() != version:
        raise E2ESetupError(
            f"e2e: `{' '.join(cmd)}` exited {proc.returncode} "
            f"(is the npm registry reachable?)\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        )


def ensure_claude_cli(version: str = CLAUDE_CODE_VERSION) -> Path:
    """Return CLI ``version``'s binary, installing it with npm on first use."""
    binary = claude_binary_path(version)
    expected = f"{version} (Claude Code)"
    if binary.is_file() and _cli_version(binary) == expected:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise E2ESetupError(
            "e2e: npm is not on PATH; install Node.js 18+ and npm (apt: nodejs npm)"
        )
    _check_registry(npm, version)
    prefix = install_prefix(version)
    prefix.mkdir(parents=True, exist_ok=True)
    cmd = [
        npm,
        "install",
        "--prefix",
        str(prefix),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        # bounded retries: a TLS or proxy failure ends in a minute or two, loudly
        "--fetch-retries=1",
        "--fetch-retry-mintimeout=2000",
        "--fetch-retry-maxtimeout=10000",
        f"@anthropic-ai/claude-code@{version}",
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NPM_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise E2ESetupError(f"e2e: `{' '.join(cmd)}` timed out after {NPM_TIMEOUT}s") from exc
    if proc.returncode != 0:
        raise E2ESetupError(
            f"e2e: `{' '.join(cmd)}` failed with exit {proc.returncode} "
            f"(is the npm registry reachable?)\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    binary = claude_binary_path(version)
    if not binary.is_file():
        raise E2ESetupError(
            f"e2e: npm install succeeded but the native binary is missing at {binary}\n"
            f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    got = _cli_version(binary)
    if got != expected:
        raise E2ESetupError(f"e2e: {binary} --version gave {got!r}, expected {expected!r}")
    return binary


def graphify_bin_dir() -> Path:
    """The directory holding the ``graphify`` script of this interpreter's env,
    or of the release a test runs on (tests/e2e/graphify_axis.py)."""
    chosen = os.environ.get("MISHKAN_E2E_GRAPHIFY_BIN")
    return Path(chosen) if chosen else Path(sys.executable).parent


def ensure_graphify() -> Path:
    """Return the ``graphify`` executable of the pinned graphifyy, or fail."""
    from importlib import metadata

    try:
        version = metadata.version(GRAPHIFY_DIST)
    except metadata.PackageNotFoundError:
        raise E2ESetupError(
            f"e2e: {GRAPHIFY_DIST}=={GRAPHIFY_VERSION} is not installed in {sys.prefix} "
            "(tox -e e2e installs it from tests/e2e/requirements.txt)"
        ) from None
    if version != GRAPHIFY_VERSION:
        raise E2ESetupError(f"e2e: {GRAPHIFY_DIST} {version} installed, {GRAPHIFY_VERSION} pinned")
    exe = Path(sys.executable).parent / "graphify"  # this env's, whichever release a test is on
    if not exe.is_file():
        found = shutil.which("graphify")
        if found is None:
            raise E2ESetupError("e2e: the graphify console script was not found")
        exe = Path(found)
    return exe


def main(argv: list[str] | None = None) -> int:
    """Install every CLI of this run (or the versions given as arguments)."""
    try:
        versions = tuple(argv) if argv else cli_versions()
        binaries = [(version, ensure_claude_cli(version)) for version in versions]
        graphify = ensure_graphify()
    except E2ESetupError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    for version, binary in binaries:
        print(f"e2e: Claude Code {version} at {binary}")
    print(f"e2e: graphify ({GRAPHIFY_DIST} {GRAPHIFY_VERSION}) at {graphify}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
