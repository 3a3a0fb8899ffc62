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


#: The two sets (docs/advice_accuracy.md, "Two sets"): the hook has been tuned on
#: the first; the second is first contact and must never be tuned on.
TUNING, FIRST_CONTACT = "tuning", "first-contact"
SETS = (TUNING, FIRST_CONTACT)
LANGUAGE_NAMES = {
    "python": "Python",
    "typescript": "TypeScript",
    "javascript": "JavaScript",
    "go": "Go",
    "rust": "Rust",
    "ruby": "Ruby",
    "php": "PHP",
    "java": "Java",
}


class SetupError(Exception):
    """The bench cannot prepare its inputs (exit 2, one line on stderr)."""


@dataclass(frozen=True)
class Project:
    name: str
    language: str
    set: str  # TUNING or FIRST_CONTACT (docs/advice_accuracy.md, "Two sets")
    fetcher: str  # "pip", "npm" or "apt"
    requirement: str  # what the client is asked for (apt: `package=version`)
    archive: str  # the file it downloads
    sha256: str
    top: str  # the archive's top directory (apt: the source directory inside the package)
    ignored: tuple[str, ...]  # .gitignore lines (build output, tool dirs)
    noise: Callable[[Path, Path], list[str]]  # (project dir, tools dir) -> what it added
    inner: str = ""  # a source tarball inside the package, unpacked before `top` is taken
    # the gitignored directories whose code files are sampled as Reads outside the graph
    noise_dirs: tuple[str, ...] = ()
    chosen_for: str = ""  # why it is in the bench: the shapes it brings


def _copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))


_SITE_PACKAGES = ".tox/py311/lib/python3.11/site-packages"


def _python_noise(package: str) -> Callable[[Path, Path], list[str]]:
    """What `python -m build`/`setup.py build` and tox leave in a checkout of a
    Python project whose package is the directory `package`."""
    name = package.rsplit("/", 1)[-1]

    def noise(root: Path, tools: Path) -> list[str]:
        _copy_tree(root / package, root / "build" / "lib" / name)
        _copy_tree(root / package, root / _SITE_PACKAGES / name)
        return [f"build/lib/{name}/", f"{_SITE_PACKAGES}/{name}/"]

    return noise


def _typescript_noise(build_output: str) -> Callable[[Path, Path], list[str]]:
    """The published package already holds its build output (gitignored here,
    as in the project's own repository); add an installed dev dependency, the
    pinned TypeScript compiler, in node_modules/."""

    def noise(root: Path, tools: Path) -> list[str]:
        _copy_tree(ensure_typescript(tools), root / "node_modules" / "typescript")
        return [build_output, "node_modules/typescript/"]

    return noise


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
    set: str = TUNING,
    chosen_for: str = "",
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
        noise_dirs=(noise,),
        set=set,
        chosen_for=chosen_for,
    )


def _npm(
    *,
    name: str,
    language: str,
    package: str,
    version: str,
    sha256: str,
    ignored: tuple[str, ...],
    noise: Callable[[Path, Path], list[str]],
    noise_dirs: tuple[str, ...],
    top: str = "package",
    set: str = TUNING,
    chosen_for: str = "",
) -> Project:
    """An npm package, fetched with `npm pack`; its tarball's top is `package/`."""
    return Project(
        name=name,
        language=language,
        set=set,
        fetcher="npm",
        requirement=f"{package}@{version}",
        archive=f"{package}-{version}.tgz",
        sha256=sha256,
        top=top,
        ignored=(*ignored, *_COMMON_IGNORED),
        noise=noise,
        noise_dirs=noise_dirs,
        chosen_for=chosen_for,
    )


