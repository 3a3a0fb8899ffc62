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
* 7 no private file is written through a hard link.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import graphify_nudge
import graphify_nudge_index
from tests.hook.conftest import SESSION, Hook, context_of, git, hook_input, make_repo
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
    if built_at == "HEAD":
        built_at = git(repo, "rev-parse", "HEAD")
    _write_graph(repo, built_at, mtime=None if built_at else 1.0)
    hook = Hook(repo, repo / ".mishkan" / "telemetry")
    del hook.env["MISHKAN_TELEMETRY_DIR"]  # the default: inside the (hostile) project
    hook.env["MISHKAN_GRAPHIFY_NUDGE_CAP"] = "100"
    if index:
        del hook.env["MISHKAN_GRAPHIFY_INDEX"]
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
    del hook.env["MISHKAN_GRAPHIFY_INDEX"]  # the index, its attempt and lock are written too
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
