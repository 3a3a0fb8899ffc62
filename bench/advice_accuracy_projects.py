"""The accuracy bench's real-world inputs: pinned third-party projects, the
pinned tools, and a code graph of each built by the real graphify.

Everything is fetched at run time with the ordinary clients (`pip download`,
`npm pack`, `apt-get download` of a Debian package that ships source),
checked against a pinned sha256, and cached under `.cache/advice/`
(gitignored; `MISHKAN_ADVICE_CACHE` or `--cache` moves it, so that several
checkouts share one); nothing fetched is ever committed. Each project
becomes a git repository whose commit sha is reproducible (fixed author,
dates and contents), with the noise a real checkout has beside its sources:
build output, an installed copy in a tool's virtualenv, `node_modules/`. All
of it is gitignored, so graphify leaves it out of the graph, and Reads of it
are Reads of files outside the graph.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import _graphify

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # graphify_nudge_index: graphify's releases, one table
from graphify_nudge_index import GRAPHIFY_NEWEST, GRAPHIFY_OLDEST  # noqa: E402

DEFAULT_CACHE = Path(os.environ.get("MISHKAN_ADVICE_CACHE") or REPO / ".cache" / "advice")

#: the graphify releases the bench measures by default: the supported range's two ends
GRAPHIFY_VERSIONS = (GRAPHIFY_OLDEST, GRAPHIFY_NEWEST)
TYPESCRIPT_VERSION = "5.9.3"
TYPESCRIPT_SHA256 = "10e108c9cf7d5f2879053dff18515fb405abf2ccef63eaaf017d9c571687a1d3"
# Bumped whenever the recipe below changes what a project directory holds.
RECIPE = 2
COMMIT_DATE = "2024-01-01T00:00:00+00:00"
GIT_IDENTITY = ("advice-bench", "advice-bench@localhost")

# Where graphify writes the graph: MISHKAN's convention, `GRAPHIFY_OUT=.graphify`
# given to the build only (the agent's shell does not export it), or graphify's
# own default, `graphify-out/`.
LAYOUTS = {".graphify": ".graphify", "graphify-out": "graphify-out"}


class SetupError(Exception):
    """The bench cannot prepare its inputs (exit 2, one line on stderr)."""


@dataclass(frozen=True)
class Project:
    name: str
    language: str
    fetcher: str  # "pip", "npm" or "apt"
    requirement: str  # what the client is asked for (apt: `package=version`)
    archive: str  # the file it downloads
    sha256: str
    top: str  # the archive's top directory (apt: the source directory inside the package)
    ignored: tuple[str, ...]  # .gitignore lines (build output, tool dirs)
    noise: Callable[[Path, Path], list[str]]  # (project dir, tools dir) -> what it added
    inner: str = ""  # a source tarball inside the package, unpacked before `top` is taken


def _copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))


def _click_noise(root: Path, tools: Path) -> list[str]:
    """What `python -m build`/`setup.py build` and tox leave in a click checkout."""
    _copy_tree(root / "src" / "click", root / "build" / "lib" / "click")
    site = root / ".tox" / "py311" / "lib" / "python3.11" / "site-packages"
    _copy_tree(root / "src" / "click", site / "click")
    return ["build/lib/click/", ".tox/py311/lib/python3.11/site-packages/click/"]


def _zod_noise(root: Path, tools: Path) -> list[str]:
    """zod's published package already holds its build output (`v4/`, `v3/`,
    `index.d.ts`, ...: gitignored here, as in zod's own repository); add an
    installed dev dependency, the pinned TypeScript compiler, in node_modules/."""
    _copy_tree(ensure_typescript(tools), root / "node_modules" / "typescript")
    return [
        "v3/ v4/ v4-mini/ mini/ locales/ index.* (zod's build output)",
        "node_modules/typescript/",
    ]


def _copy_noise(under: str) -> Callable[[Path, Path], list[str]]:
    """A second copy of the project's sources in a gitignored directory, as a
    vendoring tool, a package cache or a build leaves one (`vendor/`,
    `target/package/`, `node_modules/`): Reads of it are Reads outside the graph."""

    def noise(root: Path, tools: Path) -> list[str]:
        dest = root / under
        dest.mkdir(parents=True)
        for item in sorted(root.iterdir()):
            if item.name not in (".gitignore", under.split("/", 1)[0]):
                if item.is_dir():
                    _copy_tree(item, dest / item.name)
                else:
                    shutil.copy2(item, dest / item.name)
        return [under + "/"]

    return noise


_COMMON_IGNORED = ("__pycache__/", ".graphify/", "graphify-out/", ".mishkan/")


def _debian(
    *,
    inner: str = "",
    name: str,
    language: str,
    package: str,
    version: str,
    arch: str,
    sha256: str,
    top: str,
    noise: str,
) -> Project:
    """A Debian package that ships its source (`golang-*-dev`, `librust-*-dev`,
    `ruby-*`, `php-*`): the project is the directory `top` inside it, and a
    copy of it under the gitignored `noise` is the outside-the-graph noise."""
    return Project(
        name=name,
        language=language,
        fetcher="apt",
        requirement=f"{package}={version}",
        archive=f"{package}_{version}_{arch}.deb",
        sha256=sha256,
        top=top,
        ignored=(noise.split("/", 1)[0] + "/", *_COMMON_IGNORED),
        noise=_copy_noise(noise),
        inner=inner,
    )


PROJECTS: dict[str, Project] = {
    "click": Project(
        name="click",
        language="python",
        fetcher="pip",
        requirement="click==8.1.7",
        archive="click-8.1.7.tar.gz",
        sha256="ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de",
        top="click-8.1.7",
        ignored=("build/", ".tox/", "*.egg-info/", *_COMMON_IGNORED),
        noise=_click_noise,
    ),
    "zod": Project(
        name="zod",
        language="typescript",
        fetcher="npm",
        requirement="zod@4.1.12",
        archive="zod-4.1.12.tgz",
        sha256="2ef9d7a7d822b059c9bd21f87caa4fdc48220d437353678984df942fb67b43fa",
        top="package",
        ignored=(
            "/index.*",
            "/v3/",
            "/v4/",
            "/v4-mini/",
            "/mini/",
            "/locales/",
            "node_modules/",
            *_COMMON_IGNORED,
        ),
        noise=_zod_noise,
    ),
    # Issue 23: one project per further language of D-009's trigger set.
    "commander": Project(
        name="commander",
        language="javascript",
        fetcher="npm",
        requirement="commander@12.1.0",
        archive="commander-12.1.0.tgz",
        sha256="56affc6ddafe486f94b428ae2823d059cf60d4dae2f33eaaf1b1ec4306f73173",
        top="package",
        ignored=("node_modules/", *_COMMON_IGNORED),
        noise=_copy_noise("node_modules/commander"),
    ),
    "cobra": _debian(
        name="cobra",
        language="go",
        package="golang-github-spf13-cobra-dev",
        version="1.6.1-1",
        arch="all",
        sha256="4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2",
        top="usr/share/gocode/src/github.com/spf13/cobra",
        noise="vendor/github.com/spf13/cobra",
    ),
    "semver": _debian(
        name="semver",
        language="rust",
        package="librust-semver-dev",
        version="1.0.14-1",
        arch="amd64",
        sha256="bf3719b7aac4b7f16f0d68a7037306dbc1532758fe7a5dea01254e85cecaca8c",
        top="usr/share/cargo/registry/semver-1.0.14",
        noise="target/package/semver-1.0.14",
    ),
    "hashie": _debian(
        name="hashie",
        language="ruby",
        package="ruby-hashie",
        version="5.0.0-2",
        arch="all",
        sha256="4a415c14876562945c9ad677907e8929393bc9967550be954b3a456662652f3c",
        top="usr/share/rubygems-integration/all/gems/hashie-5.0.0",
        noise="vendor/bundle/ruby/3.1.0/gems/hashie-5.0.0",
    ),
    "bsh": _debian(  # Java: Debian ships BeanShell's source as a tarball in bsh-src
        name="bsh",
        language="java",
        package="bsh-src",
        version="2.0b4-20",
        arch="all",
        sha256="8bc67e9514560ef9e15beff101ed1ffb54a448588c2403987f407cd11547c00d",
        inner="usr/src/bsh-src/bsh.tar.gz",
        top="",
        noise="target/generated-sources/bsh",
    ),
    "psr7": _debian(
        name="psr7",
        language="php",
        package="php-guzzlehttp-psr7",
        version="2.4.5-1+deb12u1",
        arch="all",
        sha256="62a536ac1e6f7fc47e6f36562e0049da3023b3adeac1be114c9fda2fbc08eb52",
        top="usr/share/php/GuzzleHttp/Psr7",
        noise="vendor/guzzlehttp/psr7/src",
    ),
}


# ---------------------------------------------------------------------------
# Fetching


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False
        )
    except OSError as e:
        raise SetupError(f"cannot run {argv[0]}: {e}") from None
    if done.returncode != 0:
        tail = done.stdout.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise SetupError(f"`{' '.join(argv[:4])} ...` failed ({done.returncode}): {tail[0]}")


def fetch(fetcher: str, requirement: str, archive: str, sha256: str, downloads: Path) -> Path:
    """The verified archive, downloaded once with the registry's own client."""
    path = downloads / archive
    if not path.exists():
        downloads.mkdir(parents=True, exist_ok=True)
        if fetcher == "pip":
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "--dest",
                    str(downloads),
                    requirement,
                ]
            )
        elif fetcher == "apt":
            # Debian's own client; the version is pinned in `requirement`
            # (`package=version`), and needs a current package list.
            _run(["apt-get", "download", "-q", requirement], cwd=downloads)
        else:
            _run(["npm", "pack", "--silent", "--pack-destination", str(downloads), requirement])
        if not path.exists():
            raise SetupError(f"{requirement}: the download did not produce {archive}")
    actual = sha256_of(path)
    if actual != sha256:
        path.unlink()
        raise SetupError(f"{archive}: sha256 {actual} is not the pinned {sha256}; removed it")
    return path


