"""A `graphify` console script and its distribution's metadata, laid out the
way pip lays out a venv, for the code that reads a graphify's release without
running it (graphify_nudge_index.graphify_version_of). The script itself only
fails: whatever graphify *does* is proven with the real releases in tests/e2e."""

from __future__ import annotations

from pathlib import Path


def dist_info(site: Path, version: str, name: str = "graphifyy") -> Path:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n\nBody: Version: 9.9.9\n"
    )
    return info


def script(path: Path, python: str, body: str = "exit 9") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{python}\n{body}\n")
    path.chmod(0o755)
    return path


def venv(root: Path, version: str | None, body: str = "exit 9") -> Path:
    """`root/bin/graphify` of graphifyy `version` (None: no metadata); its bin dir.
    The interpreter named by the `#!` line is /bin/sh, so `body` is shell."""
    if version is not None:
        dist_info(root / "lib" / "python3.11" / "site-packages", version)
    script(root / "bin" / "graphify", "/bin/sh", body)
    return root / "bin"
