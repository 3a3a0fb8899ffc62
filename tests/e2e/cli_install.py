"""Install the pinned Claude Code CLI from npm into a cache, and check graphify.

Run as a script (``python tests/e2e/cli_install.py``) by ``tox -e e2e`` before
pytest, and imported by the e2e fixtures, so a plain ``pytest -m e2e`` works as
well. Any failure (npm missing, registry unreachable, wrong version, binary not
where the platform package puts it) raises :class:`E2ESetupError` with the
tool's own output: the e2e step fails loudly and never skips.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

CLAUDE_CODE_VERSION = "2.1.197"
GRAPHIFY_DIST = "graphifyy"
GRAPHIFY_VERSION = "0.9.96"

REPO_ROOT = Path(__file__).resolve().parents[2]
#: where the npm install lands; ``.cache/`` is gitignored
CACHE_DIR = Path(os.environ.get("MISHKAN_E2E_CACHE") or REPO_ROOT / ".cache" / "e2e")

NPM_TIMEOUT = 900
REGISTRY_TIMEOUT = 120
VERSION_TIMEOUT = 60


class E2ESetupError(RuntimeError):
    """The end-to-end environment could not be set up: fail, never skip."""


def _platform_package() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if sys.platform != "linux" or arch is None:
        raise E2ESetupError(f"e2e: no Claude Code native package for {sys.platform}/{machine}")
    return f"claude-code-linux-{arch}"


def install_prefix() -> Path:
    return CACHE_DIR / f"claude-code-{CLAUDE_CODE_VERSION}"


def claude_binary_path() -> Path:
    """Where the native binary lands: the platform package ships it (the
    wrapper's postinstall, which would link it, is not run by npm >= 11)."""
    return install_prefix() / "node_modules" / "@anthropic-ai" / _platform_package() / "claude"


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


def _check_registry(npm: str) -> None:
    """Ask the registry for the pinned version first, with a short timeout, so
    that an unreachable registry fails within two minutes with a clear message
    (npm's own fetch timeout is 5 minutes a try)."""
    spec = f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}"
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
    if proc.returncode != 0 or proc.stdout.strip() != CLAUDE_CODE_VERSION:
        raise E2ESetupError(
            f"e2e: `{' '.join(cmd)}` exited {proc.returncode} "
            f"(is the npm registry reachable?)\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        )


def ensure_claude_cli() -> Path:
    """Return the pinned CLI binary, installing it with npm on first use."""
    binary = claude_binary_path()
    expected = f"{CLAUDE_CODE_VERSION} (Claude Code)"
    if binary.is_file() and _cli_version(binary) == expected:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise E2ESetupError(
            "e2e: npm is not on PATH; install Node.js 18+ and npm (apt: nodejs npm)"
        )
    _check_registry(npm)
    prefix = install_prefix()
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
        f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}",
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


def main() -> int:
    try:
        binary = ensure_claude_cli()
        graphify = ensure_graphify()
    except E2ESetupError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"e2e: Claude Code {CLAUDE_CODE_VERSION} at {binary}")
    print(f"e2e: graphify ({GRAPHIFY_DIST} {GRAPHIFY_VERSION}) at {graphify}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