def _extract(archive: Path, dest: Path) -> None:
    if archive.suffix == ".deb":
        dest.mkdir(parents=True, exist_ok=True)
        _run(["dpkg-deb", "-x", str(archive), str(dest)])
        return
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # Python < 3.11.4: the archive's sha256 was verified above
            tar.extractall(dest)


# ---------------------------------------------------------------------------
# Tools


def typescript_dir(tools: Path) -> Path:
    return tools / f"typescript-{TYPESCRIPT_VERSION}" / "package"


def ensure_typescript(tools: Path) -> Path:
    """The pinned TypeScript compiler (it has no dependencies: its npm tarball,
    unpacked, is the installed package)."""
    target = typescript_dir(tools)
    if (target / "lib" / "typescript.js").exists():
        return target
    archive = fetch(
        "npm",
        f"typescript@{TYPESCRIPT_VERSION}",
        f"typescript-{TYPESCRIPT_VERSION}.tgz",
        TYPESCRIPT_SHA256,
        tools / "downloads",
    )
    shutil.rmtree(target.parent, ignore_errors=True)
    _extract(archive, target.parent)
    return target


def output_of(argv: list[str], timeout: float = 60) -> str | None:
    """A command's stripped stdout, or None when it cannot run or fails."""
    try:
        done = subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode(errors="replace").strip()


