"""Issue 31: the untrusted repository, round three, in the hook.

A clone, a tarball with its `.git` or a PR branch is written by a stranger.
Each test builds the hostile tree as the attacker would and runs the hook as
Claude Code runs it (a fresh `python -I -S` of the file, from outside the
tree). Every case of a finding failed on 43bb0be; the few that passed there
guard what it already did (a place it only ever stat'ed, a link it never
followed, a control that shows the witness works). By the issue's findings:

* 4 the hook opens before it stats: a FIFO, a device or a terminal named
  anywhere it reads or writes (`.git`, HEAD, a ref, `gitdir:`, commondir,
  packed-refs, an object, a pack, graph.json, the index, any private file)
  is never opened;
* 5 repository text reaches the model through an allow-list;
* 6 refnames are checked as git checks them: nothing outside the git dirs is
  read, and a `.git` above the project counts only when the user owns it;
* 7 no private file is written through a hard link;
* 8 reads of repository metadata are bounded, whatever its size.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphify_nudge
import graphify_nudge_index
from tests.hook.conftest import HOOK, SESSION, Hook, context_of, git, hook_input, make_repo
from tests.hook.conftest import write_graph as _write_graph

STATE_NAME = graphify_nudge.session_file_name(SESSION)
#: a full object id that is nobody's HEAD: where it shows up, a planted file was read
PLANTED = "4402" * 10


def hostile_repo(base: Path, built_at: str | None = None, index: bool = False) -> Hook:
    """A project with one commit and a graph built at `built_at` ("HEAD": its
    HEAD); without one, an old graph, so HEAD, its ref, its commit object and
    the commit-time cache are all read. Telemetry in its default place, inside
    the project."""
    repo = make_repo(base / "repo")
    head = git(repo, "rev-parse", "HEAD")
    if built_at == "HEAD":
        built_at = head
    # a graph built at another commit (or at none) is older than HEAD: graphify
    # has not read the project since it moved, so it is stale once HEAD is read
    _write_graph(repo, built_at, mtime=None if built_at == head else 1.0)
    hook = Hook(repo, repo / ".mishkan" / "telemetry")
    del hook.env["MISHKAN_TELEMETRY_DIR"]  # the default: inside the (hostile) project
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "100"
    if index:
        hook.env.pop("MISHKAN_GRAPHIFY_INDEX", None)
    return hook


def calls(hook: Hook) -> Iterator[dict[str, Any]]:
    """A session's first calls: each reads HEAD, the graph and the private files."""
    yield hook_input(hook.repo, event="SessionStart")
    yield hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}, agent_id="a")
    yield hook_input(hook.repo, agent_id="b")  # Read src/app.py


def run(hook: Hook, data: dict[str, Any]) -> str:
    """The hook as Claude Code runs it; its advisory, or ""."""
    result = hook.subprocess(data)
    assert (result.returncode, result.stderr) == (0, b"")
    return context_of(result.stdout.decode()) if result.stdout else ""


def index_name(hook: Hook) -> str:
    return graphify_nudge._index_name(str(hook.repo / ".graphify" / "graph.json"))


# -- 4. stat before open: a FIFO, a device or a terminal is never opened ------------------


class OpenWitness:
    """Proof that nobody opened a FIFO: a thread blocked opening its other end
    (a writer where the hook would read, a reader where it would write) gets
    through only once someone opens this end, `O_NONBLOCK` or not."""

    def __init__(self, fifo: Path, hook_writes: bool) -> None:
        self.fifo = fifo
        self.fd: int | None = None
        self.mode = os.O_RDONLY if hook_writes else os.O_WRONLY
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()
        self.thread.join(0.2)  # blocked in open(2) by now

    def _wait(self) -> None:
        try:
            self.fd = os.open(self.fifo, self.mode)
        except OSError:
            pass

    def opened(self) -> bool:
        self.thread.join(0.5)
        return not self.thread.is_alive()

    def close(self) -> None:
        if self.thread.is_alive():
            release = os.open(self.fifo, os.O_RDWR)  # both ends at once: never blocks (Linux)
            self.thread.join(5)
            os.close(release)
        if self.fd is not None:
            os.close(self.fd)