PROJECTS: dict[str, Project] = {
    # The tuning set: the hook was developed against these (issues 10 and 23).
    "click": Project(
        name="click",
        language="python",
        set=TUNING,
        fetcher="pip",
        requirement="click==8.1.7",
        archive="click-8.1.7.tar.gz",
        sha256="ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de",
        top="click-8.1.7",
        ignored=("build/", ".tox/", "*.egg-info/", *_COMMON_IGNORED),
        noise=_python_noise("src/click"),
        noise_dirs=("build/lib", _SITE_PACKAGES),
        chosen_for="issue 10's example",
    ),
    "zod": _npm(
        name="zod",
        language="typescript",
        package="zod",
        version="4.1.12",
        sha256="2ef9d7a7d822b059c9bd21f87caa4fdc48220d437353678984df942fb67b43fa",
        ignored=("/index.*", "/v3/", "/v4/", "/v4-mini/", "/mini/", "/locales/", "node_modules/"),
        noise=_typescript_noise("v3/ v4/ v4-mini/ mini/ locales/ index.* (zod's build output)"),
        noise_dirs=("v4", "node_modules/typescript"),
        chosen_for="issue 10's example",
    ),
    # Issue 23: one project per further language of D-009's trigger set.
    "commander": _npm(
        name="commander",
        language="javascript",
        package="commander",
        version="12.1.0",
        sha256="56affc6ddafe486f94b428ae2823d059cf60d4dae2f33eaaf1b1ec4306f73173",
        ignored=("node_modules/",),
        noise=_copy_noise("node_modules/commander"),
        noise_dirs=("node_modules/commander",),
        chosen_for="issue 23",
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
        chosen_for="issue 23",
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
        chosen_for="issue 23",
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
        chosen_for="issue 23",
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
        chosen_for="issue 23",
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
        chosen_for="issue 23",
    ),
    # The first-contact set (issue 30): chosen before the hook ever ran on
    # them, for the shapes the tuning set lacks; never tuned on. Why each one:
    # `chosen_for`, and docs/advice_accuracy.md, "Two sets".
    "httpx": Project(
        name="httpx",
        language="python",
        set=FIRST_CONTACT,
        fetcher="pip",
        requirement="httpx==0.27.2",
        archive="httpx-0.27.2.tar.gz",
        sha256="f7c2be1d2f3c3c3160d441802406b206c2b76f5947b11115e6df10c6c65e66c2",
        top="httpx-0.27.2",
        ignored=("build/", ".tox/", "*.egg-info/", *_COMMON_IGNORED),
        noise=_python_noise("httpx"),
        noise_dirs=("build/lib", _SITE_PACKAGES),
        chosen_for="sync and async twins of one API (`Client.send`, `AsyncClient.send`, "
        "module-level `get`), transports overriding one method (`handle_request`), "
        "calls through objects (`self._transport.handle_request`); tests beside the code",
    ),
    "mobx": _npm(
        name="mobx",
        language="typescript",
        package="mobx",
        version="6.13.5",
        sha256="b85a7f765065c081724a7c49e91f59950151607b2f1c5a77c8ec4231f7129a1b",
        ignored=("/dist/", "node_modules/"),
        noise=_typescript_noise("dist/ (mobx's build output)"),
        noise_dirs=("dist", "node_modules/typescript"),
        set=FIRST_CONTACT,
        chosen_for="function overloads (`observe`, `intercept`: 8 signatures each), "
        "interfaces beside classes (`IObservableArray`), generics, an API called "
        "through objects (`box.get()`)",
    ),
    "ws": _npm(
        name="ws",
        language="javascript",
        package="ws",
        version="8.18.0",
        sha256="a08221f2851472c944ca0178d89a9888c7f43fbd9998afc8a7ec6fe417c4ca20",
        ignored=("node_modules/",),
        noise=_copy_noise("node_modules/ws"),
        noise_dirs=("node_modules/ws",),
        set=FIRST_CONTACT,
        chosen_for="CommonJS classes whose methods are called through objects held in "
        "fields (`this._sender.send(...)`, `websocket._socket.write`); one name on "
        "two classes (`WebSocket#send`, `Sender#send`)",
    ),
    "logrus": _debian(
        name="logrus",
        language="go",
        package="golang-github-sirupsen-logrus-dev",
        version="1.9.0-1",
        arch="all",
        sha256="51fb87b05452e96be38b97c03d5f997f6ce3a144421f911338d6c4ea2e8aa118",
        top="usr/share/gocode/src/github.com/sirupsen/logrus",
        noise="vendor/github.com/sirupsen/logrus",
        set=FIRST_CONTACT,
        chosen_for="interfaces (`Formatter`, `Hook`, `FieldLogger`) and their "
        "implementations; one name as a package function, two receivers' methods and "
        "an interface method (`Info`); build-tagged platform files",
    ),
    "bytes": _debian(
        name="bytes",
        language="rust",
        package="librust-bytes-dev",
        version="1.2.1-1",
        arch="amd64",
        sha256="86fbba5fe9d10f1eeb28944e52cfc8caa75f9a509c3603b70f8107f151744fcc",
        top="usr/share/cargo/registry/bytes-1.2.1",
        noise="target/package/bytes-1.2.1",
        set=FIRST_CONTACT,
        chosen_for="traits (`Buf`, `BufMut`) with default methods and many `impl Trait "
        "for Type` blocks defining the same methods (`remaining`, `chunk`, `advance`), "
        "macros",
    ),
    "i18n": _debian(
        name="i18n",
        language="ruby",
        package="ruby-i18n",
        version="1.10.0-2",
        arch="all",
        sha256="ad7d40173fa8b64baffd4b792eaf5a329f80f395580e79beb6c12777b6a80fa3",
        top="usr/share/rubygems-integration/all/gems/i18n-1.10.0",
        noise="vendor/bundle/ruby/3.1.0/gems/i18n-1.10.0",
        set=FIRST_CONTACT,
        chosen_for="one module reopened by 45 of its 46 files (`module I18n`, then "
        "`module Backend`), mixins (`include Base`), `class << self`, one method "
        "defined by many backends (`translate`)",
    ),
    "monolog": _debian(
        name="monolog",
        language="php",
        package="php-monolog",
        version="2.9.1-1",
        arch="all",
        sha256="f8a26688b521e33cf6ef73b75ae5eac0cb026d986a336161456dd37dbb710681",
        top="usr/share/php/Monolog",
        noise="vendor/monolog/monolog/src/Monolog",
        set=FIRST_CONTACT,
        chosen_for="interfaces (`HandlerInterface`, `FormatterInterface`) implemented "
        "by dozens of handlers, traits (`ProcessableHandlerTrait`), abstract classes, "
        "one method overridden everywhere (`handle`, `write`)",
    ),
    "cordova": _npm(  # Java: cordova-android's npm package ships its Android framework source
        name="cordova",
        language="java",
        package="cordova-android",
        version="13.0.0",
        sha256="0f5f6800ea1b174763a737459754a954b9d4bc9615c6ac56450d6c3f8ad64d3d",
        top="package/framework",
        ignored=("build/",),
        noise=_copy_noise("build/generated/source/cordova"),
        noise_dirs=("build/generated/source/cordova",),
        set=FIRST_CONTACT,
        chosen_for="interfaces and 37 anonymous classes (`new Runnable() {`, "
        "`new CordovaDialogsHelper.Result() {`), overloads (`PluginResult`: 10 "
        "constructors; `CordovaPlugin.execute`: 3), nested interfaces",
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