def graphify_version(graphify: Path) -> str | None:
    return _graphify.installed_version(graphify)


def ensure_graphify(tools: Path, version: str, given: Path | None = None) -> Path:
    """The `graphify` console script of graphifyy `version`: `given`, else a
    virtualenv in the cache, created once (bench/_graphify.py)."""
    if given is not None:
        found = graphify_version(given)
        if found != version:
            raise SetupError(f"{given} is graphifyy {found}, not {version}")
        return given
    try:
        return _graphify.ensure(version, tools, "advice")
    except _graphify.GraphifyInstallError as exc:
        raise SetupError(str(exc)) from None


# ---------------------------------------------------------------------------
# Project checkouts


@dataclass(frozen=True)
class Checkout:
    project: Project
    root: Path
    layout: str
    graph: Path  # the graph.json graphify wrote
    commit: str
    noise: tuple[str, ...]
    built: bool  # built in this run (False: reused from the cache)


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    name, email = GIT_IDENTITY
    env.update(
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_AUTHOR_DATE=COMMIT_DATE,
        GIT_COMMITTER_DATE=COMMIT_DATE,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        env=git_env(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SetupError(f"git {args[0]} in {root}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode().strip()


def _stamp(project: Project, layout: str, graphify: str) -> dict[str, object]:
    return {
        "recipe": RECIPE,
        "archive": project.archive,
        "sha256": project.sha256,
        "layout": layout,
        "graphify": graphify,
        "typescript": (
            TYPESCRIPT_VERSION if project.language in ("typescript", "javascript") else None
        ),
    }


def prepare(
    project: Project,
    cache: Path,
    layout: str,
    graphify: Path,
    rebuild: bool = False,
    *,
    version: str = GRAPHIFY_NEWEST,
) -> Checkout:
    """The project as a git repository with its graph by graphify `version`,
    reused from the cache when the recipe, the archive, the layout and
    graphify are unchanged."""
    tools = cache / "tools"
    # named as a clone of the project is (graphify keys Go packages by directory)
    root = cache / "projects" / f"{layout.strip('.')}-{version}" / project.name
    stamp_file = root.parent / f"{root.name}.json"
    graph = root / LAYOUTS[layout] / "graph.json"
    stamp = _stamp(project, layout, version)
    if not rebuild and graph.exists() and stamp_file.exists():
        recorded = json.loads(stamp_file.read_text())
        if recorded.get("stamp") == stamp:
            return Checkout(
                project, root, layout, graph, recorded["commit"], tuple(recorded["noise"]), False
            )
    archive = fetch(
        project.fetcher, project.requirement, project.archive, project.sha256, cache / "downloads"
    )
    shutil.rmtree(root, ignore_errors=True)
    stamp_file.unlink(missing_ok=True)
    unpack = root.parent / f"{root.name}.unpack"
    shutil.rmtree(unpack, ignore_errors=True)
    _extract(archive, unpack)
    if project.inner:
        inner = root.parent / f"{root.name}.inner"
        shutil.rmtree(inner, ignore_errors=True)
        _extract(unpack / project.inner, inner)
        shutil.rmtree(unpack)
        unpack = inner
    (unpack / project.top).rename(root)
    if project.top:
        shutil.rmtree(unpack)  # the rest of the archive (a package's docs and metadata)
    (root / ".gitignore").write_text("".join(line + "\n" for line in project.ignored))
    noise = project.noise(root, tools)
    _git(root, "init", "--quiet", "--initial-branch=main")
    _git(root, "add", "--all")
    _git(root, "commit", "--quiet", "--no-verify", "-m", f"{project.requirement}, as published")
    commit = _git(root, "rev-parse", "HEAD")
    _build_graph(root, layout, graphify, version)
    if not graph.exists():
        raise SetupError(f"graphify wrote no {graph}")
    stamp_file.write_text(json.dumps({"stamp": stamp, "commit": commit, "noise": noise}, indent=1))
    return Checkout(project, root, layout, graph, commit, tuple(noise), True)


def build_command(version: str) -> str:
    """How a harness builds the graph with graphify `version`: `extract . --code-only`,
    or `update .` where extract needs an LLM key (mishkan_core.graph_refresh.build_argv)."""
    from mishkan_core import graph_refresh

    return " ".join(graph_refresh.build_argv(graph_refresh.Graphify(None, version)))


def _build_graph(root: Path, layout: str, graphify: Path, version: str) -> None:
    """As a harness builds it with that release (`build_command`)."""
    env = {k: v for k, v in os.environ.items() if k != "GRAPHIFY_OUT"}
    if layout == ".graphify":
        env["GRAPHIFY_OUT"] = ".graphify"
    _run([str(graphify), *build_command(version).split()[1:]], cwd=root, env=env)


def graph_files(graph: Path) -> frozenset[str]:
    """The files the graph holds: every node's non-empty `source_file`."""
    data = json.loads(graph.read_text())
    return frozenset(str(n["source_file"]) for n in data.get("nodes", ()) if n.get("source_file"))