def _swap(path: Path, outside: Path, link: bool) -> Path:
    """Put a FIFO at `path` (or a link there to one outside the project); the FIFO."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    fifo = outside / f"fifo-{path.name}" if link else path
    os.mkfifo(fifo)
    if link:
        path.symlink_to(fifo)
    return fifo


def _object(hook: Hook) -> Path:
    sha = git(hook.repo, "rev-parse", "HEAD")
    return hook.repo / ".git" / "objects" / sha[:2] / sha[2:]


def _packed(suffix: str) -> Callable[[Hook], Path]:
    def where(hook: Hook) -> Path:
        git(hook.repo, "gc", "-q", "--prune=now")  # every object in one pack
        return next((hook.repo / ".git" / "objects" / "pack").glob(f"*{suffix}"))

    return where


def _packed_refs(hook: Hook) -> Path:
    git(hook.repo, "pack-refs", "--all")  # refs/heads/main only in packed-refs
    return hook.repo / ".git" / "packed-refs"


def _gitdir_head(hook: Hook) -> Path:
    """`.git` a file naming the git dir elsewhere (a submodule's, a worktree's)."""
    elsewhere = hook.repo.parent / "elsewhere.git"
    (hook.repo / ".git").rename(elsewhere)
    (hook.repo / ".git").write_text(f"gitdir: {elsewhere}\n")
    return elsewhere / "HEAD"


def _commondir(hook: Hook) -> Path:
    """A linked worktree, the project: its git dir's `commondir` names the main `.git`."""
    main = hook.repo.parent / "main"
    hook.repo.rename(main)
    git(main, "worktree", "add", "-q", "-b", "wt", str(hook.repo))
    _write_graph(hook.repo, None, mtime=1.0)
    return main / ".git" / "worktrees" / hook.repo.name / "commondir"


#: every place the hook reads or writes, and how to make the hook reach it:
#: (path, whether the hook writes there, index on)
PLACES: dict[str, tuple[Callable[[Hook], Path], bool, bool]] = {
    ".git": (lambda h: h.repo / ".git", False, False),
    "HEAD": (lambda h: h.repo / ".git" / "HEAD", False, False),
    "gitdir HEAD": (_gitdir_head, False, False),
    "commondir": (_commondir, False, False),
    "loose ref": (lambda h: h.repo / ".git" / "refs" / "heads" / "main", False, False),
    "packed-refs": (_packed_refs, False, False),
    "loose object": (_object, False, False),
    "pack index": (_packed(".idx"), False, False),
    "pack": (_packed(".pack"), False, False),
    "HEAD reflog": (lambda h: h.repo / ".git" / "logs" / "HEAD", False, False),
    "graph.json": (lambda h: h.repo / ".graphify" / "graph.json", False, True),
    "index": (lambda h: h.telemetry / ".index" / f"{index_name(h)}.idx", False, True),
    "index attempt": (lambda h: h.telemetry / ".index" / f"{index_name(h)}.attempt", False, True),
    "commit times": (lambda h: h.telemetry / ".state" / ".commit-times.json", False, False),
    "session state": (lambda h: h.telemetry / ".state" / f"{STATE_NAME}.json", False, False),
    "event log": (lambda h: h.telemetry / f"{STATE_NAME}.jsonl", True, False),
}  # fmt: skip


@pytest.mark.parametrize("link", [False, True], ids=["fifo", "link_to_fifo"])
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_fifo_or_a_link_to_one_is_never_opened(tmp_path: Path, place: str, link: bool) -> None:
    """Issue 31 finding 4: the git reader opened whatever `.git` named (a HEAD
    link, `ref:`, `gitdir:`, commondir) and checked the type after open(2), as
    the private files did: a serial port named there is opened and closed on
    every call (its DTR toggles, resetting a board). A FIFO with a writer
    blocked on it is the witness: an open of any kind lets the writer through."""
    where, writes, index = PLACES[place]
    hook = hostile_repo(tmp_path, index=index)
    if place in ("index", "graph.json"):
        graphify_nudge_index.build_graph_index(hook.environ(), str(hook.repo))
    outside = tmp_path / "outside"
    outside.mkdir()
    witness = OpenWitness(_swap(where(hook), outside, link), writes)
    try:
        for data in calls(hook):
            run(hook, data)
        assert not witness.opened(), place
    finally:
        witness.close()


def _traced_opens(hook: Hook, data: dict[str, Any], log: Path) -> str:
    """strace's record of every open(2) of one real hook call, each returned
    descriptor decorated with the file it is (`-y`: `= 3</dev/zero>`)."""
    command = ["strace", "-f", "-y", "-qq", "-e", "trace=/^open", "-o", str(log),
               sys.executable, "-I", "-S", str(HOOK)]  # fmt: skip
    result = subprocess.run(
        command,
        input=json.dumps(data).encode(),
        capture_output=True,
        env=hook.env,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    return log.read_text()


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    probe = subprocess.run(
        ["strace", "-qq", "-o", os.devnull, "true"], capture_output=True, check=False
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _strace_works(), reason="strace is not installed or cannot trace here")
@pytest.mark.parametrize("device", ["regular", "/dev/zero", "tty"])
@pytest.mark.parametrize("place", ["HEAD", "loose ref", "packed-refs", "loose object", ".git"])
def test_a_device_named_in_git_metadata_is_never_opened(
    tmp_path: Path, place: str, device: str
) -> None:
    """Issue 31 finding 4 with real character devices: `/dev/zero`, and a
    terminal (the slave of a pseudo-terminal, as a serial port is one). strace
    shows every open(2) of the call; `regular` (a link to a regular file
    outside the git dir) shows the trace would catch the open. (Only `.git`
    may be a link: a git dir reached through one is still a git dir.)"""
    hook = hostile_repo(tmp_path)
    target = tmp_path / "outside.txt"
    target.write_text(PLANTED + "\n")
    master = slave = -1
    if device == "tty":
        master, slave = os.openpty()
        target = Path(os.ttyname(slave))
    elif device != "regular":
        target = Path(device)
    path = PLACES[place][0](hook)
    if place == ".git":
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(target)
    try:
        data = hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"})
        trace = _traced_opens(hook, data, tmp_path / "strace.log")
    finally:
        for fd in (master, slave):
            if fd >= 0:
                os.close(fd)
    opened = f"<{target}>" in trace
    assert opened == (device == "regular" and place == ".git"), trace


# -- 6. refnames as git checks them; nothing outside the git dirs ------------------------

#: HEAD's `ref:` values git refuses (`git check-ref-format`), each with the
#: place the hook of 43bb0be read for it: a planted sha there became "HEAD".
HOSTILE_REFS = [
    "../../outside", "refs/../../../outside", "/outside/abs", "logs/planted",
    "refs/heads/x.lock", "refs/heads/.hidden", "refs/heads/a..b", "refs/heads/x@{1}",
    "refs/heads/x~1", "refs/heads/x^2", "refs/heads/x:y", "refs/heads/x?", "refs/heads/x*",
    "refs/heads/x[y", "refs/heads/x\\y", "refs/heads/x y", "refs/heads/x.", "refs/heads//x",
    "refs/heads/x\x01", "refs/heads/x\x7f",
]  # fmt: skip


@pytest.mark.parametrize("ref", HOSTILE_REFS)
def test_a_refname_git_refuses_reads_nothing(tmp_path: Path, ref: str) -> None:
    """Issue 31 finding 6: HEAD's `ref: ../../…` was joined to the git dir
    unchecked: any readable file was opened on every call, and a sha in it
    reached the model as "HEAD is now 4402440". HEAD is now unknown."""
    hook = hostile_repo(tmp_path, built_at="HEAD")
    git_dir = hook.repo / ".git"
    planted = Path(os.path.normpath(f"{git_dir}/{ref}"))
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text(PLANTED + "\n")
    (git_dir / "HEAD").write_text(f"ref: {ref}\n")
    text = run(hook, hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}))
    assert PLANTED[:7] not in text
    assert hook.calls()[-1]["stale_by"] != "commit"
    assert graphify_nudge.resolve_head(str(hook.repo)) is None


def test_a_file_outside_the_git_dirs_is_never_opened(tmp_path: Path) -> None:
    """...and the file `ref: ../../outside` names is not even opened."""
    hook = hostile_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (hook.repo / ".git" / "HEAD").write_text("ref: ../../outside/fifo\n")
    witness = OpenWitness(_swap(outside / "fifo", outside, link=False), hook_writes=False)
    try:
        for data in calls(hook):
            run(hook, data)
        assert not witness.opened()
    finally:
        witness.close()


@pytest.mark.parametrize(
    "head", ["short", "uppercase_ref", "link"], ids=["detached_short", "ref_not_under_refs", "link"]
)
def test_a_head_git_would_not_read_is_unknown(tmp_path: Path, head: str) -> None:
    """A detached HEAD must be a full object id (the hook of 43bb0be took 7
    hex digits), a symbolic one must name a ref under `refs/`, and HEAD itself
    is a file, not a link to one outside the git dir."""
    hook = hostile_repo(tmp_path, built_at="HEAD")
    git_dir = hook.repo / ".git"
    (git_dir / "HEAD").unlink()
    if head == "short":
        (git_dir / "HEAD").write_text(PLANTED[:12] + "\n")
    elif head == "uppercase_ref":
        (git_dir / "ORIG_HEAD").write_text(PLANTED + "\n")
        (git_dir / "HEAD").write_text("ref: ORIG_HEAD\n")
    else:
        (tmp_path / "outside").write_text(PLANTED + "\n")
        (git_dir / "HEAD").symlink_to(tmp_path / "outside")
    text = run(hook, hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}))
    assert PLANTED[:7] not in text.lower()
    assert hook.calls()[-1]["stale_by"] != "commit"
    assert graphify_nudge.resolve_head(str(hook.repo)) is None


_REFNAME_CHARS = st.sampled_from([*"ab/.-_@{}~^:?*[\\ \x01\x7f\u00e9", "..", ".lock", "/."])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_REFNAME_CHARS, max_size=12).map("".join))
def test_refnames_are_checked_as_git_checks_them(tail: str) -> None:
    """`_is_refname` says what `git check-ref-format` says (git is the ground
    truth), for every name under `refs/`."""
    ref = "refs/" + tail
    git_says = subprocess.run(["git", "check-ref-format", ref], capture_output=True, check=False)
    assert graphify_nudge._is_refname(ref) == (git_says.returncode == 0), ascii(ref)


def test_a_reftable_repository_has_an_unknown_head(tmp_path: Path) -> None:
    """Git 3.0's default ref storage: HEAD names `refs/heads/.invalid` and
    `refs/heads` is a file, so tools that read loose refs find nothing (the
    layout `git init --ref-format=reftable` writes; this git predates it)."""
    repo = make_repo(tmp_path / "repo")
    git_dir = repo / ".git"
    shutil.rmtree(git_dir / "refs")
    (git_dir / "refs").mkdir()
    (git_dir / "refs" / "heads").write_text("this repository uses the reftable format\n")
    (git_dir / "reftable").mkdir()
    (git_dir / "reftable" / "tables.list").write_text("")
    (git_dir / "HEAD").write_text("ref: refs/heads/.invalid\n")
    assert graphify_nudge.resolve_head(str(repo)) is None


def _owned_by_another_user(path: Path) -> None:
    os.chown(path, 65534, 65534, follow_symlinks=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user's takes root")
@pytest.mark.parametrize("owner", ["another_user", "this_user"])
def test_a_git_dir_above_the_project_counts_only_when_the_user_owns_it(
    tmp_path: Path, owner: str
) -> None:
    """CVE-2022-24765's shape: another local user's `.git` in a directory above
    the project (a shared `/tmp/.git`) was taken for the project's repository,
    its HEAD and refs read on every call. Git's `safe.directory` rule: a `.git`
    above the project counts when this user owns it, the directory holding it
    and its git dir (a monorepo's subproject), else HEAD is unknown."""
    shared = make_repo(tmp_path / "shared")
    project = shared / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def apply_overlay(x):\n    return x\n")
    _write_graph(project, PLANTED, mtime=1.0)  # built at another commit: stale, when HEAD is read
    if owner == "another_user":
        _owned_by_another_user(shared / ".git")
        _owned_by_another_user(shared)
    hook = Hook(project, tmp_path / "telemetry")
    run(hook, hook_input(project, "Grep", {"pattern": "apply_overlay"}))
    head = graphify_nudge.resolve_head(str(project))
    if owner == "another_user":
        assert head is None
        assert hook.calls()[-1]["stale_by"] != "commit"  # no commit it could not read
    else:
        assert head == git(shared, "rev-parse", "HEAD")
        assert hook.calls()[-1]["stale_by"] == "commit"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user's takes root")
def test_the_projects_own_git_dir_is_read_whoever_owns_it(tmp_path: Path) -> None:
    """The project root is the user's choice (a container's root user on a
    bind-mounted checkout owned by uid 1000): its own `.git` is read."""
    hook = hostile_repo(tmp_path, built_at=PLANTED)
    head = git(hook.repo, "rev-parse", "HEAD")  # before: git refuses "dubious ownership"
    for path in (hook.repo, hook.repo / ".git"):
        _owned_by_another_user(path)
    assert graphify_nudge.resolve_head(str(hook.repo)) == head


# -- 5. repository text reaches the model through an allow-list -------------------------

#: letters that read as marks: Canadian Syllabics `<` `>`, a double prime, a
#: grave, a dental click (a pipe) and the invisible Hangul filler
LOOKALIKES = ["\u1438", "\u1433", "\u02ba", "\u02cb", "\u01c0", "\u3164"]


@pytest.mark.parametrize("char", LOOKALIKES, ids=[f"U+{ord(c):04X}" for c in LOOKALIKES])
@pytest.mark.parametrize("tool", ["Read", "Bash"])
def test_a_lookalike_in_a_file_name_never_reaches_the_model(
    tmp_path: Path, char: str, tool: str
) -> None:
    """Issue 31 finding 5: `_quote` and `_plain` passed every non-ASCII letter,
    so `\u1438/system-reminder\u1433` reached the model raw. Only ASCII letters, digits
    and a few marks (`_SHOWN`) are shown; a name with anything else gets no
    command at all (`unquotable`)."""
    hook = hostile_repo(tmp_path, built_at=None)
    path = hook.repo / "src" / f"{char}system-reminder{char}" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text("x = 1\n")
    tool_input = {"file_path": str(path)} if tool == "Read" else {"command": f"cat '{path}'"}
    text = run(hook, hook_input(hook.repo, tool, tool_input))
    assert hook.calls()[-1]["trigger"] is True  # judged, and advised if at all without it
    assert char not in text


@pytest.mark.parametrize("char", LOOKALIKES, ids=[f"U+{ord(c):04X}" for c in LOOKALIKES])
def test_the_index_stores_no_lookalike_and_the_model_sees_none(tmp_path: Path, char: str) -> None:
    """The builder stores only what `_plain` allows (the check the hook makes on
    read), so a graph that keeps a look-alike directory gives no such site."""
    hook = hostile_repo(tmp_path, built_at=None, index=True)
    source = f"src/{char}system-reminder{char}/x.py"
    # the lines the builder checks each definition against
    (hook.repo / "src" / "a.py").write_text("\n\ndef lookup():\n    pass\n")
    (hook.repo / source).parent.mkdir(parents=True)
    (hook.repo / source).write_text("\n\n\ndef lookup():\n    pass\n")
    nodes = [{"id": "a", "label": "lookup()", "file_type": "code", "source_file": "src/a.py",
              "source_location": "L3"},
             {"id": "b", "label": "lookup()", "file_type": "code", "source_file": source,
              "source_location": "L4"}]  # fmt: skip
    graph = {"directed": True, "graph": {"graphify_version": "0.9.96"}, "nodes": nodes,
             "links": [], "hyperedges": []}  # fmt: skip
    (hook.repo / ".graphify" / "graph.json").write_text(json.dumps(graph))
    assert graphify_nudge_index.build_graph_index(hook.environ(), str(hook.repo)) == "built"
    text = run(hook, hook_input(hook.repo, "Grep", {"pattern": "lookup"}))
    assert '"src/a.py:3"' in text and char not in text
    index = hook.telemetry / ".index" / f"{index_name(hook)}.idx"
    assert b"system-reminder" not in index.read_bytes()  # raw or JSON-escaped


# -- 7. no private file is written through a hard link -------------------------------------


def _tarball(attacker: Path, victim: Path) -> None:
    """The attacker's tree as a tarball carries it (GNU tar keeps hard links),
    extracted where the victim works."""
    archive = attacker.parent / "evil.tar"
    subprocess.run(["tar", "-cf", str(archive), "-C", str(attacker), "."], check=True)
    victim.mkdir()
    subprocess.run(["tar", "-xf", str(archive), "-C", str(victim)], check=True)


#: the private files a tarball can ship as hard links to the project's source
LINKED = {
    "commit times": ".mishkan/telemetry/.state/.commit-times.json",
    "session state": f".mishkan/telemetry/.state/{STATE_NAME}.json",
    "event log": f".mishkan/telemetry/{STATE_NAME}.jsonl",
    "index attempt": ".mishkan/telemetry/.index/{index}.attempt",
    "index lock": ".mishkan/telemetry/.index/{index}.lock",
}


@pytest.mark.parametrize("private", sorted(LINKED))
def test_a_private_file_hard_linked_to_source_never_writes_it(tmp_path: Path, private: str) -> None:
    """Issue 31 finding 7: a tarball shipping `.state/.commit-times.json` as a
    hard link to `src/app.py` got that source file overwritten on the first
    Read (the state was rewritten in place, the event log appended to). A file
    with a second link is never written; one whose name a repository can plant
    is replaced whole, the link and not its other name."""
    attacker = tmp_path / "attacker"
    victim = tmp_path / "victim"
    make_repo(attacker)
    _write_graph(attacker, None, mtime=1.0)  # no built_at_commit: the commit-time cache is used
    name = graphify_nudge._index_name(str(victim / ".graphify" / "graph.json"))  # guessed
    linked = attacker / LINKED[private].format(index=name)
    linked.parent.mkdir(parents=True, exist_ok=True)
    os.link(attacker / "src" / "app.py", linked)
    _tarball(attacker, victim)
    source = victim / "src" / "app.py"
    assert source.stat().st_nlink == 2  # extracted as a hard link
    before = source.read_bytes()
    hook = Hook(victim, victim / ".mishkan" / "telemetry")
    del hook.env["MISHKAN_TELEMETRY_DIR"]
    hook.env.pop("MISHKAN_GRAPHIFY_INDEX", None)  # the index, its attempt and lock are written too
    for data in calls(hook):
        run(hook, data)
    attempt = victim / LINKED["index attempt"].format(index=name)
    for _ in range(100):  # the detached builder: it locks, builds and records its outcome
        outcome = attempt.read_bytes().split(b"\t")[-1] if attempt.is_file() else b""
        if outcome == b"built" or outcome.startswith(b"failed"):
            break
        threading.Event().wait(0.1)
    assert source.read_bytes() == before


def test_writes_refuse_a_hard_link_made_after_the_open(tmp_path: Path) -> None:
    """`_rewrite` checks the link count again on the descriptor it writes."""
    directory = tmp_path / "d"
    directory.mkdir()
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        fd = graphify_nudge._open_private("s.json", dir_fd, os.O_RDWR)
        os.link(directory / "s.json", tmp_path / "victim")
        assert not graphify_nudge._rewrite(fd, b"{}")
        os.close(fd)
        with pytest.raises(OSError):
            graphify_nudge._open_private("s.json", dir_fd, os.O_RDWR)
    finally:
        os.close(dir_fd)
    assert (tmp_path / "victim").read_bytes() == b""


def test_a_file_swapped_between_stat_and_open_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fstat` after the open: what was opened is what was stat'ed."""
    regular = tmp_path / "f"
    regular.write_text("x")

    class Swapping:
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        @staticmethod
        def open(path: str, flags: int, *args: Any, **kwargs: Any) -> int:
            os.replace(tmp_path / "other", regular)
            return os.open(path, flags, *args, **kwargs)

    (tmp_path / "other").write_text("y")
    monkeypatch.setattr(graphify_nudge, "posix", Swapping())
    assert graphify_nudge._read_file(str(regular)) is None


# -- 8. reads of repository metadata are bounded, whatever its size -------------------------


#: starts the hook and reports its peak memory (`wait4`): from a small process,
#: since a child's peak counts the pages it shared with its parent before exec
_MEASURE = (
    "import os,subprocess,sys;p=subprocess.Popen(sys.argv[1:]);"
    "r=os.wait4(p.pid,0);sys.stderr.write(str(r[2].ru_maxrss));sys.exit(r[1]>>8)"
)


def _measured(hook: Hook, data: dict[str, Any]) -> tuple[str, int]:
    """(advisory, peak resident KiB) of one real hook process."""
    command = [sys.executable, "-I", "-S", "-c", _MEASURE, sys.executable, "-I", "-S", str(HOOK)]
    result = subprocess.run(
        command, input=json.dumps(data).encode(), capture_output=True, env=hook.env, check=True
    )
    printed = result.stdout.decode()
    return (context_of(printed) if printed else ""), int(result.stderr)


def _huge_packed_refs(repo: Path, sorted_trait: bool) -> None:
    """59 MiB of packed-refs (970,000 refs), `refs/heads/main` last, no loose ref."""
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "pack-refs", "--all")
    traits = "peeled fully-peeled sorted " if sorted_trait else "peeled "
    lines = [f"# pack-refs with: {traits}\n"]
    lines += (f"{i:040x} refs/archive/{i:09d}\n" for i in range(970_000))
    lines.append(f"{head} refs/heads/main\n")
    (repo / ".git" / "packed-refs").write_text("".join(lines))


@pytest.mark.parametrize("sorted_trait", [True, False], ids=["sorted", "unsorted"])
def test_a_huge_packed_refs_costs_a_call_bounded_memory(tmp_path: Path, sorted_trait: bool) -> None:
    """Issue 31 finding 8: a 59 MiB packed-refs was read whole and copied twice
    on every call (113 MiB, about 150 ms). A sorted one (what git writes) is
    bisected: HEAD is still found; an unsorted one is scanned for its first
    MiB only: HEAD is unknown, never guessed."""
    hook = hostile_repo(tmp_path, built_at=PLANTED)  # built elsewhere: stale once HEAD is read
    _huge_packed_refs(hook.repo, sorted_trait)
    assert (hook.repo / ".git" / "packed-refs").stat().st_size > 59 << 20
    _, peak = _measured(hook, hook_input(hook.repo, "Grep", {"pattern": "apply_overlay"}))
    assert peak < 40 << 10  # KiB: a bare interpreter's ~10 MiB, never the file's 59
    head = graphify_nudge.resolve_head(str(hook.repo))
    if sorted_trait:
        assert head == git(hook.repo, "rev-parse", "HEAD")
        assert hook.calls()[-1]["stale_by"] == "commit"
    else:
        assert head is None


def test_sorted_packed_refs_answer_as_git_does(tmp_path: Path) -> None:
    """Every ref of a packed-refs git wrote (3,000 branches, annotated tags
    with their peeled lines), found by the binary search as `git rev-parse`
    finds it; a missing one is not found."""
    repo = make_repo(tmp_path / "repo")
    commands = "".join(f"create refs/heads/b{i:04d} HEAD\n" for i in range(3000))
    subprocess.run(["git", "-C", str(repo), "update-ref", "--stdin"], input=commands.encode(),
                   check=True)  # fmt: skip
    for tag in ("v1", "v2", "zz"):
        git(repo, "tag", "-a", "-m", tag, tag)
    git(repo, "pack-refs", "--all")
    packed = (repo / ".git" / "packed-refs").read_text()
    assert "sorted" in packed.splitlines()[0] and "\n^" in packed
    common = str(repo / ".git")
    refs = [line.split(" ")[1] for line in packed.splitlines()[1:] if not line.startswith("^")]
    for ref in refs[::97] + refs[-3:] + ["refs/heads/main"]:
        assert graphify_nudge._packed_ref(common, ref) == git(repo, "rev-parse", ref), ref
    for missing in ("refs/heads/b0000x", "refs/heads/a", "refs/tags/zzz", "refs/zzzz"):
        assert graphify_nudge._packed_ref(common, missing) is None
